"""A product's availability, in one place (after django-oscar's partner/availability.py).

For a shopper: sold out, low ("Only N left", at or below LOW_STOCK_THRESHOLD) or in stock, with
the label, the CSS class and whether it can be bought. For staff: whether a product is at or below
its reorder point (its own, or LOW_STOCK_THRESHOLD), in their own words and classes. Shopper pages,
cards, the cart, staff pages, the gateway's Product and its errors all ask here; and the stock band
(stock_band) that lists show, which is what a list index projects instead of the exact level. No gateway
imports: the gateway imports this.
"""
from dataclasses import dataclass

from django.conf import settings


@dataclass(frozen=True)
class State:
    label: str
    css_class: str


def reorder_point(stored):
    """The reorder point that applies: the product's own, or LOW_STOCK_THRESHOLD when it has none."""
    return settings.LOW_STOCK_THRESHOLD if stored is None else stored


def at_or_below_reorder_point(level, stored_reorder_point):
    """Whether a product at `level` belongs on the reorder list (None: a level not read)."""
    return level is not None and level <= reorder_point(stored_reorder_point)


def can_buy(level, quantity=1):
    """Whether `quantity` of a product at `level` can be bought."""
    return level is not None and level >= quantity > 0


def in_stock_band():
    """The top stock band: every level above LOW_STOCK_THRESHOLD ("In stock")."""
    return settings.LOW_STOCK_THRESHOLD + 1


def stock_band(level):
    """The stock band of a level, what product lists show and project (`stockBand`): the level
    itself while it is low (0 sold out, 1 to LOW_STOCK_THRESHOLD "Only N left"), else
    in_stock_band(). Capped one above the threshold, not at it, so "Only 5 left" (level 5, threshold
    5) stays apart from "In stock". Every sale or change inside the top band leaves it as it was, so
    the list index entries (which project it) are not written; shopper_state(band) is
    shopper_state(level). A relative write keeps the band only while the level stays at or above
    in_stock_band()."""
    return max(0, min(int(level), in_stock_band()))


def band_as_read(stored):
    """A band read from an item or index entry (`stockBand`), under today's threshold: a lowered
    threshold caps it again; a raised one cannot tell levels above the old one apart (they show as
    "Only N left" with N one above the old threshold until the product's stock next changes)."""
    return min(int(stored), in_stock_band())


def shopper_state(level):
    """What a shopper is told of a stock level."""
    level = int(level)
    if level <= 0:
        return State("Sold out", "sold-out")
    if at_or_below_reorder_point(level, None):
        return State(f"Only {level} left", "low")
    return State("In stock", "in-stock")


def stock_label(level):
    return shopper_state(level).label


def stock_class(level):
    return shopper_state(level).css_class


def reorder_state(product):
    """What staff are told of a product against its reorder point (the reorder list's rows)."""
    level = product.stock_level
    if level is not None and level <= 0:
        return State("Sold out", "reorder-sold-out")
    if at_or_below_reorder_point(level, product.reorder_point):
        return State("Reorder", "reorder-due")
    return State("Stocked", "reorder-ok")


def shortage(name, available):
    """Why a product cannot be bought in the quantity asked for: "X is sold out.", "Only 3 of X left"
    (no full stop: the caller may go on)."""
    return f"{name} is sold out" if not available or available <= 0 else f"Only {available} of {name} left"
