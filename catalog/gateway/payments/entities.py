"""A checkout paying by card, written before the payment is asked for: everything needed to place its
order without the shopper's browser (the webhook, reconcile_payments)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from .. import keys
from ..catalog.entities import int_value, price_value
from ..orders.entities import (  # noqa: F401  (an order's payment statuses, named here with the checkout's)
    AUTHORISED,
    CAPTURED,
    FAILED,
    PARTIALLY_REFUNDED,
    REFUNDED,
    PurchaseLine,
)
from ..orders.entities import VOIDED as PAYMENT_VOIDED  # noqa: F401

# A pending payment's states: waiting for its authorisation, its order placed, or given up (its
# authorisation voided or never made).
PENDING, PLACED, VOIDED = "pending", "placed", "voided"


@dataclass(frozen=True)
class PendingPayment:
    order_id: str
    customer_id: str
    token: str  # the order's idempotency key: every placer of this order sends the same
    lines: Sequence[PurchaseLine]
    amount: int  # in cents, computed by the shop from the lines
    currency: str
    created_at: datetime
    customer_name: str = ""
    customer_email: str = ""
    address: Mapping[str, str] | None = None
    status: str = PENDING
    intent_id: str = ""  # the authorisation asked for last (the provider's ID)
    intent_key: str = ""  # its idempotency key at the provider: asking again with it answers the same one
    provider_customer: str = ""  # the provider's customer and card the authorisation uses
    card: str = ""
    reason: str = ""  # why it was voided, as the shopper is told

    @classmethod
    def from_item(cls, item: dict[str, Any]) -> PendingPayment:
        return cls(
            order_id=item["orderId"], customer_id=item["customerId"], token=item["token"],
            lines=tuple(PurchaseLine(product_id=line["productId"], quantity=int_value(line["quantity"]),
                                     price=price_value(line["price"])) for line in item.get("lines", ())),
            amount=int_value(item.get("amount")), currency=item.get("currency", ""),
            created_at=datetime.fromisoformat(item["createdAt"]), customer_name=item.get("customerName", ""),
            customer_email=item.get("customerEmail", ""),
            address=dict(item["address"]) if item.get("address") else None, status=item.get("status", PENDING),
            intent_id=item.get("intentId", ""), intent_key=item.get("intentKey", ""),
            provider_customer=item.get("providerCustomer", ""), card=item.get("card", ""),
            reason=item.get("reason", ""),
        )

    def to_item(self, *, expires_at: int) -> dict[str, Any]:
        item = {
            **keys.payment_pending_key(self.order_id), "type": "PAYMENT_PENDING", "orderId": self.order_id,
            "customerId": self.customer_id, "token": self.token,
            "lines": [{"productId": line.product_id, "quantity": line.quantity, "price": Decimal(line.price)}
                      for line in self.lines],
            "amount": self.amount, "currency": self.currency,
            "createdAt": self.created_at.isoformat(timespec="microseconds"), "status": self.status,
            "expiresAt": expires_at,  # DynamoDB's TTL forgets it once nothing can change it any more
        }
        optional = {"customerName": self.customer_name, "customerEmail": self.customer_email,
                    "address": dict(self.address) if self.address else None, "intentId": self.intent_id,
                    "intentKey": self.intent_key, "providerCustomer": self.provider_customer, "card": self.card,
                    "reason": self.reason}
        return item | {name: value for name, value in optional.items() if value}
