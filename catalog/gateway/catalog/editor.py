"""Staff edits of one product: create it, or change what staff may change (everything but its ID and its
stock), each one TransactWriteItems with what the change moves beside the product item (changes.py: counts,
search terms) and a record of the change (who, when, each changed field before and after).

An edit is written only over the version staff saw (`version`, moved on by every edit and import): another
editor's save in between refuses it with ProductChanged, which carries the product as it is now."""
from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from botocore.exceptions import ClientError

from .. import keys
from ..alerts.marks import alert_due_action
from ..dynamo.backoff import AGAIN_NOW, Again, pause, retry_optimistic
from ..dynamo.boundary import error_code, translate_errors
from ..dynamo.client import client, read, table_name
from ..dynamo.codec import deserialize, serialize
from ..dynamo.conditions import Attr, all_of, expression
from ..dynamo.pages import KeyRange, Page, query_page
from ..dynamo.transact import TRANSACTION_ACTIONS, put, transact_write, update
from ..errors import CatalogError, CatalogUnavailable, InvalidInput, NotFound
from ..stock.buckets import stock_gather
from ..stock.stock import opening_adjustment
from ..validate import check_id, new_token, page_size, utc_now
from .changes import count_actions, membership_deltas, moves, term_changes
from .entities import Product, plain_value
from .pending_terms import none_pending, pending_put, terms_finish

# What staff may change, as (Product field, item attribute).
EDITABLE = (("name", "name"), ("brand_id", "brandId"), ("category_id", "categoryId"), ("price", "price"),
            ("description", "description"), ("attributes", "attributes"), ("image", "image"),
            ("published", "published"))
ATTEMPTS = 5  # a transaction another one was in the way of is sent again, this many times at most
# Before each further try of an edit another write was in the way of: up to 50 ms, doubling, at most 1 s.
AGAIN_EDIT = Again("AGAIN_EDIT", lambda n: pause(n - 1, first=0.05, most=1.0))


def _busy() -> CatalogUnavailable:
    return CatalogUnavailable("Other writes kept the product from being saved; try again")
log = logging.getLogger(__name__)
LIST_KEY_ATTRIBUTES = tuple(f"{prefix}{part}" for prefix in keys.LIST_INDEXES for part in ("PK", "SK"))


class ProductChanged(CatalogError):
    """Someone saved the product since it was shown (its version moved on); nothing was written.
    `current` is the product as it is now."""

    def __init__(self, current: Product) -> None:
        self.current = current
        super().__init__(f"Product {current.product_id!r} was changed by someone else")


class ProductExists(CatalogError):
    def __init__(self, product_id: str) -> None:
        self.product_id = product_id
        super().__init__(f"A product with ID {product_id!r} exists already")


@dataclass(frozen=True)
class ProductEdit:
    """One recorded change of a product: who, when, and each changed field (Product field names) as
    (before, after); a new product's fields have None before."""

    product_id: str
    edit_id: str
    at: str
    who: str
    changes: Mapping[str, tuple[Any, Any]] = field(default_factory=dict, hash=False)

    @classmethod
    def from_item(cls, item: dict[str, Any]) -> ProductEdit:
        changes = {name: (_plain(c.get("before")), _plain(c.get("after")))
                   for name, c in (item.get("changes") or {}).items()}
        return cls(product_id=item["productId"], edit_id=item["editId"], at=item["at"], who=item.get("who", ""),
                   changes=changes)

    def to_item(self) -> dict[str, Any]:
        return {
            **keys.product_edit_key(self.product_id, at=self.at, edit_id=self.edit_id),
            "type": "PRODUCT_EDIT", "productId": self.product_id, "editId": self.edit_id, "at": self.at,
            "who": self.who,
            "changes": {n: {"before": _exact(b), "after": _exact(a)} for n, (b, a) in self.changes.items()},
        }


def _exact(value: Any) -> Any:
    """A value as DynamoDB stores it: numbers exact (Decimal), never float (Product.attributes gives floats)."""
    if isinstance(value, Mapping):
        return {k: _exact(v) for k, v in value.items()}
    return Decimal(str(value)) if isinstance(value, float) else value


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: plain_value(v) for k, v in value.items()}
    return value if isinstance(value, Decimal) else plain_value(value)


def changed_fields(before: Product | None, after: Product) -> dict[str, tuple[Any, Any]]:
    """{field: (before, after)} of the editable fields that differ (all of them for a new product)."""
    out = {}
    for name, _ in EDITABLE:
        new = getattr(after, name)
        old = getattr(before, name) if before is not None else None
        if before is None or not same(old, new):
            out[name] = (_plain(old), _plain(new))
    return out


def same(a: Any, b: Any) -> bool:
    """Two values of a field are the same as stored (an attribute read as 5.2 is the 5.2 typed)."""
    return bool(_exact(a) == _exact(b))


def _record(product_id: str, who: str, changes: dict[str, tuple[Any, Any]]) -> ProductEdit:
    return ProductEdit(product_id=product_id, edit_id=new_token(), who=who, changes=changes,
                       at=utc_now().isoformat(timespec="microseconds"))


def _term_actions(product: Product, old: Any) -> tuple[list[Any], list[Any], list[Any]]:
    """(term puts, term deletes, term count updates) of a product's write, as transaction actions."""
    puts, deletes, deltas = term_changes([product], {product.product_id: old} if old is not None else {})
    counts = [
        update({"PK": k["PK"], "SK": k["SK"]}, "SET #t = :t, ByPrice1PK = :ipk, ByPrice1SK = :isk ADD #c :d",
               {":t": "TERM_COUNT", ":ipk": k["ByPrice1PK"], ":isk": k["ByPrice1SK"], ":d": d},
               names={"#t": "type", "#c": "count"})
        for term, d in sorted(deltas.items()) for k in keys.term_count_keys(term)
    ]
    return [put(i) for i in puts], [{"Delete": {"TableName": table_name(), "Key": serialize(k)}} for k in deletes], \
        counts


def _send(core: list[Any], product: Product, old: Any, on_request: Any, *, version: int) -> Any:
    """One transaction: `core` (the product's write first, then its record, counts, opening stock), the search
    term writes, all in it when they fit TRANSACTION_ACTIONS, and last the check that no earlier edit's terms
    are pending; else what does not fit becomes the tasks of a TERMS_PENDING item written last in it
    (pending_terms.py), done right after. An earlier edit's pending terms are done first.
    `version`: the product's once written. Returns the Refusal, or None once written."""
    puts, deletes, counts = _term_actions(product, old)
    terms = puts + deletes + counts

    def attempt(_n: int) -> Any:
        if len(core) + len(terms) < TRANSACTION_ACTIONS:
            actions = core + terms + [none_pending(product.product_id)]
        else:
            room = TRANSACTION_ACTIONS - len(core) - 1
            _, _, deltas = term_changes([product], {product.product_id: old} if old is not None else {})
            actions = core + (puts + deletes)[:room] + [
                pending_put(product.product_id, version, (puts + deletes)[room:], deltas)]
        refusal = transact_write(actions, request_token=new_token()[:36])
        on_request("TransactWriteItems")
        if refusal is not None and refusal.failed(len(actions) - 1):
            terms_finish(product_id=product.product_id, on_request=on_request)  # an earlier edit's
            return AGAIN_NOW
        if refusal is None and "Put" in actions[-1]:
            try:
                terms_finish(product_id=product.product_id, on_request=on_request)
            except CatalogUnavailable:  # the edit stands; run_stock_jobs (or the next edit) finishes its terms
                log.warning("search terms of product %s left pending", product.product_id, exc_info=True)
        return refusal

    return retry_optimistic(attempt, busy=_busy(), tries=ATTEMPTS)


def _counted(product: Product, old: Any) -> list[Any]:
    """The brand and category count updates of a product's write; each only on an existing brand or category."""
    return count_actions(membership_deltas(moves(product, old)), condition=Attr("PK").exists())


def _no_count(on_request: Any) -> Any:
    return on_request or (lambda *args: None)


def product_create(*, product: Product, who: str, on_request: Any = None) -> Product:
    """A new product with its opening stock level (`product.stock_level`, recorded as an `opening` stock
    change), counted and searchable unless hidden: one transaction. ProductExists if its ID is taken;
    InvalidInput if its brand or category does not exist."""
    check_id("Product", product.product_id)
    on_request = _no_count(on_request)
    product = dataclasses.replace(product, version=1)
    core = [put({**product.to_item(), "version": 1}, if_absent=True),
            put(_record(product.product_id, who, changed_fields(None, product)).to_item())]
    if product.stock_level:
        opening = opening_adjustment(product_id=product.product_id, delta=product.stock_level,
                                     resulting_level=product.stock_level, who=who, note="Created by staff")
        core.append(put(opening.to_item(), if_absent=True))
    core += _counted(product, None)

    def attempt(_n: int) -> Product | Again:
        refusal = _send(core, product, None, on_request, version=1)
        if refusal is None:
            return product
        if refusal.failed(0):
            raise ProductExists(product.product_id)
        if refusal.any_failed:
            raise InvalidInput("Its brand or category no longer exists.")
        return AGAIN_EDIT

    return retry_optimistic(attempt, busy=_busy(), tries=ATTEMPTS)


def _read_item(product_id: str, on_request: Any) -> dict[str, Any]:
    with translate_errors():
        response = read("GetItem", {"TableName": table_name(), "Key": serialize(keys.product_key(product_id)),
                                    "ConsistentRead": True})
    on_request("GetItem")
    if "Item" not in response:
        raise NotFound("Product", product_id)
    return deserialize(response["Item"])


def _product_update(new: Product, old: Any, version: int, spread_checked: bool) -> dict[str, Any]:
    """The product item's Update: the editable attributes, its list keys as `new` is shown or hidden, its
    version moved on; only if it is still the version read."""
    values = {a: getattr(new, f) for f, a in EDITABLE if a not in ("image", "published")}
    values["attributes"] = _exact(new.attributes)
    values.update(new.list_keys())
    values["version"] = version + 1
    removed = [a for a in LIST_KEY_ATTRIBUTES if a not in values]
    if new.image:
        values["image"] = new.image
    else:
        removed.append("image")
    if new.published:
        removed.append("published")
    else:
        values["published"] = False
    names = {f"#a{i}": a for i, a in enumerate(values)} | {f"#r{i}": a for i, a in enumerate(removed)}
    expression = "SET " + ", ".join(f"#a{i} = :a{i}" for i in range(len(values)))
    expression += " REMOVE " + ", ".join(f"#r{i}" for i in range(len(removed)))
    as_read = Attr("version").not_exists() if version == 0 else Attr("version").eq(version)
    condition = all_of(Attr("PK").exists(), as_read, Attr("stockSpread").not_exists() if spread_checked else None)
    bound = {f":a{i}": v for i, v in enumerate(values.values())}
    return update(keys.product_key(new.product_id), expression, bound, condition=condition, names=names)


def product_update(*, product_id: str, version: int, who: str, changes: Mapping[str, Any],
                   on_request: Any = None) -> Product:
    """Change a product's editable fields (`changes`: Product field names, see EDITABLE) if it is still at
    `version`: one GetItem (consistent), then one transaction moving its list keys, counts, search terms
    and record with it. Nothing changed: nothing written. ProductChanged if it moved on meanwhile."""
    check_id("Product", product_id)
    on_request = _no_count(on_request)
    unknown = set(changes) - {f for f, _ in EDITABLE}
    if unknown:
        raise InvalidInput(f"Not editable: {', '.join(sorted(unknown))}")

    def attempt(_n: int) -> Product | Again:
        old = _read_item(product_id, on_request)
        current = Product.from_item(old)
        if current.version != version:
            raise ProductChanged(current)
        new = dataclasses.replace(current, **changes)
        changed = changed_fields(current, new)
        if not changed:
            return current
        spread = "price" in changed and bool(old.get("stockSpread"))
        if spread:  # its buckets carry a copy of the price: its stock back on its item first (buckets.py)
            stock_gather(product_id=product_id)
            return AGAIN_NOW
        core = [_product_update(new, old, version, "price" in changed),
                put(_record(product_id, who, changed).to_item()), *_counted(new, old), *_shown_again(current, new)]
        refusal = _send(core, new, old, on_request, version=version + 1)
        if refusal is None:
            return dataclasses.replace(new, version=version + 1)
        if refusal.failed(0):
            return AGAIN_NOW  # read again: another version (ProductChanged) or its stock spread again
        if refusal.any_failed:
            raise InvalidInput("Its brand or category no longer exists.")
        return AGAIN_EDIT

    return retry_optimistic(attempt, busy=_busy(), tries=ATTEMPTS)


def _shown_again(current: Product, new: Product) -> list[Any]:
    """A hidden product shown again while alerts wait for it: its due item gains as many units as alerts wait
    (the job claims no more than are in stock then), as a receipt would mark it; the job claimed nothing while
    it was hidden (alerts/claiming.py)."""
    if current.published or not new.published or current.alerts_waiting <= 0:
        return []
    return [alert_due_action(new.product_id, current.alerts_waiting)]


def product_history(*, product_id: str, after: str | None = None, limit: int | None = None) -> Page[ProductEdit]:
    """A product's recorded changes, newest first: one Query a page."""
    check_id("Product", product_id)
    key_range = KeyRange(partition=keys.product_pk(product_id), prefix=keys.EDIT_PREFIX, forward=False)
    return query_page(key_range, size=page_size(limit), after=after, build=ProductEdit.from_item)


def products_hidden(*, brand_id: str | None = None, category_id: str | None = None, after: str | None = None,
                    limit: int | None = None) -> Page[Product]:
    """Hidden products (all, a brand's, or a brand's in a category: the index sorts by brand first), by brand,
    category and ID: one Query a page (GSI1's HIDDEN)."""
    prefix = None
    if brand_id is not None:
        prefix = f"{keys.brand_gsi_pk(check_id('Brand', brand_id))}#"
        if category_id is not None:
            prefix += f"{keys.category_gsi_pk(check_id('Category', category_id))}#"
    elif category_id is not None:
        raise InvalidInput("Hidden products are listed by brand first: a category needs its brand")
    key_range = KeyRange(index=keys.GSI1, partition=keys.HIDDEN_PK, prefix=prefix)
    return query_page(key_range, size=page_size(limit), after=after,
                      build=lambda i: dataclasses.replace(Product.from_item(i), published=False))


def _name_put(key: dict[str, Any], kind: str, id_name: str, entity_id: str, name: str, counts: str,
              *, create: bool) -> None:
    condition = Attr("PK").not_exists() if create else Attr("PK").exists()
    try:
        with translate_errors():
            client().update_item(
                TableName=table_name(), Key=serialize(key),
                UpdateExpression="SET #t = :t, #i = :i, #n = :n, #c = if_not_exists(#c, :empty)",
                **expression(condition=condition, names={"#t": "type", "#i": id_name, "#n": "name", "#c": counts},
                             values={":t": kind, ":i": entity_id, ":n": name, ":empty": {}}),
            )
    except ClientError as exc:
        if error_code(exc) != "ConditionalCheckFailedException":
            raise
        if create:
            raise InvalidInput(f"A {kind.lower()} with ID {entity_id!r} exists already") from None
        raise NotFound(kind.title(), entity_id) from None


def brand_save(*, brand_id: str, name: str, create: bool) -> None:
    """Create a brand (`create`: only if new) or rename one (only if it exists): one UpdateItem."""
    check_id("Brand", brand_id)
    _name_put(keys.brand_key(brand_id), "BRAND", "brandId", brand_id, name, "categoryCounts", create=create)


def category_save(*, category_id: str, name: str, create: bool) -> None:
    """Create a category (`create`: only if new) or rename one (only if it exists): one UpdateItem."""
    check_id("Category", category_id)
    _name_put(keys.category_key(category_id), "CATEGORY", "categoryId", category_id, name, "brandCounts",
              create=create)
