"""Timed holds, on moto: what bounds one shopper beyond a hold's cap. After a hold's window (its cap) the
shopper cannot hold that product again for STOCK_HOLD_COOLDOWN_SECONDS, so asking again and again does not
keep it from others; and one account holds at most STOCK_HOLD_MAX_UNITS_PER_SHOPPER units over every product,
an allowance that releases, ended holds and orders give back."""
import time
from decimal import Decimal

import pytest

from catalog.gateway import LineProblem, PurchaseLine
from catalog.gateway.dynamo.testing import count_requests
from catalog.gateway.errors import OrderRejected
from catalog.gateway.stock.holds import holds_release, holds_take
from catalog.gateway.stock.releases import holds_release_ended
from shop.messages import line_problem_text
from tests.helpers import age_hold, age_hold_cap, level, place, units_counted

PRICES = {"1": "39990.00", "4": "899.00", "5": "1399.99", "7": "29.90", "8": "9999.00"}


@pytest.fixture
def holds_on(settings, catalog):
    settings.STOCK_HOLD_SECONDS = 600
    settings.STOCK_HOLD_MAX_SECONDS = 1200
    settings.STOCK_HOLD_COOLDOWN_SECONDS = 1200
    settings.STOCK_HOLD_MAX_UNITS = 5
    settings.STOCK_HOLD_MAX_UNITS_PER_SHOPPER = 8
    return settings


def line(product_id, quantity=1):
    return PurchaseLine(product_id=product_id, quantity=quantity, price=Decimal(PRICES[product_id]))


def kinds(refused):
    return [p.kind for p in refused.value.problems]


# --- the cool-down after a hold's cap ----------------------------------------------------------

def test_five_cap_cycles_in_a_row_do_not_keep_a_product_held(holds_on):
    """Ann holds the last Acme Roadster and asks again at once whenever her hold reaches its cap: each time
    the unit goes back on sale for the whole cool-down, and Bob can hold (and in the end buy) it."""
    for cycle in range(5):
        holds_take(customer_id="ann", lines=[line("8")])  # a fresh window
        assert level("8") == 0
        age_hold("ann", "8", 1300)  # past its cap; the release job has not run
        with pytest.raises(OrderRejected) as refused:
            holds_take(customer_id="ann", lines=[line("8")])
        assert kinds(refused) == [LineProblem.ENDED]  # released: back on sale
        with pytest.raises(OrderRejected) as refused:  # and at once again: not held for her
            holds_take(customer_id="ann", lines=[line("8")])
        assert kinds(refused) == [LineProblem.COOLING] and level("8") == 1, cycle
        assert refused.value.problems[0].until >= time.time() + 1000  # her cap was 100 s ago
        bob = holds_take(customer_id="bob", lines=[line("8")])["8"]  # someone else holds it meanwhile
        assert bob.quantity == 1 and level("8") == 0
        if cycle < 4:
            holds_release(customer_id="bob", product_ids=["8"])
            age_hold_cap("ann", "8", 1200)  # ann's cool-down is over
    order = place("bob", [line("8")])
    assert [ol.product_id for ol in order.lines] == ["8"] and level("8") == 0


def test_the_cool_down_ends_and_the_shopper_may_hold_again(holds_on):
    holds_take(customer_id="ann", lines=[line("7", 2)])
    age_hold("ann", "7", 1300)
    assert holds_release_ended().holds == 1  # the release job: the window's cool-down starts at its cap
    with pytest.raises(OrderRejected) as refused:
        holds_take(customer_id="ann", lines=[line("7", 2)])
    assert kinds(refused) == [LineProblem.COOLING] and level("7") == 40
    assert refused.value.problems[0].until == pytest.approx(time.time() - 100 + 1200, abs=5)
    age_hold_cap("ann", "7", 1000)  # 100 s of it left
    with pytest.raises(OrderRejected):
        holds_take(customer_id="ann", lines=[line("7", 2)])
    age_hold_cap("ann", "7", 101)
    assert holds_take(customer_id="ann", lines=[line("7", 2)])["7"].quantity == 2 and level("7") == 38


def test_a_release_just_before_the_cap_cools_down_too(holds_on):
    """Cancelling a second before the cap and holding again after it would start a fresh window."""
    holds_take(customer_id="ann", lines=[line("8")])
    age_hold("ann", "8", 1199)
    holds_release(customer_id="ann", product_ids=["8"])
    age_hold_cap("ann", "8", 2)  # the cap passed a second ago
    with pytest.raises(OrderRejected) as refused:
        holds_take(customer_id="ann", lines=[line("8")])
    assert kinds(refused) == [LineProblem.COOLING] and level("8") == 1


def test_a_cooling_product_can_still_be_bought_without_a_hold(holds_on):
    holds_take(customer_id="ann", lines=[line("8")])
    age_hold("ann", "8", 1300)
    holds_release_ended()
    with pytest.raises(OrderRejected):
        holds_take(customer_id="ann", lines=[line("8")])
    place("ann", [line("8")])
    assert level("8") == 0


def test_a_hold_asks_dynamodb_as_often_with_the_limits(holds_on):
    """The cool-down and the count of units come with the holds' BatchGetItem and go in the hold's
    transaction: one read of the holds, one of the products, one transaction."""
    with count_requests() as counter:
        holds_take(customer_id="ann", lines=[line("7", 2), line("4")])
    assert counter.operations == ["BatchGetItem", "BatchGetItem", "TransactWriteItems"]
    holds_release(customer_id="ann", product_ids=["7"])
    with count_requests() as counter:  # a window read: its check is one more action, not one more request
        holds_take(customer_id="ann", lines=[line("7", 2), line("4")])
    assert counter.operations == ["BatchGetItem", "BatchGetItem", "TransactWriteItems"]


# --- units held by one account over every product ------------------------------------------------

def test_one_account_cannot_hold_more_than_its_allowance_over_several_products(holds_on):
    holds_take(customer_id="ann", lines=[line("7", 5), line("4", 3)])  # 8: the allowance
    with pytest.raises(OrderRejected) as refused:  # another product in another cart: one more
        holds_take(customer_id="ann", lines=[line("5")])
    assert kinds(refused) == [LineProblem.TOTAL] and level("5") == 5
    assert "at most 8 units for one shopper over all products" in line_problem_text(refused.value.problems[0])
    with pytest.raises(OrderRejected) as refused:  # nor grown beside the others
        holds_take(customer_id="ann", lines=[line("7", 5), line("4", 3), line("1")])
    assert kinds(refused) == [LineProblem.TOTAL] and (level("7"), level("4"), level("1")) == (35, 9, 70)
    holds_take(customer_id="ann", lines=[line("7", 5), line("4", 3)])  # a renewal is no more units
    holds_take(customer_id="bob", lines=[line("5", 2)])  # another account has its own allowance
    assert level("5") == 3


def test_releasing_and_ordering_give_the_allowance_back(holds_on):
    holds_take(customer_id="ann", lines=[line("7", 5), line("4", 3)])
    assert holds_release(customer_id="ann", product_ids=["7"]) == 5
    assert holds_take(customer_id="ann", lines=[line("5", 5)])["5"].quantity == 5  # 3 + 5
    place("ann", [line("4", 3)])  # the order takes the held units: they leave the count
    assert holds_take(customer_id="ann", lines=[line("1", 3)])["1"].quantity == 3  # 5 + 3
    holds_take(customer_id="ann", lines=[line("1", 2)])  # a shrinking hold gives units back too
    age_hold("ann", "5", 700)  # ended (not at its cap): the release job gives them back
    assert holds_release_ended().holds == 1
    assert holds_take(customer_id="ann", lines=[line("7", 5), line("1", 2)])["7"].quantity == 5  # 2 + 5
    assert units_counted("ann") == 7
    with pytest.raises(OrderRejected) as refused:
        holds_take(customer_id="ann", lines=[line("4", 2)])
    assert kinds(refused) == [LineProblem.TOTAL]
