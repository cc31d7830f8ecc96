"""Every access pattern of the gateway, across its modules (catalog, stock, orders), on moto: one request each
(or one a shard), never a scan."""
import pytest

from catalog import gateway
from catalog.gateway import keys
from catalog.gateway.dynamo.testing import count_requests


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
        # A product's history: its own partition and each Buyers shard, where its sales are.
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
