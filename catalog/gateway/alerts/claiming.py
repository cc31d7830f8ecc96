"""The job's part of back-in-stock alerts, first step: run_stock_jobs reads the due shards (one Query each,
no Scan), turns each due item's units into an allowance (units still in stock, plus the margin), and claims
that many waiting alerts oldest first, each claim in one transaction with the allowance and the count (so a
crash never claims more than the allowance)."""
from __future__ import annotations

import dataclasses
from typing import Any

from botocore.exceptions import ClientError

from .. import keys
from ..catalog.products import product_get
from ..dynamo import conditions
from ..dynamo.backoff import conflict_pause
from ..dynamo.boundary import error_code, translate_errors
from ..dynamo.client import client, table_name
from ..dynamo.codec import Item, deserialize, serialize
from ..dynamo.conditions import Attr, Condition, Key
from ..dynamo.transact import transact_write, update
from ..errors import NotFound
from ..validate import client_request_token, utc_now
from .entities import CLAIMED, Q_PK, Q_SK, WAITING, Alert, count_update, stamp

# Waiting alerts claimed per transaction (each claim is one action; two more for allowance and count).
CLAIM_BATCH = 25
CLAIM_REFUSALS = 5


@dataclasses.dataclass(frozen=True)
class Due:
    product_id: str
    units: int
    allowance: int


def alerts_due(*, shard: int, limit: int = 100) -> list[Due]:
    """Products with units made available since the job last looked, of one due shard: one Query."""
    with translate_errors():
        response = client().query(
            TableName=table_name(), ConsistentRead=True, Limit=limit,
            **conditions.expression(key=Key("PK").eq(keys.alert_due_pk(shard))),
        )
    return [_due(deserialize(i)) for i in response["Items"]]


def _due(item: dict[str, Any]) -> Due:
    return Due(product_id=item["productId"], units=int(item.get("units", 0)), allowance=int(item.get("allowance", 0)))


def _due_get(product_id: str) -> Due | None:
    with translate_errors():
        item = client().get_item(
            TableName=table_name(), Key=serialize(keys.alert_due_key(product_id)), ConsistentRead=True,
        ).get("Item")
    return _due(deserialize(item)) if item else None


def _conditional_update(key: Item, expression: str, values: Item, condition: Condition) -> bool:
    try:
        with translate_errors():
            client().update_item(
                TableName=table_name(), Key=serialize(key), UpdateExpression=expression,
                **conditions.expression(condition=condition, values=values),
            )
    except ClientError as exc:
        if error_code(exc) != "ConditionalCheckFailedException":
            raise
        return False
    return True


def alerts_claim(*, product_id: str, margin: int) -> int:
    """Give the units that came in for a product to its waiting alerts, oldest first. First the due
    item's units become an allowance (the units still in stock, at most the units that came in, plus
    `margin`; none if it sold out again meanwhile), conditional on the units read, so units are never
    counted twice. Then waiting alerts are claimed in transactions that also take from the allowance
    (conditional on enough being left) and the waiting count: however often the job stops and starts,
    no more alerts are claimed than the allowance. The due item is deleted when it is spent or no
    alert waits, unless units came in meanwhile. Returns the number claimed."""
    due = _due_get(product_id)
    if due is None:
        return 0
    level = _level_on_sale(product_id) if due.units > 0 or due.allowance > 0 else 0
    if level is None:  # hidden by staff: nothing claimed; showing it again with stock marks it due anew
        _due_delete(product_id, Attr("units").eq(due.units) if due.units > 0 else _spent())
        return 0
    if due.units > 0:
        grant = min(due.units, level) + margin if level > 0 else 0
        if not _conditional_update(
            keys.alert_due_key(product_id), "SET allowance = if_not_exists(allowance, :zero) + :grant ADD units :neg",
            {":grant": grant, ":neg": -due.units, ":zero": 0}, Attr("units").eq(due.units),
        ):
            return 0  # more units came in meanwhile: the next pass counts them
        due = Due(product_id, 0, due.allowance + grant)
    claimed, refused = 0, 0
    while due.allowance > 0:
        waiting = _waiting(product_id, limit=min(due.allowance, CLAIM_BATCH))
        if not waiting:
            break
        if _claim(product_id, waiting, due.allowance):
            claimed += len(waiting)
            due = Due(product_id, 0, due.allowance - len(waiting))
            continue
        # One was cancelled (or claimed by another job) meanwhile, or the index had not caught up yet:
        # read both again; after a few refusals leave the rest (and the due item) to the next pass.
        refused += 1
        conflict_pause()  # the product's item (its count) may be busy selling
        due = _due_get(product_id)
        if due is None or refused > CLAIM_REFUSALS:
            return claimed
    # Spent, or nobody waits: done with these units (unless more came in: the next pass).
    _due_delete(product_id, _spent())
    return claimed


def _spent() -> Condition:
    return Attr("units").not_exists() | Attr("units").lte(0)


def _due_delete(product_id: str, condition: Condition) -> None:
    """The product's due item deleted if `condition` holds (else units came in meanwhile: the next pass)."""
    with translate_errors():
        try:
            client().delete_item(
                TableName=table_name(), Key=serialize(keys.alert_due_key(product_id)),
                **conditions.expression(condition=condition),
            )
        except ClientError as exc:
            if error_code(exc) != "ConditionalCheckFailedException":
                raise


def _level_on_sale(product_id: str) -> int | None:
    """The product's stock level (0 for an unknown one), or None while staff hide it: one GetItem."""
    try:
        product = product_get(product_id=product_id, consistent=True)
    except NotFound:
        return 0
    return (product.stock_level or 0) if product.published else None


def _waiting(product_id: str, *, limit: int) -> list[Any]:
    """The oldest `limit` waiting alerts of a product (their keys): one Query of AlertQueue."""
    with translate_errors():
        response = client().query(
            TableName=table_name(), IndexName=keys.ALERT_QUEUE, Limit=limit,
            **conditions.expression(key=Key(Q_PK).eq(keys.alert_waiting_pk(product_id))),
        )
    return [Alert.from_item(deserialize(i)) for i in response["Items"]]


def _claim(product_id: str, alerts: list[Alert], allowance: int) -> bool:
    """One transaction: each alert waiting -> claimed (into the outbox), the allowance and the
    waiting count down by their number. False when something changed meanwhile (nothing written)."""
    at = stamp(utc_now())
    actions = []
    for alert in alerts:
        outbox = keys.alert_outbox_keys(asked_at=alert.asked_at, alert_id=alert.alert_id)
        actions.append(update(
            keys.alert_key(alert.owner, product_id),
            f"SET #s = :claimed, claimedAt = :at, {Q_PK} = :qpk, {Q_SK} = :qsk",
            {":claimed": CLAIMED, ":at": at, ":qpk": outbox[Q_PK], ":qsk": outbox[Q_SK]},
            condition=Attr("status").eq(WAITING) & Attr("alertId").eq(alert.alert_id), names={"#s": "status"},
        ))
    n = len(alerts)
    actions.append(update(keys.alert_due_key(product_id), "ADD allowance :neg", {":neg": -n},
                          condition=Attr("allowance").gte(n)))
    actions.append(count_update(product_id, -n))
    refusal = transact_write(actions, request_token=client_request_token(
        "claim", product_id, allowance, at, *(a.alert_id for a in alerts)))
    return refusal is None

