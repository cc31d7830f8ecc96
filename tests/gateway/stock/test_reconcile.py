"""Does every product's stock history add up to its level (catalog/gateway/stock/reconcile.py)? Moto."""
from catalog.gateway import client as dynamo
from catalog.gateway import codec, keys
from catalog.gateway.dynamo.testing import count_requests
from catalog.gateway.stock.reconcile import reconcile_product
from catalog.gateway.stock.stock import stock_increase


def test_a_product_whose_changes_add_up_has_no_drift(catalog):
    stock_increase(product_id="4", quantity=3, token="r1")
    with count_requests() as requests:
        assert reconcile_product(product_id="4") is None
    # The product, its hold partitions and a page of its history: its own changes and its sales (one Query
    # a Buyers shard), the Queries of each sent at once.
    assert sorted(requests.operations) == ["GetItem"] + ["Query"] * (keys.HOLD_KEY_SHARDS + 1 + keys.BUYER_SHARDS)


def test_a_level_removed_behind_the_shops_back_is_drift_not_a_crash(catalog):
    """A product item without its stockLevel (removed outside the shop) holds no units: its changes (the
    import's opening 12) do not add up to that, which reconcile_stock reports like any other drift."""
    dynamo.client().update_item(TableName=dynamo.table_name(), Key=codec.serialize(keys.product_key("4")),
                                UpdateExpression="REMOVE stockLevel")
    drift = reconcile_product(product_id="4")
    assert drift is not None and drift.level == 0
    assert drift.problem.startswith("the product has no stock level (none in stock), but its 1 stock change(s) add up "
                                    "to 12")
