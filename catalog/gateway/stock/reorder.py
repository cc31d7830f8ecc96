"""Reorder points: setting a product's (it joins or leaves the Reorder index in the same write) and the
list of products to reorder."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from .. import keys
from ..catalog.entities import Product, reorder_index_keys
from ..catalog.products import product_get
from ..dynamo import conditions
from ..dynamo.backoff import AGAIN, Again, retry_optimistic
from ..dynamo.boundary import error_code, translate_errors
from ..dynamo.client import client, table_name
from ..dynamo.codec import deserialize, serialize
from ..dynamo.conditions import Attr, all_of
from ..dynamo.pages import KeyRange, query_page
from ..errors import InvalidInput, StockBusy
from ..validate import (
    MAX_REORDER,
    check_id,
    page_size,
)
from .buckets import gathered
from .takes import GATHERED, reorder_condition

if TYPE_CHECKING:
    from catalog.gateway.dynamo.pages import Page


def product_set_reorder_point(*, product_id: str, reorder_point: int | None) -> Product:
    """Set a product's reorder point (None: back to LOW_STOCK_THRESHOLD). One conditional
    UpdateItem, on the level and reorder point read, that also puts the product in or out of the
    Reorder index; a stock write in between is retried from the product DynamoDB returns."""
    check_id("Product", product_id)
    if reorder_point is not None and (
        isinstance(reorder_point, bool) or not isinstance(reorder_point, int) or not 0 <= reorder_point <= MAX_REORDER
    ):
        raise InvalidInput(f"The reorder point must be a whole number from 0 to {MAX_REORDER:,}.")
    product = gathered(product_get(product_id=product_id, consistent=True))

    def attempt(_n: int) -> Product | Again:
        nonlocal product
        try:
            with translate_errors():
                response = client().update_item(
                    TableName=table_name(), ReturnValuesOnConditionCheckFailure="ALL_OLD", ReturnValues="ALL_NEW",
                    **_reorder_point_update(product, reorder_point),
                )
        except ClientError as exc:
            if error_code(exc) != "ConditionalCheckFailedException":
                raise
            old = exc.response.get("Item")
            if old is None:
                product = product_get(product_id=product_id, consistent=True)  # NotFound if gone
            else:
                product = gathered(Product.from_item(deserialize(old)))
            return AGAIN
        return Product.from_item(deserialize(response["Attributes"]))

    return retry_optimistic(attempt, busy=StockBusy(product_id=product_id))


def _reorder_point_update(product: Product, reorder_point: int | None) -> dict[str, Any]:
    """UpdateItem parameters: set the reorder point and the Reorder index keys that follow from
    it, if the product's level and reorder point are still those of `product`."""
    pk, sk = keys.REORDER_ATTRIBUTES
    index_keys = reorder_index_keys(product.product_id, product.stock_level, reorder_point)
    sets: list[str] = []
    removes: list[str] = []
    values: dict[str, Any] = {}
    if reorder_point is None:
        removes.append("reorderPoint")
    else:
        sets.append("reorderPoint = :newrp")
        values[":newrp"] = reorder_point
    if index_keys:
        sets += [f"{pk} = :rpk", f"{sk} = :rsk"]
        values.update({":rpk": index_keys[pk], ":rsk": index_keys[sk]})
    else:
        removes += [pk, sk]
    expression = " ".join(part for part in (
        "SET " + ", ".join(sets) if sets else "", "REMOVE " + ", ".join(removes) if removes else "") if part)
    condition = all_of(Attr("PK").exists(), Attr("stockLevel").eq(product.stock_level),
                       reorder_condition(product.reorder_point), GATHERED)
    return {"Key": serialize(keys.product_key(product.product_id)), "UpdateExpression": expression,
            **conditions.expression(condition=condition, values=values)}


def products_to_reorder(
    *, brand_id: str | None = None, category_id: str | None = None, after: str | None = None, limit: int | None = None
) -> Page[Any]:
    """Products at or below their reorder point, sold-out first (then by level, then ID): one
    Query a page of the sparse Reorder index (one partition). A brand or category filter is a
    FilterExpression on the same Query: a page reads at most `limit + 1` index items and shows
    those that match, so a filtered page can be short (the cursor carries on)."""
    if brand_id is not None:
        check_id("Brand", brand_id)
    if category_id is not None:
        check_id("Category", category_id)
    filters = {name: value for name, value in (("brandId", brand_id), ("categoryId", category_id)) if value}
    key_range = KeyRange(index=keys.REORDER, partition=keys.REORDER_PK, filters=tuple(sorted(filters.items())))
    return query_page(key_range, size=page_size(limit), after=after, build=Product.from_item)
