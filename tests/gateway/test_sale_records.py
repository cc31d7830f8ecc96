"""Issue 33, the orders side, on DynamoDB Local: a sale's record is its order line (8 write units a
checkout line, nothing of the sale under the product's partition key but the stock write); the stock
history, the "sold" filter, reconcile_stock and the ledger still see every sale exactly once; who
bought a product, from its sharded Buyers index; open orders over their shards, each once, in order."""
import uuid
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from bench.capacity_meter import CapacityMeter
from catalog.gateway import client as dynamo
from catalog.gateway import codec, keys
from catalog.gateway.dynamo.testing import count_requests
from catalog.gateway.orders.entities import PurchaseLine
from catalog.gateway.orders.fulfilment import order_cancel, orders_open, product_buyers, product_buyers_all
from catalog.gateway.orders.orders import order_place
from catalog.gateway.stock.entities import StockAdjustment
from catalog.gateway.stock.history import stock_history, stock_history_all, stock_ledger
from catalog.gateway.stock.reconcile import reconcile_product
from catalog.gateway.stock.stock import stock_increase
from tests.helpers import as_before_issue_33, items_in_partition

pytestmark = [pytest.mark.dynamodb_local, pytest.mark.django_db]

# What an order line placed before sales were recorded on order lines holds on a table at the baseline
# (a stock adjustment under P#<pid> is its sale's record): Buyers keys, its order's time, number and customer.
BASELINE_LINE = (*keys.BUYER_ATTRIBUTES, "at", "customerId", "customerName", "customerEmail", "orderNumber")

PRICES = {"1": Decimal("39990.00"), "4": Decimal("899.00"), "7": Decimal("29.90")}


def buy(customer, lines, *, name=None):
    """Place an order of {product: quantity}; returns its ID."""
    order_id = f"{datetime.now(UTC):%Y%m%dT%H%M%S%f}-{uuid.uuid4().hex[:20]}"
    order_place(customer_id=customer, customer_name=name or customer.title(), customer_email=f"{customer}@example.com",
                order_id=order_id, token=uuid.uuid4().hex,
                lines=[PurchaseLine(pid, quantity, PRICES[pid]) for pid, quantity in lines.items()])
    return order_id


def _writes(meter, by):
    """{by(charge): write units} of what the meter measured."""
    out = {}
    for c in meter.charges():
        if c.rw == "W":
            out[by(c)] = out.get(by(c), 0) + c.units
    return out


def _more(two, one):
    return {k: v - one.get(k, 0) for k, v in two.items() if v != one.get(k, 0)}


def test_a_checkout_line_writes_8_units_and_nothing_of_the_sale_under_the_product(local_catalog):
    """Measured on DynamoDB Local (bench/capacity_meter.py: each request's reported units, transactional
    writes twice): an order of two lines against one of one line. The line's product (2), its order line
    (2), the line's entries in its day's Ledger shard (2) and in its product's Buyers shard (2). Before
    issue 33: 10 (a history item under the product's key and its ByReason entry besides)."""
    with CapacityMeter() as one:
        buy("ann", {"1": 1})
    with CapacityMeter() as two:
        second = buy("ann", {"1": 1, "4": 1})
    line = _more(_writes(two, lambda c: c.where), _writes(one, lambda c: c.where))
    assert line == {"table": 4, keys.LEDGER: 2, keys.BUYERS: 2} and sum(line.values()) == 8
    table = _more(_writes(two, lambda c: (c.where, c.pk)), _writes(one, lambda c: (c.where, c.pk)))
    mine = {k: v for k, v in table.items() if k[0] == "table" and not k[1].startswith(keys.ORDER_NUMBER_PREFIX)}
    assert mine == {("table", "P#4"): 2, ("table", "CUSTOMER#ann"): 2}  # (each order claims its own number)
    # Under the product's key: the product alone (and its opening change of the import).
    assert [i["SK"] for i in items_in_partition(keys.product_pk("4")) if i.get("reason") != "opening"] == ["METADATA"]
    record = next(i for i in items_in_partition(keys.customer_pk("ann")) if i["SK"].endswith(f"{second}#ITEM#4"))
    assert record["BuyersPK"].startswith(f"{keys.product_pk('4')}#B#") and record["at"] in record["BuyersSK"]
    assert record["LedgerPK"].startswith(f"LEDGER#{record['at'][:10]}#")


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


def test_old_sales_count_once_and_the_ledger_lists_every_sale(local_catalog):
    """A sale recorded as a stock adjustment under P#<pid> (its order line with Buyers keys only, as a
    table at the baseline holds sales older than order-line records) and sales recorded on order lines:
    history, the "sold" filter, reconcile_stock and the ledger each see every one exactly once; a
    cancellation puts its units back as an adjustment."""
    old = buy("ann", {"4": 2})
    table = dynamo.table_name()
    items = {(i["PK"], i["SK"]): i for i in items_in_partition(keys.customer_pk("ann"))}
    for item in as_before_issue_33(items, keep=BASELINE_LINE).values():
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


def test_a_day_written_before_the_ledger_had_64_shards_stays_readable(local_catalog):
    """A change of before issue 33 sits in one of the first 8 shards of its day (by product alone): the
    ledger, which reads all LEDGER_SHARDS of every day, still lists it, in time order."""
    at = datetime(2026, 1, 5, 10, 0, tzinfo=UTC)
    change = StockAdjustment(product_id="5", adjustment_id="old", at=at, delta=3, resulting_level=8, reason="received")
    item = change.to_item() | {f"{keys.LEDGER}PK": keys.ledger_pk("2026-01-05", 7)}
    dynamo.client().put_item(TableName=dynamo.table_name(), Item=codec.serialize(item))
    later = StockAdjustment(product_id="6", adjustment_id="new", at=at.replace(hour=11), delta=1, resulting_level=3,
                            reason="received")
    dynamo.client().put_item(TableName=dynamo.table_name(), Item=codec.serialize(later.to_item()))
    day = at.date()
    assert [c.adjustment_id for c in stock_ledger(start=day, end=day)] == ["old", "new"]


def test_who_bought_a_product_newest_first_over_its_shards_a_page_at_a_time(local_catalog):
    orders = [buy(f"c{n}", {"7": 1}) for n in range(9)]
    shards = {i["BuyersPK"] for n in range(9) for i in items_in_partition(keys.customer_pk(f"c{n}"))
              if "BuyersPK" in i}
    assert len(shards) > 1  # spread over the product's shards
    seen, after, requests = [], None, []
    while True:
        with count_requests() as counter:
            page = product_buyers(product_id="7", after=after, limit=4)
        requests.append(counter.total)
        assert len(page.items) == 4 or not page.next_cursor
        seen += [s.order_id for s in page.items]
        if not page.next_cursor:
            break
        after = page.next_cursor
    assert seen == orders[::-1]
    assert requests[0] == keys.BUYER_SHARDS and all(r <= keys.BUYER_SHARDS for r in requests)
    assert list(product_buyers(product_id="1").items) == []


def test_open_orders_over_their_shards_each_once_oldest_first(local_catalog):
    orders = [buy(f"c{n}", {"7": 1}) for n in range(7)] + [buy(f"d{n}", {"4": 1}) for n in range(2)]
    everything = sorted(orders)

    def walk(limit):
        seen, after, requests = [], None, []
        while True:
            with count_requests() as counter:
                page = orders_open(after=after, limit=limit)
            requests.append(counter.total)
            seen += [o.order_id for o in page.items]
            if not page.next_cursor:
                return seen, requests
            after = page.next_cursor

    seen, requests = walk(2)
    assert seen == everything  # once each, oldest first
    partitions = keys.OPEN_ORDER_SHARDS
    assert requests[0] == partitions and all(r <= partitions for r in requests) and len(requests) == 5
    assert walk(3)[0] == everything
