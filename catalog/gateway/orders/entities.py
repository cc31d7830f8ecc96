"""Typed results of orders: what a buyer asks for (PurchaseLine), orders and their lines."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

from .. import keys
from ..catalog.entities import int_value, price_value

# Order statuses.
PLACED, SHIPPED = "placed", "shipped"

# Payment statuses of an order paid by card; a status only ever moves to a higher rank (a refund to a
# larger refunded amount), so events that arrive late or twice change nothing wrong.
AUTHORISED, CAPTURED, PARTIALLY_REFUNDED, REFUNDED, VOIDED, FAILED = (
    "authorised", "captured", "partially_refunded", "refunded", "voided", "failed")
PAYMENT_RANKS = {AUTHORISED: 1, CAPTURED: 2, PARTIALLY_REFUNDED: 3, REFUNDED: 4, VOIDED: 4, FAILED: 4}


@dataclass(frozen=True)
class Payment:
    """An order's card payment: amounts in the currency's smallest unit (cents), as the provider counts."""

    intent_id: str
    status: str
    currency: str
    authorised: int
    captured: int = 0
    refunded: int = 0

    @property
    def rank(self) -> int:
        return PAYMENT_RANKS[self.status]

    @property
    def refundable(self) -> int:
        return self.captured - self.refunded

    @classmethod
    def from_order_item(cls, item: dict[str, Any]) -> Payment | None:
        if not item.get("paymentIntentId"):
            return None
        return cls(intent_id=item["paymentIntentId"], status=item.get("paymentStatus", AUTHORISED),
                   currency=item.get("paymentCurrency", ""), authorised=int_value(item.get("amountAuthorised")),
                   captured=int_value(item.get("amountCaptured")), refunded=int_value(item.get("amountRefunded")))

    def to_attributes(self) -> dict[str, Any]:
        return {"paymentIntentId": self.intent_id, "paymentStatus": self.status, "paymentRank": self.rank,
                "paymentCurrency": self.currency, "amountAuthorised": self.authorised,
                "amountCaptured": self.captured, "amountRefunded": self.refunded}



@dataclass(frozen=True)
class PurchaseLine:
    """What a buyer asks for: a product, how many, at the price they saw."""

    product_id: str
    quantity: int
    price: Decimal



@dataclass(frozen=True)
class OrderLine:
    product_id: str
    name: str
    unit_price: Decimal
    quantity: int

    @property
    def total(self) -> Decimal:
        return self.unit_price * self.quantity

    @classmethod
    def from_item(cls, item: dict[str, Any]) -> OrderLine:
        return cls(
            product_id=item["productId"],
            name=item.get("productName", ""),
            unit_price=price_value(item.get("unitPrice")),
            quantity=int_value(item.get("quantity")),
        )

    def to_item(self, *, customer_id: str, order_id: str) -> dict[str, Any]:
        return {
            **keys.order_line_key(customer_id, order_id, self.product_id),
            "type": "ORDER_LINE",
            "orderId": order_id,
            "productId": self.product_id,
            "productName": self.name,
            "unitPrice": self.unit_price,
            "quantity": self.quantity,
        }



@dataclass(frozen=True)
class Order:
    order_id: str
    customer_id: str
    placed_at: datetime
    total: Decimal
    lines: Sequence[OrderLine] = ()
    address: Mapping[str, str] | None = None  # the delivery address, as it was at checkout
    token: str = ""  # the idempotency key it was placed with (kept to refuse its reuse for another order)
    status: str = PLACED
    stored_item_count: int | None = field(default=None, compare=False)  # itemCount as stored (no lines read)
    # The short number people read out; "" on an order that has none (placed without one, not backfilled).
    number: str = ""
    # Who placed it, as the account said then, so staff lists name customers without a read a row;
    # "" on an order placed before (shop.customers fills them in from the accounts).
    customer_name: str = ""
    customer_email: str = ""
    payment: Payment | None = None  # None: an order placed without a card payment

    @property
    def reference(self) -> str:
        """What people call the order: its number, or the internal ID of an order from before numbers."""
        return self.number or self.order_id

    @property
    def is_open(self) -> bool:
        return self.status == PLACED

    @property
    def item_count(self) -> int:
        if not self.lines and self.stored_item_count is not None:
            return self.stored_item_count
        return sum(line.quantity for line in self.lines)

    @classmethod
    def from_items(cls, order_item: dict[str, Any], line_items: Any) -> Order:
        return cls(
            order_id=order_item["orderId"],
            customer_id=order_item["customerId"],
            placed_at=datetime.fromisoformat(order_item["placedAt"]),
            total=price_value(order_item.get("total")),
            lines=tuple(sorted((OrderLine.from_item(i) for i in line_items), key=lambda line: line.name)),
            address=dict(order_item["address"]) if order_item.get("address") else None,
            token=order_item.get("idempotencyKey", ""),
            status=order_item.get("status", PLACED),  # orders placed before statuses are open
            stored_item_count=int_value(order_item.get("itemCount"), None),
            number=order_item.get("orderNumber", ""),
            customer_name=order_item.get("customerName", ""),
            customer_email=order_item.get("customerEmail", ""),
            payment=Payment.from_order_item(order_item),
        )

    @classmethod
    def from_item(cls, order_item: dict[str, Any]) -> Order:
        """An order without its lines (the open-orders index)."""
        return cls.from_items(order_item, ())

    def to_item(self) -> dict[str, Any]:
        """The order itself; each line is an item of its own (OrderLine.to_item)."""
        return {
            **keys.order_key(self.customer_id, self.order_id),
            "type": "ORDER",
            "orderId": self.order_id,
            "customerId": self.customer_id,
            "placedAt": self.placed_at.isoformat(timespec="microseconds"),
            "total": self.total,
            "lineCount": len(self.lines),
            "itemCount": self.item_count,
            **({"address": dict(self.address)} if self.address else {}),
            **({"idempotencyKey": self.token} if self.token else {}),
            "status": self.status,
            **(keys.open_order_keys(self.order_id) if self.status == PLACED else {}),
            **({"orderNumber": self.number} if self.number else {}),
            **({"customerName": self.customer_name} if self.customer_name else {}),
            **({"customerEmail": self.customer_email} if self.customer_email else {}),
            **(self.payment.to_attributes() if self.payment else {}),
        }

    def number_claim_item(self) -> dict[str, Any]:
        """The item that claims the order's number for it (keys.order_number_key)."""
        return {
            **keys.order_number_key(self.number),
            "type": "ORDER_NUMBER",
            "orderNumber": self.number,
            "customerId": self.customer_id,
            "orderId": self.order_id,
        }

    def line_items(self) -> list[Any]:
        return [line.to_item(customer_id=self.customer_id, order_id=self.order_id) for line in self.lines]
