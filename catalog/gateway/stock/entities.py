"""Typed results of stock: why stock changed, stock adjustments and changes, and sales (an order line as
its sale's record)."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from django.conf import settings

from .. import keys
from ..catalog.entities import int_value, price_value
from . import hold_limits

# Why stock changed: the codes as stored. Staff record the manual ones (with the direction each
# allows: +1 in, -1 out, 0 either); `sold` and `cancelled` only come from orders; `opening` only
# from an import that sets a level (or the migration that gave older products theirs), so every
# level is the sum of its product's changes.
RECEIVED, RETURNED, DAMAGED, COUNTED = "received", "returned", "damaged", "counted"


SOLD, CANCELLED, OPENING = "sold", "cancelled", "opening"


REASONS = (RECEIVED, RETURNED, DAMAGED, COUNTED, SOLD, CANCELLED, OPENING)


MANUAL_REASONS = {RECEIVED: 1, RETURNED: 1, DAMAGED: -1, COUNTED: 0}


REASON_LABELS = {
    RECEIVED: "Received (shipment)",
    RETURNED: "Returned by a customer",
    DAMAGED: "Damaged or lost",
    COUNTED: "Counted (stocktake correction)",
    SOLD: "Sold",
    CANCELLED: "Order cancelled",
    OPENING: "Opening stock (set by import)",
}


# What staff see instead of the level after a sale that took its units relatively (takes.py's
# stock_level_take: many buyers at once, none of them reads the level it leaves).
LEVEL_NOT_RECORDED = "not recorded (sale during a rush)"



@dataclass(frozen=True)
class StockAdjustment:
    """One change of a product's stock, kept in the product's own partition. `resulting_level` is
    None for a sale that took its units relatively (a rush: the level after was never read)."""

    product_id: str
    adjustment_id: str
    at: datetime
    delta: int
    resulting_level: int | None  # None: not recorded (a sale that did not read the exact level)
    reason: str = ""  # a code of REASONS; "" for a change recorded before codes (its text is the note)
    who: str = ""
    order_id: str | None = None
    reference: str = ""
    note: str = ""
    # A sale's or a cancellation's order: whose it is and its number (staff open it from the
    # history); "" on a change that records none.
    customer_id: str = ""
    order_number: str = ""

    @classmethod
    def from_item(cls, item: dict[str, Any]) -> StockAdjustment:
        reason, note = item.get("reason", ""), item.get("note", "")
        if reason not in REASONS:  # a free-text reason, not a code: keep it as the note
            reason, note = "", note or reason
        # An order line that is its sale's record (is_sale_record) leaves out what follows from the order.
        line = item.get("type") == "ORDER_LINE"
        return cls(
            product_id=item["productId"],
            adjustment_id=item["orderId"] if line else item["adjustmentId"],
            at=datetime.fromisoformat(item["at"]),
            delta=-int_value(item["quantity"]) if line else int_value(item["delta"]),
            resulting_level=int_value(item.get("resultingLevel"), None),
            reason=SOLD if line else reason,
            who=item.get("customerName", "") if line else item.get("who", ""),
            order_id=item.get("orderId"),
            reference=item["orderId"] if line else item.get("reference", ""),
            # A sale of units held while the shopper paid (timed holds) says so.
            note="Sold from a hold" if line and item.get("fromHold") else note,
            customer_id=item.get("customerId", ""),
            order_number=item.get("orderNumber", ""),
        )

    @property
    def reason_label(self) -> str:
        return REASON_LABELS.get(self.reason, "")

    @property
    def resulting_level_shown(self) -> str | int:
        """The level after the change as staff pages and downloads show it: the number, or words
        saying it was not recorded (a relative sale) rather than a guess."""
        return LEVEL_NOT_RECORDED if self.resulting_level is None else self.resulting_level

    @property
    def stamp(self) -> str:
        return self.at.isoformat(timespec="microseconds")

    def attributes(self) -> dict[str, Any]:
        """The adjustment without its key (what an idempotency mark keeps of it)."""
        item = {
            "type": "STOCK_ADJUSTMENT",
            "productId": self.product_id,
            "adjustmentId": self.adjustment_id,
            "at": self.stamp,
            "delta": self.delta,
            "reason": self.reason,
            "who": self.who,
        }
        if self.resulting_level is not None:
            item["resultingLevel"] = self.resulting_level
        if self.order_id:
            item["orderId"] = self.order_id
        if self.reference:
            item["reference"] = self.reference
        if self.note:
            item["note"] = self.note
        if self.customer_id:
            item["customerId"] = self.customer_id
        if self.order_number:
            item["orderNumber"] = self.order_number
        return item

    def to_item(self) -> dict[str, Any]:
        """The adjustment in its product's partition, and in the Ledger (by day) and ByReason indexes."""
        at, aid = self.stamp, self.adjustment_id
        return {
            **keys.stock_adjustment_key(self.product_id, at=at, adjustment_id=aid),
            **keys.ledger_keys(self.product_id, at=at, adjustment_id=aid),
            **(keys.by_reason_keys(self.product_id, self.reason, at=at, adjustment_id=aid) if self.reason else {}),
            **self.attributes(),
        }



@dataclass(frozen=True)
class IdempotencyMark:
    """An idempotency key that was used: the first answer of the write made with it, kept in the
    product's partition until `expires_at` (DynamoDB's TTL removes it)."""

    adjustment: StockAdjustment
    token: str
    expires_at: int

    @classmethod
    def from_item(cls, item: dict[str, Any]) -> IdempotencyMark:
        return cls(
            adjustment=StockAdjustment.from_item(item["adjustment"]),
            token=item["SK"].removeprefix(keys.TOKEN_PREFIX),
            expires_at=int_value(item.get("expiresAt")),
        )

    def to_item(self) -> dict[str, Any]:
        return {
            **keys.token_key(self.adjustment.product_id, self.token),
            "type": "IDEMPOTENCY_KEY",
            "adjustment": self.adjustment.attributes(),
            "expiresAt": self.expires_at,
        }



@dataclass(frozen=True)
class StockChange:
    """The result of a stock write. `replayed` is true when the idempotency key had
    already been applied: nothing changed this time and this is the first answer again."""

    product_id: str
    level: int
    adjustment: StockAdjustment
    replayed: bool = False



def is_sale_record(item: dict[str, Any]) -> bool:
    """Whether an order line is its sale's record (it carries the Ledger keys), so it counts as a stock
    change. A table at the baseline also holds older sales whose record is a stock adjustment under
    P#<pid> (reason "sold"); their order lines carry Buyers keys only: listed as buyers, never counted twice."""
    return item.get("type") == "ORDER_LINE" and f"{keys.LEDGER}PK" in item



def sale_record(
    line_item: Any, *, at: datetime, customer_id: str, customer_name: str, customer_email: str | None,
    order_number: str, resulting_level: int | None
) -> dict[str, Any]:
    """An order line as its sale's record: the line, and what the stock history, the ledger and the
    list of buyers show (time, customer, order number; the level after, when the sale read it exact),
    with its Ledger keys (its day's shard) and Buyers keys (its product's shard). No item of the
    sale under P#<pid>: a hot product's partition takes the stock write alone."""
    pid, oid = line_item["productId"], line_item["orderId"]
    item = {
        **line_item,
        **keys.ledger_keys(pid, at=at, adjustment_id=oid),
        **keys.buyers_keys(pid, at=at, order_id=oid),
        "at": at,
        "customerId": customer_id,
        "customerName": customer_name,
        **({"customerEmail": customer_email} if customer_email else {}),
        **({"orderNumber": order_number} if order_number else {}),
    }
    if resulting_level is not None:
        item["resultingLevel"] = resulting_level
    return item



@dataclass(frozen=True)
class Sale:
    """One order of a product, from the Buyers index (who bought what): the order, its customer,
    how many, when."""

    product_id: str
    order_id: str
    customer_id: str
    at: datetime
    quantity: int
    unit_price: Decimal
    order_number: str = ""
    customer_name: str = ""
    customer_email: str = ""
    cancelled: bool = False  # the order was cancelled (its units came back)

    @classmethod
    def from_item(cls, item: dict[str, Any]) -> Sale:
        return cls(
            cancelled="cancelledAt" in item,
            product_id=item["productId"], order_id=item["orderId"], customer_id=item.get("customerId", ""),
            at=datetime.fromisoformat(item["at"]), quantity=int_value(item.get("quantity")),
            unit_price=price_value(item.get("unitPrice")), order_number=item.get("orderNumber", ""),
            customer_name=item.get("customerName", ""), customer_email=item.get("customerEmail", ""),
        )

    @property
    def reference(self) -> str:
        return self.order_number or self.order_id


ENDED = "ended"
CANCELLED = "cancelled"
# How long the record of a released hold is kept (what staff see): then DynamoDB's TTL deletes it. The
# record is no stock change (the ledger never needs it); the hold item itself has no TTL.
RELEASED_KEPT_SECONDS = 90 * 24 * 3600


@dataclasses.dataclass(frozen=True)
class Hold:
    """A shopper's hold of `quantity` units of a product at `price`, until `until` (epoch s)."""

    product_id: str
    customer_id: str
    quantity: int
    price: Decimal
    until: int
    held_at: str
    counted: bool = False  # in the shopper's count of units held (hold_limits)

    @classmethod
    def from_item(cls, item: dict[str, Any]) -> Hold:
        return cls(
            product_id=item["productId"], customer_id=item["customerId"], quantity=int(item["quantity"]),
            price=Decimal(str(item["price"])), until=int(item["holdUntil"]), held_at=item.get("heldAt", ""),
            counted=bool(item.get("counted")),
        )

    @property
    def counted_units(self) -> int:
        return self.quantity if self.counted else 0

    def to_item(self) -> dict[str, Any]:
        # Not `expiresAt`: DynamoDB's TTL would delete the hold and its units would never come back.
        return {
            **keys.hold_key(self.product_id, self.customer_id),
            **keys.hold_expiry_keys(self.product_id, self.customer_id, self.until),
            "type": "HOLD", "productId": self.product_id, "customerId": self.customer_id,
            "quantity": self.quantity, "price": self.price, "holdUntil": self.until, "heldAt": self.held_at,
        } | ({"counted": True} if self.counted else {})

    def cap_item(self) -> dict[str, Any]:
        """What this hold leaves when it is released: when it was first taken (a new hold of the product for
        the shopper ends by the same cap), its cap and the end of the cool-down after it (no new hold of it
        for the shopper until then: hold_limits); DynamoDB's TTL deletes it after the cool-down."""
        return {**keys.hold_cap_key(self.product_id, self.customer_id), "type": "HOLD_CAP",
                "productId": self.product_id, "customerId": self.customer_id, "heldAt": self.held_at,
                **hold_limits.cap_fields(self.latest_end())}

    @property
    def until_time(self) -> datetime:
        return datetime.fromtimestamp(self.until, UTC)

    def latest_end(self, max_seconds: float | None = None) -> float:
        """The latest this hold may last (epoch s): STOCK_HOLD_MAX_SECONDS after it was first taken, however
        often it is renewed (a hold stored without heldAt ends when it ends)."""
        if not self.held_at:
            return self.until
        max_seconds = settings.STOCK_HOLD_MAX_SECONDS if max_seconds is None else max_seconds
        return int(datetime.fromisoformat(self.held_at).timestamp()) + max_seconds

    def final(self, max_seconds: float | None = None) -> Any:
        """True if renewing cannot push this hold's end any further: the shopper pays by `until` or queues again."""
        return self.until >= self.latest_end(max_seconds)

    def renewed_until(self, wanted: Any, max_seconds: float | None = None) -> Any:
        """The end of this hold renewed now for `wanted` (epoch s): never past latest_end, never earlier than it
        was. At or before now: the hold is spent (ended at its cap) and cannot be renewed."""
        return max(self.until, min(wanted, self.latest_end(max_seconds)))


@dataclasses.dataclass(frozen=True)
class ReleasedHold:
    """The record of a hold that ended or was cancelled: its units went back to the stock."""

    product_id: str
    customer_id: str
    quantity: int
    held_at: str
    released_at: datetime
    why: str

    @classmethod
    def from_item(cls, item: dict[str, Any]) -> ReleasedHold:
        return cls(
            product_id=item["productId"], customer_id=item["customerId"], quantity=int(item["quantity"]),
            held_at=item.get("heldAt", ""), released_at=datetime.fromisoformat(item["releasedAt"]), why=item["why"],
        )
