"""Checkouts paying by card: one item each (keys.payment_pending_key), written before the payment is
asked for, so an authorisation can always be matched to what was bought; marked placed or voided once
settled. reconcile_payments finds those still pending by a Query of each day's partitions (no Scan)."""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import timedelta
from typing import Any

from botocore.exceptions import ClientError

from .. import keys
from ..dynamo.boundary import error_code, translate_errors
from ..dynamo.client import client, read, table_name
from ..dynamo.codec import deserialize, serialize
from ..dynamo.conditions import Attr, expression
from ..dynamo.pages import KeyRange, query_items
from ..errors import OrderStatusRefused
from ..validate import check_id, expires_in, utc_now
from .entities import PENDING, PLACED, VOIDED, PendingPayment

KEPT_DAYS = 30  # a settled checkout's item is forgotten (TTL) this long after it was written
LOOK_BACK_DAYS = 8  # card authorisations lapse after 7 days: older checkouts have nothing left to settle


def payment_pending_put(*, pending: PendingPayment) -> PendingPayment | None:
    """Write (or, for a new attempt of the same checkout, rewrite) a checkout paying by card: one PutItem,
    only while it is not settled; returns the attempt it replaced (None: the first). OrderStatusRefused (its
    status) when its order was placed or voided."""
    check_id("Order", pending.order_id)
    check_id("Customer", pending.customer_id)
    try:
        with translate_errors():
            response = client().put_item(
                TableName=table_name(), Item=serialize(pending.to_item(expires_at=expires_in(KEPT_DAYS * 86400))),
                **expression(condition=Attr("PK").not_exists() | Attr("status").eq(PENDING)),
                ReturnValues="ALL_OLD", ReturnValuesOnConditionCheckFailure="ALL_OLD",
            )
    except ClientError as exc:
        if error_code(exc) == "ConditionalCheckFailedException":
            old = deserialize(exc.response.get("Item") or {})
            raise OrderStatusRefused(pending.order_id, old.get("status", PLACED), "paid again") from exc
        raise
    old = response.get("Attributes")
    return PendingPayment.from_item(deserialize(old)) if old else None


def payment_pending_get(*, order_id: str) -> PendingPayment | None:
    """The checkout paying for `order_id` (one consistent GetItem), or None."""
    check_id("Order", order_id)
    with translate_errors():
        response = read("GetItem", {"TableName": table_name(), "Key": serialize(keys.payment_pending_key(order_id)),
                                    "ConsistentRead": True})
    return PendingPayment.from_item(deserialize(response["Item"])) if "Item" in response else None


def payment_pending_settle(*, pending: PendingPayment, status: str, intent_id: str = "", reason: str = "") -> bool:
    """Mark a checkout placed or voided (one conditional UpdateItem, only while pending): True if this call
    settled it, False if it was settled before."""
    if status not in (PLACED, VOIDED):
        raise ValueError(status)
    return _update(pending.order_id, "SET #status = :status, intentId = :intent, reason = :reason, settledAt = :at",
                   {":status": status, ":intent": intent_id or pending.intent_id or "-", ":reason": reason or "-",
                    ":at": utc_now().isoformat(timespec="microseconds")}, names={"#status": "status"})


def payment_pending_intent(*, pending: PendingPayment, intent_id: str) -> PendingPayment:
    """Remember the authorisation asked for (one UpdateItem while pending): reconcile checks it later."""
    _update(pending.order_id, "SET intentId = :intent", {":intent": intent_id})
    return replace(pending, intent_id=intent_id)


def _update(order_id: str, update_expression: str, values: dict[str, Any], names: dict[str, str] | None = None) -> bool:
    """One UpdateItem of a checkout paying, only while it is pending: False if it was settled before."""
    try:
        with translate_errors():
            client().update_item(
                TableName=table_name(), Key=serialize(keys.payment_pending_key(order_id)),
                UpdateExpression=update_expression,
                **expression(condition=Attr("status").eq(PENDING), names=names, values=values),
            )
    except ClientError as exc:
        if error_code(exc) == "ConditionalCheckFailedException":
            return False
        raise
    return True


def payments_pending(*, older_than_seconds: int = 0) -> Iterator[PendingPayment]:
    """Checkouts still waiting for their payment, of the last LOOK_BACK_DAYS days: one Query a day and
    shard (and a page), those settled filtered out by DynamoDB. A generator (reconcile_payments)."""
    now = utc_now()
    before = (now - timedelta(seconds=older_than_seconds)).isoformat(timespec="microseconds")
    for days_ago in range(LOOK_BACK_DAYS + 1):
        day = (now - timedelta(days=days_ago)).strftime("%Y%m%d")
        for shard in range(keys.PAYMENT_PENDING_SHARDS):
            key_range = KeyRange(partition=keys.payment_pending_pk(day, shard), consistent=True,
                                 filters=(("status", PENDING),))
            after = None
            while True:
                items, last = query_items(key_range, limit=100, after=after)
                yield from (PendingPayment.from_item(i) for i in items if i["createdAt"] <= before)
                if last is None:
                    break
                after = key_range.encode(last)
