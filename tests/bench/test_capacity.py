"""The capacity model (`make capacity`): its measured costs match the items the code writes, and the
report is written from them."""
import json

import pytest

from bench import capacity, capacity_report
from bench.capacity_meter import CapacityMeter, index_entry_size, item_size, schema_indexes, write_units
from bench.capacity_ops import measure_all
from catalog import gateway
from catalog.gateway import codec, keys

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


def _expected_writes(items):
    """What DynamoDB's documented rules charge for writing `items` in one transaction: each item
    twice its 1 KB units in its table partition, and each index entry it has (in any index of the
    table's definition) twice in the index's."""
    out = {}
    for item in items:
        wire = _wire(item)
        key = ("table", item["PK"], "W")
        out[key] = out.get(key, 0) + write_units(item_size(wire), transactional=True)
        for index in schema_indexes("x"):
            size = index_entry_size(wire, index)
            if size is not None:
                key = (index, item[f"{index}PK"], "W")
                out[key] = out.get(key, 0) + write_units(size, transactional=True)
    return out


def test_a_staff_adjustment_costs_what_its_three_items_and_two_index_entries_cost(local_catalog):
    product = gateway.product_get(product_id="1")
    token = gateway.new_token()
    with CapacityMeter() as meter:
        gateway.stock_increase(product_id="1", quantity=5, token=token, reason="received", who="ann",
                               expected_level=product.stock_level)
    written = items_in_partition(keys.product_pk("1"))
    by_kind = {i["SK"].split("#")[0]: i for i in written}
    assert set(by_kind) == {"METADATA", "STOCK", "TOKEN"} and by_kind["METADATA"]["stockLevel"] == 75

    measured = {k: v for k, v in _charged(meter).items() if k[2] == "W"}
    assert measured == _expected_writes(written)
    # Small items: 2 units each (transactional), the product's brand and category entries too.
    # and the adjustment's entries in the warehouse indexes: its day's Ledger shard, its product's ByReason.
    change = by_kind["STOCK"]
    # The product's six sort index entries (by name and by price, under its brand, category and pair) too.
    product = by_kind["METADATA"]
    sorted_entries = {(index, product[f"{index}PK"], "W"): 2 for index in keys.SORT_INDEXES}
    assert measured == {("table", "P#1", "W"): 6, ("GSI1", "B#3", "W"): 2, ("GSI2", "C#1", "W"): 2,
                        ("Ledger", change["LedgerPK"], "W"): 2, ("ByReason", "P#1#R#received", "W"): 2,
                        **sorted_entries}
    assert {pk for _index, pk, _rw in sorted_entries} == {"B#3", "C#1", "B#3#C#1"}
    assert meter.operations() == {"TransactWriteItems": 1}


def test_a_checkout_line_costs_its_product_update_history_item_and_order_line(local_catalog):
    def place(lines):
        order_id = gateway.new_order_id()
        cart = [gateway.PurchaseLine(pid, 1, gateway.product_get(product_id=pid).price) for pid in lines]
        with CapacityMeter() as meter:
            gateway.order_place(customer_id="42", customer_name="bo", order_id=order_id, token=gateway.new_token(),
                                lines=cart)
        return meter, order_id

    one, order_id = place(["1"])
    customer = [i for i in items_in_partition(keys.customer_pk("42")) if order_id in i["SK"] or i["SK"] == "METADATA"]
    product_items = [i for i in items_in_partition(keys.product_pk("1"))
                     if i["SK"] == "METADATA" or i.get("orderId") == order_id]
    number = next(i for i in customer if i.get("type") == "ORDER")["orderNumber"]
    claim = items_in_partition(keys.order_number_key(number)["PK"])  # the claim of the order's number
    assert len(customer) == 3 and len(product_items) == 2  # order, its line, the customer; product, history
    assert len(claim) == 1
    writes = {k: v for k, v in _charged(one).items() if k[2] == "W"}
    assert writes == _expected_writes(customer + product_items + claim)
    # The consistent read of the line's product before the transaction: one 4 KB unit.
    assert _charged(one)[("table", "P#1", "R")] == 1

    two, second = place(["1", "4"])
    # Each order claims its own number (another partition, the same size): not a line's cost.
    claims = {k: v for k, v in _charged(two).items() if k[1].startswith(keys.ORDER_NUMBER_PREFIX)}
    assert list(claims.values()) == [writes[("table", claim[0]["PK"], "W")]]
    line = {k: two_units - writes.get(k, 0) for k, two_units in _charged(two).items()
            if k[2] == "W" and k not in claims}
    line = {k: v for k, v in line.items() if v}
    # Line 2 (Pixel 9, brand 2, category 3): its product and history item, its order line, its index entries
    # (the product's in GSI1 and GSI2, its sale's in its day's Ledger shard and in ByReason).
    sale = next(i for i in items_in_partition(keys.product_pk("4")) if i.get("orderId") == second)
    pixel = next(i for i in items_in_partition(keys.product_pk("4")) if i["SK"] == "METADATA")
    assert line == {("table", "P#4", "W"): 4, ("table", "CUSTOMER#42", "W"): 2, ("GSI1", "B#2", "W"): 2,
                    ("GSI2", "C#3", "W"): 2, ("Ledger", sale["LedgerPK"], "W"): 2, ("ByReason", "P#4#R#sold", "W"): 2,
                    **{(index, pixel[f"{index}PK"], "W"): 2 for index in keys.SORT_INDEXES}}


def test_capacity_measures_every_operation_and_writes_the_report(local_ddb, db, tmp_path):
    costs = measure_all(log=lambda message: None)
    args = capacity.parse_args(["--out", str(tmp_path), "--no-chart"])
    mixes, sales, linearity = capacity.run_model(costs, args)
    results = {"meta": {"date": "today", "indexes": ["GSI1", "GSI2"], "prices": {"read_per_million_usd": 0.125,
               "write_per_million_usd": 0.625}, "limits": {"read_units_per_s": 3000, "write_units_per_s": 1000}},
               "costs": costs, "linearity": linearity, "max_sales": sales, "mixes": mixes}
    capacity_report.write(results, tmp_path, with_chart=False)

    saved = json.loads((tmp_path / "capacity.json").read_text())
    assert set(saved["mixes"]) == {"ordinary_day", "brand_sale", "flash_sale"}
    assert costs["product"]["requests"] == {"GetItem": 1} and costs["brand"]["requests"] == {"Query": 1}
    assert all(error == 0 for errors in linearity.values() for error in errors.values())
    # A sale writes 4 units under the product's key (its level and its history item, transactional)
    # and 2 under its brand's GSI1 key: 250 sales/s of one product, 500 of one brand.
    assert sales["seed design"]["product"]["sales_per_s"] == 250
    assert sales["seed design"]["brand"]["sales_per_s"] == 500
    limit = sales["seed design"]["brand"]["limited_by"]  # an index partition of the brand (GSI1, ByName1, ...)
    assert not limit.startswith("table") and " B#<brand 1> " in limit
    flash = saved["mixes"]["flash_sale"]
    assert [p["key"] for p in flash["over_limit"]] == ["P#<rank 1>"]
    assert not saved["mixes"]["ordinary_day"]["over_limit"]
    assert flash["monthly_on_demand"]["total_usd"] > saved["mixes"]["ordinary_day"]["monthly_on_demand"]["total_usd"]
    assert "**OVER**" in (tmp_path / "capacity.md").read_text()


def test_item_size_follows_the_documented_rules():
    # Names plus values: "PK" (2) + "P#1" (3); "n" (1) + 3 significant digits -> 2 bytes + 1.
    assert item_size({"PK": {"S": "P#1"}, "n": {"N": "120"}}) == 2 + 3 + 1 + 2
    assert item_size({"m": {"M": {"a": {"BOOL": True}}}}) == 1 + 3 + (1 + 1 + 1)
    assert write_units(1024) == 1 and write_units(1025) == 2 and write_units(10, transactional=True) == 2
