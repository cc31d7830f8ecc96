"""Bulk catalog import: validate the whole file first, then write in batches.

Importing again updates a product's names, price, description, attributes, brand and category
(and its index keys) but keeps its stock level: stock only changes through stock writes,
unless `reset_stock` says otherwise. Where an import sets a level (a new product's, or a reset
one) it writes an `opening` stock change in the same transaction, so the level is the sum of the
product's changes from the start (reconcile_stock checks exactly that).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from .. import keys
from ..alerts.marks import alert_due_action, marks_due, transact_write_marking_due
from ..dynamo.backoff import Again, pause, retry_optimistic
from ..dynamo.batches import batch_get, batch_write
from ..dynamo.boundary import translate_errors
from ..dynamo.client import client, table_name
from ..dynamo.codec import serialize
from ..dynamo.conditions import Attr, Condition, all_of, expression
from ..dynamo.transact import TRANSACTION_ACTIONS, put, update
from ..errors import CatalogUnavailable
from ..stock.buckets import stock_gather
from ..stock.stock import opening_adjustment
from ..validate import new_token
from .changes import (
    add_term_counts,
    as_read_condition,
    as_stored,
    count_actions,
    membership_deltas,
    moves,
    term_changes,
)
from .entities import Product
from .import_file import DEMO_CATALOG, ImportInvalid, ImportResult, load, referenced_ids, validate
from .products import brands_all, categories_all

if TYPE_CHECKING:
    from catalog.gateway.stock.entities import StockAdjustment


# The catalog import: its file (import_file) and its writing, as the commands, staff and tests use it.
__all__ = ["DEMO_CATALOG", "ImportInvalid", "ImportResult", "add_term_counts", "import_catalog", "load", "validate",
           "write"]

# --- writing ---------------------------------------------------------------------------
#
# Products are written in transactions of up to TRANSACTION_ACTIONS actions: each product's write
# is conditional on the product being as it was read (absent, or in the same brand and category
# with the same name), and the same transaction moves the counts on the brand and category items
# (SET <map>.<id> = <old> + <delta>: atomic, so concurrent imports add up). A product another
# import changed meanwhile fails its condition; it is read again and its group sent again.
# Search terms are written afterwards (BatchWriteItem: puts and deletes, idempotent), and each
# term's two count items moved by the exact difference (UpdateItem ADD), once the product's
# transaction said which name it replaced.

TRANSACTION_BYTES = 3_000_000  # of DynamoDB's 4 MB a transaction
OPENING_BYTES = 1_000  # at most, an opening stock change with its index keys
GROUP_ATTEMPTS = 10
# Before each further try of a group whose products another writer changed: up to 50 ms, doubling, at most 2 s.
AGAIN_GROUP = Again("AGAIN_GROUP", lambda n: pause(n - 1, first=0.05, most=2.0))

# What an existing product is read for: its place (counts), its name (search terms), what its
# term items show (price, image, brand and category), and its stock level and reorder point (an
# update keeps the level; the Reorder index keys follow from both), its stock buckets and whether its
# stock is spread over them (it is gathered first: buckets.py), and the back-in-stock alerts waiting
# for it (a reset's Put keeps the count: keys.ALERTS_WAITING).
# Also whether staff hid it (an import keeps that) and its version (an import moves it on: the staff editor
# writes only over the version it showed).
PRODUCT_STATE = ("productId, brandId, categoryId, #n, price, image, stockLevel, reorderPoint, stockBuckets, "
                 f"stockSpread, {keys.ALERTS_WAITING}, published, version")


def _read_products(product_ids: Iterable[str], result: Any) -> dict[str, Any]:
    """The products already in the table, as they are now ({id: Product-like item})."""
    items = batch_get(
        [keys.product_key(pid) for pid in product_ids], projection=PRODUCT_STATE, names={"#n": "name"},
        consistent=True, on_request=result.count,
    )
    return {i["productId"]: i for i in items}


def _put_names(brands: Any, categories: Any, also_brand_ids: Any, also_category_ids: Any, result: Any) -> None:
    """Brand and category items: their names set, their count maps kept (created empty if new).
    Brands and categories only referenced get an empty map if they have none (UpdateItem each)."""
    def send(key: dict[str, Any], update_expression: str, names: Any, values: Any,
             condition: Condition | None = None) -> None:
        with translate_errors():
            client().update_item(TableName=table_name(), Key=serialize(key), UpdateExpression=update_expression,
                                 **expression(condition=condition, names=names, values=values))
        result.count("UpdateItem")

    named = [(keys.brand_key(b.brand_id), "BRAND", "brandId", b.brand_id, b.name, "categoryCounts") for b in brands]
    named += [
        (keys.category_key(c.category_id), "CATEGORY", "categoryId", c.category_id, c.name, "brandCounts")
        for c in categories
    ]
    for key, kind, id_name, entity_id, name, counts in named:
        send(
            key, "SET #t = :t, #i = :i, #n = :n, #c = if_not_exists(#c, :empty)",
            {"#t": "type", "#i": id_name, "#n": "name", "#c": counts},
            {":t": kind, ":i": entity_id, ":n": name, ":empty": {}},
        )
    referenced = [(keys.brand_key(b), "categoryCounts") for b in sorted(also_brand_ids)]
    referenced += [(keys.category_key(c), "brandCounts") for c in sorted(also_category_ids)]
    for key, counts in referenced:
        send(key, "SET #c = if_not_exists(#c, :empty)", {"#c": counts}, {":empty": {}},
             condition=Attr("PK").exists())


def _stored_level(old: Any) -> int:
    return int(old["stockLevel"]) if old.get("stockLevel") is not None else 0


def _product_action(product: Product, old: Any, reset_stock: bool) -> dict[str, Any]:
    """The conditional Put or Update of one product: it must still be as it was read (place, name, shown or hidden,
    version, level, and unless the stock is reset its reorder point). A product without a reorder point in the file
    keeps the one stored; an update keeps the stock level, and the Reorder index keys follow from that level."""
    if old is None:
        return put(product.to_item(), if_absent=True)
    stored_level = _stored_level(old)
    stored_reorder = int(old["reorderPoint"]) if old.get("reorderPoint") is not None else None
    product = dataclasses.replace(
        as_stored(product, old),
        reorder_point=product.reorder_point if product.reorder_point is not None else stored_reorder,
        stock_level=product.stock_level if reset_stock else stored_level,
        stock_buckets=product.stock_buckets or int(old.get("stockBuckets", 1)),
    )
    item = product.to_item()
    # Gathered (its stockLevel the total; buckets.stock_gather ran before if it was spread), in the place, under the
    # name and at the level read: a reset's opening change is the difference to that level, so it must still hold.
    condition = all_of(
        Attr("PK").exists(), Attr("stockSpread").not_exists(), Attr("brandId").eq(old["brandId"]),
        Attr("categoryId").eq(old["categoryId"]), Attr("name").eq(old.get("name", "")), as_read_condition(old),
        Attr("stockLevel").not_exists() if old.get("stockLevel") is None else Attr("stockLevel").eq(stored_level),
    )
    if not reset_stock:
        condition &= (Attr("reorderPoint").not_exists() if stored_reorder is None
                      else Attr("reorderPoint").eq(stored_reorder))
    if reset_stock:  # a Put: it keeps the alerts waiting as read, and only if they still are
        if old.get(keys.ALERTS_WAITING) is None:
            condition &= Attr(keys.ALERTS_WAITING).not_exists()
        else:
            item[keys.ALERTS_WAITING] = old[keys.ALERTS_WAITING]
            condition &= Attr(keys.ALERTS_WAITING).eq(old[keys.ALERTS_WAITING])
        return put({**item, "version": int(old.get("version") or 0) + 1}, condition=condition)
    key = {"PK": item.pop("PK"), "SK": item.pop("SK")}
    item.pop("stockLevel")
    item["version"] = int(old.get("version") or 0) + 1  # moved on: the staff editor writes over what it showed
    # Attributes an earlier version had but this one has not (an image taken away, the Reorder
    # index keys of a product no longer low) are removed.
    removed = ([] if product.image else ["image"]) + [
        name for name in (*keys.REORDER_ATTRIBUTES, "stockBuckets") if name not in item
    ]
    # The update's own placeholders (#a, :u, #r) are apart from those of the condition (#n0, :v0, ...).
    names = {f"#a{i}": name for i, name in enumerate(item)}
    setting = "SET " + ", ".join(f"#a{i} = :u{i}" for i in range(len(item)))
    if removed:
        names.update({f"#r{i}": name for i, name in enumerate(removed)})
        setting += " REMOVE " + ", ".join(f"#r{i}" for i in range(len(removed)))
    return update(key, setting, {f":u{i}": v for i, v in enumerate(item.values())}, condition=condition, names=names)


def _opening(product: Product, old: Any, reset_stock: bool) -> StockAdjustment | None:
    """The opening stock change written with a product whose level the import sets (a new product's
    level; with `reset_stock`, the difference to the level stored), or None when no level moves."""
    level = product.stock_level or 0  # an import file's level (0 when it leaves it out)
    if old is None:
        delta, note = level, ""
    elif reset_stock:
        delta, note = level - _stored_level(old), "Level reset by import_catalog --reset-stock"
    else:
        return None
    if not delta:
        return None
    return opening_adjustment(
        product_id=product.product_id, delta=delta, resulting_level=level, note=note,
    )


def _groups(products: Sequence[Product], existing: Any) -> Iterator[list[Product]]:
    """Products in transactions: at most TRANSACTION_ACTIONS actions (two a product: its write and
    room for its opening stock change, which a re-read may bring; one a brand or category whose
    counts move) and TRANSACTION_BYTES. Sorted by brand and category, so a group touches few
    count items."""
    group: list[Product] = []
    pairs: set[tuple[str, str]] = set()
    size = 0
    for product in sorted(products, key=lambda p: (p.brand_id, p.category_id, p.product_id)):
        old = existing.get(product.product_id)
        touched = {(m[0][0], m[0][1]) for m in moves(as_stored(product, old), old)}
        new_pairs = pairs | touched
        counters = len({b for b, _ in new_pairs}) + len({c for _, c in new_pairs})
        item_size = len(repr(product.to_item())) + OPENING_BYTES
        if group and (2 * (len(group) + 1) + counters > TRANSACTION_ACTIONS or size + item_size > TRANSACTION_BYTES):
            yield group
            group, new_pairs, size = [], touched, 0
        group.append(product)
        pairs, size = new_pairs, size + item_size
    if group:
        yield group


def _write_group(group: Any, existing: Any, reset_stock: bool, result: Any) -> None:
    """One transaction for a group of products and their counts; products another writer changed
    meanwhile are read again and the transaction rebuilt. Updates `existing` with what was read."""

    def attempt(_n: int) -> Again | None:
        spread = [p.product_id for p in group if (existing.get(p.product_id) or {}).get("stockSpread")]
        for product_id in spread:  # its stock back on its item, where the import's conditions see it
            stock_gather(product_id=product_id)
        existing.update(_read_products(spread, result) if spread else {})
        moved = [m for p in group for m in moves(as_stored(p, existing.get(p.product_id)), existing.get(p.product_id))]
        # Product actions first: a refusal's index i is group[i].
        actions = [_product_action(p, existing.get(p.product_id), reset_stock) for p in group]
        openings = [o for p in group if (o := _opening(p, existing.get(p.product_id), reset_stock))]
        actions += [put(o.to_item(), if_absent=True) for o in openings]
        actions += count_actions(membership_deltas(moved))
        # A reset that brings units to a product shoppers wait for marks their alerts due, as a receipt does.
        due = [alert_due_action(p.product_id, p.stock_level - _stored_level(old)) for p in group
               if reset_stock and (old := existing.get(p.product_id)) and marks_due(
                   p.stock_level - _stored_level(old), waiting=int(old.get(keys.ALERTS_WAITING) or 0),
                   level_before=_stored_level(old))]
        refusal = transact_write_marking_due(actions, due, request_token=new_token()[:36], due_token=new_token()[:36])
        result.count("TransactWriteItems")
        if refusal is None:
            result.stock_entries += len(openings)
            return None
        if refusal.any_failed:
            stale = [group[i].product_id for i in range(len(group)) if refusal.failed(i)]
            fresh = _read_products(stale, result)
            for pid in stale:
                existing.pop(pid, None)
                if pid in fresh:
                    existing[pid] = fresh[pid]
        return AGAIN_GROUP

    busy = CatalogUnavailable("Other writes kept changing the products being imported; the import stopped part way")
    retry_optimistic(attempt, busy=busy, tries=GROUP_ATTEMPTS)


def write(
    brands: Any, categories: Any, products: Sequence[Product], *, reset_stock: bool = False, progress: Any = None,
    stage: Any = None
) -> ImportResult:
    """Write validated entities. Returns an ImportResult with counts and requests used.
    `stage(name, total)` is told as each stage begins ("products", "search terms", "term counts")
    and how many units it has; `progress(n)` then counts that stage's units as they are written."""
    stage = stage or (lambda name, total: None)
    stage("products", len(products))
    result = ImportResult(brands=len(brands), categories=len(categories))
    _put_names(
        brands, categories,
        {p.brand_id for p in products} - {b.brand_id for b in brands},
        {p.category_id for p in products} - {c.category_id for c in categories},
        result,
    )
    existing = _read_products([p.product_id for p in products], result)
    result.products_created = sum(p.product_id not in existing for p in products)
    result.products_updated = len(products) - result.products_created
    before = {}  # what each product's write replaced (read again if another writer came first)
    for group in _groups(products, existing):
        _write_group(group, existing, reset_stock, result)
        before.update({p.product_id: existing[p.product_id] for p in group if p.product_id in existing})
        if progress:
            progress(len(group))
    puts, deletes, deltas = term_changes([as_stored(p, before.get(p.product_id)) for p in products], before)
    stage("search terms", len(puts) + len(deletes))
    batch_write(puts=puts, deletes=deletes, on_request=result.count, progress=progress)
    stage("term counts", 2 * len(deltas))
    add_term_counts(deltas, on_request=result.count, progress=progress)
    result.terms_written = len(puts)
    return result


def import_catalog(data: Any, *, reset_stock: bool = False, progress: Any = None, stage: Any = None) -> ImportResult:
    """Validate `data` (a parsed catalog file) against itself and the table, then write it."""
    known_brands: set[str] = set()
    known_categories: set[str] = set()
    if referenced_ids(data, "brands", "brandId"):
        known_brands = {b.brand_id for b in brands_all()}
    if referenced_ids(data, "categories", "categoryId"):
        known_categories = {c.category_id for c in categories_all()}
    brands, categories, products = validate(
        data, known_brand_ids=known_brands, known_category_ids=known_categories
    )
    return write(brands, categories, products, reset_stock=reset_stock, progress=progress, stage=stage)
