"""What each editor write costs on DynamoDB Local, as it reports it (ReturnConsumedCapacity=INDEXES: the table's
and the indexes' units): requests, read units and write units (docs/catalog-editor.md keeps the table)."""
from decimal import Decimal

import pytest

from catalog import gateway
from catalog.gateway import client as dynamo
from catalog.gateway.catalog.entities import Product
from catalog.gateway.dynamo.testing import count_requests

pytestmark = pytest.mark.dynamodb_local


def measure(fn):
    """(operations, read units, write units) of what `fn` sends."""
    used = []

    def add(params, **kwargs):
        params["ReturnConsumedCapacity"] = "INDEXES"

    def after(http_response, parsed, model, **kwargs):
        cc = parsed.get("ConsumedCapacity")
        if cc:
            used.append((model.name, cc))

    c = dynamo.client()
    c.meta.events.register("provide-client-params.dynamodb.*", add)
    c.meta.events.register("after-call.dynamodb", after)
    with count_requests() as counter:
        fn()
    c.meta.events.unregister("provide-client-params.dynamodb.*", add)
    c.meta.events.unregister("after-call.dynamodb", after)
    reads = writes = 0.0
    for name, cc in used:
        for entry in cc if isinstance(cc, list) else [cc]:
            reads += entry.get("ReadCapacityUnits", 0) or 0
            writes += entry.get("WriteCapacityUnits", 0) or 0
            if not entry.get("ReadCapacityUnits") and not entry.get("WriteCapacityUnits"):
                total = entry.get("CapacityUnits", 0)
                if name in ("TransactWriteItems", "PutItem", "UpdateItem", "BatchWriteItem", "DeleteItem"):
                    writes += total
                else:
                    reads += total
    return counter.operations, reads, writes


GET_AND_TRANSACTION = ["GetItem", "TransactWriteItems"]


def test_what_each_editor_action_costs(local_catalog):
    new = Product(product_id="n1", name="Cybertruck Mini", brand_id="3", category_id="1", price=Decimal("99.50"),
                  stock_level=7, description="Small.", attributes={"doors": 2})

    def edit(version, **changes):
        return lambda: gateway.product_update(product_id="n1", version=version, who="a", changes=changes)

    # a new product of 2 words (12 search terms): its item, record, opening stock change, 2 counts, 12 terms
    # and their 24 count items, in one transaction
    assert measure(lambda: gateway.product_create(product=new, who="a")) == (["TransactWriteItems"], 0, 60)
    assert measure(edit(1, price=Decimal("89.00"))) == (GET_AND_TRANSACTION, 1, 64)  # its terms carry the price
    assert measure(edit(2, description="Tiny.")) == (GET_AND_TRANSACTION, 1, 4)  # the item and its record
    assert measure(edit(3, brand_id="10", category_id="10")) == (GET_AND_TRANSACTION, 1, 80)
    assert measure(edit(4, name="Acme Cyberplug")) == (GET_AND_TRANSACTION, 1, 60)  # 12 terms out, 11 in
    assert measure(edit(5, published=False)) == (GET_AND_TRANSACTION, 1, 52)
    assert measure(edit(6, published=True)) == (GET_AND_TRANSACTION, 1, 52)
    assert measure(lambda: gateway.product_history(product_id="n1")) == (["Query"], 0.5, 0)
    assert measure(lambda: gateway.brand_save(brand_id="77", name="New", create=True)) == (["UpdateItem"], 0, 1)
    assert measure(lambda: gateway.brand_save(brand_id="77", name="Newer", create=False)) == (["UpdateItem"], 0, 1)
    assert measure(lambda: gateway.products_by_brand(brand_id="10", sort="name")) == (["Query"], 0.5, 0)
    assert measure(lambda: gateway.products_search(query="model", levels=False)) == (["Query"], 0.5, 0)
