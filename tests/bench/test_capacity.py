"""The capacity model (`make capacity`): its measured costs match the items the code writes, and the
report is written from them."""
import json
import math

import pytest

from bench import capacity, capacity_model
from bench.capacity_meter import CapacityMeter, item_size, schema_indexes, table_keys
from bench.capacity_ops import measure_all
from catalog import gateway
from catalog.gateway import client as dynamo
from catalog.gateway import codec, keys
from catalog.gateway.dynamo.testing import count_requests

from ..helpers import items_in_partition

pytestmark = pytest.mark.dynamodb_local


def _charged(meter):
    """{(where, partition key, "R"/"W"): units} of what the meter measured."""
    out = {}
    for c in meter.charges():
        out[(c.where, c.pk, c.rw)] = out.get((c.where, c.pk, c.rw), 0) + c.units
    return out


def _wire(item):
    return codec.serialize(item)


# DynamoDB's documented size rules (developer guide, "Item sizes and formats"), what the measured charges
# are checked against.
def index_entry_size(item, index, table="x"):
    """Bytes of the item's entry in `index`: the table's key, the index key, the projected
    attributes, and 100 bytes of overhead; None when the item is not in the index (sparse)."""
    hash_key, range_key, projection = schema_indexes(table)[index]
    if hash_key not in item or (range_key and range_key not in item):
        return None
    names = {a for a in table_keys(table) if a} | {hash_key} | ({range_key} if range_key else set())
    if projection["ProjectionType"] == "ALL":
        names = set(item)
    elif projection["ProjectionType"] == "INCLUDE":
        names |= set(projection.get("NonKeyAttributes", []))
    return item_size({k: v for k, v in item.items() if k in names}) + 100


def write_units(size_bytes, *, transactional=False):
    return math.ceil(max(size_bytes, 1) / 1024) * (2 if transactional else 1)


def _expected_writes(items, before=()):
    """What DynamoDB's documented rules charge for writing `items` in one transaction: each item
    twice its 1 KB units in its table partition, and each index entry it has (in any index of the
    table's definition) twice in the index's, unless the item as it was (`before`) had the same entry
    (an update that changes nothing an index holds writes nothing there)."""
    out = {}
    was = {(i["PK"], i["SK"]): _wire(i) for i in before}
    for item in items:
        wire = _wire(item)
        key = ("table", item["PK"], "W")
        out[key] = out.get(key, 0) + write_units(item_size(wire), transactional=True)
        for index in schema_indexes("x"):
            size = index_entry_size(wire, index)
            old = was.get((item["PK"], item["SK"]))
            if old is not None and _entry(old, index) == _entry(wire, index):
                continue
            if size is not None:
                key = (index, item[schema_indexes("x")[index][0]], "W")
                out[key] = out.get(key, 0) + write_units(size, transactional=True)
    return out


def _entry(wire, index):
    """The attributes of an item's entry in `index` (None: not in it)."""
    hash_key, range_key, projection = schema_indexes("x")[index]
    if hash_key not in wire or (range_key and range_key not in wire):
        return None
    if projection["ProjectionType"] == "ALL":
        return wire
    names = {"PK", "SK", hash_key, range_key, *projection.get("NonKeyAttributes", [])}
    return {k: v for k, v in wire.items() if k in names}


@pytest.mark.parametrize("waiting", [0, 1])
def test_a_staff_adjustment_costs_what_its_items_and_two_index_entries_cost(local_catalog, waiting):
    if waiting:  # a shopper waits for a back-in-stock alert (asked while it was sold out; the count as it is then)
        dynamo.client().update_item(
            TableName=dynamo.table_name(), Key=codec.serialize(keys.product_key("1")),
            UpdateExpression=f"SET {keys.ALERTS_WAITING} = :w", ExpressionAttributeValues=codec.serialize({":w": 1}))
    product = gateway.product_get(product_id="1")
    before = items_in_partition(keys.product_pk("1"))
    token = gateway.new_token()
    with CapacityMeter() as meter, count_requests() as counter:
        gateway.stock_increase(product_id="1", quantity=5, token=token, reason="received", who="ann",
                               expected_level=product.stock_level)
    # In stock as the page showed it, so written on condition that no alert waits; one does (rare: alerts are
    # asked while a product is sold out, and a receipt of a sold-out product marks them without asking), so
    # that write is refused and made again with the mark. (The meter counts the write that was made.)
    assert counter.operations == ["TransactWriteItems"] * (1 + waiting)
    # (the import's opening stock change is not this write's)
    written = [i for i in items_in_partition(keys.product_pk("1")) if i.get("reason") != "opening"]
    by_kind = {i["SK"].split("#")[0]: i for i in written}
    assert set(by_kind) == {"METADATA", "STOCK", "TOKEN"} and by_kind["METADATA"]["stockLevel"] == 75
    # Units available again: the product's back-in-stock due item, in the same transaction, only while alerts
    # wait (the product item counts them, so the write knows without a read).
    due = keys.alert_due_key("1")
    marked = [i for i in items_in_partition(due["PK"]) if i["SK"] == due["SK"]]
    assert len(marked) == waiting
    written += marked

    measured = {k: v for k, v in _charged(meter).items() if k[2] == "W"}
    assert measured == _expected_writes(written, before)
    # Small items: 2 units each (transactional), and the adjustment's entries in the warehouse indexes: its
    # day's Ledger shard, its product's ByReason. None of the product's eight list index entries: 70 -> 75
    # stays in the band "In stock", which is all they hold of the stock.
    change = by_kind["STOCK"]
    assert measured == {("table", "P#1", "W"): 6, ("Ledger", change["LedgerPK"], "W"): 2,
                        ("ByReason", "P#1#R#received", "W"): 2, **({("table", due["PK"], "W"): 2} if waiting else {})}
    assert sum(measured.values()) == 10 + 2 * waiting
    assert meter.operations() == {"TransactWriteItems": 1}


def test_a_stock_write_that_moves_the_band_rewrites_the_products_list_index_entries(local_catalog):
    before = items_in_partition(keys.product_pk("1"))
    with CapacityMeter() as meter:  # 70 -> 5: "In stock" -> "Only 5 left"
        gateway.stock_decrease(product_id="1", quantity=65, token=gateway.new_token(), reason="damaged")
    written = items_in_partition(keys.product_pk("1"))
    product = next(i for i in written if i["SK"] == "METADATA")
    measured = {k: v for k, v in _charged(meter).items() if k[2] == "W"}
    assert measured == _expected_writes([i for i in written if i not in before], before)
    lists = {(keys.list_index(prefix), product[f"{prefix}PK"], "W"): 2 for prefix in keys.LIST_INDEXES}
    assert {k: v for k, v in measured.items() if k[0] in {i for i, _pk, _rw in lists}} == lists
    assert {pk for _index, pk, _rw in lists} == {"B#3", "C#1", "B#3#C#1"}


def test_a_checkout_line_costs_its_product_update_and_its_order_line_with_two_index_entries(local_catalog):
    def place(lines):
        order_id = gateway.new_order_id()
        cart = [gateway.PurchaseLine(pid, 1, gateway.product_get(product_id=pid).price) for pid in lines]
        with CapacityMeter() as meter:
            gateway.order_place(customer_id="42", customer_name="bo", order_id=order_id, token=gateway.new_token(),
                                lines=cart)
        return meter, order_id

    before_one = items_in_partition(keys.product_pk("1"))
    one, order_id = place(["1"])
    customer = [i for i in items_in_partition(keys.customer_pk("42")) if order_id in i["SK"] or i["SK"] == "METADATA"]
    product_items = [i for i in items_in_partition(keys.product_pk("1"))
                     if i["SK"] == "METADATA" or i.get("orderId") == order_id]
    number = next(i for i in customer if i.get("type") == "ORDER")["orderNumber"]
    claim = items_in_partition(keys.order_number_key(number)["PK"])  # the claim of the order's number
    assert len(customer) == 3 and len(product_items) == 1  # order, its line (the sale's record), the customer; product
    assert len(claim) == 1
    writes = {k: v for k, v in _charged(one).items() if k[2] == "W"}
    assert writes == _expected_writes(customer + product_items + claim, before_one)
    # The read of the line's product before the transaction, from any replica (its take is conditional; a
    # refusal is confirmed consistently): half a 4 KB unit.
    assert _charged(one)[("table", "P#1", "R")] == 0.5

    two, second = place(["1", "4"])
    # Each order claims its own number, and its open-order entry and its lines' Ledger and Buyers entries go to
    # shards chosen by hash: compare the units by table and index, not by partition.
    def by_where(meter):
        out = {}
        for (where, _pk, rw), units in _charged(meter).items():
            if rw == "W":
                out[where] = out.get(where, 0) + units
        return out

    line = {k: v - by_where(one).get(k, 0) for k, v in by_where(two).items() if v != by_where(one).get(k, 0)}
    # Line 2 (Pixel 9, 12 in stock -> 11: the band stays "In stock"): its product and its order line (the sale's
    # record), the line's entries in its day's Ledger shard and its product's Buyers shard; no list index entry
    # (the band stays), nothing else under P#4.
    assert line == {"table": 4, "Ledger": 2, "Buyers": 2} and sum(line.values()) == 8
    sale = next(i for i in items_in_partition(keys.customer_pk("42")) if i["SK"].endswith(f"{second}#ITEM#4"))
    charged = _charged(two)
    assert charged[("table", "P#4", "W")] == 2 and charged[("Buyers", sale["BuyersPK"], "W")] == 2
    assert ("Ledger", sale["LedgerPK"], "W") in charged


def test_capacity_measures_every_operation_and_writes_the_report(local_ddb, db, tmp_path):
    costs = measure_all(log=lambda message: None)
    args = capacity.parse_args(["--out", str(tmp_path)])
    mixes, sales, linearity = capacity.run_model(costs, args)
    meta = {"date": "today", "indexes": ["GSI1v2", "GSI2v2"], "prices": {"read_per_million_usd": 0.125,
            "write_per_million_usd": 0.625}, "limits": {"read_units_per_s": 3000, "write_units_per_s": 1000}}
    capacity.write(capacity.assemble(meta, costs, args, mixes, sales, linearity), tmp_path)

    saved = json.loads((tmp_path / "capacity.json").read_text())
    assert set(saved["mixes"]) == {"ordinary_day", "brand_sale", "flash_sale"}
    assert costs["product"]["requests"] == {"GetItem": 1} and costs["brand"]["requests"] == {"Query": 1}
    assert all(error == 0 for errors in linearity.values() for error in errors.values())
    # A sale of a product in one stock bucket writes 2 units under the product's key (its level, transactional;
    # its record is the order line): 500 sales/s. Spread over 10 buckets the level's 2 units go to one
    # bucket of 10 and the product item is not written: then reads limit it. Its pages (add to cart, cart, checkout
    # page) read the process's kept copy (catalog/hot_products.py): nothing a sale; the checkout reads the item
    # and its buckets from any replica (0.5 read units a sale on each), and each of the model's 8 processes reads
    # them again once a second (0.5 units each): (3,000 - 4) / 0.5 = 5,992 sales/s of reads (2,996 when the
    # checkout read consistently, 1,200 when every page read them). Then the writes limit it: the order line's
    # Buyers entry, 2 units in one of the product's 8 shards, 4,000 sales/s. Its brand's and category's list index
    # entries only when it moves the stock band: 6 of a product's 1,000 units (the mix's stock), 2 units each
    # time: 83,333 sales/s of one brand. Every order writes 2 units in one of the OPEN_ORDERS shards: 500
    # orders/s of the shop per shard (keys.py).
    design, one_bucket = sales[capacity.DESIGN], sales[capacity.ONE_BUCKET]
    assert one_bucket["product"]["sales_per_s"] == 500 and one_bucket["product"]["limited_by"].startswith("table P#")
    hot = costs["hot_checkout"]["charges"]
    assert "table|product|METADATA|W" not in hot and hot["table|bucket|STOCK|W"] == 2
    assert costs["hot_funnel"]["requests"] == {}  # the kept copy
    assert costs["hot_refresh"]["requests"] == {"GetItem": 1, "BatchGetItem": 1}  # the item, its 10 buckets
    assert costs["hot_checkout"]["charges"]["table|product|METADATA|R"] == 0.5  # any replica
    assert costs["hot_checkout"]["charges"]["table|bucket|STOCK|R"] == 5
    assert design["product"]["sales_per_s"] == 4000
    assert design["product"]["limited_by"].startswith("Buyers P#<rank 1>#B#<one of 8> (0.25 WRU a sale on each")
    shards = getattr(keys, "OPEN_ORDER_SHARDS", 1)
    assert design["shop"]["sales_per_s"] == 500 * shards
    assert design["brand"]["sales_per_s"] == design["category"]["sales_per_s"] == 83_333.3
    limit = design["brand"]["limited_by"]  # an index partition of the brand (GSI1v2, ByName1v2, ...)
    assert not limit.startswith("table") and " B#<brand 1> " in limit
    assert design["shop"]["limited_by"].startswith("OpenOrders OPEN_ORDERS")
    assert saved["limits"] == {"product_units_per_s": 4000, "brand_units_per_s": 83_333.3,
                               "category_units_per_s": 83_333.3, "shop_orders_per_s": 500 * shards}
    # A checkout line: its product (or bucket) and order line (the sale's record), the line's Ledger and Buyers
    # entries (10 with a history item and its ByReason entry, 26 with the list index entries); a staff
    # adjustment: the product, history item and idempotency mark, Ledger and ByReason (an increase of a product
    # nobody waits for marks no back-in-stock alerts due: 10).
    assert saved["write_units"] == {"checkout_line": 8, "hot_checkout_line": 8, "staff_adjustment": 10}
    # A line shaped as a relative sale writes (no band, no resulting level) costs the same: the product update
    # is one unit's worth either way, and it writes no list index entry either.
    assert sum(costs["relative_sale_line"]["charges"].values()) == 8
    # The flash sale's product on one item (not spread): its pages' reads alone take its partition to the limit.
    flash = saved["mixes"]["flash_sale"]
    busiest = max(flash["partitions"], key=lambda p: p["utilisation"])
    assert busiest["key"] == "P#<rank 1>" and busiest["utilisation"] > 0.95
    assert not saved["mixes"]["ordinary_day"]["over_limit"]
    assert flash["monthly_on_demand"]["total_usd"] > saved["mixes"]["ordinary_day"]["monthly_on_demand"]["total_usd"]
    reads = busiest["read_units_per_s"] / 3000  # the report's row of it: its share of the partition's limit
    assert f"| table | P#<rank 1> | {capacity._u(busiest['read_units_per_s'])} |" in (
        tmp_path / "capacity.md").read_text()
    assert f"{reads:.1%} / " in (tmp_path / "capacity.md").read_text()


def test_item_size_follows_the_documented_rules():
    # Names plus values: "PK" (2) + "P#1" (3); "n" (1) + 3 significant digits -> 2 bytes + 1.
    assert item_size({"PK": {"S": "P#1"}, "n": {"N": "120"}}) == 2 + 3 + 1 + 2
    assert item_size({"m": {"M": {"a": {"BOOL": True}}}}) == 1 + 3 + (1 + 1 + 1)
    assert write_units(1024) == 1 and write_units(1025) == 2 and write_units(10, transactional=True) == 2


def test_with_timed_holds_on_one_product_still_sells_2000_units_a_second(local_ddb, db, settings):
    """`make capacity --holds 600`, the shop's default: the checkout page holds the unit (a bucket's level, the
    hold in one of the product's 8 hold partitions and its HoldExpiry entry), placing the order deletes the hold
    and reads no bucket. The hold partitions limit one product: 4 units a sale over 8, 2,000 sales/s (the
    target; 1,498 when both steps read every bucket consistently). The band moves when the page holds the unit,
    so the brand's and category's figures are the same as without holds."""
    settings.STOCK_HOLD_SECONDS = 600
    costs = measure_all(log=lambda message: None)
    limits = capacity_model.limits(costs)
    assert limits["product_units_per_s"] == 2000
    assert limits["brand_units_per_s"] == limits["category_units_per_s"] == 83_333.3
    assert limits["shop_orders_per_s"] == 16_000  # a HoldExpiry entry put and deleted, 4 units over 64 shards
    assert capacity_model.write_units(costs)["checkout_line"] == 10  # the hold's delete and its entry's, not 2
    assert "table|bucket|STOCK|R" not in costs["hot_checkout"]["charges"]
