"""Does every product's stock history add up to its level?

Every level is the sum of its product's changes: an import that sets a level writes an `opening`
change (a table migration gave the products without one theirs), and every stock write records its
delta. So the check is: the deltas of the whole history add up to the stock level now. That holds
for changes that do not record the level they left (a sale during a rush: `resulting_level` None),
and it catches a level changed behind the shop's back on a product that was never adjusted.

Where drift is found, the history is read newest first to say where: a change that records its
resulting level must have left the level now minus the deltas of every newer change; the newest
one that does not is named.

Units held while a shopper pays (timed holds: holds.py) are out of the level but in no
change yet: the changes add up to the level plus the units held now (the hold items of the product's
partition, read with it); a hold that becomes a sale is that sale's change, one that is released
gives its units back to the level. Products are walked brand by brand on GSI1 (one Query a page, never a
Scan); a product that seems to drift is checked again from consistent reads, so a sale landing
between the two reads is not reported.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from ..catalog.products import brands_all, product_get, products_by_brand
from .entities import StockAdjustment
from .history import stock_history
from .releases import units_held


@dataclass(frozen=True)
class Drift:
    product_id: str
    level: int
    problem: str

    def __str__(self) -> str:
        return f"product {self.product_id}: {self.problem}"


def _describe(change: StockAdjustment) -> str:
    return (f"the change of {change.at:%Y-%m-%d %H:%M:%S} ({change.delta:+d}, "
            f"{change.reason or change.note or 'no reason'})")


def _check(product_id: str, stored: int | None, *, consistent: bool) -> Drift | None:
    """`stored`: the product's level (None: its item has none, written outside the shop: no units)."""
    total, changes = 0, 0
    held = units_held(product_id=product_id, consistent=consistent)
    level = (stored or 0) + held  # what the changes account for: the level and the units held out of it
    expected = level  # the level after this change: the level now minus every newer change's delta
    newer = None  # the newest change whose resulting level is recorded and disagrees
    after = None
    while True:
        page = stock_history(product_id=product_id, after=after, limit=500, consistent=consistent)
        for change in page.items:
            if newer is None and change.resulting_level is not None and change.resulting_level != expected:
                newer = (change, expected)
            expected -= change.delta
            total += change.delta
            changes += 1
        if not page.next_cursor:
            break
        after = page.next_cursor
    if total == level:
        return None
    shown = f"{level - held} (+{held} held)" if held else f"{level}"
    said = "the product has no stock level (none in stock)" if stored is None else f"the stock level is {shown}"
    if changes == 0:
        problem = f"{said}, but the product has no stock changes (they add up to 0)"
    else:
        problem = f"{said}, but its {changes} stock change(s) add up to {total}"
    if newer is not None:
        change, should_be = newer
        problem += (f"; {_describe(change)} left {change.resulting_level}, "
                    f"where the level now and the changes after it say {should_be}")
    return Drift(product_id, level, problem)


def reconcile_product(*, product_id: str, level: int | None = None) -> Drift | None:
    """The product's Drift, or None when its history adds up. `level` (from a list) saves a read
    when it adds up; drift is always confirmed on consistent reads."""
    if level is not None and _check(product_id, level, consistent=False) is None:
        return None
    level = product_get(product_id=product_id, consistent=True).stock_level
    return _check(product_id, level, consistent=True)


def reconcile_all() -> Iterator[tuple[str, Drift | None]]:
    """(product_id, Drift or None) for every product, brand by brand."""
    for brand in brands_all():
        after = None
        while True:
            page = products_by_brand(brand_id=brand.brand_id, after=after, limit=200)
            for product in page.items:
                yield product.product_id, reconcile_product(product_id=product.product_id, level=product.stock_level)
            if not page.next_cursor:
                break
            after = page.next_cursor
