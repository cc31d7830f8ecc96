"""The gateway against moto: every access pattern, its request count, and its errors."""
from decimal import Decimal

import pytest
from botocore.stub import Stubber

from catalog import gateway
from catalog.gateway import client as dynamo
from catalog.gateway import keys
from catalog.gateway.catalog.entities import Brand, Category, Product
from catalog.gateway.dynamo import backoff, batches
from catalog.gateway.dynamo.testing import count_requests
from catalog.gateway.errors import (
    CatalogUnavailable,
    InsufficientStock,
    InvalidCursor,
    InvalidId,
    InvalidInput,
    InvalidQuantity,
    NotFound,
    StockBusy,
)
from catalog.gateway.stock import stock
from tests.helpers import items_in_partition, seed


def ids(page):
    return sorted(p.product_id for p in page.items)


# --- patterns 1 and 2 -------------------------------------------------------------------

def test_all_brands_are_typed_and_sorted_by_name(catalog):
    brands = gateway.brands_all()
    assert brands == [
        Brand("10", "Acme"), Brand("2", "Google"), Brand("1", "Microsoft"), Brand("3", "Tesla"),
    ]


def test_all_categories(catalog):
    assert [c.name for c in gateway.categories_all()] == ["Boats", "Cars", "Chargers", "Phones"]
    assert Category("10", "Chargers") in gateway.categories_all()


# --- pattern 3 --------------------------------------------------------------------------

def test_product_by_id_carries_its_free_form_attributes(catalog):
    product = gateway.product_get(product_id="1")
    assert product == Product(
        product_id="1", name="Model 3", brand_id="3", category_id="1", price=Decimal("39990.00"),
        stock_level=70, description="Electric sedan.", attributes={"range_km": 510, "seats": 5},
    )
    assert gateway.product_get(product_id="3").attributes == {"kw": 11.5}


def test_unknown_product_is_not_found(catalog):
    with pytest.raises(NotFound):
        gateway.product_get(product_id="999")


@pytest.mark.parametrize("bad", ["", "a b", "../1", "x" * 65, "1#2", None, 7, "é"])
def test_malformed_ids_are_rejected_before_any_request(catalog, bad):
    with count_requests() as counter:
        with pytest.raises(InvalidId):
            gateway.product_get(product_id=bad)
        with pytest.raises(InvalidId):
            gateway.products_by_brand(brand_id=bad)
        with pytest.raises(InvalidId):
            gateway.products_by_category(category_id=bad)
        if bad is not None:  # None there means "no brand filter"
            with pytest.raises(InvalidId):
                gateway.products_by_category(category_id="1", brand_id=bad)
    assert counter.total == 0


# --- patterns 6 to 9 --------------------------------------------------------------------

def test_products_by_brand(catalog):
    assert ids(gateway.products_by_brand(brand_id="3")) == ["1", "2", "3"]


def test_products_by_brand_and_category_keeps_category_1_apart_from_10(catalog):
    assert ids(gateway.products_by_brand(brand_id="3", category_id="1")) == ["1", "2"]
    assert ids(gateway.products_by_brand(brand_id="3", category_id="10")) == ["3"]
    assert ids(gateway.products_by_brand(brand_id="10", category_id="1")) == ["8"]


def test_products_by_category(catalog):
    assert ids(gateway.products_by_category(category_id="1")) == ["1", "2", "8"]
    assert ids(gateway.products_by_category(category_id="10")) == ["3", "7"]


def test_products_by_category_and_brand_keeps_brand_1_apart_from_10(catalog):
    assert ids(gateway.products_by_category(category_id="3", brand_id="1")) == ["5"]
    assert ids(gateway.products_by_category(category_id="1", brand_id="10")) == ["8"]
    assert ids(gateway.products_by_category(category_id="1", brand_id="1")) == []


def test_list_items_show_what_a_list_needs(catalog):
    (product,) = gateway.products_by_category(category_id="3", brand_id="2").items
    # The stock band (12 in stock: above the low-stock threshold of 5), not the exact level.
    assert (product.name, product.price, product.stock_band, product.brand_id) == (
        "Pixel 9", Decimal("899.00"), 6, "2",
    )
    assert product.stock_level is None


def test_a_list_shows_the_band_a_stock_write_leaves(catalog):
    def band(product_id):
        return {p.product_id: p.stock_band for p in gateway.products_by_brand(brand_id="3").items}[product_id]

    level = gateway.product_get(product_id="1").stock_level  # 70
    gateway.stock_decrease(product_id="1", quantity=level - 6, token=gateway.new_token(), reason="damaged")
    assert band("1") == 6  # 6 left: still "In stock"
    gateway.stock_decrease(product_id="1", quantity=1, token=gateway.new_token(), reason="damaged")
    assert band("1") == 5  # "Only 5 left"
    gateway.stock_decrease(product_id="1", quantity=5, token=gateway.new_token(), reason="damaged")
    assert band("1") == 0  # sold out
    gateway.stock_increase(product_id="1", quantity=40, token=gateway.new_token())
    assert band("1") == 6


def test_unknown_brand_has_no_products(catalog):
    page = gateway.products_by_brand(brand_id="404")
    assert page.items == [] and page.next_cursor is None


# --- pagination -------------------------------------------------------------------------

def _many(n, brand="3", category="1"):
    data = {
        "brands": [{"brandId": brand, "name": "Tesla"}],
        "categories": [{"categoryId": category, "name": "Cars"}],
        "products": [
            {"productId": f"p{i:03d}", "name": f"Car {i}", "brandId": brand, "categoryId": category,
             "price": "1.00", "stockLevel": 1}
            for i in range(n)
        ],
    }
    seed(data)


def _walk(fetch):
    seen, after, pages = [], None, 0
    while True:
        page = fetch(after)
        pages += 1
        seen.extend(p.product_id for p in page.items)
        if page.next_cursor is None:
            return seen, pages
        after = page.next_cursor


@pytest.mark.parametrize("total,size,pages", [(30, 7, 5), (28, 7, 4), (7, 7, 1), (1, 7, 1)])
def test_walking_every_page_returns_every_product_once(ddb, total, size, pages):
    _many(total)
    seen, walked = _walk(lambda after: gateway.products_by_brand(brand_id="3", after=after, limit=size))
    assert sorted(seen) == [f"p{i:03d}" for i in range(total)]
    assert walked == pages  # no empty trailing page when the total is a multiple of the size


def test_page_size_comes_from_settings(ddb, settings):
    settings.CATALOG_PAGE_SIZE = 5
    _many(12)
    page = gateway.products_by_category(category_id="1")
    assert len(page.items) == 5 and page.next_cursor


def test_tampered_cursor_is_rejected_without_a_request(ddb):
    _many(10)
    cursor = gateway.products_by_brand(brand_id="3", limit=3).next_cursor
    tampered = cursor[:-3] + ("AAA" if not cursor.endswith("AAA") else "BBB")
    with count_requests() as counter:
        for bad in (tampered, "garbage", "", "x" * 5000):
            with pytest.raises(InvalidCursor):
                gateway.products_by_brand(brand_id="3", after=bad, limit=3)
    assert counter.total == 0


def test_a_cursor_from_another_list_is_rejected(ddb):
    _many(10)
    cursor = gateway.products_by_brand(brand_id="3", limit=3).next_cursor
    with pytest.raises(InvalidCursor):
        gateway.products_by_brand(brand_id="4", after=cursor, limit=3)
    with pytest.raises(InvalidCursor):
        gateway.products_by_brand(brand_id="3", category_id="1", after=cursor, limit=3)
    with pytest.raises(InvalidCursor):
        gateway.products_by_category(category_id="1", after=cursor, limit=3)


# --- stock writes (patterns 4 and 5) ----------------------------------------------------

def test_increase_and_decrease_return_the_new_level(catalog):
    up = gateway.stock_increase(product_id="4", quantity=8, token="tok-up", reason="received", who="ann")
    assert up.level == 20 and not up.replayed
    down = gateway.stock_decrease(product_id="4", quantity=15, token="tok-down", reason="sold", who="bob")
    assert down.level == 5
    assert gateway.product_get(product_id="4").stock_level == 5


def test_decrease_below_zero_is_refused_and_changes_nothing(catalog):
    with pytest.raises(InsufficientStock) as raised:
        gateway.stock_decrease(product_id="2", quantity=4, token="tok", reason="sold")
    assert raised.value.available == 3
    assert gateway.product_get(product_id="2").stock_level == 3
    # the product and the import's opening change: no adjustment, no idempotency mark
    assert [(i["type"], i.get("reason")) for i in items_in_partition("P#2")] == [
        ("PRODUCT", None), ("STOCK_ADJUSTMENT", "opening")]


def test_decrease_to_exactly_zero_is_allowed(catalog):
    assert gateway.stock_decrease(product_id="2", quantity=3, token="tok", reason="sold").level == 0


@pytest.mark.parametrize("write", [gateway.stock_increase, gateway.stock_decrease])
def test_stock_writes_never_create_an_unknown_product(catalog, write):
    with pytest.raises(NotFound):
        write(product_id="999", quantity=1, token="tok", reason="counted")
    assert items_in_partition("P#999") == []


@pytest.mark.parametrize("quantity", [0, -1, 1.5, "3", None, True, 1_000_001])
def test_bad_quantities_are_rejected_before_any_request(catalog, quantity):
    with count_requests() as counter:
        with pytest.raises(InvalidQuantity):
            gateway.stock_increase(product_id="1", quantity=quantity, token="tok")
    assert counter.total == 0


def test_the_same_idempotency_key_applies_once(catalog):
    first = gateway.stock_decrease(product_id="1", quantity=5, token="same", reason="sold", who="ann")
    again = gateway.stock_decrease(product_id="1", quantity=5, token="same", reason="sold", who="ann")
    assert again.replayed and again.level == first.level == 65
    assert again.adjustment == first.adjustment
    assert gateway.product_get(product_id="1").stock_level == 65
    assert [h.reason for h in gateway.stock_history(product_id="1").items] == ["sold", "opening"]



def test_a_used_key_replays_even_after_the_stock_ran_out(catalog):
    """Resubmitting the decrease that emptied the stock answers as the first time, not 'only 0 left'."""
    first = gateway.stock_decrease(product_id="2", quantity=3, token="last-ones", reason="sold", who="ann")
    again = gateway.stock_decrease(product_id="2", quantity=3, token="last-ones", reason="sold", who="ann")
    assert (first.level, again.level, again.replayed) == (0, 0, True)
    assert again.adjustment == first.adjustment
    assert [h.reason for h in gateway.stock_history(product_id="2").items] == ["sold", "opening"]
    with pytest.raises(InsufficientStock):  # a new key is still refused
        gateway.stock_decrease(product_id="2", quantity=3, token="new-key", reason="sold")

def test_a_write_with_the_level_the_caller_saw_is_one_transaction(catalog):
    with count_requests() as counter:
        change = gateway.stock_increase(product_id="4", quantity=3, token="seen", expected_level=12)
    assert counter.operations == ["TransactWriteItems"]
    assert change.level == 15 == gateway.product_get(product_id="4").stock_level


def test_a_stale_expected_level_costs_a_retry_never_a_wrong_level(catalog):
    with count_requests() as counter:
        change = gateway.stock_decrease(product_id="4", quantity=2, token="stale", expected_level=40)
    assert counter.operations == ["TransactWriteItems", "TransactWriteItems"]
    assert change.level == 10 == gateway.product_get(product_id="4").stock_level
    assert [(h.delta, h.resulting_level) for h in gateway.stock_history(product_id="4").items] == [(-2, 10), (12, 12)]


def test_a_decrease_is_never_refused_on_a_stale_expected_level(catalog):
    assert gateway.stock_decrease(product_id="2", quantity=3, token="low-hint", expected_level=0).level == 0
    with pytest.raises(InsufficientStock) as raised:  # refused on the level read, not on the hint
        gateway.stock_decrease(product_id="2", quantity=1, token="high-hint", expected_level=50)
    assert raised.value.available == 0


@pytest.mark.parametrize("write", [gateway.stock_increase, gateway.stock_decrease])
def test_an_expected_level_never_creates_an_unknown_product(catalog, write):
    with pytest.raises(NotFound):
        write(product_id="999", quantity=1, token="tok", expected_level=5)
    assert items_in_partition("P#999") == []


@pytest.mark.parametrize("hint", [-1, 1.5, "3", True])
def test_a_malformed_expected_level_is_rejected_before_any_request(catalog, hint):
    with count_requests() as counter:
        with pytest.raises(InvalidInput):
            gateway.stock_increase(product_id="4", quantity=1, token="tok", expected_level=hint)
    assert counter.total == 0


def _a_rival_writes_first(monkeypatch, times):
    """Before each of our next `times` stock transactions, another writer adds 1 to product 4."""
    real, left = stock.transact_write, [times]

    def rival_first(*args, **kwargs):
        if left[0]:
            left[0] -= 1
            dynamo.client().update_item(
                TableName=dynamo.table_name(), Key={"PK": {"S": "P#4"}, "SK": {"S": "METADATA"}},
                UpdateExpression="ADD stockLevel :one", ExpressionAttributeValues={":one": {"N": "1"}},
            )
        return real(*args, **kwargs)

    monkeypatch.setattr(stock, "transact_write", rival_first)


def test_a_write_that_loses_a_race_retries_from_the_level_the_rival_left(catalog, monkeypatch):
    _a_rival_writes_first(monkeypatch, times=3)
    change = gateway.stock_decrease(product_id="4", quantity=2, token="after-rivals", reason="sold")
    assert change.level == 12 + 3 - 2
    assert gateway.product_get(product_id="4").stock_level == 13
    # (the rival's writes went behind the ledger's back: the import's opening 12 and this sale)
    assert [(h.delta, h.resulting_level) for h in gateway.stock_history(product_id="4").items] == [(-2, 13), (12, 12)]


def test_a_write_that_keeps_losing_gives_up_as_busy_and_writes_nothing_of_its_own(catalog, monkeypatch):
    monkeypatch.setattr(backoff, "CONTENDED_WRITE_SECONDS", 0.05)
    _a_rival_writes_first(monkeypatch, times=10_000)
    with pytest.raises(StockBusy):
        gateway.stock_decrease(product_id="4", quantity=2, token="never-lands", reason="sold")
    assert [h.reason for h in gateway.stock_history(product_id="4").items] == ["opening"]
    monkeypatch.undo()
    rivals = gateway.product_get(product_id="4").stock_level - 12
    assert rivals >= 1  # only the rival's writes landed; the same key may be sent again
    assert gateway.stock_decrease(product_id="4", quantity=2, token="never-lands").level == 12 + rivals - 2


def test_each_write_records_an_adjustment_in_the_products_partition(catalog):
    gateway.stock_increase(product_id="4", quantity=10, token="a1", reason="received", who="ann")
    gateway.stock_decrease(product_id="4", quantity=2, token="a2", reason="damaged", who="bob")
    history = gateway.stock_history(product_id="4").items
    assert [(h.delta, h.resulting_level, h.reason, h.who) for h in history] == [
        (-2, 20, "damaged", "bob"),
        (10, 22, "received", "ann"),
        (12, 12, "opening", "import"),
    ]
    assert history[0].at >= history[1].at >= history[2].at


def test_history_pages_newest_first(catalog):
    for i in range(5):
        gateway.stock_increase(product_id="7", quantity=i + 1, token=f"h{i}")
    first = gateway.stock_history(product_id="7", limit=2)
    rest = gateway.stock_history(product_id="7", limit=10, after=first.next_cursor)
    assert [h.delta for h in first.items + list(rest.items)] == [5, 4, 3, 2, 1, 40]  # 40: the import's opening
    assert rest.next_cursor is None
    with pytest.raises(InvalidCursor):
        gateway.stock_history(product_id="4", after=first.next_cursor)


# --- one request per access pattern -------------------------------------------------------

@pytest.mark.parametrize(
    "call,operations",
    [
        (lambda: gateway.brands_all(), ["Query"]),
        (lambda: gateway.categories_all(), ["Query"]),
        (lambda: gateway.product_get(product_id="1"), ["GetItem"]),
        (lambda: gateway.products_by_brand(brand_id="3"), ["Query"]),
        (lambda: gateway.products_by_brand(brand_id="3", category_id="1"), ["Query"]),
        (lambda: gateway.products_by_category(category_id="1"), ["Query"]),
        (lambda: gateway.products_by_category(category_id="1", brand_id="3"), ["Query"]),
        # A product's history: its own partition and each Buyers shard, where its sales are (issue 33).
        (lambda: gateway.stock_history(product_id="1"), ["Query"] * (1 + keys.BUYER_SHARDS)),
        (lambda: gateway.stock_history(product_id="1", consistent=True), ["Query"] * (1 + keys.BUYER_SHARDS)),
        (lambda: gateway.stock_history(product_id="1", reason="received"), ["Query"]),
        (lambda: gateway.product_buyers(product_id="1"), ["Query"] * keys.BUYER_SHARDS),
        (lambda: gateway.orders_open(), ["Query"] * keys.OPEN_ORDER_SHARDS),
        # A stock write is one conditional transaction, conditional on the level read just before
        # (or on the level the caller saw: see test_a_write_with_the_level_the_caller_saw_is_one_transaction).
        (lambda: gateway.stock_decrease(product_id="1", quantity=1, token="c1"), ["GetItem", "TransactWriteItems"]),
        (lambda: gateway.stock_increase(product_id="1", quantity=1, token="c2"), ["GetItem", "TransactWriteItems"]),
    ],
)
def test_each_access_pattern_is_one_request_and_never_a_scan(catalog, call, operations):
    with count_requests() as counter:
        call()
    assert counter.operations == operations


# --- errors at the boundary ---------------------------------------------------------------

def test_unreachable_dynamodb_becomes_catalog_unavailable(settings):
    settings.DYNAMODB_ENDPOINT_URL = "http://127.0.0.1:9"
    settings.DYNAMODB_MAX_ATTEMPTS = 1
    settings.DYNAMODB_CONNECT_TIMEOUT = 0.5
    try:
        with pytest.raises(CatalogUnavailable):
            gateway.brands_all()
    finally:
        dynamo.reset_client()


@pytest.mark.parametrize(
    "code", ["ProvisionedThroughputExceededException", "ThrottlingException", "InternalServerError"]
)
def test_throttling_becomes_catalog_unavailable(catalog, code):
    with Stubber(dynamo.client()) as stub:
        stub.add_client_error("get_item", service_error_code=code, http_status_code=400)
        with pytest.raises(CatalogUnavailable):
            gateway.product_get(product_id="1")
    assert gateway.product_get(product_id="1").name == "Model 3"  # and it recovers


def test_the_client_is_built_once_and_rebuilt_when_settings_change(ddb, settings):
    first = dynamo.client()
    assert dynamo.client() is first
    settings.DYNAMODB_READ_TIMEOUT = 1.5
    assert dynamo.client() is not first
    assert dynamo.client().meta.config.read_timeout == 1.5


# --- batches ------------------------------------------------------------------------------

def _unprocessed(monkeypatch, *, times):
    """BatchGetItem answers its first `times` calls with every key left unprocessed."""
    ddb_client = dynamo.client()
    real, calls = ddb_client.batch_get_item, []

    def flaky(RequestItems):
        calls.append(1)
        if len(calls) <= times:
            return {"Responses": {}, "UnprocessedKeys": RequestItems}
        return real(RequestItems=RequestItems)

    monkeypatch.setattr(ddb_client, "batch_get_item", flaky)
    monkeypatch.setattr(batches, "pause", lambda attempt, **kwargs: None)
    return calls


def test_keys_left_unprocessed_are_asked_for_again(catalog, monkeypatch):
    calls = _unprocessed(monkeypatch, times=2)
    products = gateway.products_get_many(product_ids=["1", "2", "4"])
    assert sorted(products) == ["1", "2", "4"] and products["2"].stock_level == 3
    assert len(calls) == 3


def test_keys_never_processed_make_the_catalog_unavailable(catalog, monkeypatch):
    calls = _unprocessed(monkeypatch, times=1_000)
    with pytest.raises(CatalogUnavailable):
        gateway.products_get_many(product_ids=["1", "2"])
    assert len(calls) == batches.UNPROCESSED_ATTEMPTS
