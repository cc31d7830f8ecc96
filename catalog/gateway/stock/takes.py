"""Taking units: the one rule of how a sale, a hold or a hold's change writes a product's stock.

A take is one Update action of a transaction and what to do when DynamoDB refuses it (the `Take`
Protocol). While plenty is left a sale takes its units relatively (stockLevel - :q, on the condition
that the level stays at or above take_floor: the band and the Reorder index cannot change), from a
random bucket of a spread product (keeping the bucket's share of the floor) or from the product item;
near the edge it takes the exact compare-and-set (stock_level_update), which keeps the band and the
Reorder index exact. A hold the shopper has is consumed instead (HoldTake); units a shrinking hold
gives back go back (PutBack).
"""
from __future__ import annotations

import dataclasses
import math
import random
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Protocol

from catalog import availability
from catalog.availability import stock_band

from .. import keys
from ..alerts.marks import alert_due_action
from ..catalog.entities import Product, reorder_index_keys
from ..catalog.products import levels_read
from ..dynamo.codec import Item
from ..dynamo.conditions import Attr, Condition, all_of
from ..dynamo.transact import Action, delete, update

if TYPE_CHECKING:
    from catalog.gateway.stock.entities import Hold


SPREAD = "spread"
GATHERING = "gathering"
# What after_refusal answers when the refused action was a hold that is no longer the one read.
HOLD_GONE = object()


class Take(Protocol):
    """The stock action of one order or hold line, as a transaction writes it."""

    action: dict  # the Update (or Delete) of the transaction
    path: object  # what the request token names: "take", ("bucket", k), the exact level read, ...
    resulting_level: int | None  # the product's level after it (None: not known to the writer)
    due: dict | None  # the action that marks the units due to back-in-stock alerts (None: none)

    def after_refusal(self, old: Item | None) -> Product | object | None:
        """The product as DynamoDB's refusal shows it (`old`: the item as it was, or None): a Product,
        None when the product is gone, or HOLD_GONE when a hold is no longer the one read."""


# --- the conditions of a take on the product item or a bucket -------------------------------

# An exact write (or a relative one on the product item) needs the product's stock gathered on its
# item: a product whose stock is spread over buckets (buckets.py) has its total elsewhere.
GATHERED = Attr("stockSpread").not_exists()


def reorder_condition(reorder_point: int | None) -> Condition:
    """The stored reorder point is still `reorder_point` (None: none stored, the default applies)."""
    return Attr("reorderPoint").not_exists() if reorder_point is None else Attr("reorderPoint").eq(reorder_point)


def _reorder_values(product_id: str, level: int | None, reorder_point: int | None) -> dict[str, Any]:
    values: dict[str, Any] = {":band": stock_band(level)}
    index_keys = reorder_index_keys(product_id, level, reorder_point)
    if index_keys:
        values.update({":rpk": index_keys[keys.REORDER_ATTRIBUTES[0]], ":rsk": index_keys[keys.REORDER_ATTRIBUTES[1]]})
    return values


def _level_and_reorder_expression(product_id: str, level: int | None, reorder_point: int | None) -> tuple[str]:
    """(UpdateExpression,) SETting stockLevel = :new, its band (stockBand = :band, which the list
    indexes project: DynamoDB writes their entries only when the band changes) and the Reorder keys,
    or REMOVing them."""
    pk, sk = keys.REORDER_ATTRIBUTES
    if reorder_index_keys(product_id, level, reorder_point):
        return (f"SET stockLevel = :new, stockBand = :band, {pk} = :rpk, {sk} = :rsk",)
    return (f"SET stockLevel = :new, stockBand = :band REMOVE {pk}, {sk}",)


def stock_level_update(
    *, product_id: str, current: int | None, new: int, reorder_point: int | None,
    extra_condition: Condition | None = None
) -> Action:
    """The Update action that moves a product's stock from `current` to `new`, only if it still
    is `current` and its stored reorder point is still `reorder_point` (None: none stored, the
    default applies), and `extra_condition` holds. In the same Update the product joins or
    leaves the sparse Reorder index, so the reorder list is exact after every stock write, and its
    stock band (`stockBand`, what the list indexes show) follows the new level. On refusal DynamoDB
    returns the product as it is."""
    return update(
        keys.product_key(product_id),
        *_level_and_reorder_expression(product_id, new, reorder_point),
        {":new": new, **_reorder_values(product_id, new, reorder_point)},
        condition=all_of(Attr("PK").exists(), Attr("stockLevel").eq(current), reorder_condition(reorder_point),
                         GATHERED, extra_condition),
        return_old=True,
    )


def take_floor(reorder_point: int | None) -> int:
    """The lowest level a relative take (stock_level_take) may leave: above the reorder point
    (`reorder_point` as stored; None: LOW_STOCK_THRESHOLD), so the product cannot join the Reorder
    index, and in the top stock band, so it stays "In stock" (the band a list shows)."""
    return max(availability.in_stock_band(), availability.reorder_point(reorder_point) + 1)


def can_take_relatively(level: int | None, quantity: int, reorder_point: int | None) -> bool:
    """Whether taking `quantity` from `level` (as read) leaves the product at or above take_floor:
    then a sale may use stock_level_take; otherwise (near the edge) the exact stock_level_update."""
    return level is not None and level - quantity >= take_floor(reorder_point)


def stock_level_take(*, product_id: str, quantity: int, reorder_point: int | None, price: Decimal) -> Action:
    """The Update action of a sale while there is plenty: takes `quantity` relatively
    (`stockLevel = stockLevel - :q`), on a condition that another sale leaves true unless it takes
    the product down to the edge: the level is at least `quantity` + take_floor, the price is still
    `price` and the stored reorder point still `reorder_point`. So concurrent buyers do not undo
    each other's work (no exact level to compare), and neither the availability band nor the
    Reorder index membership can change on this path: it writes `stockLevel` alone. The level
    after is not known to the writer. On refusal DynamoDB returns the product as it is."""
    return _relative_take(keys.product_key(product_id), quantity=quantity, keep=take_floor(reorder_point),
                          price=price, reorder_point=reorder_point, condition=GATHERED)


def _relative_take(
    key: Item, *, quantity: int, keep: int, price: Decimal, reorder_point: int | None,
    condition: Condition | None = None
) -> Action:
    """The Update that takes `quantity` from the item at `key` relatively, only if it keeps `keep`
    units, its price is still `price` and its reorder point still `reorder_point` (and `condition`)."""
    return update(
        key,
        "SET stockLevel = stockLevel - :q",
        {":q": quantity},
        condition=all_of(Attr("PK").exists(), Attr("stockLevel").gte(quantity + keep), Attr("price").eq(price),
                         reorder_condition(reorder_point), condition),
        return_old=True,
    )


# --- a sale (orders._transact_order, holds._transact_holds) -----------------------------------

def share(product: Product) -> int:
    """The units each bucket keeps from a relative take: its share of the take floor."""
    return math.ceil(take_floor(product.reorder_point) / (product.stock_buckets or 1))


def servable(product: Product, quantity: int) -> list[int]:
    """The buckets (as read) that can give `quantity` and keep their share."""
    floor = share(product)
    return [k for k, level in enumerate(product.bucket_levels or ()) if level >= quantity + floor]


@dataclasses.dataclass(frozen=True)
class SaleTake:
    """The stock action of one order line: `action` (an Update), `path` (what the request token
    names: "take", ("bucket", k) or the exact level read), `resulting_level` (None when the sale
    does not read it) and the bucket it takes from (None: the product item)."""

    product: Product
    action: dict
    path: object
    resulting_level: int | None
    bucket: int | None = None
    due: None = None

    def after_refusal(self, old: Item | None) -> Product | None:
        """The product as DynamoDB's refusal shows it (`old`: the item as it was, or None): None when
        the product is gone. A bucket refused gives its level now (0 if its copy of the price or
        reorder point is not the product's: not usable)."""
        if self.bucket is None:
            return None if old is None else Product.from_item(old)
        level = 0
        if old is not None and _same_terms(old, self.product):
            level = int(old.get("stockLevel", 0))
        levels = list(self.product.bucket_levels or ())
        levels[self.bucket] = level
        return levels_read(self.product, tuple(levels))


def _same_terms(bucket_item: dict[str, Any], product: Product) -> bool:
    rp = bucket_item.get("reorderPoint")
    return bucket_item.get("price") == product.price and (None if rp is None else int(rp)) == product.reorder_point


def sale_take(*, product: Product, quantity: int, price: Decimal) -> SaleTake:
    """The Update that takes one order line's units: from a random bucket that can give them
    (spread: relatively, keeping the bucket's share), else on the product item as for K = 1 (relative
    while plenty is left, exact near the edge: can_take_relatively)."""
    if product.spread and product.bucket_levels is not None:
        able = servable(product, quantity)
        if able:
            bucket = random.choice(able)
            return SaleTake(
                product, _bucket_take(product, bucket, quantity, price), ("bucket", bucket), None, bucket,
            )
    # A gathered product's item holds its total (an item without a level holds none).
    current, reorder_point = product.stock_level or 0, product.reorder_point
    if product.spread:  # no bucket can serve (order_place settles first): refused, read again
        current = product.reserve or 0
    elif can_take_relatively(current, quantity, reorder_point):
        # Plenty left: take the units relatively; the level after is not known here.
        action = stock_level_take(
            product_id=product.product_id, quantity=quantity, reorder_point=reorder_point, price=price,
        )
        return SaleTake(product, action, "take", None)
    # Near the reorder point, the low-stock band or zero: the exact compare-and-set.
    action = stock_level_update(
        product_id=product.product_id, current=current, new=current - quantity, reorder_point=reorder_point,
        extra_condition=Attr("price").eq(price),
    )
    return SaleTake(product, action, current, current - quantity)


def _bucket_take(product: Product, bucket: int, quantity: int, price: Decimal) -> Action:
    return _relative_take(keys.bucket_key(product.product_id, bucket), quantity=quantity, keep=share(product),
                          price=price, reorder_point=product.reorder_point)


# --- a hold: consumed by its order, or units given back -------------------------------------

def hold_condition(hold: Hold, *, ended_by: int | None = None) -> Condition:
    """The condition that `hold` is still the one read (not renewed, sold or released meanwhile), and with
    `ended_by` (epoch s) that it ended by then."""
    ended = Attr("holdUntil").lte(ended_by) if ended_by is not None else None
    return all_of(Attr("quantity").eq(hold.quantity), Attr("holdUntil").eq(hold.until), ended)


def hold_delete(hold: Hold) -> Action:
    """The Delete action of a hold, only if it is still the one read."""
    return delete(keys.hold_key(hold.product_id, hold.customer_id), condition=hold_condition(hold))


def units_back(
    product: Product, units: int
) -> tuple[Action, int | None, tuple[str, str | int]]:
    """(action, resulting level, path) that gives `units` of a hold back to `product` (as read): exactly on a
    gathered product item (a compare-and-set of the level read); on a spread product relatively onto its
    item's own units, its reserve, while it is still spread or gathering (no gather in the shopper's request:
    its other buyers keep selling from the buckets; the total stays the item's plus its buckets'). The
    hold's own conditional write in the same transaction keeps the units from coming back twice."""
    if product.spread:
        action = update(keys.product_key(product.product_id), "ADD stockLevel :n", {":n": units},
                        condition=Attr("stockSpread").is_in([SPREAD, GATHERING]))
        return action, None, ("back", "reserve")
    level = product.stock_level or 0  # a gathered product's item holds its total
    action = stock_level_update(product_id=product.product_id, current=level, new=level + units,
                                reorder_point=product.reorder_point)
    return action, level + units, ("back", level)


class PutBack:
    """The stock action of a line the shopper now holds fewer units of (the cart went down elsewhere):
    the difference goes back (units_back); `due`, the action that marks them due to the product's
    back-in-stock alerts, as a released hold's units."""

    def __init__(self, product: Product, units: int) -> None:
        self.product = product
        self.resulting_level: int | None
        self.path: tuple[str, str | int]
        self.action, self.resulting_level, self.path = units_back(product, units)
        self.due = alert_due_action(product.product_id, units)

    def after_refusal(self, old: Item | None) -> Product | None:
        return None if old is None else Product.from_item(old)


@dataclasses.dataclass(frozen=True)
class HoldTake:
    """An order line's stock action when the shopper holds its units: the hold is deleted (only if it
    is still the one read), no stock is taken, so no stock check can fail; refused, the hold changed."""

    hold: object  # holds.Hold
    action: dict
    path: tuple
    resulting_level: None = None
    due: None = None

    def after_refusal(self, old: Item | None) -> object:
        return HOLD_GONE


def hold_consume(hold: Hold) -> HoldTake:
    return HoldTake(hold, hold_delete(hold), ("hold", hold.until))


def order_line_take(
    *, product: Product, line: Any, hold: Hold | None
) -> tuple[Any, None] | tuple[Any, Any] | tuple[PutBack, Any]:
    """An order line's stock action and the extra action its hold needs (None): without a hold, the
    sale's take; with a hold of the line's quantity, the hold deleted and nothing taken (hold_consume);
    with a hold of another quantity (the cart changed after the checkout was opened), the difference
    taken (or given back) and the hold deleted beside it, so the shopper's own hold never stands in
    their way."""
    if hold is None:
        return sale_take(product=product, quantity=line.quantity, price=line.price), None
    extra = line.quantity - hold.quantity
    if extra == 0:
        return hold_consume(hold), None
    if extra > 0:
        return sale_take(product=product, quantity=extra, price=line.price), hold_delete(hold)
    return PutBack(product, -extra), hold_delete(hold)
