"""Stock buckets: a hot product's stock over K bucket items. A crowd sells exactly the
units there are, the last one included, never hears "sold out" while units remain, a restock in the
middle keeps the total exact, and the ledger adds up to the total afterwards."""
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from catalog import gateway
from catalog.gateway import PurchaseLine, keys
from catalog.gateway.catalog import importer, products
from catalog.gateway.dynamo import backoff
from catalog.gateway.dynamo.codec import serialize
from catalog.gateway.dynamo.testing import count_requests
from catalog.gateway.errors import OrderRejected, StockBusy
from catalog.gateway.orders import orders
from catalog.gateway.stock import buckets, receiving, takes
from catalog.gateway.stock.reconcile import reconcile_product
from shop.messages import line_problem_text
from tests.helpers import items_in_partition, seed, small_catalog

HOT = "7"  # Acme Car Charger, 29.90, the default reorder point


def seed_hot(level, stock_buckets):
    data = small_catalog()
    data["products"][6].update(stockLevel=level, stockBuckets=stock_buckets)
    seed(data)


def spread_and_sold(sales):
    """The hot product with 100 units over 10 buckets, `sales` units sold (the first sale spreads it)."""
    seed_hot(100, 10)
    for i in range(sales):
        buy(f"a{i}")


def total(product_id=HOT):
    return gateway.product_get(product_id=product_id, consistent=True).stock_level


def buy(customer, quantity=1, product_id=HOT):
    price = gateway.product_get(product_id=product_id).price
    return orders.order_place(
        customer_id=customer, customer_name=f"buyer {customer}", order_id=orders.new_order_id(),
        token=gateway.new_token(), lines=[PurchaseLine(product_id, quantity, price)],
    )


def product_item(product_id=HOT):
    return next(i for i in items_in_partition(keys.product_pk(product_id)) if i["SK"] == keys.PRODUCT_SK)


def crowd(buyers, *, during=None):
    """`buyers` shoppers buy one unit each at the same moment, again and again until told it is sold
    out; `during()` runs in another thread once the first orders are in, and a buyer told "sold out"
    before it has finished comes back once it has (a restock brings them back). What each got."""
    start = threading.Barrier(buyers + 1)
    first_orders, done = threading.Event(), threading.Event()
    if during is None:
        done.set()

    def shop(i):
        start.wait()
        got = []
        while True:
            try:
                got.append(buy(f"c{i}"))
                first_orders.set()
            except (OrderRejected, StockBusy) as exc:
                if isinstance(exc, OrderRejected) and not done.is_set():
                    done.wait(120)
                    continue
                return [*got, exc]

    with ThreadPoolExecutor(max_workers=buyers + 1) as pool:
        results = [pool.submit(shop, i) for i in range(buyers)]
        start.wait()
        if during is not None:
            first_orders.wait(60)
            try:
                during()
            finally:
                done.set()
        return [outcome for future in results for outcome in future.result()]


@pytest.fixture
def patient(settings, monkeypatch):
    # DynamoDB Local runs one transaction at a time: 64 buyers queue behind each other there (AWS does
    # not); each gets the time that queue needs as its write budget.
    settings.DYNAMODB_READ_TIMEOUT = 30
    monkeypatch.setattr(backoff, "CONTENDED_WRITE_SECONDS", 60.0)


@pytest.mark.dynamodb_local
def test_64_buyers_on_10_buckets_buy_exactly_100_units_and_the_ledger_adds_up(local_ddb, patient):
    seed_hot(100, 10)
    results = crowd(64)
    placed = [r for r in results if isinstance(r, gateway.Order)]
    busy = [r for r in results if isinstance(r, StockBusy)]
    refused = [r for r in results if isinstance(r, OrderRejected)]
    assert busy == []
    assert (len(placed), len(refused)) == (100, 64)  # every unit, the last included; each buyer then "sold out"
    assert all(line_problem_text(r.problems[0]) == "Acme Car Charger is sold out." for r in refused)
    assert total() == 0
    assert reconcile_product(product_id=HOT) is None
    sales = [h for h in gateway.stock_history_all(product_id=HOT) if h.reason == "sold"]
    assert sorted(h.order_id for h in sales) == sorted(o.order_id for o in placed)
    # Sold out, it is on the reorder list and shows "Sold out" in lists, as with one bucket.
    assert HOT in {p.product_id for p in gateway.products_to_reorder(limit=100).items}
    assert [p.stock_band for p in gateway.products_by_brand(brand_id="10").items if p.product_id == HOT] == [0]


@pytest.mark.dynamodb_local
def test_a_restock_during_the_sale_keeps_the_total_exact(local_ddb, patient):
    seed_hot(100, 10)

    def restock():
        gateway.stock_increase(product_id=HOT, quantity=30, token=gateway.new_token(), who="ann")

    results = crowd(64, during=restock)
    placed = [r for r in results if isinstance(r, gateway.Order)]
    assert [r for r in results if isinstance(r, StockBusy)] == []
    assert len(placed) == 130  # the 100 and the 30 received in the middle, no more
    rejected = [r for r in results if isinstance(r, OrderRejected)]
    assert all(line_problem_text(r.problems[0]) == "Acme Car Charger is sold out." for r in rejected)
    assert total() == 0
    assert reconcile_product(product_id=HOT) is None


@pytest.mark.dynamodb_local
def test_sales_of_a_spread_product_take_from_buckets_not_the_product_item(local_ddb):
    seed_hot(100, 10)
    buy("a")  # the first sale spreads the stock over the 10 buckets, then takes from one
    item_before = product_item()
    assert item_before["stockSpread"] == "spread" and int(item_before["stockLevel"]) == 0
    for i in range(5):
        buy(f"b{i}")
    assert product_item() == item_before  # five sales, not one write of the product item
    levels = [int(i["stockLevel"]) for k in range(10) for i in items_in_partition(keys.bucket_pk(HOT, k))]
    assert sum(levels) == 94 and total() == 94
    with count_requests() as counter:  # the staff stock table's levels: the items, then the buckets of the spread
        assert products.products_stock_levels(product_ids=[HOT, "1"]) == {HOT: 94, "1": 70}
    assert counter.operations == ["BatchGetItem", "BatchGetItem"]


@pytest.mark.dynamodb_local
def test_the_product_page_reads_one_item_or_the_buckets_once_more(local_ddb):
    seed_hot(100, 10)
    with count_requests() as counter:
        assert gateway.product_get(product_id="1").stock_level == 70
    assert counter.operations == ["GetItem"]
    with count_requests() as counter:  # gathered (nothing sold yet): the total is on the item
        assert gateway.product_get(product_id=HOT).stock_level == 100
    assert counter.operations == ["GetItem"]
    buy("a")
    with count_requests() as counter:
        assert gateway.product_get(product_id=HOT).stock_level == 99
    assert counter.operations == ["GetItem", "BatchGetItem"]


@pytest.mark.dynamodb_local
def test_staff_changes_and_stocktakes_stay_exact_over_the_total(local_ddb):
    spread_and_sold(3)
    assert product_item()["stockSpread"] == "spread"
    change = gateway.stock_decrease(product_id=HOT, quantity=7, token=gateway.new_token(), reason="damaged")
    assert change.level == 90 and total() == 90
    with pytest.raises(gateway.StockMoved) as moved:  # counted against a level it no longer is
        gateway.stock_count(product_id=HOT, counted=80, expected_level=97, token=gateway.new_token())
    assert moved.value.level == 90 and total() == 90
    buy("b")  # spread again
    counted = gateway.stock_count(product_id=HOT, counted=80, expected_level=89, token=gateway.new_token())
    assert counted.level == 80 and total() == 80
    assert reconcile_product(product_id=HOT) is None


@pytest.mark.dynamodb_local
def test_changing_the_number_of_buckets_keeps_the_total(local_ddb):
    spread_and_sold(4)
    product = buckets.stock_set_buckets(product_id=HOT, buckets=3)
    assert (product.stock_buckets, product.stock_level, total()) == (3, 96, 96)
    buy("b")
    assert product_item()["stockSpread"] == "spread"
    assert [int(i["stockLevel"]) for k in range(3) for i in items_in_partition(keys.bucket_pk(HOT, k))] \
        in ([31, 32, 32], [32, 31, 32], [32, 32, 31])
    assert total() == 95
    assert buckets.stock_set_buckets(product_id=HOT, buckets=1).stock_level == 95
    assert "stockBuckets" not in product_item() and total() == 95
    assert reconcile_product(product_id=HOT) is None


@pytest.mark.dynamodb_local
def test_a_cancelled_order_puts_units_back_into_a_spread_product(local_ddb):
    seed_hot(100, 10)
    order = buy("a", quantity=2)
    buy("b")
    gateway.order_cancel(customer_id="a", order_id=order.order_id)
    assert total() == 99
    assert reconcile_product(product_id=HOT) is None


@pytest.mark.dynamodb_local
def test_an_import_keeps_the_total_and_sets_stock_buckets(local_ddb):
    spread_and_sold(3)
    data = small_catalog()
    data["products"][6].update(stockLevel=100, price="31.00", stockBuckets=4)  # stock kept, price new
    seed(data)
    product = gateway.product_get(product_id=HOT, consistent=True)
    assert (product.stock_level, product.stock_buckets, product.price) == (97, 4, 31)
    buy("b")
    assert total() == 96 and product_item()["stockSpread"] == "spread"
    assert all(i["price"] == 31 for k in range(4) for i in items_in_partition(keys.bucket_pk(HOT, k)))


@pytest.mark.parametrize("value", [0, 101, 2.5, "3", True])
def test_a_bad_stock_buckets_value_is_named_with_its_row_and_field(value):
    data = small_catalog()
    data["products"][2]["stockBuckets"] = value
    with pytest.raises(importer.ImportInvalid) as invalid:
        importer.validate(data)
    assert invalid.value.problems == [
        f"products[2].stockBuckets: {value!r} is not a number of stock buckets (a whole number from 1 to 100)"
    ]


@pytest.mark.dynamodb_local
def test_a_delivery_file_received_into_a_spread_product_adds_to_the_total(local_ddb):
    spread_and_sold(2)
    receipt = receiving.validate(b"product_id,quantity,reference\n7,5,PO-17\n1,1,PO-17\n")
    assert receiving.receive_lines(receipt, who="ann").units == 6
    assert total() == 103 and total("1") == 71
    assert reconcile_product(product_id=HOT) is None


def test_a_replica_behind_costs_one_refused_try_not_one_a_bucket(local_ddb, monkeypatch):
    """The checkout reads from any replica first. When that read is behind (here: nine buckets emptied into
    the product item's own units since, the total the same), the first refused take proves it, and the next
    try reads the latest write: two transactions, not one a stale bucket."""
    spread_and_sold(1)
    stale = products.products_get_many(product_ids=[HOT], consistent=True)
    levels = stale[HOT].bucket_levels
    for k in range(9):  # buckets 0-8 emptied into the item (as a gather moves them): the total stays
        table = gateway.client.table_name()
        gateway.client.client().transact_write_items(TransactItems=[
            {"Update": {"TableName": table, "Key": serialize(keys.product_key(HOT)), "UpdateExpression":
                        "ADD stockLevel :n", "ExpressionAttributeValues": serialize({":n": levels[k]})}},
            {"Update": {"TableName": table, "Key": serialize(keys.bucket_key(HOT, k)), "UpdateExpression":
                        "SET stockLevel = :z", "ExpressionAttributeValues": serialize({":z": 0})}},
        ])
    real = orders.products_get_many
    monkeypatch.setattr(orders, "products_get_many",
                        lambda **kw: real(**kw) if kw.get("consistent") else dict(stale))  # a replica behind
    monkeypatch.setattr(takes.random, "choice", lambda able: able[0])  # the stale buckets first
    with count_requests() as counter:
        buy("late")
    assert counter.operations.count("TransactWriteItems") == 2
    assert total() == 98 and reconcile_product(product_id=HOT) is None
