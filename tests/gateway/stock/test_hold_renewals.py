"""Timed holds, on moto: renewing a hold (asking to hold again) never pushes its end past
STOCK_HOLD_MAX_SECONDS after it was first taken; a hold that ended at that cap is released, others can hold
or buy its units, and the shopper cannot hold that product again for STOCK_HOLD_COOLDOWN_SECONDS; units a
shrinking hold gives back are due to alerts."""
import time
from decimal import Decimal

import pytest
from django.core import mail

from catalog import gateway
from catalog.gateway import LineProblem, PurchaseLine, keys
from catalog.gateway.alerts import alerts_due, asking
from catalog.gateway.errors import OrderRejected
from catalog.gateway.stock.holds import holds_of, holds_take
from catalog.gateway.stock.releases import holds_released
from shop.messages import line_problem_text
from shop.stock_alerts import send_due_alerts
from tests.helpers import age_hold, age_hold_cap, level


@pytest.fixture
def holds_on(settings, catalog):
    settings.STOCK_HOLD_SECONDS = 600
    settings.STOCK_HOLD_MAX_SECONDS = 1200
    settings.STOCK_HOLD_COOLDOWN_SECONDS = 1200
    settings.STOCK_HOLD_MAX_UNITS = 5


def line(quantity=1, product_id="7"):
    return PurchaseLine(product_id=product_id, quantity=quantity, price=Decimal("29.90"))


def roadster():
    return PurchaseLine(product_id="8", quantity=1, price=Decimal("9999.00"))  # Acme Roadster: the last one


def test_renewals_stop_at_the_cap(holds_on):
    first = holds_take(customer_id="ann", lines=[line(2)])["7"]
    assert not first.final()
    age_hold("ann", "7", 500)  # opened 500 s ago: 100 s left
    renewed = holds_take(customer_id="ann", lines=[line(2)])["7"]
    assert renewed.until >= int(time.time()) + 599 and not renewed.final()  # a full renewal: 600 s again
    age_hold("ann", "7", 400)  # opened 900 s ago: the cap is 300 s away
    capped = holds_take(customer_id="ann", lines=[line(2)])["7"]
    assert capped.final() and capped.until == capped.latest_end() and capped.until <= int(time.time()) + 300
    assert capped.held_at == holds_of(customer_id="ann", product_ids=["7"])["7"].held_at
    again = holds_take(customer_id="ann", lines=[line(2)])["7"]  # a reload: no further
    assert again.until == capped.until and holds_of(customer_id="ann", product_ids=["7"])["7"].until == capped.until
    assert level("7") == 38  # still held: the shopper can pay until it ends


def test_more_units_after_the_cap_end_with_the_hold(holds_on):
    holds_take(customer_id="ann", lines=[line(2)])
    age_hold("ann", "7", 1000)
    capped = holds_take(customer_id="ann", lines=[line(2)])["7"]
    grown = holds_take(customer_id="ann", lines=[line(3)])["7"]  # the cart grew (another device)
    assert (grown.quantity, grown.until) == (3, capped.until) and level("7") == 37
    assert grown.until <= int(time.time()) + 200  # 1,200 s after the first hold, not 600 s from now


def test_another_product_added_after_the_cap_is_held_from_now(holds_on):
    holds_take(customer_id="ann", lines=[line(2)])
    age_hold("ann", "7", 1000)
    held = holds_take(customer_id="ann", lines=[line(2), roadster()])
    assert held["7"].final() and not held["8"].final() and held["8"].until > held["7"].until


def test_a_hold_ended_at_its_cap_is_released_and_the_shopper_queues_again(holds_on):
    holds_take(customer_id="ann", lines=[roadster()])
    age_hold("ann", "8", 1300)  # ended 100 s after its cap (the release job has not run yet)
    with pytest.raises(OrderRejected) as refused:
        holds_take(customer_id="ann", lines=[roadster()])
    assert [p.kind for p in refused.value.problems] == [LineProblem.ENDED]
    assert "Your hold on Acme Roadster ended" in line_problem_text(refused.value.problems[0])
    assert "20\xa0minutes" in line_problem_text(refused.value.problems[0])
    assert level("8") == 1 and holds_of(customer_id="ann", product_ids=["8"]) == {}  # back on sale
    assert [(r.customer_id, r.why) for r in holds_released(product_id="8")] == [("ann", "ended")]
    assert any(d.product_id == "8" for s in range(keys.ALERT_SHARDS) for d in alerts_due(shard=s))
    holds_take(customer_id="bob", lines=[roadster()])  # someone else was quicker
    with pytest.raises(OrderRejected) as refused:
        holds_take(customer_id="ann", lines=[roadster()])
    assert [p.kind for p in refused.value.problems] == [LineProblem.SHORT, LineProblem.COOLING]


def test_after_the_cool_down_a_new_hold_starts_a_new_cap(holds_on):
    first = holds_take(customer_id="ann", lines=[line(2)])["7"]
    age_hold("ann", "7", 1300)
    with pytest.raises(OrderRejected):
        holds_take(customer_id="ann", lines=[line(2)])
    age_hold_cap("ann", "7", 1200)  # the cool-down after the cap is over
    new = holds_take(customer_id="ann", lines=[line(2)])["7"]  # the units were still there
    assert new.held_at > first.held_at and new.until >= int(time.time()) + 599 and not new.final()
    assert level("7") == 38


def test_a_hold_ended_before_its_cap_is_still_renewed_to_the_cap(holds_on):
    holds_take(customer_id="ann", lines=[line(1)])
    age_hold("ann", "7", 900)  # ended 300 s ago, not released yet; 300 s left of its cap
    renewed = holds_take(customer_id="ann", lines=[line(1)])["7"]
    assert renewed.final() and int(time.time()) < renewed.until <= int(time.time()) + 300 and level("7") == 39


# --- units given back when a hold shrinks ----------------------------------------------------

def model_y(quantity):
    return PurchaseLine(product_id="2", quantity=quantity, price=Decimal("44990.00"))  # 3 in stock


def due_units(product_id):
    return sum(d.units for s in range(keys.ALERT_SHARDS) for d in alerts_due(shard=s) if d.product_id == product_id)


def test_a_hold_that_shrinks_tells_the_shoppers_waiting(holds_on, settings):
    settings.STOCK_ALERT_MARGIN = 0
    holds_take(customer_id="ann", lines=[model_y(3)])  # every unit held: sold out for others
    asking.alert_ask(product_id="2", email="carol@example.com", customer_id="carol")
    assert due_units("2") == 0
    holds_take(customer_id="ann", lines=[model_y(2)])  # her cart went down on another device
    assert level("2") == 1 and due_units("2") == 1  # the unit back is due to alerts, as a released one
    send_due_alerts()
    assert [(m.to, m.subject) for m in mail.outbox] == [(["carol@example.com"], "Back in stock: Model Y")]


def test_an_order_of_fewer_than_held_marks_the_rest_due(holds_on):
    holds_take(customer_id="ann", lines=[model_y(3)])
    gateway.order_place(customer_id="ann", customer_name="Ann", order_id=gateway.new_order_id(),
                        token=gateway.new_token(), lines=[model_y(1)])
    assert level("2") == 2 and due_units("2") == 2


def test_cancelling_and_opening_the_checkout_again_keeps_the_first_holds_cap(holds_on):
    from catalog.gateway.stock.holds import holds_release
    from catalog.gateway.stock.releases import holds_all, units_held

    holds_take(customer_id="ann", lines=[line(2)])
    first = age_hold("ann", "7", 1000)  # opened 1,000 s ago: 200 s to its cap
    assert holds_release(customer_id="ann", product_ids=["7"]) == 2 and level("7") == 40
    assert holds_of(customer_id="ann", product_ids=["7"]) == {}  # nothing held: the units are back on sale
    assert holds_all(product_id="7") == [] and units_held(product_id="7") == 0
    again = holds_take(customer_id="ann", lines=[line(2)])["7"]
    assert again.final() and again.until <= int(time.time()) + 200  # not a new 20 minutes
    assert again.held_at == first.held_at and level("7") == 38


def test_once_the_cool_down_is_past_a_cancelled_shopper_is_held_afresh(holds_on):
    from catalog.gateway.stock.holds import holds_release

    holds_take(customer_id="ann", lines=[line(2)])
    age_hold("ann", "7", 500)
    holds_release(customer_id="ann", product_ids=["7"])
    age_hold_cap("ann", "7", 800)  # its cap (1,200 s after it was first taken) passed 100 s ago: cooling down
    with pytest.raises(OrderRejected) as refused:
        holds_take(customer_id="ann", lines=[line(2)])
    assert [p.kind for p in refused.value.problems] == [LineProblem.COOLING] and level("7") == 40
    age_hold_cap("ann", "7", 1200)  # and the cool-down after it is over
    again = holds_take(customer_id="ann", lines=[line(2)])["7"]
    assert not again.final() and again.until >= int(time.time()) + 599 and level("7") == 38


def test_a_product_gone_between_the_read_and_the_hold_is_refused_not_held(holds_on, monkeypatch):
    """A take refused because its product item is gone (deleted outside the shop) is read again and refused
    as gone: the products the refusal leaves (none) are never mistaken for the holds taken."""
    from catalog.gateway import client as dynamo
    from catalog.gateway import codec
    from catalog.gateway.stock import holds

    real = holds.transact_write_marking_due

    def product_deleted_first(actions, due, **kwargs):
        dynamo.client().delete_item(TableName=dynamo.table_name(), Key=codec.serialize(keys.product_key("7")))
        return real(actions, due, **kwargs)

    monkeypatch.setattr(holds, "transact_write_marking_due", product_deleted_first)
    with pytest.raises(OrderRejected) as refused:
        holds_take(customer_id="ann", lines=[line()])
    assert [p.kind for p in refused.value.problems] == [LineProblem.GONE]
    assert holds_of(customer_id="ann", product_ids=["7"]) == {}
