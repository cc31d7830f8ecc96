"""Stock writes (patterns 4, 5) and a product's stock history: optimistic, exact and idempotent.

A write reads the level (or takes the caller's hint), then one transaction sets the new level only
if the level is still the one read, records the adjustment in the product's partition and marks
the idempotency key as used. A lost race is tried again from the level DynamoDB returns.
"""
import time

from . import keys
from .client import client, contended_attempts, deserialize, serialize, table_name, translate_errors
from .entities import IdempotencyMark, StockAdjustment, StockChange
from .errors import IdempotencyConflict, InsufficientStock, InvalidInput, StockBusy
from .pages import KeyRange, query_page
from .products import product_get
from .transact import put, transact_write, update
from .validate import (
    MAX_REASON,
    MAX_WHO,
    check_id,
    check_quantity,
    check_text,
    client_request_token,
    page_size,
    utc_now,
)

# How long an idempotency key is remembered (the TOKEN# mark's TTL).
TOKEN_TTL_SECONDS = 7 * 24 * 3600


def stock_increase(*, product_id, quantity, token, reason="", who="", expected_level=None):
    """Pattern 5: a shipment arrived. Returns the new level (a StockChange).

    `expected_level`, the level the caller last saw (say, on the page the staff member
    submitted), saves the read before the write: when it is still right the write is one
    TransactWriteItems. It is only a hint: a stale one costs one more attempt, never a wrong level."""
    return _change_stock(
        product_id=product_id, delta=check_quantity(quantity), token=token, reason=reason, who=who,
        expected_level=expected_level,
    )


def stock_decrease(*, product_id, quantity, token, reason="", who="", expected_level=None):
    """Pattern 4: stock left (a sale, damage, a correction). Never below zero: raises
    InsufficientStock, changing nothing, when `quantity` is more than is in stock (read
    consistently, whatever `expected_level` said). `expected_level` as for stock_increase."""
    return _change_stock(
        product_id=product_id, delta=-check_quantity(quantity), token=token, reason=reason, who=who,
        expected_level=expected_level,
    )


def _change_stock(*, product_id, delta, token, reason, who, expected_level):
    check_id("Product", product_id)
    check_id("Idempotency key", token)
    reason = check_text("Reason", reason, MAX_REASON)
    who = check_text("Who", who, MAX_WHO)
    if expected_level is not None and (
        isinstance(expected_level, bool) or not isinstance(expected_level, int) or expected_level < 0
    ):
        raise InvalidInput("The expected stock level must be a whole number, 0 or more.")
    # What the key is used for: the same key with another request is refused (IdempotencyConflict).
    request = {"delta": delta, "reason": reason, "who": who}
    # The level the next attempt is conditional on, and whether DynamoDB told it (not a hint).
    current, known = expected_level, False
    for _attempt in contended_attempts():
        if current is None or (current + delta < 0 and not known):  # never refuse on a hint
            current, known = product_get(product_id=product_id, consistent=True).stock_level, True
        if current + delta < 0:
            # A key used already answers as it did then, even if stock has run out since.
            replay = _replay_of_used_token(product_id=product_id, token=token, request=request)
            if replay is not None:
                return replay
            raise InsufficientStock(product_id, available=current, requested=-delta)
        outcome = _apply_stock_change(
            product_id=product_id, current=current, delta=delta, token=token, reason=reason, who=who, at=utc_now()
        )
        if isinstance(outcome, _UsedToken):  # the first answer again, if this is the same request
            if outcome.item is not None:
                outcome = _replay_of(product_id=product_id, item=outcome.item, request=request)
            else:
                outcome = _replay_of_used_token(product_id=product_id, token=token, request=request)
        if isinstance(outcome, StockChange):
            return outcome
        # Someone else changed the stock first (or the hint was stale): try again from the
        # level DynamoDB returned with the refusal.
        current, known = outcome, outcome is not None
    raise StockBusy(f"Stock of product {product_id} is changing too often right now; try again.")


def _apply_stock_change(*, product_id, current, delta, token, reason, who, at):
    """One TransactWriteItems: the product's level goes from `current` to `current + delta`
    (only if it still is `current`), the adjustment is recorded, and the idempotency key is
    marked as used. Returns the StockChange, or the level found instead of `current`
    (None if unknown) when another write got there first."""
    adjustment = StockAdjustment(
        product_id=product_id, adjustment_id=token, at=at, delta=delta,
        resulting_level=current + delta, reason=reason, who=who,
    )
    mark = IdempotencyMark(adjustment=adjustment, token=token, expires_at=int(time.time()) + TOKEN_TTL_SECONDS)
    refusal = transact_write(
        [
            stock_level_update(product_id=product_id, current=current, new=adjustment.resulting_level),
            put(adjustment.to_item(), if_absent=True),
            put(mark.to_item(), if_absent=True, return_old=True),
        ],
        # The same request retried (by botocore, after a lost answer) applies once.
        request_token=client_request_token(token, product_id, current, adjustment.stamp),
    )
    if refusal is None:
        return StockChange(product_id=product_id, level=adjustment.resulting_level, adjustment=adjustment)
    if refusal.failed(2):  # the idempotency key was used already
        return _UsedToken(refusal.items[2])
    if refusal.failed(0) and refusal.items[0] is not None:
        level = refusal.items[0].get("stockLevel")
        return int(level) if level is not None else None
    return None  # a conflict, or the product's state unknown: read again


class _UsedToken:
    """The idempotency key's mark as DynamoDB returned it (None: read it)."""

    def __init__(self, item):
        self.item = item


def stock_level_update(*, product_id, current, new, extra_condition="", extra_values=None):
    """The Update action that moves a product's stock from `current` to `new`, only if it still
    is `current` (and `extra_condition` holds); on refusal DynamoDB returns the product as it is."""
    return update(
        keys.product_key(product_id),
        "SET stockLevel = :new",
        {":new": new, ":current": current, **(extra_values or {})},
        condition="attribute_exists(PK) AND stockLevel = :current" + extra_condition,
        return_old=True,
    )


def _replay_of_used_token(*, product_id, token, request):
    """The first answer of a write made with this idempotency key, or None if it is unused."""
    with translate_errors():
        item = client().get_item(
            TableName=table_name(), Key=serialize(keys.token_key(product_id, token)), ConsistentRead=True
        ).get("Item")
    return _replay_of(product_id=product_id, item=deserialize(item), request=request) if item is not None else None


def _replay_of(*, product_id, item, request):
    """The first answer again, if `request` ({delta, reason, who}) is the request the key was
    first used for; IdempotencyConflict, naming that first request, if it is not."""
    adjustment = IdempotencyMark.from_item(item).adjustment
    first = {"delta": adjustment.delta, "reason": adjustment.reason, "who": adjustment.who}
    if first != request:
        described = describe_adjustment(adjustment)
        raise IdempotencyConflict(
            f"This form was already used for another change of product {product_id}: {described}. "
            "Nothing was changed this time.",
            first=described,
        )
    return StockChange(product_id=product_id, level=adjustment.resulting_level, adjustment=adjustment, replayed=True)


def describe_adjustment(adjustment):
    """"+1 by ann at 2026-11-23 09:30:00 UTC (reason: Shipment 17)"."""
    text = f"{adjustment.delta:+d} by {adjustment.who or 'someone'} at {adjustment.at:%Y-%m-%d %H:%M:%S} UTC"
    return text + (f" (reason: {adjustment.reason})" if adjustment.reason else "")


def stock_history(*, product_id, after=None, limit=None, consistent=False):
    """A product's stock adjustments, newest first: one Query on its own partition.
    `consistent` includes the latest write (as product_get's)."""
    check_id("Product", product_id)
    key_range = KeyRange(
        partition=keys.product_pk(product_id), prefix=keys.STOCK_PREFIX, forward=False, consistent=consistent
    )
    return query_page(key_range, size=page_size(limit), after=after, build=StockAdjustment.from_item)
