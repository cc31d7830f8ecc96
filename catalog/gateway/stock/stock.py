"""Stock writes (patterns 4, 5) and a product's stock history: optimistic, exact and idempotent.

A write reads the level (or takes the caller's hint), then one transaction sets the new level only
if the level is still the one read, records the adjustment in the product's partition and marks
the idempotency key as used. A lost race is tried again from the level DynamoDB returns.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from datetime import datetime
from typing import Any, TypedDict

from .. import keys
from ..alerts.marks import alert_due_action, marks_due
from ..catalog.entities import Product
from ..catalog.products import product_get
from ..dynamo.backoff import AGAIN, Again, retry_optimistic
from ..dynamo.boundary import translate_errors
from ..dynamo.client import client, table_name
from ..dynamo.codec import deserialize, serialize
from ..dynamo.conditions import Attr
from ..dynamo.transact import Action, put, transact_write
from ..errors import IdempotencyConflict, InsufficientStock, InvalidInput, StockBusy, StockMoved
from ..validate import (
    MAX_NOTE,
    MAX_REFERENCE,
    MAX_WHO,
    check_id,
    check_quantity,
    check_text,
    client_request_token,
    expires_in,
    new_token,
    utc_now,
)
from .buckets import gathered
from .entities import (
    COUNTED,
    DAMAGED,
    MANUAL_REASONS,
    OPENING,
    REASONS,
    RECEIVED,
    IdempotencyMark,
    StockAdjustment,
    StockChange,
)
from .holds import holds_enabled
from .releases import hold_unchanged, holds_all
from .takes import stock_level_update

# How long an idempotency key is remembered (the TOKEN# mark's TTL).
TOKEN_TTL_SECONDS = 7 * 24 * 3600
# A stocktake's transaction: the change's 4 actions and a ConditionCheck a hold read (DynamoDB: 100).
MAX_HOLDS_CHECKED = 96
# What a caller that does not know a product's reorder point passes (the write then assumes the
# default; a wrong guess costs one more attempt, never a wrong index).
UNKNOWN = object()


def check_reason(reason: str, *, direction: int) -> str:
    """`reason` must be a code of REASONS that fits the direction of the change (+1 in, -1 out)."""
    if reason not in REASONS:
        raise InvalidInput(f"Reason must be one of: {', '.join(REASONS)}.")
    allowed = MANUAL_REASONS.get(reason, {"sold": -1, "cancelled": 1}.get(reason))
    if allowed not in (0, direction):
        raise InvalidInput(f"“{reason}” is not a reason for {'an increase' if direction > 0 else 'a decrease'}.")
    return reason


def stock_increase(
    *, product_id: str, quantity: int, token: str, reason: str = RECEIVED, who: str = "", reference: str = "",
    note: str = "", expected_level: int | None = None, expected_reorder_point: Any = UNKNOWN
) -> StockChange:
    """Pattern 5: stock came in (received, returned, counted, cancelled). Returns the new level
    (a StockChange).

    `expected_level` (and `expected_reorder_point`), what the caller last saw (say, on the page
    the staff member submitted), saves the read before the write: when it is still right the
    write is one TransactWriteItems. It is only a hint: a stale one costs one more attempt, never a
    wrong level."""
    return _change_stock(
        product_id=product_id, delta=check_quantity(quantity), token=token,
        reason=check_reason(reason, direction=1), who=who, reference=reference, note=note,
        expected_level=expected_level, expected_reorder_point=expected_reorder_point,
    )


def stock_decrease(
    *, product_id: str, quantity: int, token: str, reason: str = DAMAGED, who: str = "", reference: str = "",
    note: str = "", expected_level: int | None = None, expected_reorder_point: Any = UNKNOWN
) -> StockChange:
    """Pattern 4: stock left (damaged, counted, sold). Never below zero: raises
    InsufficientStock, changing nothing, when `quantity` is more than is in stock (read
    consistently, whatever `expected_level` said). `expected_level` as for stock_increase."""
    return _change_stock(
        product_id=product_id, delta=-check_quantity(quantity), token=token,
        reason=check_reason(reason, direction=-1), who=who, reference=reference, note=note,
        expected_level=expected_level, expected_reorder_point=expected_reorder_point,
    )


def _check_level_hint(expected_level: int | None) -> None:
    if expected_level is not None and (
        isinstance(expected_level, bool) or not isinstance(expected_level, int) or expected_level < 0
    ):
        raise InvalidInput("The expected stock level must be a whole number, 0 or more.")


class _Texts(TypedDict):
    who: str
    reference: str
    note: str


def _texts(*, token: str, who: str, reference: str, note: str) -> _Texts:
    check_id("Idempotency key", token)
    return {
        "who": check_text("Who", who, MAX_WHO),
        "reference": check_text("Reference", reference, MAX_REFERENCE),
        "note": check_text("Note", note, MAX_NOTE),
    }


def _change_stock(
    *, product_id: str, delta: int, token: str, reason: str, who: str, reference: str, note: str,
    expected_level: int | None, expected_reorder_point: Any
) -> StockChange:
    check_id("Product", product_id)
    texts = _texts(token=token, who=who, reference=reference, note=note)
    _check_level_hint(expected_level)
    # What the key is used for: the same key with another request is refused (IdempotencyConflict).
    request = _request(delta=delta, reason=reason, **texts)
    write = _Change(product_id=product_id, delta=delta, token=token, reason=reason, texts=texts, request=request,
                    current=expected_level,
                    reorder_point=None if expected_reorder_point is UNKNOWN else expected_reorder_point)
    return retry_optimistic(write.attempt, busy=StockBusy(product_id=product_id))


@dataclasses.dataclass
class _Change:
    """One stock change's tries (retry_optimistic), and what a try leaves for the next: the level (and stored
    reorder point) the next try is conditional on, whether DynamoDB told it (`known`: not a hint), and the
    back-in-stock alerts waiting as last read (none until a read says otherwise)."""

    product_id: str
    delta: int
    token: str
    reason: str
    texts: _Texts
    request: dict[str, Any]
    current: int | None
    reorder_point: int | None
    known: bool = False
    waiting: int = 0

    def attempt(self, _n: int) -> StockChange | Again:
        delta = self.delta
        if self.current is None or (self.current + delta < 0 and not self.known):  # never refuse on a hint
            self.current = self._seen(gathered(product_get(product_id=self.product_id, consistent=True)))
        if self.current + delta < 0:
            # A key used already answers as it did then, even if stock has run out since.
            replay = _replay_of_used_token(product_id=self.product_id, token=self.token, request=self.request)
            if replay is not None:
                return replay
            raise InsufficientStock(self.product_id, available=self.current, requested=-delta)
        outcome = _apply_stock_change(
            product_id=self.product_id, current=self.current, reorder_point=self.reorder_point, delta=delta,
            token=self.token, reason=self.reason, at=utc_now(), alerts_waiting=self.waiting, **self.texts,
        )
        if isinstance(outcome, _UsedToken):  # the first answer again, if this is the same request
            outcome = outcome.replay(product_id=self.product_id, token=self.token, request=self.request)
        if isinstance(outcome, StockChange):
            return outcome
        # Someone else changed the stock first (or the hint was stale): try again from the
        # product as DynamoDB returned it with the refusal.
        if outcome is None or outcome.spread:  # unknown, or spread over buckets: gather, read again
            if outcome is not None:
                gathered(outcome)
            self.current, self.known = None, False
        else:
            self.current = self._seen(outcome)
        return AGAIN

    def _seen(self, product: Product) -> int:
        """Take the product as read (or as a refusal returned it) for the next try; its level (an item
        without one holds none)."""
        self.reorder_point, self.known, self.waiting = product.reorder_point, True, product.alerts_waiting
        return product.stock_level or 0


def stock_count(
    *, product_id: str, counted: Any, expected_level: int | None, token: str, who: str = "", reference: str = "",
    note: str = "", expected_reorder_point: Any = UNKNOWN, expected_held: Any = None
) -> StockChange:
    """A stocktake: `counted` were found, against the level `expected_level` the count was
    started from. Records a `counted` change of the difference (0 too: the count is in the
    history) only if the stock is still `expected_level` (compare-and-set); otherwise writes
    nothing and raises StockMoved with the level now. The same `token` again answers as the
    first time. With timed holds on, `counted` is every unit on the shelf, held ones too: the units
    held now (a Query of each hold partition) are not part of the level, so the difference is taken
    without them; the count was made against `expected_held` held units (None: not known), and units
    held since (a hold that became a sale takes no level) make it StockMoved too. The write is
    conditional on each hold read being unchanged, so none can become a sale in between."""
    check_id("Product", product_id)
    texts = _texts(token=token, who=who, reference=reference, note=note)
    if isinstance(counted, bool) or not isinstance(counted, int) or not 0 <= counted <= 10**9:
        raise InvalidInput("The counted quantity must be a whole number, 0 or more.")
    if expected_level is None:
        raise InvalidInput("A count needs the level it was started from.")
    _check_level_hint(expected_level)
    if expected_held is not None:
        _check_level_hint(expected_held)
    count = _Count(product_id=product_id, counted=counted, expected_level=expected_level, token=token, texts=texts,
                   expected_held=expected_held,
                   reorder_point=None if expected_reorder_point is UNKNOWN else expected_reorder_point)
    return retry_optimistic(count.attempt, busy=StockBusy(product_id=product_id))


@dataclasses.dataclass
class _Count:
    """One stocktake's tries (retry_optimistic), and what a try leaves for the next: the reorder point
    and the back-in-stock alerts waiting, as last read."""

    product_id: str
    counted: int
    expected_level: int
    token: str
    texts: _Texts
    expected_held: int | None
    reorder_point: int | None
    waiting: int = 0

    def attempt(self, _n: int) -> StockChange | Again:
        product_id, token, expected_level = self.product_id, self.token, self.expected_level
        held, unchanged, problem = _held_on_the_shelf(product_id, self.counted)
        basis = held if self.expected_held is None else self.expected_held  # the units held the count is made against
        request = _request(delta=self.counted - basis - expected_level, reason=COUNTED, **self.texts)
        if problem is not None or held != basis:
            # A count saved already answers as it did then, whatever is held now.
            replay = _replay_of_used_token(product_id=product_id, token=token, request=request)
            if replay is not None:
                return replay
            if problem is not None:
                raise problem
            level = gathered(product_get(product_id=product_id, consistent=True)).stock_level
            raise StockMoved(product_id, level, held=held)
        outcome = _apply_stock_change(
            product_id=product_id, current=expected_level, reorder_point=self.reorder_point,
            delta=request["delta"], token=token, reason=COUNTED, at=utc_now(), checks=unchanged,
            alerts_waiting=self.waiting, **self.texts,
        )
        if isinstance(outcome, _UsedToken):  # the first answer again, if this is the same count
            outcome = outcome.replay(product_id=product_id, token=token, request=request)
        if isinstance(outcome, StockChange):
            return outcome
        if outcome is None or outcome.spread:
            outcome = gathered(product_get(product_id=product_id, consistent=True))
        if outcome.stock_level != expected_level:
            held_now = _held_on_the_shelf(product_id, self.counted)[0] if self.expected_held is not None else None
            raise StockMoved(product_id, outcome.stock_level, held=held_now)
        # Only the reorder point was guessed wrong (or a hold changed, or alerts wait).
        self.reorder_point, self.waiting = outcome.reorder_point, outcome.alerts_waiting
        return AGAIN


def _held_on_the_shelf(product_id: str, counted: int) -> tuple[int, list[Action], InvalidInput | None]:
    """(units, checks, problem): the units of the product held while shoppers pay (timed holds; 0
    when holds are off), on the shelf, so in a count, but out of the level; a ConditionCheck for each hold
    read, that it still holds its units at the write; and the InvalidInput to raise, if any: fewer counted
    than are held, or more shoppers holding it than a transaction can check (a count in a drop)."""
    if not holds_enabled():
        return 0, [], None
    holds = holds_all(product_id=product_id)
    held = sum(hold.quantity for hold in holds)
    if len(holds) > MAX_HOLDS_CHECKED:
        return held, [], InvalidInput(f"{len(holds)} shoppers are paying for this product right now, too many for "
                                      "a count to hold still: count again when fewer are. Nothing was changed.")
    if counted < held:
        return held, [], InvalidInput(f"{held} units are held for shoppers paying now, more than the {counted} "
                                      "counted: count again (held units are on the shelf too). Nothing was changed.")
    return held, [hold_unchanged(hold) for hold in holds], None


def _apply_stock_change(
    *, product_id: str, current: int, reorder_point: int | None, delta: int, token: str, reason: str, who: str,
    reference: str, note: str, at: datetime, checks: Sequence[Action] = (), alerts_waiting: int = 0
) -> StockChange | _UsedToken | Product | None:
    """One TransactWriteItems: the product's level goes from `current` to `current + delta`
    (only if it still is `current` and its reorder point `reorder_point`: the Reorder index key
    follows), the adjustment is recorded, and the idempotency key is marked as used. Units that come
    in mark the product's back-in-stock alerts due if `alerts_waiting` (as last read) says some wait
    or the product was sold out; otherwise the write is conditional on none waiting (an alert asked
    meanwhile refuses it, and the next try, with the product as returned, marks them): a receipt for
    a product in stock that nobody waits for writes no due item (a staff adjustment costs
    10 write units). Returns the StockChange; _UsedToken when the idempotency key was used before; or
    the Product as found instead (None if unknown: read it again) when another write got there first."""
    level = current + delta
    adjustment = StockAdjustment(
        product_id=product_id, adjustment_id=token, at=at, delta=delta,
        resulting_level=level, reason=reason, who=who, reference=reference, note=note,
    )
    mark = IdempotencyMark(adjustment=adjustment, token=token, expires_at=expires_in(TOKEN_TTL_SECONDS))
    marking = marks_due(delta, waiting=alerts_waiting, level_before=current)
    waiting_alerts = Attr(keys.ALERTS_WAITING)
    none_waiting = waiting_alerts.not_exists() | waiting_alerts.lt(1) if delta > 0 and not marking else None
    refusal = transact_write(
        [
            stock_level_update(
                product_id=product_id, current=current, new=level, reorder_point=reorder_point,
                extra_condition=none_waiting,
            ),
            put(adjustment.to_item(), if_absent=True),
            put(mark.to_item(), if_absent=True, return_old=True),
            *([alert_due_action(product_id, delta)] if marking else []),  # back-in-stock alerts
            *checks,  # a stocktake's: each hold it read is unchanged
        ],
        # The same request retried (by botocore, after a lost answer) applies once.
        request_token=client_request_token(token, product_id, current, reorder_point, adjustment.stamp),
    )
    if refusal is None:
        return StockChange(product_id=product_id, level=level, adjustment=adjustment)
    if refusal.failed(2):  # the idempotency key was used already
        return _UsedToken(refusal.items[2])
    if refusal.failed(0) and refusal.items[0] is not None:
        return Product.from_item(refusal.items[0])
    return None  # a conflict, or the product's state unknown: read again


class _UsedToken:
    """The idempotency key's mark as DynamoDB returned it (None: read it)."""

    def __init__(self, item: dict[str, Any]) -> None:
        self.item = item

    def replay(self, *, product_id: str, token: str, request: dict[str, Any]) -> StockChange | None:
        """The first answer again, if `request` is the one the key was first used for."""
        if self.item is not None:
            return _replay_of(product_id=product_id, item=self.item, request=request)
        return _replay_of_used_token(product_id=product_id, token=token, request=request)


def opening_adjustment(
    *, product_id: str, delta: int, resulting_level: int | None, at: datetime | None = None, who: str = "import",
    note: str = ""
) -> StockAdjustment:
    """The `opening` stock change that an import (or a table migration) writes beside a level it sets,
    so that every level is the sum of its product's changes: a new product's level, the difference
    a re-import with reset stock makes, or the level a product had before the ledger began."""
    return StockAdjustment(
        product_id=product_id, adjustment_id=new_token(), at=at or utc_now(), delta=delta,
        resulting_level=resulting_level, reason=OPENING, who=who, note=note,
    )


def _request(*, delta: int, reason: str, who: str, reference: str, note: str) -> dict[str, Any]:
    """What an idempotency key is used for: the same key with another request is refused."""
    return {"delta": delta, "reason": reason, "who": who, "reference": reference, "note": note}


def _replay_of_used_token(*, product_id: str, token: str, request: dict[str, Any]) -> StockChange | None:
    """The first answer of a write made with this idempotency key, or None if it is unused."""
    with translate_errors():
        item = client().get_item(
            TableName=table_name(), Key=serialize(keys.token_key(product_id, token)), ConsistentRead=True
        ).get("Item")
    return _replay_of(product_id=product_id, item=deserialize(item), request=request) if item is not None else None


def _replay_of(*, product_id: str, item: dict[str, Any], request: dict[str, Any]) -> StockChange:
    """The first answer again, if `request` (_request) is the request the key was
    first used for; IdempotencyConflict, naming that first request, if it is not."""
    adjustment = IdempotencyMark.from_item(item).adjustment
    first = _request(delta=adjustment.delta, reason=adjustment.reason, who=adjustment.who,
                     reference=adjustment.reference, note=adjustment.note)
    if first != request:
        described = describe_adjustment(adjustment)
        raise IdempotencyConflict(
            f"This form was already used for another change of product {product_id}: {described}. "
            "Nothing was changed this time.",
            first=described,
        )
    # A mark's change always records the level it left (_apply_stock_change).
    return StockChange(product_id=product_id, level=adjustment.resulting_level or 0, adjustment=adjustment,
                       replayed=True)


def describe_adjustment(adjustment: StockAdjustment) -> str:
    """"+1 by ann at 2026-11-23 09:30:00 UTC (Received (shipment), Shipment 17)"."""
    text = f"{adjustment.delta:+d} by {adjustment.who or 'someone'} at {adjustment.at:%Y-%m-%d %H:%M:%S} UTC"
    why = ", ".join(part for part in (adjustment.reason_label, adjustment.reference) if part)
    return text + (f" ({why})" if why else "")

