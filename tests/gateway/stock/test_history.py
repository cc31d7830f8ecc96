"""A product's stock history and the ledger (catalog/gateway/stock/history.py): pages newest first (moto);
on DynamoDB Local, a product's own changes merged with its sales (order lines, over the Buyers shards), a
sale recorded as a stock adjustment counted once beside them, and every shard of a ledger day read."""
import uuid
from datetime import UTC, datetime, timedelta

import pytest

from catalog import gateway
from catalog.gateway import client as dynamo
from catalog.gateway import codec, keys
from catalog.gateway.dynamo.testing import count_requests
from catalog.gateway.errors import InvalidCursor
from catalog.gateway.orders.fulfilment import order_cancel, product_buyers_all
from catalog.gateway.stock.entities import StockAdjustment
from catalog.gateway.stock.history import stock_history, stock_history_all, stock_ledger
from catalog.gateway.stock.reconcile import reconcile_product
from catalog.gateway.stock.stock import stock_increase
from tests.gateway.orders.test_orders import buy
from tests.helpers import items_in_partition, with_sales_as_adjustments


def test_history_pages_newest_first(catalog):
    for i in range(5):
        gateway.stock_increase(product_id="7", quantity=i + 1, token=f"h{i}")
    first = gateway.stock_history(product_id="7", limit=2)
    rest = gateway.stock_history(product_id="7", limit=10, after=first.next_cursor)
    assert [h.delta for h in first.items + list(rest.items)] == [5, 4, 3, 2, 1, 40]  # 40: the import's opening
    assert rest.next_cursor is None
    with pytest.raises(InvalidCursor):
        gateway.stock_history(product_id="4", after=first.next_cursor)


# --- sales beside the product's changes, on DynamoDB Local ------------------------------------

# What an order line placed before sales were recorded on order lines holds on a table at the baseline
# (a stock adjustment under P#<pid> is its sale's record): Buyers keys, its order's time, number and customer.
BASELINE_LINE = (*keys.BUYER_ATTRIBUTES, "at", "customerId", "customerName", "customerEmail", "orderNumber")


@pytest.mark.dynamodb_local
@pytest.mark.django_db
def test_history_merges_the_products_changes_with_its_sales_newest_first_a_page_at_a_time(local_catalog, settings):
    stock_increase(product_id="7", quantity=5, token=uuid.uuid4().hex, who="staff", reference="PO-1")
    orders = [buy(f"c{n}", {"7": n + 1}) for n in range(4)]
    stock_increase(product_id="7", quantity=2, token=uuid.uuid4().hex, who="staff", reference="PO-2")
    everything = [(c.reason, c.delta) for c in stock_history_all(product_id="7")]
    assert everything == [("received", 2), ("sold", -4), ("sold", -3), ("sold", -2), ("sold", -1), ("received", 5),
                          ("opening", 40)]
    assert [c.order_id for c in stock_history_all(product_id="7", reason="sold")] == orders[::-1]
    sale = next(iter(stock_history_all(product_id="7", reason="sold")))
    assert (sale.who, sale.reference, sale.customer_id, sale.resulting_level) == ("C3", orders[3], "c3", None)

    # Pages of 3: each page one Query of the product's partition and one of each Buyers shard not done yet.
    seen, after, requests = [], None, []
    while True:
        with count_requests() as counter:
            page = stock_history(product_id="7", after=after, limit=3, consistent=True)
        requests.append(counter.total)
        seen += [(c.reason, c.delta) for c in page.items]
        if not page.next_cursor:
            break
        after = page.next_cursor
    assert seen == everything
    assert requests[0] == 1 + keys.BUYER_SHARDS and len(requests) == 3
    assert all(r <= 1 + keys.BUYER_SHARDS for r in requests)


@pytest.mark.dynamodb_local
@pytest.mark.django_db
def test_old_sales_count_once_and_the_ledger_lists_every_sale(local_catalog):
    """A sale recorded as a stock adjustment under P#<pid> (its order line with Buyers keys only, as a
    table at the baseline holds sales older than order-line records) and sales recorded on order lines:
    history, the "sold" filter, reconcile_stock and the ledger each see every one exactly once; a
    cancellation puts its units back as an adjustment."""
    old = buy("ann", {"4": 2})
    table = dynamo.table_name()
    items = {(i["PK"], i["SK"]): i for i in items_in_partition(keys.customer_pk("ann"))}
    for item in with_sales_as_adjustments(items, keep=BASELINE_LINE).values():
        dynamo.client().put_item(TableName=table, Item=codec.serialize(item))
    new = buy("bob", {"4": 1})
    cancelled = buy("cy", {"4": 3})
    order_cancel(customer_id="cy", order_id=cancelled, who="staff")

    assert [(c.reason, c.order_id) for c in stock_history_all(product_id="4")] == [
        ("cancelled", cancelled), ("sold", cancelled), ("sold", new), ("sold", old), ("opening", None)]
    assert [c.order_id for c in stock_history_all(product_id="4", reason="sold")] == [cancelled, new, old]
    assert reconcile_product(product_id="4") is None  # 12 - 2 - 1 - 3 + 3 = 9: each sale counted once
    today = datetime.now(UTC).date()  # from the day before: the test may have begun before midnight
    ledger = [(c.product_id, c.reason, c.delta) for c in stock_ledger(start=today - timedelta(days=1), end=today)
              if c.product_id == "4"]
    assert ledger == [("4", "opening", 12), ("4", "sold", -2), ("4", "sold", -1), ("4", "sold", -3),
                      ("4", "cancelled", 3)]
    # Who bought it: the old order too, newest first, with number and customer.
    buyers = list(product_buyers_all(product_id="4"))
    assert [(s.order_id, s.customer_name, s.customer_email, s.quantity) for s in buyers] == [
        (cancelled, "Cy", "cy@example.com", 3), (new, "Bob", "bob@example.com", 1),
        (old, "Ann", "ann@example.com", 2)]
    assert all(len(s.order_number) == 8 for s in buyers)
    assert [s.cancelled for s in buyers] == [True, False, False]  # a recall can leave the cancelled order out


@pytest.mark.dynamodb_local
@pytest.mark.django_db
def test_the_ledger_lists_a_change_in_any_shard_of_its_day(local_catalog):
    """A change in one of the first 8 shards of its day (as a table at the baseline may hold, sharded by
    product alone): the ledger, which reads all LEDGER_SHARDS of every day, lists it, in time order."""
    at = datetime(2026, 1, 5, 10, 0, tzinfo=UTC)
    change = StockAdjustment(product_id="5", adjustment_id="old", at=at, delta=3, resulting_level=8, reason="received")
    item = change.to_item() | {f"{keys.LEDGER}PK": keys.ledger_pk("2026-01-05", 7)}
    dynamo.client().put_item(TableName=dynamo.table_name(), Item=codec.serialize(item))
    later = StockAdjustment(product_id="6", adjustment_id="new", at=at.replace(hour=11), delta=1, resulting_level=3,
                            reason="received")
    dynamo.client().put_item(TableName=dynamo.table_name(), Item=codec.serialize(later.to_item()))
    day = at.date()
    assert [c.adjustment_id for c in stock_ledger(start=day, end=day)] == ["old", "new"]
