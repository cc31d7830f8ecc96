"""A crowd on one product: every buyer gets an order or "sold out", never "busy"; nothing
is oversold; the sales far from the edge take their units relatively, those near it exactly."""
import threading
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

import pytest

from catalog import gateway
from catalog.gateway import PurchaseLine
from catalog.gateway.alerts import marks
from catalog.gateway.dynamo import backoff, transact
from catalog.gateway.dynamo.budget import request_budget
from catalog.gateway.errors import OrderRejected, StockBusy
from catalog.gateway.orders import fulfilment, orders
from shop.messages import line_problem_text
from tests.helpers import seed, small_catalog


def stock(product_id):
    return gateway.product_get(product_id=product_id, consistent=True).stock_level


def reorder_levels():
    """The reorder list: {product ID: level as the list shows it}."""
    return {p.product_id: p.stock_level for p in gateway.products_to_reorder(limit=100).items}


def buy(product_id, quantity=1, *, customer="7", order_id=None, token=None):
    price = gateway.product_get(product_id=product_id).price
    return orders.order_place(
        customer_id=customer, customer_name=f"user {customer}", order_id=order_id or orders.new_order_id(),
        token=token or gateway.new_token(), lines=[PurchaseLine(product_id, quantity, price)],
    )


def crowd(product_id, buyers, *, until_sold_out=False):
    """`buyers` shoppers press "Place order" for one unit each at the same moment (and, with
    `until_sold_out`, again after each order until told it is sold out): what each got, in order
    (Orders, then OrderRejected or StockBusy)."""
    price = gateway.product_get(product_id=product_id).price
    start = threading.Barrier(buyers)

    def shop(i):
        start.wait()
        got = []
        while True:
            try:
                got.append(orders.order_place(
                    customer_id=f"c{i}", customer_name=f"buyer {i}", order_id=orders.new_order_id(),
                    token=gateway.new_token(), lines=[PurchaseLine(product_id, 1, price)],
                ))
            except (OrderRejected, StockBusy) as exc:
                return [*got, exc]
            if not until_sold_out:
                return got

    with ThreadPoolExecutor(max_workers=buyers) as pool:
        return [outcome for outcomes in pool.map(shop, range(buyers)) for outcome in outcomes]


@pytest.mark.dynamodb_local
@pytest.mark.parametrize("buyers", [32, 128])
def test_a_crowd_buys_sixty_units_exactly_and_nobody_is_told_busy(local_ddb, buyers, settings, monkeypatch):
    if buyers > 32:
        # DynamoDB Local runs one transaction at a time: 128 in flight queue behind each other (about
        # 4 s at p99 on an idle 2-core machine, over the 5 s read timeout when it is shared). AWS does
        # not queue them so; here each buyer gets the time the queue needs, as its write budget.
        settings.DYNAMODB_READ_TIMEOUT = 30
        monkeypatch.setattr(backoff, "CONTENDED_WRITE_SECONDS", 60.0)
    data = small_catalog()
    data["products"][6]["stockLevel"] = 60  # product 7, Acme Car Charger, the default reorder point (5)
    seed(data)
    results = crowd("7", buyers, until_sold_out=True)
    placed = [r for r in results if isinstance(r, gateway.Order)]
    busy = [r for r in results if isinstance(r, StockBusy)]
    refused = [r for r in results if isinstance(r, OrderRejected)]
    assert busy == []
    assert (len(placed), len(refused)) == (60, buyers)  # each buyer's last try: sold out
    assert all(line_problem_text(r.problems[0]) == "Acme Car Charger is sold out." for r in refused)
    assert stock("7") == 0
    sales = [h for h in gateway.stock_history(product_id="7", limit=200, consistent=True).items if h.reason == "sold"]
    assert sorted(h.order_id for h in sales) == sorted(o.order_id for o in placed)  # one sale a unit, each its order
    assert all(h.delta == -1 for h in sales)
    # Above the edge (6 = LOW_STOCK_THRESHOLD + 1) units went relatively, without a level after; the
    # last six exactly, each leaving one of the levels 5 .. 0 (no update lost, none twice).
    assert sorted(h.resulting_level for h in sales if h.resulting_level is not None) == [0, 1, 2, 3, 4, 5]
    assert sum(1 for h in sales if h.resulting_level is None) == 54
    assert reorder_levels()["7"] == 0  # on the reorder list right after, sold out
    for order in placed:  # every order is whole, in its customer's partition
        saved = orders.order_get(customer_id=order.customer_id, order_id=order.order_id)
        assert [(x.product_id, x.quantity) for x in saved.lines] == [("7", 1)]


@pytest.mark.dynamodb_local
def test_a_crowd_near_the_reorder_point_takes_the_exact_path(local_ddb):
    data = small_catalog()
    data["products"][6]["stockLevel"] = 12
    data["products"][6]["reorderPoint"] = 9
    seed(data)
    results = crowd("7", 5)  # 12 -> 7: the last sales cross the reorder point (9)
    assert all(isinstance(r, gateway.Order) for r in results) and stock("7") == 7
    assert reorder_levels()["7"] == 7  # on the reorder list right after, at its level
    sales = [h for h in gateway.stock_history(product_id="7", limit=50, consistent=True).items if h.reason == "sold"]
    # relative while the level read left at least 10 after the sale (reorder point 9 + 1): 12 -> 11 -> 10;
    # exact from there: the levels 9, 8, 7 each left by one sale
    assert sorted(h.resulting_level for h in sales if h.resulting_level is not None) == [7, 8, 9]
    assert sum(1 for h in sales if h.resulting_level is None) == 2


@pytest.mark.dynamodb_local
def test_a_triple_click_in_a_crowd_is_still_one_order(local_ddb):
    data = small_catalog()
    data["products"][6]["stockLevel"] = 60
    seed(data)
    order_id, token = orders.new_order_id(), gateway.new_token()
    start = threading.Barrier(12)

    def shop(i):
        start.wait()
        if i < 3:  # the same shopper's form, three times
            return buy("7", 2, customer="twice", order_id=order_id, token=token)
        return buy("7", 1, customer=f"c{i}")

    with ThreadPoolExecutor(max_workers=12) as pool:
        results = list(pool.map(shop, range(12)))
    assert {r.order_id for r in results[:3]} == {order_id}
    assert len(orders.orders_by_customer(customer_id="twice").items) == 1
    assert stock("7") == 60 - 2 - 9
    sales = [h for h in gateway.stock_history(product_id="7", limit=50, consistent=True).items if h.reason == "sold"]
    assert sum(1 for h in sales if h.order_id == order_id) == 1 and sum(h.delta for h in sales) == -11


# --- the retries themselves (moto, with conflicts injected) ------------------------------------

def _conflicting(monkeypatch, times, code="TransactionConflict"):
    """The next `times` transactions are cancelled for a TransactionConflict (nothing written),
    as DynamoDB does when another buyer's transaction has the item at that moment (or for `code`)."""
    real = transact.transact_write
    left = [times]

    def transact_write(actions, *, request_token):
        if left[0] > 0:
            left[0] -= 1
            return transact.Refusal(codes=(code,) * len(actions), items=(None,) * len(actions), conflict=True)
        return real(actions, request_token=request_token)

    monkeypatch.setattr(fulfilment, "transact_write", transact_write)  # a cancellation's
    monkeypatch.setattr(marks, "transact_write", transact_write)  # an order's transaction goes through its due marks
    return left


def test_a_buyer_who_conflicts_fifty_times_in_a_row_still_gets_the_order(catalog, monkeypatch):
    """Conflicts are tried again at once (a few ms of jitter), not after a growing backoff: fifty in a
    row (with the old backoff, over ten seconds: "busy") are no reason to give up."""
    pauses = []
    monkeypatch.setattr(backoff.time, "sleep", pauses.append)
    monkeypatch.setattr(backoff.random, "uniform", lambda low, high: high)  # each pause at its longest
    left = _conflicting(monkeypatch, 50)
    order = buy("7", 1)
    assert left == [0] and stock("7") == 39
    assert pauses == [backoff.CONFLICT_JITTER_SECONDS] * 50  # 0.25 s in all; the old backoff: over 10 s
    assert orders.order_get(customer_id="7", order_id=order.order_id).total == Decimal("29.90")


def test_a_throttled_order_waits_a_growing_pause_and_goes_through(catalog, monkeypatch):
    """Throttling is DynamoDB short of capacity, not another buyer: it gets the growing backoff."""
    pauses = []
    monkeypatch.setattr(backoff.time, "sleep", pauses.append)
    monkeypatch.setattr(backoff.random, "uniform", lambda low, high: high)  # each pause at its longest
    _conflicting(monkeypatch, 6, code="ThrottlingError")
    buy("7", 1)
    assert stock("7") == 39
    assert pauses == [0.004, 0.008, 0.016, 0.032, 0.064, 0.128]


def test_busy_only_when_the_write_budget_is_spent(catalog, monkeypatch):
    _conflicting(monkeypatch, 10**9)  # conflicts for ever
    with request_budget("POST", seconds=0.8), pytest.raises(StockBusy):
        buy("7", 1)
    assert stock("7") == 40 and orders.orders_by_customer(customer_id="7").items == []
