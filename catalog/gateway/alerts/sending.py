"""The job's part of back-in-stock alerts, second step: each claimed alert's email (or a guest's
confirmation) is sent under a lease: sent, and only then marked sent."""
from __future__ import annotations

import time
from typing import Any

from botocore.exceptions import ClientError

from .. import keys
from ..dynamo import conditions
from ..dynamo.boundary import error_code, translate_errors
from ..dynamo.client import client, table_name
from ..dynamo.codec import deserialize, serialize
from ..dynamo.conditions import Attr, Condition, Key
from ..validate import expires_in, new_token, utc_now
from .entities import FAILED, PENDING, Q_PK, Q_SK, SENT, SENT_DAYS, TTL, Alert, stamp

# A claimed alert's email is tried by one job at a time for this long (the lease); a job that
# stopped midway leaves it to be tried again after it.
LEASE_SECONDS = 300


def alerts_outbox(*, shard: int, limit: int = 100) -> list[Alert]:
    """Alerts of one outbox shard whose email is due (confirmations and claimed alerts), oldest
    asked first: one Query of AlertQueue."""
    with translate_errors():
        response = client().query(
            TableName=table_name(), IndexName=keys.ALERT_QUEUE, Limit=limit,
            **conditions.expression(key=Key(Q_PK).eq(keys.alert_outbox_pk(shard))),
        )
    return [Alert.from_item(deserialize(i)) for i in response["Items"]]


def _still(alert: Alert) -> Condition:
    """The alert is still the one read, in the state read."""
    return Attr("status").eq(alert.status) & Attr("alertId").eq(alert.alert_id)


def _leased(alert: Alert) -> Condition:
    """The alert's lease is still this job's, and the alert in the state it was leased in."""
    return Attr("leaseId").eq(alert.lease_id) & Attr("status").eq(alert.status)


def alert_lease(alert: Alert, *, now: float | None = None, seconds: float = LEASE_SECONDS) -> Alert | None:
    """Take the lease on an alert's email: one conditional UpdateItem (still in the outbox in the
    same state, and nobody's lease running). Returns the Alert with its lease ID, or None when
    another job holds it or it is no longer due."""
    now = time.time() if now is None else now
    lease_id = new_token()
    try:
        with translate_errors():
            response = client().update_item(
                TableName=table_name(), Key=serialize(keys.alert_key(alert.owner, alert.product_id)),
                UpdateExpression="SET leaseId = :lid, leaseUntil = :until ADD attempts :one",
                **conditions.expression(
                    condition=_still(alert) & Attr(Q_PK).exists()
                    & (Attr("leaseUntil").not_exists() | Attr("leaseUntil").lt(int(now))),
                    values={":lid": lease_id, ":until": int(now + seconds), ":one": 1},
                ),
                ReturnValues="ALL_NEW",
            )
    except ClientError as exc:
        if error_code(exc) != "ConditionalCheckFailedException":
            raise
        return None
    return Alert.from_item(deserialize(response["Attributes"]))


def alert_mark_sent(alert: Alert) -> bool:
    """The email of a leased alert went out: a claimed alert is `sent` (listed SENT_DAYS, then
    gone); a pending one's confirmation is recorded (it waits for the link). Out of the outbox,
    conditional on the lease still being this job's. False if it was not (someone cancelled)."""
    values: dict[str, Any]
    names: dict[str, str] | None = None
    if alert.status == PENDING:
        # the confirmation's tries are its own: the alert's email, once confirmed, gets every try
        expression = f"SET confirmationSentEpoch = :epoch REMOVE {Q_PK}, {Q_SK}, leaseId, leaseUntil, attempts"
        values = {":epoch": int(time.time())}
    else:
        expression = f"SET #s = :sent, sentAt = :at, {TTL} = :ttl REMOVE {Q_PK}, {Q_SK}, leaseId, leaseUntil"
        values = {":sent": SENT, ":at": stamp(utc_now()), ":ttl": expires_in(SENT_DAYS * 86400)}
        names = {"#s": "status"}
    try:
        with translate_errors():
            client().update_item(
                TableName=table_name(), Key=serialize(keys.alert_key(alert.owner, alert.product_id)),
                UpdateExpression=expression,
                **conditions.expression(condition=_leased(alert), names=names, values=values),
            )
    except ClientError as exc:
        if error_code(exc) != "ConditionalCheckFailedException":
            raise
        return False
    return True


def alert_give_up(alert: Alert) -> bool:
    """A leased alert's email failed for the last time: the alert is `failed`, out of the outbox, listed
    SENT_DAYS (then gone), conditional on the lease still being this job's. False if it was not."""
    try:
        with translate_errors():
            client().update_item(
                TableName=table_name(), Key=serialize(keys.alert_key(alert.owner, alert.product_id)),
                UpdateExpression=f"SET #s = :failed, failedAt = :at, {TTL} = :ttl "
                f"REMOVE {Q_PK}, {Q_SK}, leaseId, leaseUntil",
                **conditions.expression(condition=_leased(alert), names={"#s": "status"}, values={
                    ":failed": FAILED, ":at": stamp(utc_now()), ":ttl": expires_in(SENT_DAYS * 86400),
                }),
            )
    except ClientError as exc:
        if error_code(exc) != "ConditionalCheckFailedException":
            raise
        return False
    return True
