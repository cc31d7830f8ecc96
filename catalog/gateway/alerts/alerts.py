"""Back-in-stock alerts (issue 36): asking, confirming, cancelling, and the job's claim and send steps.

An alert is one item per owner and product (keys.alert_key: a signed-in shopper's customer ID, or a
guest's email hash), in one of these states:

- `pending`: a guest asked; the confirmation email is due (in an AlertQueue outbox shard). Expires
  (TTL) after PENDING_DAYS unless confirmed.
- `waiting`: confirmed (a signed-in shopper's ask is confirmed at once); in the AlertQueue partition
  of its product, in the order asked. The product item's `alertsWaiting` counts these.
- `claimed`: the job gave it one of the units that came in; its email is due (outbox shard).
- `sent`: done; kept SENT_DAYS for the account page (TTL), then gone.
- `failed`: its email (the alert's or its confirmation) failed as often as the job tries
  (STOCK_ALERT_MAIL_ATTEMPTS): out of the outbox, kept SENT_DAYS for the account page, then gone.

Units that become available (a receipt, a cancelled order) add to the product's due item in the stock
write's own transaction (alert_due_action: one small Update, no read, no email). run_stock_jobs reads
the due shards (one Query each, no Scan), turns each due item's units into an allowance (units still
in stock, plus the margin), and claims that many waiting alerts oldest first, each claim in one
transaction with the allowance and the count (so a crash never claims more than the allowance). Each
claimed alert's email is then sent under a lease: sent, and only then marked sent.
"""
import dataclasses
import logging
import time
from datetime import datetime

from botocore.exceptions import ClientError

from .. import keys
from ..catalog.products import product_get
from ..dynamo.backoff import backoff_pause, conflict_pause, contended_attempts
from ..dynamo.batches import batch_get
from ..dynamo.boundary import error_code, translate_errors
from ..dynamo.client import client, table_name
from ..dynamo.codec import deserialize, serialize
from ..dynamo.transact import TRANSACTION_ACTIONS, put, transact_write, update
from ..errors import CatalogUnavailable, InvalidInput, NotFound, StockBusy
from ..validate import check_id, client_request_token, new_token, utc_now

log = logging.getLogger(__name__)
PENDING, WAITING, CLAIMED, SENT, FAILED = "pending", "waiting", "claimed", "sent", "failed"
ACTIVE = (PENDING, WAITING, CLAIMED)
# An unconfirmed guest alert is forgotten after this many days; a sent one is listed this long.
PENDING_DAYS = 7
SENT_DAYS = 30
# At most this many confirmed alerts an owner (an email address or an account) at a time, sent ones
# included while they are listed: no one can have the shop mail an address about every product.
MAX_ALERTS_PER_OWNER = 50
# Unconfirmed guest asks an address keeps at most (anyone may ask in its name); a further ask replaces
# the oldest of them, so they never stand in the way of the owner's own.
MAX_PENDING_PER_OWNER = 20
# A guest asking again while unconfirmed gets the confirmation again, at most this often.
RESEND_CONFIRMATION_SECONDS = 600
# A claimed alert's email is tried by one job at a time for this long (the lease); a job that
# stopped midway leaves it to be tried again after it.
LEASE_SECONDS = 300
# Waiting alerts claimed per transaction (each claim is one action; two more for allowance and count).
CLAIM_BATCH = 25
CLAIM_REFUSALS = 5
MAX_EMAIL = 254
_Q_PK, _Q_SK = keys.ALERT_QUEUE_ATTRIBUTES


@dataclasses.dataclass(frozen=True)
class Alert:
    owner: str
    product_id: str
    alert_id: str
    email: str
    status: str
    asked_at: str
    product_name: str = ""
    customer_id: str = ""
    sent_at: str = ""
    lease_id: str = ""
    attempts: int = 0  # emails tried under a lease (alert_lease counts them)

    @classmethod
    def from_item(cls, item):
        return cls(
            owner=item["owner"], product_id=item["productId"], alert_id=item["alertId"], email=item["email"],
            status=item["status"], asked_at=item["askedAt"], product_name=item.get("productName", ""),
            customer_id=item.get("customerId", ""), sent_at=item.get("sentAt", ""), lease_id=item.get("leaseId", ""),
            attempts=int(item.get("attempts", 0)),
        )

    @property
    def asked(self):
        return datetime.fromisoformat(self.asked_at)

    @property
    def sent(self):
        return datetime.fromisoformat(self.sent_at) if self.sent_at else None

    @property
    def is_confirmation(self):
        """In the outbox for its confirmation email (a guest's), not for the alert itself."""
        return self.status == PENDING


@dataclasses.dataclass(frozen=True)
class AskOutcome:
    """What asking did: `state` is "waiting" (signed-in: in the queue now), "pending" (a guest:
    confirmation email due), "already" (this owner already has an active alert for it); `waiting`
    is the number of alerts waiting for the product (others', before this one)."""

    state: str
    alert: Alert
    waiting: int


class AlertRefused(InvalidInput):
    """Asking is refused: the product is in stock, or the owner has too many alerts."""


def check_email(email):
    email = (email or "").strip()
    if not email or len(email) > MAX_EMAIL or "@" not in email:
        raise InvalidInput("Enter a valid email address.")
    return email


def _stamp(at):
    return at.isoformat(timespec="microseconds")


# --- the stock write's part -----------------------------------------------------------------

def marks_due(delta, *, waiting, level_before):
    """Whether a staff stock write (or an import) of `delta` units marks the product's alerts due: when
    units come in and alerts wait (`waiting`, the product's count as read), or may (the product was sold
    out, `level_before` <= 0: nearly every product alerts wait for is). Otherwise the write is made on
    condition that none waits (stock._apply_stock_change)."""
    return delta > 0 and (waiting > 0 or level_before <= 0)


def alert_due_action(product_id, units):
    """The Update action a stock write that makes `units` available adds to its own transaction:
    the product's due item gains the units (no condition: it never fails the stock write). Costs
    one small write; no read, no email."""
    return update(
        keys.alert_due_key(product_id),
        "ADD units :u SET productId = :pid, markedAt = if_not_exists(markedAt, :at)",
        {":u": units, ":pid": product_id, ":at": _stamp(utc_now())},
    )


def transact_write_marking_due(actions, due, *, request_token, due_token):
    """transact_write(actions) of a stock write that makes units available, with their due marks `due`
    (alert_due_action each) after its actions: in the same transaction while it has room (DynamoDB's 100
    actions), else in their own right after it succeeded (`due_token`: the same write again is the same
    request), tried again while another transaction or throttling is in the way; if DynamoDB still cannot
    take them (or a crash comes in between) those alerts wait for the product's next receipt and the stock
    write stands (logged, never raised: the order or release is done). Returns the refusal of the stock
    write, as transact_write does (its actions' indices as they were)."""
    fits = len(actions) + len(due) <= TRANSACTION_ACTIONS
    refusal = transact_write(actions + due if fits else actions, request_token=request_token)
    if refusal is None and due and not fits:
        _marks_after(due, due_token)
    return refusal


def _marks_after(due, due_token):
    try:
        for attempt in contended_attempts():
            refused = transact_write(due, request_token=due_token)
            if refused is None or refused.replay:
                return
            if refused.throttled:
                backoff_pause(attempt + 1)
            else:
                conflict_pause()
        log.warning("back-in-stock due marks not written (DynamoDB busy): %s", due_token)
    except CatalogUnavailable:
        log.warning("back-in-stock due marks not written (DynamoDB unavailable): %s", due_token, exc_info=True)


# --- the shopper's part ---------------------------------------------------------------------

def alert_counts(*, product_ids):
    """{product ID: alerts waiting} for many products: one BatchGetItem (100 a request) of that attribute."""
    if not product_ids:
        return {}
    found = batch_get([keys.product_key(pid) for pid in dict.fromkeys(product_ids)],
                      projection=f"productId, {keys.ALERTS_WAITING}")
    counts = {pid: 0 for pid in product_ids}
    for item in found:
        counts[item["productId"]] = max(0, int(item.get(keys.ALERTS_WAITING, 0)))
    return counts


def _count_update(product_id, delta, *, sold_out=False):
    """The product's waiting count moves by `delta`, in the transaction that changes an alert's state.
    Only on the product's item (products are never deleted; no stub item is ever made). `sold_out`: only
    while the product item holds no units and its stock is not spread over buckets (whose units it cannot
    see), as when the alert was asked. A staff receipt that read no alert waiting writes on condition that
    none waits (stock._apply_stock_change), so between the two one fails: an alert never starts waiting
    just after a receipt that did not mark it due. Refused, the ask or confirm marks the product due itself
    (_start_waiting)."""
    condition = "attribute_exists(PK)" + (
        " AND attribute_not_exists(stockSpread) AND (attribute_not_exists(stockLevel) OR stockLevel <= :zero)"
        if sold_out else "")
    return update(keys.product_key(product_id), f"ADD {keys.ALERTS_WAITING} :d",
                  {":d": delta, **({":zero": 0} if sold_out else {})}, condition=condition)


def _alert_get(owner, product_id, *, consistent=True):
    with translate_errors():
        item = client().get_item(
            TableName=table_name(), Key=serialize(keys.alert_key(owner, product_id)), ConsistentRead=consistent,
        ).get("Item")
    return Alert.from_item(deserialize(item)) if item else None


def _owned(owner):
    """How many alerts `owner` has (up to MAX_ALERTS_PER_OWNER + 1): one Query, Select COUNT."""
    with translate_errors():
        response = client().query(
            TableName=table_name(), KeyConditionExpression="PK = :pk", Select="COUNT",
            ExpressionAttributeValues=serialize({":pk": keys.alert_pk(owner)}), Limit=MAX_ALERTS_PER_OWNER + 1,
        )
    return response["Count"]


def alert_ask(*, product_id, email, customer_id=None, product=None):
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
    existing = _alert_get(owner, product_id)
    if existing is not None and existing.status in ACTIVE:
        return AskOutcome("already", existing, product.alerts_waiting)
    if existing is None and _owned(owner) >= MAX_ALERTS_PER_OWNER:  # a customer's alerts are all confirmed
        raise AlertRefused(f"This address already has {MAX_ALERTS_PER_OWNER} alerts: cancel some first.")
    waiting = product.alerts_waiting
    alert = _new_alert(owner, product, email, status=WAITING, customer_id=customer_id)
    item = _alert_item(alert)
    item.update(keys.alert_waiting_keys(product_id, asked_at=alert.asked_at, alert_id=alert.alert_id))
    action = put(item)
    # Absent, or a sent (or failed) one, listed still, that a new ask replaces.
    action["Put"]["ConditionExpression"] = "attribute_not_exists(PK) OR #s IN (:sent, :failed)"
    action["Put"]["ExpressionAttributeNames"] = {"#s": "status"}
    action["Put"]["ExpressionAttributeValues"] = serialize({":sent": SENT, ":failed": FAILED})

    def still_sold_out():
        return not product_get(product_id=product_id, consistent=True).in_stock

    refusal = _start_waiting(action, product_id, token=("ask", owner, product_id, alert.alert_id),
                             still_sold_out=still_sold_out)
    if refusal == "in stock":  # units came in since the product was read
        raise AlertRefused(f"{product.name} is in stock: you can order it now.")
    if refusal is not None and not refusal.replay:
        if refusal.failed(0):  # asked at the same moment in another tab: that ask stands
            return AskOutcome("already", _alert_get(owner, product_id) or alert, waiting)
        raise InvalidInput("Too many requests at once for this product; try again.")
    return AskOutcome(alert.status, alert, waiting)


def _new_alert(owner, product, email, *, status, customer_id=""):
    return Alert(owner=owner, product_id=product.product_id, alert_id=new_token(), email=email, status=status,
                 asked_at=_stamp(utc_now()), product_name=product.name, customer_id=customer_id or "")


def _guest_ask(product, email):
    """A guest's ask does the same DynamoDB work whether or not the address asked before (its time tells
    nobody): one Query of the owner's alerts, then one transaction of one conditional Put, whose outcome
    differs, not its shape. The Put writes a new pending alert where there is none (or a sent one); over a
    pending alert it is the same alert again, back in the outbox, only when its confirmation went out
    RESEND_CONFIRMATION_SECONDS ago; over a confirmed one it fails. Pending alerts do not count toward
    MAX_ALERTS_PER_OWNER (strangers can ask in anyone's name); at MAX_PENDING_PER_OWNER the oldest
    pending one goes, in the same transaction, so the owner's own ask is always taken."""
    owner = keys.alert_owner_email(email)
    for _ in contended_attempts():
        outcome = _guest_ask_once(product, email, owner)
        if outcome is not None:
            return outcome
    raise StockBusy("Too many asks at once for this address; try again.")


def _guest_ask_once(product, email, owner):
    """One try of `_guest_ask`: its outcome, or None when the oldest pending ask it would replace changed
    meanwhile (read again and try again: the ask is never dropped)."""
    product_id = product.product_id
    alerts = _owner_alerts(owner)
    existing = next((a for a in alerts if a.product_id == product_id), None)
    waiting, now = product.alerts_waiting, int(time.time())
    if existing is not None and existing.status in ACTIVE:
        alert, expires = existing, alerts[existing]
    else:
        alert, expires = _new_alert(owner, product, email, status=PENDING), now + PENDING_DAYS * 86400
    item = {**_alert_item(alert), **keys.alert_outbox_keys(asked_at=alert.asked_at, alert_id=alert.alert_id),
            _TTL: expires}
    action = put(item)
    action["Put"].update(
        ConditionExpression="attribute_not_exists(PK) OR #s IN (:sent, :failed) OR (#s = :pending AND "
        f"({_TTL} < :now OR (alertId = :aid AND attribute_not_exists({_Q_PK}) AND confirmationSentEpoch < :before)))",
        ExpressionAttributeNames={"#s": "status"},
        ExpressionAttributeValues=serialize({":sent": SENT, ":failed": FAILED, ":pending": PENDING,
                                             ":aid": alert.alert_id, ":now": now,
                                             ":before": now - RESEND_CONFIRMATION_SECONDS}),
    )
    actions = [action]
    pending = sorted((a for a in alerts if a.status == PENDING and a is not existing), key=lambda a: a.asked_at)
    if existing is None and len(pending) >= MAX_PENDING_PER_OWNER:
        actions.append(_delete_action(pending[0]))
    # The token is this request's own (its retries by the client apply once; a later ask is another request).
    refusal = transact_write(actions, request_token=client_request_token("ask", owner, product_id, new_token()))
    if refusal is None or refusal.replay:
        return AskOutcome("already" if existing is alert else PENDING, alert, waiting)
    if refusal.failed(0):  # as it was (or another tab asked meanwhile)
        return AskOutcome("already", existing or alert, waiting)
    return None  # the oldest pending ask went or changed meanwhile, or DynamoDB was busy


def _delete_action(alert):
    return {"Delete": {
        "TableName": table_name(), "Key": serialize(keys.alert_key(alert.owner, alert.product_id)),
        "ConditionExpression": "#s = :s AND alertId = :aid", "ExpressionAttributeNames": {"#s": "status"},
        "ExpressionAttributeValues": serialize({":s": alert.status, ":aid": alert.alert_id}),
    }}


def _owner_alerts(owner):
    """{Alert: its expiry epoch (0: none)} of an owner's alerts still there (pending ones past their expiry,
    which DynamoDB's TTL deletes some time later, left out): one consistent Query, bounded by the caps."""
    with translate_errors():
        response = client().query(
            TableName=table_name(), KeyConditionExpression="PK = :pk", ConsistentRead=True,
            ExpressionAttributeValues=serialize({":pk": keys.alert_pk(owner)}),
            Limit=MAX_ALERTS_PER_OWNER + MAX_PENDING_PER_OWNER + 2,
        )
    now, found = int(time.time()), {}
    for raw in response["Items"]:
        item = deserialize(raw)
        expires = int(item.get(_TTL, 0))
        if item["status"] != PENDING or expires > now:
            found[Alert.from_item(item)] = expires
    return found


def confirmed_count(owner):
    """How many of an owner's alerts count toward MAX_ALERTS_PER_OWNER: the confirmed ones (waiting, claimed,
    sent); not pending asks nor given-up ones, which a stranger's ask can leave."""
    return sum(1 for alert in _owner_alerts(owner) if alert.status in (WAITING, CLAIMED, SENT))


_TTL = "expiresAt"


def _alert_item(alert):
    item = {
        **keys.alert_key(alert.owner, alert.product_id), "type": "ALERT", "owner": alert.owner,
        "productId": alert.product_id, "alertId": alert.alert_id, "email": alert.email, "status": alert.status,
        "askedAt": alert.asked_at, "productName": alert.product_name,
    }
    if alert.customer_id:
        item["customerId"] = alert.customer_id
    return item


def alert_get(*, owner, product_id, alert_id):
    """The alert of a signed link (None when it is gone or the link is for an earlier one)."""
    alert = _alert_get(owner, product_id)
    return alert if alert is not None and alert.alert_id == alert_id else None


def alert_confirm(*, owner, product_id, alert_id):
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
        f"SET #s = :waiting, confirmedAt = :at, {_Q_PK} = :qpk, {_Q_SK} = :qsk REMOVE {_TTL}",
        {":waiting": WAITING, ":at": _stamp(utc_now()), ":qpk": queue[_Q_PK], ":qsk": queue[_Q_SK],
         ":pending": PENDING, ":aid": alert_id},
        condition="#s = :pending AND alertId = :aid", names={"#s": "status"},
    )
    refusal = _start_waiting(confirm, product_id, token=("confirm", owner, product_id, alert_id, new_token()))
    if refusal is not None:  # confirmed or cancelled meanwhile, or DynamoDB busy: as it is now
        return alert_get(owner=owner, product_id=product_id, alert_id=alert_id)
    return dataclasses.replace(alert, status=WAITING)


def _start_waiting(action, product_id, *, token, still_sold_out=None):
    """One transaction: `action` (an alert's Put or Update that makes it wait) and the product's count up by
    one, while the product holds no units (_count_update). If it does hold some, units came in since the
    alert was asked: with `still_sold_out` (a read) saying otherwise the answer is "in stock"; else the
    product is marked due with the same transaction (one unit: the job's allowance then covers the oldest
    waiting alerts while units are in stock). Tried again, after a pause, while another transaction is in
    the way (a product's item is busy while it sells). Returns None when done, "in stock", or the Refusal."""
    marking = False
    for attempt in contended_attempts():
        actions = [action, _count_update(product_id, 1, sold_out=not marking)]
        if marking:
            actions.append(alert_due_action(product_id, 1))
        refusal = transact_write(actions, request_token=client_request_token(*token, marking, attempt))
        if refusal is None or refusal.replay or refusal.failed(0):
            return refusal
        if refusal.failed(1):
            if marking or (still_sold_out is not None and not still_sold_out()):
                return "in stock" if not marking else refusal
            marking = True
        # (else another transaction was in the way, or throttling: contended_attempts pauses before the next)
    return refusal


def alerts_of_owner(*, owner):
    """An owner's alerts (at most MAX_ALERTS_PER_OWNER: one Query), newest asked first."""
    with translate_errors():
        response = client().query(
            TableName=table_name(), KeyConditionExpression="PK = :pk",
            ExpressionAttributeValues=serialize({":pk": keys.alert_pk(owner)}), Limit=MAX_ALERTS_PER_OWNER + 1,
        )
    alerts = [Alert.from_item(deserialize(i)) for i in response["Items"]]
    return sorted(alerts, key=lambda a: a.asked_at, reverse=True)  # bounded: MAX_ALERTS_PER_OWNER + 1


def alert_cancel(*, owner, product_id, alert_id=None):
    """Cancel (or unsubscribe) an owner's alert for a product: deleted, and no longer counted as
    waiting. `alert_id` (from a signed link) must be the alert's. Returns the cancelled Alert, or
    None when there was none (nothing changes)."""
    check_id("Product", product_id)
    for _attempt in range(5):
        alert = _alert_get(owner, product_id)
        if alert is None or (alert_id is not None and alert.alert_id != alert_id):
            return None
        delete = {"Delete": {
            "TableName": table_name(), "Key": serialize(keys.alert_key(owner, product_id)),
            "ConditionExpression": "#s = :s AND alertId = :aid", "ExpressionAttributeNames": {"#s": "status"},
            "ExpressionAttributeValues": serialize({":s": alert.status, ":aid": alert.alert_id}),
        }}
        actions = [delete] + ([_count_update(product_id, -1)] if alert.status == WAITING else [])
        refusal = transact_write(actions, request_token=client_request_token("cancel-alert", owner, product_id,
                                                                             alert.alert_id, alert.status))
        if refusal is None or refusal.replay:
            return alert
        if refusal.conflict:  # the product's item is busy (its count is on it): a moment's pause
            conflict_pause()
    raise InvalidInput("This alert is changing right now; try again.")


# --- the job's part: due products ----------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Due:
    product_id: str
    units: int
    allowance: int


def alerts_due(*, shard, limit=100):
    """Products with units made available since the job last looked, of one due shard: one Query."""
    with translate_errors():
        response = client().query(
            TableName=table_name(), KeyConditionExpression="PK = :pk", ConsistentRead=True, Limit=limit,
            ExpressionAttributeValues=serialize({":pk": keys.alert_due_pk(shard)}),
        )
    return [_due(deserialize(i)) for i in response["Items"]]


def _due(item):
    return Due(product_id=item["productId"], units=int(item.get("units", 0)), allowance=int(item.get("allowance", 0)))


def _due_get(product_id):
    with translate_errors():
        item = client().get_item(
            TableName=table_name(), Key=serialize(keys.alert_due_key(product_id)), ConsistentRead=True,
        ).get("Item")
    return _due(deserialize(item)) if item else None


def _conditional_update(key, expression, values, condition):
    try:
        with translate_errors():
            client().update_item(
                TableName=table_name(), Key=serialize(key), UpdateExpression=expression,
                ConditionExpression=condition, ExpressionAttributeValues=serialize(values),
            )
    except ClientError as exc:
        if error_code(exc) != "ConditionalCheckFailedException":
            raise
        return False
    return True


def alerts_claim(*, product_id, margin):
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
    if due.units > 0:
        try:
            level = product_get(product_id=product_id, consistent=True).stock_level or 0
        except NotFound:
            level = 0
        grant = min(due.units, level) + margin if level > 0 else 0
        if not _conditional_update(
            keys.alert_due_key(product_id), "SET allowance = if_not_exists(allowance, :zero) + :grant ADD units :neg",
            {":grant": grant, ":neg": -due.units, ":u": due.units, ":zero": 0}, "units = :u",
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
    with translate_errors():
        try:
            client().delete_item(
                TableName=table_name(), Key=serialize(keys.alert_due_key(product_id)),
                ConditionExpression="attribute_not_exists(units) OR units <= :zero",
                ExpressionAttributeValues=serialize({":zero": 0}),
            )
        except ClientError as exc:
            if error_code(exc) != "ConditionalCheckFailedException":
                raise
    return claimed


def _waiting(product_id, *, limit):
    """The oldest `limit` waiting alerts of a product (their keys): one Query of AlertQueue."""
    with translate_errors():
        response = client().query(
            TableName=table_name(), IndexName=keys.ALERT_QUEUE, KeyConditionExpression=f"{_Q_PK} = :pk",
            ExpressionAttributeValues=serialize({":pk": keys.alert_waiting_pk(product_id)}), Limit=limit,
        )
    return [Alert.from_item(deserialize(i)) for i in response["Items"]]


def _claim(product_id, alerts, allowance):
    """One transaction: each alert waiting -> claimed (into the outbox), the allowance and the
    waiting count down by their number. False when something changed meanwhile (nothing written)."""
    at = _stamp(utc_now())
    actions = []
    for alert in alerts:
        outbox = keys.alert_outbox_keys(asked_at=alert.asked_at, alert_id=alert.alert_id)
        actions.append(update(
            keys.alert_key(alert.owner, product_id),
            f"SET #s = :claimed, claimedAt = :at, {_Q_PK} = :qpk, {_Q_SK} = :qsk",
            {":claimed": CLAIMED, ":at": at, ":qpk": outbox[_Q_PK], ":qsk": outbox[_Q_SK], ":waiting": WAITING,
             ":aid": alert.alert_id},
            condition="#s = :waiting AND alertId = :aid", names={"#s": "status"},
        ))
    n = len(alerts)
    actions.append(update(keys.alert_due_key(product_id), "ADD allowance :neg", {":neg": -n, ":n": n},
                          condition="allowance >= :n"))
    actions.append(_count_update(product_id, -n))
    refusal = transact_write(actions, request_token=client_request_token(
        "claim", product_id, allowance, at, *(a.alert_id for a in alerts)))
    return refusal is None


# --- the job's part: emails due -------------------------------------------------------------

def alerts_outbox(*, shard, limit=100):
    """Alerts of one outbox shard whose email is due (confirmations and claimed alerts), oldest
    asked first: one Query of AlertQueue."""
    with translate_errors():
        response = client().query(
            TableName=table_name(), IndexName=keys.ALERT_QUEUE, KeyConditionExpression=f"{_Q_PK} = :pk",
            ExpressionAttributeValues=serialize({":pk": keys.alert_outbox_pk(shard)}), Limit=limit,
        )
    return [Alert.from_item(deserialize(i)) for i in response["Items"]]


def alert_lease(alert, *, now=None, seconds=LEASE_SECONDS):
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
                ConditionExpression=f"#s = :s AND alertId = :aid AND attribute_exists({_Q_PK}) "
                "AND (attribute_not_exists(leaseUntil) OR leaseUntil < :now)",
                ExpressionAttributeNames={"#s": "status"},
                ExpressionAttributeValues=serialize({
                    ":lid": lease_id, ":until": int(now + seconds), ":one": 1, ":s": alert.status,
                    ":aid": alert.alert_id, ":now": int(now),
                }),
                ReturnValues="ALL_NEW",
            )
    except ClientError as exc:
        if error_code(exc) != "ConditionalCheckFailedException":
            raise
        return None
    return Alert.from_item(deserialize(response["Attributes"]))


def alert_mark_sent(alert):
    """The email of a leased alert went out: a claimed alert is `sent` (listed SENT_DAYS, then
    gone); a pending one's confirmation is recorded (it waits for the link). Out of the outbox,
    conditional on the lease still being this job's. False if it was not (someone cancelled)."""
    if alert.status == PENDING:
        # the confirmation's tries are its own: the alert's email, once confirmed, gets every try
        expression = f"SET confirmationSentEpoch = :epoch REMOVE {_Q_PK}, {_Q_SK}, leaseId, leaseUntil, attempts"
        values = {":epoch": int(time.time())}
    else:
        expression = f"SET #s = :sent, sentAt = :at, {_TTL} = :ttl REMOVE {_Q_PK}, {_Q_SK}, leaseId, leaseUntil"
        values = {":sent": SENT, ":at": _stamp(utc_now()), ":ttl": int(time.time()) + SENT_DAYS * 86400}
    try:
        with translate_errors():
            client().update_item(
                TableName=table_name(), Key=serialize(keys.alert_key(alert.owner, alert.product_id)),
                UpdateExpression=expression, ConditionExpression="leaseId = :lid AND #s = :was",
                ExpressionAttributeNames={"#s": "status"},
                ExpressionAttributeValues=serialize({**values, ":lid": alert.lease_id, ":was": alert.status}),
            )
    except ClientError as exc:
        if error_code(exc) != "ConditionalCheckFailedException":
            raise
        return False
    return True


def alert_give_up(alert):
    """A leased alert's email failed for the last time: the alert is `failed`, out of the outbox, listed
    SENT_DAYS (then gone), conditional on the lease still being this job's. False if it was not."""
    try:
        with translate_errors():
            client().update_item(
                TableName=table_name(), Key=serialize(keys.alert_key(alert.owner, alert.product_id)),
                UpdateExpression=f"SET #s = :failed, failedAt = :at, {_TTL} = :ttl "
                f"REMOVE {_Q_PK}, {_Q_SK}, leaseId, leaseUntil",
                ConditionExpression="leaseId = :lid AND #s = :was", ExpressionAttributeNames={"#s": "status"},
                ExpressionAttributeValues=serialize({
                    ":failed": FAILED, ":at": _stamp(utc_now()), ":ttl": int(time.time()) + SENT_DAYS * 86400,
                    ":lid": alert.lease_id, ":was": alert.status,
                }),
            )
    except ClientError as exc:
        if error_code(exc) != "ConditionalCheckFailedException":
            raise
        return False
    return True
