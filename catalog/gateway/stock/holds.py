"""Timed holds: the units a shopper is paying for, set aside while they pay.

Opening the checkout takes the cart's units from the stock with the same conditional writes as a
sale (takes.sale_take: relative while plenty is left, exact near the edge, from a bucket on a
spread product) and writes the shopper's hold item beside them, in one transaction; so the level
every page shows is what others can still buy, and a crowd cannot hold more than there is. Opening
it again renews the shopper's own hold (only the difference is taken or put back; the shopper's own
units count for them, so they are never blocked by their own hold), but never past STOCK_HOLD_MAX_SECONDS
after it was first taken: then it ends, and the shopper queues again for the units like anyone. Placing
the order deletes the hold in the order's transaction instead of taking stock (orders._transact_order:
takes.hold_consume); a cancelled or emptied cart, or the release job once the hold ended, puts the units back
exactly (and marks the product due for back-in-stock alerts, as a receipt does, as do units a shrinking
hold gives back) and leaves a record.

A hold is no stock change of the ledger: held units are out of `stockLevel` and in a hold item
of the product's partition, so a level is the sum of its changes minus the units held now
(reconcile.py); a hold that becomes a sale is recorded as that sale (its order line).
"""
from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from django.conf import settings

from .. import keys
from ..alerts.marks import transact_write_marking_due
from ..catalog.products import products_get_many
from ..dynamo.backoff import AGAIN, AGAIN_NOW, AGAIN_SOON, Again, retry_optimistic
from ..dynamo.batches import batch_get
from ..dynamo.codec import Item
from ..dynamo.transact import Action, put
from ..errors import OrderRejected, StockBusy
from ..lines import LineProblem, check_lines, line_problems
from ..validate import check_id, client_request_token, utc_now
from . import hold_limits
from .buckets import settle_for_sale
from .entities import CANCELLED, ENDED, Hold
from .releases import hold_release
from .takes import PutBack, SaleTake, hold_condition, sale_take

if TYPE_CHECKING:
    from catalog.gateway.catalog.entities import Product


def holds_enabled() -> bool:
    return settings.STOCK_HOLD_SECONDS > 0


def holds_of(*, customer_id: str, product_ids: Iterable[str], consistent: bool = True) -> dict[str, Any]:
    """{product_id: Hold} of a shopper's holds of these products: one BatchGetItem."""
    return _holds_and_caps(customer_id, product_ids, consistent=consistent)[0]


def _holds_and_caps(
    customer_id: str, product_ids: Iterable[str], *, consistent: bool = True, caps: bool = False
) -> tuple[dict[str, Any], dict[str, Any], int]:
    """({product_id: Hold}, {product_id: HOLDCAP item} of the shopper's released holds (their window and
    cool-down), units the shopper holds over every product), the last two read only with `caps`: one
    BatchGetItem."""
    check_id("Customer", customer_id)
    ids = list(dict.fromkeys(product_ids))
    if not ids:
        return {}, {}, 0
    wanted = [keys.hold_key(pid, customer_id) for pid in ids]
    if caps:
        wanted += [keys.hold_cap_key(pid, customer_id) for pid in ids] + [keys.hold_units_key(customer_id)]
    items = batch_get(wanted, consistent=consistent)
    holds = {item["productId"]: Hold.from_item(item) for item in items if item["type"] == "HOLD"}
    windows = {item["productId"]: item for item in items if item["type"] == "HOLD_CAP"}
    units = hold_limits.counted_units(next((item for item in items if item["type"] == "HOLD_UNITS"), None))
    return holds, windows, units



# --- taking (opening the checkout) ----------------------------------------------------------


def holds_take(*, customer_id: str, lines: Any, seconds: float | None = None, max_units: Any = None,
               max_seconds: float | None = None) -> dict[str, Any]:
    """Hold the units of `lines` (PurchaseLine) for the shopper for `seconds` (STOCK_HOLD_SECONDS),
    renewing what they hold already, but no hold past `max_seconds` (STOCK_HOLD_MAX_SECONDS) after it
    was first taken (more units of a line take its end as it is): one transaction of each line's stock
    take (only the units not held yet) and hold item (conditional on the hold as read). Returns
    {product_id: Hold}. Raises OrderRejected (LineProblem: gone, short of what others can buy plus the
    shopper's own hold, price changed, above STOCK_HOLD_MAX_UNITS, more than STOCK_HOLD_MAX_UNITS_PER_SHOPPER
    over every product, a product in its cool-down (hold_limits), a hold that ended at its cap: that one is
    released here, so the next try queues for its units like anyone) and holds nothing then."""
    check_id("Customer", customer_id)
    check_lines(lines)
    seconds = settings.STOCK_HOLD_SECONDS if seconds is None else seconds
    max_units = settings.STOCK_HOLD_MAX_UNITS if max_units is None else max_units
    max_seconds = settings.STOCK_HOLD_MAX_SECONDS if max_seconds is None else max_seconds
    taking = _Taking(customer_id=customer_id, lines=list(lines), seconds=seconds, max_units=max_units,
                     max_seconds=max_seconds)
    return retry_optimistic(taking.attempt, busy=StockBusy(
        "So many people are checking out these products right now that we could not hold them for you; "
        "please try again."))


@dataclasses.dataclass
class _Taking:
    """One holds_take's tries (retry_optimistic), and what a try leaves for the next: the shopper's holds
    (None: read them again, with their caps and units), the products as last read or returned by a refused
    condition (None: read them), and whether reads are consistent from now on."""

    customer_id: str
    lines: list[Any]  # PurchaseLine (orders.entities, a layer above)
    seconds: float
    max_units: int
    max_seconds: float
    holds: dict[str, Hold] | None = None
    windows: dict[str, Any] = dataclasses.field(default_factory=dict)
    units: int = 0
    products: dict[str, Product] | None = None
    consistent: bool = False

    def attempt(self, _n: int) -> dict[str, Hold] | Again:
        lines, ids = self.lines, [line.product_id for line in self.lines]
        if self.holds is None:  # and when the shopper's holds released lately were first taken: their caps count
            self.holds, self.windows, self.units = _holds_and_caps(self.customer_id, ids, caps=True)
        holds = self.holds
        own = {pid: hold.quantity for pid, hold in holds.items()}
        more = [dataclasses.replace(line, quantity=line.quantity - own.get(line.product_id, 0)) for line in lines]
        taking = [line for line in more if line.quantity > 0]
        if self.products is None:
            # As orders.order_place: any replica first (every take is conditional), and only the buckets
            # of the products it takes more of; a refusal is confirmed on a consistent read.
            self.products = products_get_many(product_ids=ids, consistent=self.consistent,
                                              levels_of={line.product_id for line in taking})
        products = self.products = settle_for_sale(self.products, taking, consistent=self.consistent)
        # What the shopper can have: what others can still buy plus what they hold themselves.
        theirs = {pid: dataclasses.replace(p, stock_level=(p.stock_level or 0) + own.get(pid, 0))
                  for pid, p in products.items()}
        problems = line_problems(lines, theirs)
        problems += [LineProblem(line.product_id, LineProblem.LIMIT, name=products[line.product_id].name,
                                 available=self.max_units)
                     for line in lines if line.quantity > self.max_units and line.product_id in products]
        if problems and not self.consistent:
            self.products, self.consistent = None, True
            return AGAIN_NOW
        now = int(time.time())
        problems += _spent(holds, products, now=now, wanted=now + self.seconds, max_seconds=self.max_seconds)
        problems += _beyond_limits(lines, holds, self.windows, self.units, products, now=now)
        if problems:
            raise OrderRejected(problems)
        outcome = _transact_holds(customer_id=self.customer_id, lines=lines, more=more, products=products,
                                  holds=holds, windows=self.windows, until=now + self.seconds,
                                  max_seconds=self.max_seconds)
        if isinstance(outcome, Again):  # another transaction (or throttling) was in the way
            return outcome
        if isinstance(outcome, _Taken):
            return outcome.holds
        if not isinstance(outcome, dict):  # HOLDS_CHANGED: the shopper's hold changed meanwhile (another tab)
            self.holds, self.products = None, None  # read again
        elif not self.consistent:  # a condition refused what a replica showed: from now on, the latest write
            self.products, self.consistent = None, True
        else:
            self.products = outcome
        return AGAIN_NOW


def _spent(
    holds: Mapping[str, Hold], products: Mapping[str, Product], *, now: int, wanted: float, max_seconds: float
) -> list[LineProblem]:
    """The problems of holds that ended at their cap (no renewal can help): each is released now (the units
    back on sale, alerts due), so the shopper's next checkout takes a new hold only of what is still there.
    Such a problem's `available` is the longest a hold lasts (whole seconds): the shop words it."""
    problems = []
    for pid, hold in holds.items():
        if hold.renewed_until(wanted, max_seconds) <= now:
            hold_release(hold=hold, why=ENDED, ended_by=now)
            name = products[pid].name if pid in products else pid
            problems.append(LineProblem(pid, LineProblem.ENDED, name=name, available=int(max_seconds)))
    return problems


def _beyond_limits(
    lines: list[Any], holds: Mapping[str, Hold], windows: Mapping[str, Item], units: int,
    products: Mapping[str, Product], *, now: int
) -> list[LineProblem]:
    """The problems of lines the shopper may not hold now: a product in its cool-down (not held now), and
    more units than STOCK_HOLD_MAX_UNITS_PER_SHOPPER over every product (on the first line that grows)."""
    def name(pid: str) -> str:
        return products[pid].name if pid in products else pid

    problems = []
    for line in lines:
        cooling = None if line.product_id in holds else hold_limits.cooling_until(windows.get(line.product_id), now)
        if cooling is not None:
            problems.append(LineProblem(line.product_id, LineProblem.COOLING, name=name(line.product_id),
                                        until=cooling))
    growth = _units_growth(lines, holds)
    if growth > 0 and units + growth > hold_limits.max_units():
        first = next(line for line in lines if line.quantity > _counted(holds, line.product_id))
        problems.append(LineProblem(first.product_id, LineProblem.TOTAL, name=name(first.product_id),
                                    available=hold_limits.max_units()))
    return problems


def _units_growth(lines: list[Any], holds: Mapping[str, Hold]) -> int:
    """How many units the shopper's count grows by when `lines` replace the holds read (counted ones)."""
    return sum(line.quantity - _counted(holds, line.product_id) for line in lines)


def _counted(holds: Mapping[str, Hold], product_id: str) -> int:
    hold = holds.get(product_id)
    return hold.counted_units if hold else 0


@dataclasses.dataclass(frozen=True)
class _Taken:
    holds: dict[str, Hold]


HOLDS_CHANGED = object()  # a hold of the shopper's is no longer the one read: read them again
# The holds taken; why to try again (HOLDS_CHANGED, or an Again: throttling, another transaction in the way);
# or the products as a refused take returned them.
HoldsOutcome = _Taken | object | Again | dict[str, "Product"]


def _takes(
    lines: list[Any], more: list[Any], products: Mapping[str, Product]
) -> dict[int, tuple[str, SaleTake | PutBack]]:
    """{action index: (product ID, take)} of the lines whose hold grows (a sale's take of the units not held
    yet) or shrinks (the difference put back); `more`: each line's units beyond its hold as read."""
    takes: dict[int, tuple[str, SaleTake | PutBack]] = {}
    for line, extra in zip(lines, more, strict=True):
        product = products[line.product_id]
        if extra.quantity > 0:
            takes[len(takes)] = (line.product_id, sale_take(product=product, quantity=extra.quantity, price=line.price))
        elif extra.quantity < 0:
            takes[len(takes)] = (line.product_id, PutBack(product, -extra.quantity))
    return takes


def _transact_holds(*, customer_id: str, lines: Any, more: Any, products: Mapping[str, Product],
                    holds: Mapping[str, Hold], windows: Any, until: Any, max_seconds: float) -> HoldsOutcome:
    stamp = utc_now().isoformat(timespec="microseconds")
    takes = _takes(lines, more, products)
    actions: list[Action] = [take.action for _pid, take in takes.values()]
    new: dict[str, Hold] = {}
    hold_index = len(actions)
    for line in lines:
        before = holds.get(line.product_id)
        # The cap on renewals runs from the first hold, a released one's too while its cap is ahead.
        capped = before
        if before is None and line.product_id in windows:
            capped = Hold(product_id=line.product_id, customer_id=customer_id, quantity=0, price=line.price,
                          until=0, held_at=windows[line.product_id]["heldAt"])
            capped = capped if capped.latest_end(max_seconds) > time.time() else None
        hold = Hold(product_id=line.product_id, customer_id=customer_id, quantity=line.quantity, price=line.price,
                    until=capped.renewed_until(until, max_seconds) if capped else until,
                    held_at=capped.held_at if capped else stamp, counted=True)
        new[line.product_id] = hold
        if before is None:
            actions.append(put(hold.to_item(), if_absent=True))
            if line.product_id in windows:  # none read: none can start cooling before this write (hold_limits)
                actions.append(hold_limits.not_cooling(line.product_id, customer_id, int(time.time())))
        else:
            actions.append(put(hold.to_item(), condition=hold_condition(before)))
    growth = _units_growth(lines, holds)
    if growth:  # a refused count (another tab held more meanwhile) is read again, as a changed hold
        actions.append(hold_limits.units_change(customer_id, growth,
                                                most=hold_limits.max_units() if growth > 0 else None))
    paths = tuple((pid, take.path) for pid, take in takes.values())
    due = [take.due for _pid, take in takes.values() if take.due is not None]  # units back: alerts due
    refusal = transact_write_marking_due(
        actions, due, request_token=client_request_token("hold", customer_id, stamp, until, paths),
        due_token=client_request_token("hold-due", customer_id, stamp))
    if refusal is None or refusal.replay:
        return _Taken(new)
    if any(refusal.failed(i) for i in range(hold_index, len(actions))):
        return HOLDS_CHANGED
    if refusal.throttled and not refusal.any_failed:
        return AGAIN
    if not refusal.any_failed:
        return AGAIN_SOON
    fresh = dict(products)
    for i, (pid, taken) in takes.items():
        if refusal.failed(i):
            found = taken.after_refusal(refusal.items[i])
            if found is None:
                fresh.pop(pid, None)
            else:
                fresh[pid] = found
    return fresh


# --- releasing (the cart's own; the release job's are in releases.py) -------------------------


# --- what staff see and reconcile counts ------------------------------------------------------


def holds_release(*, customer_id: str, product_ids: Iterable[str], why: str = CANCELLED) -> int:
    """Release a shopper's holds of these products at once (a cancelled checkout, a line removed or
    changed): one BatchGetItem, then a transaction a hold. Returns the units put back."""
    units = 0
    for hold in holds_of(customer_id=customer_id, product_ids=product_ids).values():
        if hold_release(hold=hold, why=why):
            units += hold.quantity
    return units
