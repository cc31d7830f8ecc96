"""What a product write changes beside the product item, in one place for the importer and the staff editor:
the brand and category counts it moves, and its search term items and their counts.

A product counts and is searchable only while it is shown (`published`); a hidden one is in no count and
has no term items. `old` is the product item as read (a dict, None for a new product)."""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from .. import keys
from ..dynamo.boundary import translate_errors
from ..dynamo.client import client, table_name
from ..dynamo.codec import serialize
from ..dynamo.conditions import Attr, Condition
from ..dynamo.threads import in_parallel
from ..dynamo.transact import update
from . import text
from .entities import Product


def listed(old: Any) -> bool:
    """The stored product is shown to shoppers (counted, with term items)."""
    return old is not None and old.get("published", True) is not False


def as_stored(product: Product, old: Any) -> Product:
    """An import's product keeps the stored one's `published` (the import file does not say it)."""
    return dataclasses.replace(product, published=listed(old)) if old is not None else product


def as_read_condition(old: Any) -> Condition:
    """A write's condition that the product is still shown, or still hidden, and at the version read (staff
    edits and imports move it on)."""
    shown = Attr("published").not_exists() if listed(old) else Attr("published").eq(False)
    if old.get("version") is None:
        return shown & Attr("version").not_exists()
    return shown & Attr("version").eq(int(old["version"]))


def count_actions(deltas: Any, *, condition: Condition | None = None) -> list[Any]:
    """One Update a brand or category whose counts move: {(key items, map name): {id: delta}}; each only
    while `condition` holds for its item (none: always)."""
    actions = []
    for (key_items, counts), by_id in sorted(deltas.items()):
        key = dict(key_items)
        moving = {i: d for i, d in sorted(by_id.items()) if d}
        if not moving:
            continue
        names = {"#m": counts, **{f"#k{n}": i for n, i in enumerate(moving)}}
        values = {":z": 0, **{f":d{n}": d for n, d in enumerate(moving.values())}}
        expression = "SET " + ", ".join(
            f"#m.#k{n} = if_not_exists(#m.#k{n}, :z) + :d{n}" for n in range(len(moving))
        )
        actions.append(update(key, expression, values, names=names, condition=condition))
    return actions


def membership_deltas(pairs: Any) -> dict[str, Any]:
    """{(key items, map): {id: delta}} for products leaving (-1) and joining (+1) brand/category pairs."""
    deltas: dict[Any, Any] = {}
    for (brand_id, category_id), delta in pairs:
        for key, counts, other in (
            (keys.brand_key(brand_id), "categoryCounts", category_id),
            (keys.category_key(category_id), "brandCounts", brand_id),
        ):
            by_id = deltas.setdefault((tuple(key.items()), counts), {})
            by_id[other] = by_id.get(other, 0) + delta
    return deltas


def moves(product: Product, old: Any) -> list[Any]:
    """The count changes a product's write makes: [((brand, category), +1 or -1), ...]."""
    new = (product.brand_id, product.category_id) if product.published else None
    before = (old["brandId"], old["categoryId"]) if listed(old) else None
    if before == new:
        return []
    return ([(before, -1)] if before else []) + ([(new, 1)] if new else [])


def shown(product_or_item: Any) -> tuple[str, str, str, Decimal, str] | tuple[Any, Any, Any, Decimal, Any]:
    """What a product's term items show and are keyed by."""
    if isinstance(product_or_item, Product):
        p = product_or_item
        return (p.name, p.brand_id, p.category_id, p.price, p.image)
    i = product_or_item
    price = Decimal(str(i.get("price", 0))).quantize(Decimal("0.01"))
    return (i.get("name", ""), i.get("brandId"), i.get("categoryId"), price, i.get("image", ""))


def term_changes(products: Sequence[Product], before: Any) -> tuple[list[Any], list[Any], dict[str, Any]]:
    """(items to put, keys to delete, {term: count delta}) for the products whose name, price,
    image, brand or category changed (`before`: what each product was, None if new)."""
    puts: list[Any] = []
    deletes: list[Any] = []
    deltas: dict[str, int] = {}
    for product in products:
        old = before.get(product.product_id)
        if not listed(old):
            old = None  # a hidden product has no term items
        if old is None and not product.published:
            continue
        if old is not None and product.published and shown(old) == shown(product):
            continue
        puts.extend(product.term_items())
        new_terms = text.terms(product.name) if product.published else set()
        old_terms = set() if old is None else text.terms(old.get("name", ""))
        old_name = text.normalise_name(old.get("name", "")) if old is not None else ""
        for term in old_terms:
            # The item's key carries the name: a renamed product's old items all go.
            if term not in new_terms or old_name != product.normalised_name:
                deletes.append(keys.term_key(term, product_id=product.product_id, normalised_name=old_name))
        for term in new_terms - old_terms:
            deltas[term] = deltas.get(term, 0) + 1
        for term in old_terms - new_terms:
            deltas[term] = deltas.get(term, 0) - 1
    return puts, deletes, {t: d for t, d in deltas.items() if d}


def add_term_counts(deltas: Any, *, on_request: Any = None, progress: Any = None) -> None:
    """Move each term's two count items by its delta: one UpdateItem ADD each (atomic, so
    concurrent writers add up; no transaction, as a count item is independent of the others),
    several at once (client.in_parallel)."""
    def send(job: Any) -> None:
        key, delta = job
        with translate_errors():
            client().update_item(
                TableName=table_name(), Key=serialize({"PK": key["PK"], "SK": key["SK"]}),
                UpdateExpression="SET #t = :t, ByPrice1PK = :ipk, ByPrice1SK = :isk ADD #c :d",
                ExpressionAttributeNames={"#t": "type", "#c": "count"},
                ExpressionAttributeValues=serialize(
                    {":t": "TERM_COUNT", ":ipk": key["ByPrice1PK"], ":isk": key["ByPrice1SK"], ":d": delta}
                ),
            )

    def done(job: Any) -> None:
        if on_request:
            on_request("UpdateItem")
        if progress:
            progress(1)

    jobs = [(key, delta) for term, delta in sorted(deltas.items()) for key in keys.term_count_keys(term)]
    in_parallel(jobs, send, done=done)
