"""What bounds a shopper's timed holds beyond one hold's cap (holds.py): the cool-down after a hold's window
and the units one shopper holds over every product.

A hold's window runs from when it was first taken to its cap (STOCK_HOLD_MAX_SECONDS later); a cool-down of
STOCK_HOLD_COOLDOWN_SECONDS follows, in which the shopper cannot hold that product again (others can hold or
buy it; the shopper can still buy it without a hold). Both ends are in the product's HOLDCAP item (what a
released hold leaves, kept by DynamoDB's TTL until the cool-down is over), read with the shopper's holds. A
new hold's transaction checks that item when one was read (a ConditionCheck: its release may race the
write). When none was read, none in its cool-down can appear before the write: one is left only by the
release of a hold whose window had begun by then, and a window begun after the read ends
STOCK_HOLD_MAX_SECONDS later; the hold's own `attribute_not_exists` keeps out a hold taken meanwhile. So the
common hold costs no extra action. The cool-down follows every window, whether its hold ended at the cap or
was released just before it: otherwise a release a second before the cap would start a fresh window.

The units a shopper holds over every product are counted in one item beside the customer, updated in the
transaction of every hold written, released or sold (`ADD`, exact: each of those writes is conditional on
the hold as read), with a condition when it grows: at most STOCK_HOLD_MAX_UNITS_PER_SHOPPER. A hold written
before the count existed has no `counted` mark and is left out of it (renewing it counts it).
"""
from django.conf import settings

from .. import keys
from ..dynamo.conditions import Attr, Condition
from ..dynamo.transact import check, update


def _not_cooling_at(now: int) -> Condition:
    """A HOLDCAP item's cool-down is not running at `now` (none, over, or its cap still ahead)."""
    return Attr("coolUntil").not_exists() | Attr("coolUntil").lte(now) | Attr("capAt").gt(now)


def cooldown_seconds() -> int:
    return settings.STOCK_HOLD_COOLDOWN_SECONDS


def cap_fields(cap_at: float, cooldown: int | None = None) -> dict:
    """A HOLDCAP item's ends: its cap, the end of the cool-down after it, and its TTL (that end)."""
    cool_until = cap_at + (cooldown_seconds() if cooldown is None else cooldown)
    return {"capAt": cap_at, "coolUntil": cool_until, "expiresAt": cool_until}


def cooling_until(cap_item: dict | None, now: int) -> int | None:
    """The end of the cool-down `cap_item` (a HOLDCAP item as read) puts the shopper in now (epoch s), or None."""
    if not cap_item or "coolUntil" not in cap_item:
        return None
    cap_at, cool_until = int(cap_item["capAt"]), int(cap_item["coolUntil"])
    return cool_until if cap_at <= now < cool_until else None


def not_cooling(product_id: str, customer_id: str, now: int) -> dict:
    """The ConditionCheck of a new hold: the shopper is not in a cool-down of the product."""
    return check(keys.hold_cap_key(product_id, customer_id), condition=_not_cooling_at(now))


def max_units() -> int:
    return settings.STOCK_HOLD_MAX_UNITS_PER_SHOPPER


def units_change(customer_id: str, units: int, *, most: int | None = None) -> dict:
    """The Update of the shopper's count of units held by `units`; with `most` (when it grows), only if the
    count stays at most that."""
    condition = None
    if most is not None:
        condition = Attr("heldUnits").not_exists() | Attr("heldUnits").lte(most - units)
    return update(keys.hold_units_key(customer_id), "ADD heldUnits :d SET #ty = :ty, customerId = :c",
                  {":d": units, ":ty": "HOLD_UNITS", ":c": customer_id}, condition=condition, names={"#ty": "type"})


def counted_units(item: dict | None) -> int:
    """The shopper's count of units held, from its item as read (none yet: 0)."""
    return int(item["heldUnits"]) if item and "heldUnits" in item else 0
