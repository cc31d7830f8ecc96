"""The shopper's part of back-in-stock alerts: asking, confirming, cancelling and listing alerts, and the
products' waiting counts."""
from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from .. import keys
from ..catalog.products import product_get
from ..dynamo.backoff import AGAIN, AGAIN_NOW, AGAIN_SOON, Again, retry_optimistic
from ..dynamo.batches import batch_get
from ..dynamo.boundary import translate_errors
from ..dynamo.client import client, table_name
from ..dynamo.codec import deserialize
from ..dynamo.conditions import Attr, Condition, Key, expression
from ..dynamo.transact import Action, delete, put, transact_write, update
from ..errors import InvalidInput, StockBusy
from ..validate import check_id, client_request_token, new_token, utc_now
from .entities import (
    ACTIVE,
    CLAIMED,
    FAILED,
    PENDING,
    Q_PK,
    Q_SK,
    SENT,
    TTL,
    WAITING,
    Alert,
    AlertRefused,
    AskOutcome,
    alert_item,
    alert_read,
    check_email,
    count_update,
    stamp,
)
from .marks import alert_due_action

if TYPE_CHECKING:
    from catalog.gateway.catalog.entities import Product
    from catalog.gateway.dynamo.transact import Refusal


# An unconfirmed guest alert is forgotten after this many days.
PENDING_DAYS = 7
# At most this many confirmed alerts an owner (an email address or an account) at a time, sent ones
# included while they are listed: no one can have the shop mail an address about every product.
MAX_ALERTS_PER_OWNER = 50
# Unconfirmed guest asks an address keeps at most (anyone may ask in its name); a further ask replaces
# the oldest of them, so they never stand in the way of the owner's own.
MAX_PENDING_PER_OWNER = 20
# A guest asking again while unconfirmed gets the confirmation again, at most this often.
RESEND_CONFIRMATION_SECONDS = 600


def alert_counts(*, product_ids: Iterable[str]) -> dict[str, Any] | dict[str, int]:
    """{product ID: alerts waiting} for many products: one BatchGetItem (100 a request) of that attribute."""
    if not product_ids:
        return {}
    found = batch_get([keys.product_key(pid) for pid in dict.fromkeys(product_ids)],
                      projection=f"productId, {keys.ALERTS_WAITING}")
    counts = {pid: 0 for pid in product_ids}
    for item in found:
        counts[item["productId"]] = max(0, int(item.get(keys.ALERTS_WAITING, 0)))
    return counts


def _owned(owner: str) -> int:
    """How many alerts `owner` has (up to MAX_ALERTS_PER_OWNER + 1): one Query, Select COUNT."""
    with translate_errors():
        response = client().query(
            TableName=table_name(), Select="COUNT", Limit=MAX_ALERTS_PER_OWNER + 1,
            **expression(key=Key("PK").eq(keys.alert_pk(owner))),
        )
    return response["Count"]


def alert_ask(
    *, product_id: str, email: str, customer_id: str | None = None, product: Product | None = None
) -> AskOutcome:
    """Ask for an email when a sold-out product is back. Signed in (`customer_id`): the alert waits
    at once. A guest: the alert is pending until the link of the confirmation email (sent by the
    job) is followed. One alert per owner and product: asking again changes nothing (a guest's
    unconfirmed ask gets its confirmation again, at most every RESEND_CONFIRMATION_SECONDS).
    Refused (AlertRefused, nothing written) for a product in stock, or a signed-in owner with
    MAX_ALERTS_PER_OWNER alerts (a guest's cap is checked at the confirmation); NotFound for an
    unknown product."""
    check_id("Product", product_id)
    email = check_email(email)
    product = product or product_get(product_id=product_id, consistent=True)
    if product.in_stock:
        raise AlertRefused(f"{product.name} is in stock: you can order it now.")
    if not customer_id:
        return _guest_ask(product, email)
    owner = keys.alert_owner_customer(customer_id)
    existing = alert_read(owner, product_id)
    if existing is not None and existing.status in ACTIVE:
        return AskOutcome("already", existing, product.alerts_waiting)
    if existing is None and _owned(owner) >= MAX_ALERTS_PER_OWNER:  # a customer's alerts are all confirmed
        raise AlertRefused(f"This address already has {MAX_ALERTS_PER_OWNER} alerts: cancel some first.")
    waiting = product.alerts_waiting
    alert = _new_alert(owner, product, email, status=WAITING, customer_id=customer_id)
    item = alert_item(alert)
    item.update(keys.alert_waiting_keys(product_id, asked_at=alert.asked_at, alert_id=alert.alert_id))
    action = put(item, condition=_absent_or_listed())  # or a sent (or failed) one, listed still, that it replaces

    def still_sold_out() -> bool:
        return not product_get(product_id=product_id, consistent=True).in_stock

    refusal = _start_waiting(action, product_id, token=("ask", owner, product_id, alert.alert_id),
                             still_sold_out=still_sold_out)
    if isinstance(refusal, str):  # "in stock": units came in since the product was read
        raise AlertRefused(f"{product.name} is in stock: you can order it now.")
    if refusal is not None and not refusal.replay:
        if refusal.failed(0):  # asked at the same moment in another tab: that ask stands
            return AskOutcome("already", alert_read(owner, product_id) or alert, waiting)
        raise InvalidInput("Too many requests at once for this product; try again.")
    return AskOutcome(alert.status, alert, waiting)


def _new_alert(owner: str, product: Product, email: str, *, status: str, customer_id: str = "") -> Alert:
    return Alert(owner=owner, product_id=product.product_id, alert_id=new_token(), email=email, status=status,
                 asked_at=stamp(utc_now()), product_name=product.name, customer_id=customer_id or "")


def _guest_ask(product: Product, email: str) -> AskOutcome:
    """A guest's ask does the same DynamoDB work whether or not the address asked before (its time tells
    nobody): one Query of the owner's alerts, then one transaction of one conditional Put, whose outcome
    differs, not its shape. The Put writes a new pending alert where there is none (or a sent one); over a
    pending alert it is the same alert again, back in the outbox, only when its confirmation went out
    RESEND_CONFIRMATION_SECONDS ago; over a confirmed one it fails. Pending alerts do not count toward
    MAX_ALERTS_PER_OWNER (strangers can ask in anyone's name); at MAX_PENDING_PER_OWNER the oldest
    pending one goes, in the same transaction, so the owner's own ask is always taken."""
    owner = keys.alert_owner_email(email)
    return retry_optimistic(lambda _n: _guest_ask_once(product, email, owner),
                            busy=StockBusy("Too many asks at once for this address; try again."))


def _guest_ask_once(product: Product, email: str, owner: str) -> AskOutcome | Again:
    """One try of `_guest_ask`: its outcome, or AGAIN when the oldest pending ask it would replace changed
    meanwhile (read again and try again: the ask is never dropped)."""
    product_id = product.product_id
    alerts = _owner_alerts(owner)
    existing = next((a for a in alerts if a.product_id == product_id), None)
    waiting, now = product.alerts_waiting, int(time.time())
    if existing is not None and existing.status in ACTIVE:
        alert, expires = existing, alerts[existing]
    else:
        alert, expires = _new_alert(owner, product, email, status=PENDING), now + PENDING_DAYS * 86400
    item = {**alert_item(alert), **keys.alert_outbox_keys(asked_at=alert.asked_at, alert_id=alert.alert_id),
            TTL: expires}
    # Over a pending ask: one past its expiry, or this one again once its confirmation went out long enough ago.
    resend = Attr("alertId").eq(alert.alert_id) & Attr(Q_PK).not_exists() & Attr("confirmationSentEpoch").lt(
        now - RESEND_CONFIRMATION_SECONDS)
    actions = [put(item, condition=_absent_or_listed() | (Attr("status").eq(PENDING) & (Attr(TTL).lt(now) | resend)))]
    pending = sorted((a for a in alerts if a.status == PENDING and a is not existing), key=lambda a: a.asked_at)
    if existing is None and len(pending) >= MAX_PENDING_PER_OWNER:
        actions.append(_delete_action(pending[0]))
    # The token is this request's own (its retries by the client apply once; a later ask is another request).
    refusal = transact_write(actions, request_token=client_request_token("ask", owner, product_id, new_token()))
    if refusal is None or refusal.replay:
        return AskOutcome("already" if existing is alert else PENDING, alert, waiting)
    if refusal.failed(0):  # as it was (or another tab asked meanwhile)
        return AskOutcome("already", existing or alert, waiting)
    return AGAIN  # the oldest pending ask went or changed meanwhile, or DynamoDB was busy


def _absent_or_listed() -> Condition:
    """No alert of the owner for the product, or a sent (or failed) one, listed still, that an ask replaces."""
    return Attr("PK").not_exists() | Attr("status").is_in([SENT, FAILED])


def _delete_action(alert: Alert) -> Action:
    return delete(keys.alert_key(alert.owner, alert.product_id),
                  condition=Attr("status").eq(alert.status) & Attr("alertId").eq(alert.alert_id))


def _owner_alerts(owner: str) -> dict[Alert, int]:
    """{Alert: its expiry epoch (0: none)} of an owner's alerts still there (pending ones past their expiry,
    which DynamoDB's TTL deletes some time later, left out): one consistent Query, bounded by the caps."""
    with translate_errors():
        response = client().query(
            TableName=table_name(), ConsistentRead=True, Limit=MAX_ALERTS_PER_OWNER + MAX_PENDING_PER_OWNER + 2,
            **expression(key=Key("PK").eq(keys.alert_pk(owner))),
        )
    now, found = int(time.time()), {}
    for raw in response["Items"]:
        item = deserialize(raw)
        expires = int(item.get(TTL, 0))
        if item["status"] != PENDING or expires > now:
            found[Alert.from_item(item)] = expires
    return found


def confirmed_count(owner: str) -> int:
    """How many of an owner's alerts count toward MAX_ALERTS_PER_OWNER: the confirmed ones (waiting, claimed,
    sent); not pending asks nor given-up ones, which a stranger's ask can leave."""
    return sum(1 for alert in _owner_alerts(owner) if alert.status in (WAITING, CLAIMED, SENT))



def alert_get(*, owner: str, product_id: str, alert_id: str) -> Alert | None:
    """The alert of a signed link (None when it is gone or the link is for an earlier one)."""
    alert = alert_read(owner, product_id)
    return alert if alert is not None and alert.alert_id == alert_id else None


def alert_confirm(*, owner: str, product_id: str, alert_id: str) -> Alert | None:
    """A guest followed the confirmation link: the pending alert waits, in the order it was asked.
    If units came in since it was asked, it also marks the product due (one unit: the job's allowance
    then covers the oldest waiting alerts while units are in stock), as the receipt would have, had
    the alert been waiting then. Returns the Alert (confirmed before: unchanged), or None when it is
    gone (expired, cancelled). AlertRefused (nothing written) when the owner has MAX_ALERTS_PER_OWNER
    confirmed alerts: only the owner of the address has the link, so only they are told."""
    alert = alert_get(owner=owner, product_id=product_id, alert_id=alert_id)
    if alert is None or alert.status != PENDING:
        return alert
    if confirmed_count(owner) >= MAX_ALERTS_PER_OWNER:
        raise AlertRefused(f"This address already has {MAX_ALERTS_PER_OWNER} alerts: cancel some first.")
    queue = keys.alert_waiting_keys(product_id, asked_at=alert.asked_at, alert_id=alert_id)
    confirm = update(
        keys.alert_key(owner, product_id),
        f"SET #s = :waiting, confirmedAt = :at, {Q_PK} = :qpk, {Q_SK} = :qsk REMOVE {TTL}",
        {":waiting": WAITING, ":at": stamp(utc_now()), ":qpk": queue[Q_PK], ":qsk": queue[Q_SK]},
        condition=Attr("status").eq(PENDING) & Attr("alertId").eq(alert_id), names={"#s": "status"},
    )
    refusal = _start_waiting(confirm, product_id, token=("confirm", owner, product_id, alert_id, new_token()))
    if refusal is not None:  # confirmed or cancelled meanwhile, or DynamoDB busy: as it is now
        return alert_get(owner=owner, product_id=product_id, alert_id=alert_id)
    return dataclasses.replace(alert, status=WAITING)


def _start_waiting(
    action: Action, product_id: str, *, token: tuple[str, ...], still_sold_out: Callable[[], bool] | None = None
) -> Refusal | str | None:
    """One transaction: `action` (an alert's Put or Update that makes it wait) and the product's count up by
    one, while the product holds no units (count_update). If it does hold some, units came in since the
    alert was asked: with `still_sold_out` (a read) saying otherwise the answer is "in stock"; else the
    product is marked due with the same transaction (one unit: the job's allowance then covers the oldest
    waiting alerts while units are in stock). Tried again, after a pause, while another transaction is in
    the way (a product's item is busy while it sells). Returns None when done, "in stock", or the Refusal."""
    marking, refusal = False, None

    def attempt(n: int) -> Refusal | str | None | Again:
        nonlocal marking, refusal
        actions = [action, count_update(product_id, 1, sold_out=not marking)]
        if marking:
            actions.append(alert_due_action(product_id, 1))
        refusal = transact_write(actions, request_token=client_request_token(*token, marking, n))
        if refusal is None or refusal.replay or refusal.failed(0):
            return refusal
        if refusal.failed(1):
            if marking or (still_sold_out is not None and not still_sold_out()):
                return "in stock" if not marking else refusal
            marking = True
        return AGAIN  # (else another transaction was in the way, or throttling)

    return retry_optimistic(attempt, busy=lambda: refusal)


def alerts_of_owner(*, owner: str) -> list[Alert]:
    """An owner's alerts (at most MAX_ALERTS_PER_OWNER: one Query), newest asked first."""
    with translate_errors():
        response = client().query(
            TableName=table_name(), Limit=MAX_ALERTS_PER_OWNER + 1,
            **expression(key=Key("PK").eq(keys.alert_pk(owner))),
        )
    alerts = [Alert.from_item(deserialize(i)) for i in response["Items"]]
    return sorted(alerts, key=lambda a: a.asked_at, reverse=True)  # bounded: MAX_ALERTS_PER_OWNER + 1


def alert_cancel(*, owner: str, product_id: str, alert_id: str | None = None) -> Alert | None:
    """Cancel (or unsubscribe) an owner's alert for a product: deleted, and no longer counted as
    waiting. `alert_id` (from a signed link) must be the alert's. Returns the cancelled Alert, or
    None when there was none (nothing changes)."""
    check_id("Product", product_id)

    def attempt(_n: int) -> Alert | None | Again:
        alert = alert_read(owner, product_id)
        if alert is None or (alert_id is not None and alert.alert_id != alert_id):
            return None
        actions = [_delete_action(alert)] + ([count_update(product_id, -1)] if alert.status == WAITING else [])
        refusal = transact_write(actions, request_token=client_request_token("cancel-alert", owner, product_id,
                                                                             alert.alert_id, alert.status))
        if refusal is None or refusal.replay:
            return alert
        # The product's item may be busy (its count is on it): a moment's pause; else read again at once.
        return AGAIN_SOON if refusal.conflict else AGAIN_NOW

    return retry_optimistic(attempt, busy=InvalidInput("This alert is changing right now; try again."), tries=5)

