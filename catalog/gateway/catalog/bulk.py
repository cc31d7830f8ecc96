"""Many products at once for staff: every product in pages (the CSV export), and a planned set of changes
(an uploaded CSV, a price change by percent) compared with the products as they are, then applied once.

A plan records the version of each product it was made from; applying writes each change only over that
version (editor.product_update), so a plan applied twice writes once: the second time every product has
moved on, and a product already as planned counts as done, not as a conflict."""
from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from .. import keys
from ..dynamo.batches import batch_get
from ..dynamo.codec import deserialize
from ..dynamo.pages import KeyRange, read_query
from ..dynamo.threads import BATCH_WRITERS, in_parallel
from ..errors import CatalogError, InvalidInput
from ..validate import check_id
from .editor import ProductChanged, ProductExists, changed_fields, product_create, product_update, same
from .entities import CENT, Product
from .import_file import MAX_PRICE
from .products import product_get, products_by_brand, products_by_category

APPLY_WORKERS = BATCH_WRITERS  # products written at once when a plan is applied
EXPORT_PAGE = 100  # products a Query reads, then one BatchGetItem of their items (the list indexes lack
# the description and attributes)


def _keys_in(key_range: KeyRange, on_request: Any) -> Iterator[list[str]]:
    """The product IDs of one list partition, EXPORT_PAGE a Query."""
    params = key_range.params(limit=EXPORT_PAGE)
    params["ProjectionExpression"] = "productId"
    while True:
        response = read_query(params)
        on_request("Query")
        ids = [deserialize(i)["productId"] for i in response["Items"]]
        if ids:
            yield ids
        if "LastEvaluatedKey" not in response:
            return
        params["ExclusiveStartKey"] = response["LastEvaluatedKey"]


def products_every(*, brand_ids: Iterable[str], on_request: Any = None) -> Iterator[list[Product]]:
    """Every product, shown and hidden, in pages of up to EXPORT_PAGE with all their fields: by brand (a
    Query of its GSI1 partition, then a BatchGetItem of the page's items), then the hidden ones (GSI1's
    HIDDEN partition). No Scan; memory stays one page."""
    count = on_request or (lambda *args: None)
    ranges = [KeyRange(index=keys.GSI1, partition=keys.brand_gsi_pk(check_id("Brand", b))) for b in brand_ids]
    ranges.append(KeyRange(index=keys.GSI1, partition=keys.HIDDEN_PK))
    for key_range in ranges:
        for ids in _keys_in(key_range, count):
            items = batch_get([keys.product_key(pid) for pid in ids], on_request=count)
            by_id = {i["productId"]: Product.from_item(i) for i in items}
            yield [by_id[pid] for pid in ids if pid in by_id]


@dataclass(frozen=True)
class Planned:
    """One product of a plan: `before` as read (None: new), `after` as it will be, `changes` {field:
    (before, after)} of the editable fields that differ (empty: nothing to write)."""

    product_id: str
    before: Product | None
    after: Product
    changes: Mapping[str, tuple[Any, Any]] = field(default_factory=dict, hash=False)


def plan_products(*, products: Sequence[Product], keep: Mapping[str, Iterable[str]] | None = None,
                  on_request: Any = None) -> list[Planned]:
    """Each product compared with the stored one (one BatchGetItem a hundred, consistent). `keep`
    {product_id: fields}: fields the upload did not give, kept as stored."""
    count = on_request or (lambda *args: None)
    items = batch_get([keys.product_key(p.product_id) for p in products], consistent=True, on_request=count)
    stored = {i["productId"]: Product.from_item(i) for i in items}
    plan = []
    for product in products:
        before = stored.get(product.product_id)
        after = product
        if before is not None:
            kept = {name: getattr(before, name) for name in (keep or {}).get(product.product_id, ())}
            after = dataclasses.replace(product, **kept, version=before.version, stock_level=before.stock_level)
        plan.append(Planned(product.product_id, before, after, changed_fields(before, after)))
    return plan


def plan_price_change(*, percent: Decimal, brand_id: str | None = None, category_id: str | None = None,
                      most: int | None = None, on_request: Any = None) -> list[Planned]:
    """Every shown product of a brand or a category with its price moved by `percent` (rounded to the cent,
    at least 0): its list read page by page (one Query each), then its items (BatchGetItem). More than `most`
    products: InvalidInput, once the list has more (before their items are read)."""
    count = on_request or (lambda *args: None)
    products: list[Product] = []
    after = None
    while True:
        page = (products_by_brand(brand_id=brand_id, after=after, limit=EXPORT_PAGE) if brand_id is not None
                else products_by_category(category_id=str(category_id), after=after, limit=EXPORT_PAGE))
        count("Query")
        products += page.items
        if most is not None and len(products) > most:
            raise InvalidInput(f"more than {most} products")
        after = page.next_cursor
        if after is None:
            break
    factor = 1 + percent / 100
    moved = [dataclasses.replace(p, price=min(MAX_PRICE, max(Decimal(0), (p.price * factor).quantize(
        CENT, rounding=ROUND_HALF_UP)))) for p in products]
    plan = plan_products(products=moved, on_request=count)
    # Only the price moves: everything else as stored.
    return [dataclasses.replace(p, after=dataclasses.replace(p.before, price=p.after.price),
                                changes={k: v for k, v in p.changes.items() if k == "price"})
            for p in plan if p.before is not None]


@dataclass
class Applied:
    created: int = 0
    changed: int = 0
    done_before: int = 0  # already as planned (a plan applied again)
    conflicts: list = field(default_factory=list)  # product IDs someone else changed (or created) since the plan
    failed: list = field(default_factory=list)  # product IDs not written (DynamoDB busy or down): apply again


def plan_apply(*, plan: Sequence[Planned], who: str, on_request: Any = None) -> Applied:
    """Write each planned change over the version it was planned from (several at once). A product that
    moved on (or was created) since is left as it is: counted as done if it is already as planned, else a
    conflict. One that could not be written (DynamoDB busy, unreachable, out of budget) is listed as failed and
    the rest go on: applying the plan again writes those (the others are then as planned)."""
    result = Applied()

    def write(entry: Planned) -> str:
        try:
            if entry.before is None:
                product_create(product=entry.after, who=who, on_request=on_request)
                return "created"
            product_update(product_id=entry.product_id, version=entry.before.version, who=who,
                           changes={name: after for name, (_, after) in entry.changes.items()},
                           on_request=on_request)
            return "changed"
        except ProductChanged as exc:
            current = exc.current
        except ProductExists:
            current = product_get(product_id=entry.product_id, consistent=True)
        except CatalogError:
            return "failed"
        as_planned = all(same(getattr(current, name), after) for name, (_, after) in entry.changes.items())
        return "done_before" if as_planned else "conflict"

    outcomes: dict[str, str] = {}

    def send(entry: Planned) -> None:
        outcomes[entry.product_id] = write(entry)

    in_parallel([p for p in plan if p.changes], send, workers=APPLY_WORKERS)
    for product_id, outcome in sorted(outcomes.items()):
        if outcome in ("conflict", "failed"):
            (result.conflicts if outcome == "conflict" else result.failed).append(product_id)
        else:
            setattr(result, outcome, getattr(result, outcome) + 1)
    return result

