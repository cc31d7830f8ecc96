"""Back-in-stock alerts: what an alert is (its states, item and dataclasses) and the product's waiting count.

An alert is one item per owner and product (keys.alert_key: a signed-in shopper's customer ID, or a
guest's email hash), in one of these states:

- `pending`: a guest asked; the confirmation email is due (in an AlertQueue outbox shard). Expires
  (TTL) after asking.PENDING_DAYS unless confirmed.
- `waiting`: confirmed (a signed-in shopper's ask is confirmed at once); in the AlertQueue partition
  of its product, in the order asked. The product item's `alertsWaiting` counts these.
- `claimed`: the job gave it one of the units that came in; its email is due (outbox shard).
- `sent`: done; kept SENT_DAYS for the account page (TTL), then gone.
- `failed`: its email (the alert's or its confirmation) failed as often as the job tries
  (STOCK_ALERT_MAIL_ATTEMPTS): out of the outbox, kept SENT_DAYS for the account page, then gone.

The modules of the package by job: `marks` (the stock write's part: marking a product's alerts due),
`asking` (the shopper's: asking, confirming, cancelling, listing), `claiming` (the job's: giving the units
that came in to waiting alerts) and `sending` (the job's: the outbox, the lease, sent or given up).
"""
from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any

from .. import keys
from ..dynamo.boundary import translate_errors
from ..dynamo.client import client, table_name
from ..dynamo.codec import deserialize, serialize
from ..dynamo.conditions import Attr
from ..dynamo.transact import Action, update
from ..errors import InvalidInput

PENDING, WAITING, CLAIMED, SENT, FAILED = "pending", "waiting", "claimed", "sent", "failed"
ACTIVE = (PENDING, WAITING, CLAIMED)
# A sent (or failed) alert is listed this many days on the account page.
SENT_DAYS = 30
MAX_EMAIL = 254
Q_PK, Q_SK = keys.ALERT_QUEUE_ATTRIBUTES
TTL = "expiresAt"


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
    def from_item(cls, item: dict[str, Any]) -> Alert:
        return cls(
            owner=item["owner"], product_id=item["productId"], alert_id=item["alertId"], email=item["email"],
            status=item["status"], asked_at=item["askedAt"], product_name=item.get("productName", ""),
            customer_id=item.get("customerId", ""), sent_at=item.get("sentAt", ""), lease_id=item.get("leaseId", ""),
            attempts=int(item.get("attempts", 0)),
        )

    @property
    def asked(self) -> datetime:
        return datetime.fromisoformat(self.asked_at)

    @property
    def sent(self) -> datetime | None:
        return datetime.fromisoformat(self.sent_at) if self.sent_at else None

    @property
    def is_confirmation(self) -> bool:
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


def check_email(email: str) -> str:
    email = (email or "").strip()
    if not email or len(email) > MAX_EMAIL or "@" not in email:
        raise InvalidInput("Enter a valid email address.")
    return email


def stamp(at: datetime) -> str:
    return at.isoformat(timespec="microseconds")


def count_update(product_id: str, delta: int, *, sold_out: bool = False) -> Action:
    """The product's waiting count moves by `delta`, in the transaction that changes an alert's state.
    Only on the product's item (products are never deleted; no stub item is ever made). `sold_out`: only
    while the product item holds no units and its stock is not spread over buckets (whose units it cannot
    see), as when the alert was asked. A staff receipt that read no alert waiting writes on condition that
    none waits (stock._apply_stock_change), so between the two one fails: an alert never starts waiting
    just after a receipt that did not mark it due. Refused, the ask or confirm marks the product due itself
    (_start_waiting)."""
    condition = Attr("PK").exists()
    if sold_out:
        condition &= Attr("stockSpread").not_exists() & (Attr("stockLevel").not_exists() | Attr("stockLevel").lte(0))
    return update(keys.product_key(product_id), f"ADD {keys.ALERTS_WAITING} :d", {":d": delta}, condition=condition)


def alert_read(owner: str, product_id: str, *, consistent: bool = True) -> Alert | None:
    with translate_errors():
        item = client().get_item(
            TableName=table_name(), Key=serialize(keys.alert_key(owner, product_id)), ConsistentRead=consistent,
        ).get("Item")
    return Alert.from_item(deserialize(item)) if item else None


def alert_item(alert: Alert) -> dict[str, Any]:
    item = {
        **keys.alert_key(alert.owner, alert.product_id), "type": "ALERT", "owner": alert.owner,
        "productId": alert.product_id, "alertId": alert.alert_id, "email": alert.email, "status": alert.status,
        "askedAt": alert.asked_at, "productName": alert.product_name,
    }
    if alert.customer_id:
        item["customerId"] = alert.customer_id
    return item

