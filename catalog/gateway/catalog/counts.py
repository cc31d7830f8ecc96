"""Product counts on brand and category items: recounted from the products, drift repaired.

The import keeps `categoryCounts` on each brand item and `brandCounts` on each category item exact
(the counts move in the same transaction as the products). Should they drift all the same (an
import stopped by a crash between transactions cannot, but a hand edit of the table can), this
recounts: one paged Query of each brand's GSI1 partition (keys and categoryId only; no Scan),
compared with what the items say, and the difference added where it is wrong.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .. import keys
from ..dynamo.boundary import translate_errors
from ..dynamo.client import client, table_name
from ..dynamo.codec import deserialize, serialize
from ..dynamo.pages import KeyRange, query_all, read_query


@dataclass(frozen=True)
class Drift:
    kind: str  # "brand" or "category"
    owner_id: str
    other_id: str
    stored: int
    actual: int


def _brand_products_by_category(brand_id: str, on_request: Any) -> dict[Any, int]:
    counts: dict[Any, int] = {}
    params = KeyRange(index=keys.GSI1, partition=keys.brand_gsi_pk(brand_id)).params()
    params["ProjectionExpression"] = "categoryId"
    while True:
        response = read_query(params, send=lambda p: client().query(**p))
        on_request()
        for item in response["Items"]:
            cid = deserialize(item).get("categoryId")
            counts[cid] = counts.get(cid, 0) + 1
        if "LastEvaluatedKey" not in response:
            return counts
        params["ExclusiveStartKey"] = response["LastEvaluatedKey"]


def counts_recount(*, repair: bool = True) -> tuple[list[Any], int]:
    """Recount every brand's and category's products. Returns (drifts, requests); with `repair`
    each wrong count is moved by the difference (ADD-like, so a sale or import meanwhile is kept;
    run it while no import is running, as one would move a count twice)."""
    requests = [0]

    def one() -> None:
        requests[0] += 1

    brands = query_all(KeyRange(partition=keys.BRANDS_PK))
    categories = query_all(KeyRange(partition=keys.CATEGORIES_PK))
    requests[0] += 2
    actual_by_brand = {b["brandId"]: _brand_products_by_category(b["brandId"], one) for b in brands}
    actual_by_category: dict[Any, dict[Any, int]] = {}
    for bid, by_category in actual_by_brand.items():
        for cid, n in by_category.items():
            actual_by_category.setdefault(cid, {})[bid] = n
    drifts: list[Drift] = []
    plan = [
        ("brand", b["brandId"], keys.brand_key(b["brandId"]), "categoryCounts", b.get("categoryCounts"),
         actual_by_brand.get(b["brandId"], {}))
        for b in brands
    ] + [
        ("category", c["categoryId"], keys.category_key(c["categoryId"]), "brandCounts", c.get("brandCounts"),
         actual_by_category.get(c["categoryId"], {}))
        for c in categories
    ]
    for kind, owner_id, key, attribute, stored_map, actual in plan:
        stored = {k: int(v) for k, v in (stored_map or {}).items()}
        wrong = {
            other: (stored.get(other, 0), actual.get(other, 0))
            for other in sorted(set(stored) | set(actual))
            if stored.get(other, 0) != actual.get(other, 0)
        }
        drifts.extend(Drift(kind, owner_id, other, s, a) for other, (s, a) in wrong.items())
        if repair and (wrong or stored_map is None):
            _repair(key, attribute, stored_map is None, actual, wrong)
            requests[0] += 1
    return drifts, requests[0]


def _repair(key: dict[str, Any], attribute: Any, missing: Any, actual: Any, wrong: Any) -> None:
    if missing:
        expression, names, values = "SET #m = :actual", {"#m": attribute}, {":actual": actual}
    else:
        names = {"#m": attribute, **{f"#k{i}": other for i, other in enumerate(wrong)}}
        values = {":z": 0, **{f":d{i}": a - s for i, (s, a) in enumerate(wrong.values())}}
        expression = "SET " + ", ".join(
            f"#m.#k{i} = if_not_exists(#m.#k{i}, :z) + :d{i}" for i in range(len(wrong))
        )
    with translate_errors():
        client().update_item(
            TableName=table_name(), Key=serialize(key), UpdateExpression=expression,
            ExpressionAttributeNames=names, ExpressionAttributeValues=serialize(values),
        )
