"""Releasing timed holds (a cancelled or emptied cart, or the release job once a hold ended: the units
back exactly, alerts due, a record kept) and reading the holds of a product."""
from __future__ import annotations

import dataclasses
import time
from typing import Any

from .. import keys
from ..alerts.marks import alert_due_action
from ..catalog.products import products_get_many
from ..dynamo.backoff import AGAIN, AGAIN_SOON, Again, retry_optimistic
from ..dynamo.boundary import translate_errors
from ..dynamo.client import client, table_name
from ..dynamo.codec import deserialize
from ..dynamo.conditions import Attr, Condition, Key, expression
from ..dynamo.pages import KeyRange, query_items
from ..dynamo.threads import SHARD_READERS, in_parallel
from ..dynamo.transact import Action, check, delete, put, transact_write
from ..errors import StockBusy
from ..validate import check_id, client_request_token, expires_in, utc_now
from . import hold_limits
from .entities import ENDED, RELEASED_KEPT_SECONDS, Hold, ReleasedHold
from .takes import hold_condition, units_back


def hold_release(*, hold: Hold, why: str, ended_by: int | None = None) -> bool:
    """Put a hold's units back, delete it and record it (and when it was first taken, while its cap is ahead:
    Hold.cap_item): one transaction, only if the hold is still the
    one read (and, with `ended_by`, ended by then), which also marks the product due for back-in-stock
    alerts. The units go back as units_back says (no gather, no bucket read). True if released; False if
    the hold was renewed, sold or released meanwhile."""
    condition = hold_condition(hold, ended_by=ended_by)
    return retry_optimistic(lambda _n: _release_once(hold, why, condition),
                            busy=StockBusy(product_id=hold.product_id))


def _release_once(hold: Hold, why: str, condition: Condition) -> bool | Again:
    """One try of hold_release: True, False, or AGAIN when another transaction (or throttling) was in the way."""
    product = products_get_many(product_ids=[hold.product_id], consistent=True, levels_of=()).get(hold.product_id)
    # None: no longer sold: its units went with it; the hold still goes
    at = utc_now().isoformat(timespec="microseconds")
    log = {
        **keys.hold_log_key(hold.product_id, hold.customer_id, at), "type": "HOLD_RELEASED",
        "productId": hold.product_id, "customerId": hold.customer_id, "quantity": hold.quantity,
        "heldAt": hold.held_at, "holdUntil": hold.until, "releasedAt": at, "why": why,
        "expiresAt": expires_in(RELEASED_KEPT_SECONDS),  # DynamoDB's TTL forgets the record later
    }
    actions = [delete(keys.hold_key(hold.product_id, hold.customer_id), condition=condition),
               put(log, if_absent=True)]
    if hold.cap_item()["expiresAt"] > time.time():  # its window and cool-down (hold_limits)
        actions.append(put(hold.cap_item()))
    if hold.counted:
        actions.append(hold_limits.units_change(hold.customer_id, -hold.quantity))
    if product is not None:
        actions += [units_back(product, hold.quantity)[0],
                    alert_due_action(hold.product_id, hold.quantity)]  # units back: as for a receipt
    state = None if product is None else (product.spread, product.stock_level, product.reorder_point)
    refusal = transact_write(actions, request_token=client_request_token(
        "release", hold.product_id, hold.customer_id, hold.until, at, state))
    if refusal is None or refusal.replay:
        return True
    if refusal.failed(0):
        return False
    return AGAIN if refusal.any_failed else AGAIN_SOON


def hold_unchanged(hold: Hold) -> Action:
    """A ConditionCheck that `hold` still holds the units read (not sold or released meanwhile; a renewal of
    the same units is no change)."""
    return check(keys.hold_key(hold.product_id, hold.customer_id),
                 condition=Attr("PK").exists() & Attr("quantity").eq(hold.quantity))



@dataclasses.dataclass(frozen=True)
class ReleaseSummary:
    holds: int
    units: int

    def __str__(self) -> str:
        return f"holds released: {self.holds} ({self.units} unit{'' if self.units == 1 else 's'})"


def holds_ended(*, now: int | None = None) -> list[Hold]:
    """Every hold that ended by `now` (epoch s): one Query (a page) of each HoldExpiry shard up to now."""
    now = int(time.time()) if now is None else now
    pk, sk = keys.HOLD_EXPIRY_ATTRIBUTES
    found: list[Hold] = []

    def send(shard: int) -> None:
        params = {
            "TableName": table_name(), "IndexName": keys.HOLD_EXPIRY,
            **expression(key=Key(pk).eq(keys.holds_pk(shard)) & Key(sk).lt(keys.hold_expiry_before(now))),
        }
        while True:
            with translate_errors():
                response = client().query(**params)
            found.extend(Hold.from_item(deserialize(item)) for item in response["Items"])
            if "LastEvaluatedKey" not in response:
                return
            params["ExclusiveStartKey"] = response["LastEvaluatedKey"]

    in_parallel(range(keys.HOLD_SHARDS), send, workers=SHARD_READERS)
    return found


def holds_release_ended(*, now: int | None = None) -> ReleaseSummary:
    """The release job (run_stock_jobs): every hold that ended by `now` goes back to the stock. The
    index is read eventually consistently: a hold renewed or sold meanwhile is left alone (its
    release's condition fails). Safe to run twice at once, or again after a crash."""
    now = int(time.time()) if now is None else now
    released = [hold for hold in holds_ended(now=now) if hold_release(hold=hold, why=ENDED, ended_by=now)]
    return ReleaseSummary(holds=len(released), units=sum(hold.quantity for hold in released))


def _per_partition(product_id: str, read: Any) -> list[Any]:
    """`read(partition)` for each of a product's hold partitions (sent at once), in partition order."""
    partitions = keys.hold_partitions(product_id)
    results = {}

    def send(i: int) -> None:
        results[i] = read(partitions[i])

    in_parallel(range(len(partitions)), send, workers=SHARD_READERS)
    return [results[i] for i in range(len(partitions))]


def holds_released(*, product_id: str, limit: int | None = 20) -> list[ReleasedHold]:
    """A product's released holds, newest first: one Query of each hold partition, `limit` each, and the
    newest `limit` of those (a bounded list)."""
    check_id("Product", product_id)

    def read(partition: Any) -> list[dict[str, Any]]:
        key_range = KeyRange(partition=partition, prefix=keys.HOLD_LOG_PREFIX, forward=False)
        return query_items(key_range, limit=limit)[0]

    items = [item for part in _per_partition(product_id, read) for item in part]
    items.sort(key=lambda item: item["SK"], reverse=True)
    return [ReleasedHold.from_item(item) for item in items[:limit]]


def units_held(*, product_id: str, consistent: bool = True) -> int:
    """Units of a product held now: the sum of its hold items (every page of each hold partition)."""
    return sum(hold.quantity for hold in holds_all(product_id=product_id, consistent=consistent))


def holds_all(*, product_id: str, consistent: bool = True) -> list[Hold]:
    """Every hold of a product now: every page of each of its hold partitions."""

    def read(partition: Any) -> list[Any]:
        key_range = KeyRange(partition=partition, prefix=keys.HOLD_PREFIX, consistent=consistent)
        found: list[Hold] = []
        after = None
        while True:
            items, last = query_items(key_range, limit=1000, after=after)
            found += map(Hold.from_item, items)
            if last is None:
                return found
            after = key_range.encode(last)

    return [hold for part in _per_partition(product_id, read) for hold in part]
