"""Does every product's stock history add up to its level?

A product's history (newest first) must chain: each change's resulting level is the level the
newer change started from (its resulting level minus its delta), and the newest resulting level is
the stock level now. The opening level is the oldest change's resulting level minus its delta (an
import sets levels without history: that is the opening level). A product without history has
nothing to check. Products are walked brand by brand on GSI1 (one Query a page, never a Scan);
a product that seems to drift is checked again from consistent reads, so a sale landing between
the two reads is not reported.
"""
from dataclasses import dataclass

from .products import brands_all, product_get, products_by_brand
from .stock import stock_history


@dataclass(frozen=True)
class Drift:
    product_id: str
    level: int
    problem: str

    def __str__(self):
        return f"product {self.product_id}: {self.problem}"


def _check(product_id, level, *, consistent):
    expected = level
    newer = None
    after = None
    while True:
        page = stock_history(product_id=product_id, after=after, limit=500, consistent=consistent)
        for change in page.items:
            if change.resulting_level != expected:
                if newer is None:
                    what = f"the stock level is {expected}"
                else:
                    what = f"the next change ({newer.at:%Y-%m-%d %H:%M:%S}) started from {expected}"
                return Drift(product_id, level, (
                    f"{what}, but the change of {change.at:%Y-%m-%d %H:%M:%S} ({change.delta:+d}, "
                    f"{change.reason or change.note or 'no reason'}) left {change.resulting_level}"))
            expected = change.resulting_level - change.delta
            newer = change
        if not page.next_cursor:
            break
        after = page.next_cursor
    if expected < 0:
        return Drift(product_id, level, f"the history implies an opening level of {expected}")
    return None


def reconcile_product(*, product_id, level=None):
    """The product's Drift, or None when its history adds up. `level` (from a list) saves a read
    when it adds up; drift is always confirmed on consistent reads."""
    if level is not None and _check(product_id, level, consistent=False) is None:
        return None
    level = product_get(product_id=product_id, consistent=True).stock_level
    return _check(product_id, level, consistent=True)


def reconcile_all():
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
