"""Typed results of the gateway: nothing outside it sees a raw DynamoDB item."""
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from catalog import availability

from . import keys
from .catalog import text

CENT = Decimal("0.01")

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

# What staff see instead of the level after a sale that took its units relatively (stock.py's
# stock_level_take: many buyers at once, none of them reads the level it leaves).
LEVEL_NOT_RECORDED = "not recorded (sale during a rush)"

# Order statuses.
PLACED, SHIPPED = "placed", "shipped"


def _price(value):
    if not isinstance(value, Decimal):  # DynamoDB's numbers are Decimal already: no detour through str
        value = Decimal(str(value if value is not None else 0))
    return value.quantize(CENT)


def _int(value, default=0):
    return int(value) if value is not None else default


def _plain(value):
    """DynamoDB numbers arrive as Decimal; give attributes back as int or float."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return value


def _counts(value):
    """A count map as DynamoDB keeps it -> {id: n} of the non-zero counts."""
    return {k: int(v) for k, v in (value or {}).items() if int(v) > 0}


@dataclass(frozen=True)
class Brand:
    """A brand; `category_counts` says how many of its products each category has (kept by the
    import, so the cached list of brands brings the counts of every brand page's chips)."""

    brand_id: str
    name: str
    category_counts: Mapping[str, int] = field(default_factory=dict, hash=False, compare=False)

    @classmethod
    def from_item(cls, item):
        return cls(brand_id=item["brandId"], name=item["name"], category_counts=_counts(item.get("categoryCounts")))

    @property
    def product_count(self):
        return sum(self.category_counts.values())

    def to_item(self):
        return {**keys.brand_key(self.brand_id), "type": "BRAND", "brandId": self.brand_id, "name": self.name}


@dataclass(frozen=True)
class Category:
    """A category; `brand_counts` says how many of its products each brand has."""

    category_id: str
    name: str
    brand_counts: Mapping[str, int] = field(default_factory=dict, hash=False, compare=False)

    @classmethod
    def from_item(cls, item):
        return cls(
            category_id=item["categoryId"], name=item["name"], brand_counts=_counts(item.get("brandCounts"))
        )

    @property
    def product_count(self):
        return sum(self.brand_counts.values())

    def to_item(self):
        return {
            **keys.category_key(self.category_id),
            "type": "CATEGORY",
            "categoryId": self.category_id,
            "name": self.name,
        }


@dataclass(frozen=True)
class Product:
    """A product. From a list (GSI1/GSI2, the sort indexes) `attributes` is empty: the indexes
    project only what a list shows, the stock band (`band`, `stock_band`) but not the exact level
    (`stock_level` None); `product_get` returns them all. From a search (term items) `stock_level`
    is None until the page's levels are read: term items do not carry it, so a sale never writes them."""

    product_id: str
    name: str
    brand_id: str
    category_id: str
    price: Decimal
    stock_level: int | None
    description: str = ""
    attributes: Mapping[str, object] = field(default_factory=dict, hash=False)
    reorder_point: int | None = None  # None: LOW_STOCK_THRESHOLD
    image: str = ""
    band: int | None = field(default=None, compare=False)  # `stockBand` as stored (the v2 list indexes project it)
    # Stock buckets (issue 33, buckets.py): K, whether the stock is spread over the bucket items
    # (None: gathered, all of it on the product item, which then holds the exact total), the product
    # item's own units (`reserve`) and the buckets' levels as read (None: not read). While spread,
    # `stock_level` is the total only once the buckets were read (products_get_many, product_get).
    stock_buckets: int | None = 1  # None only in an import file that leaves it out (keep the stored K)
    spread: str | None = field(default=None, compare=False)
    reserve: int | None = field(default=None, compare=False)
    bucket_levels: tuple | None = field(default=None, compare=False)
    # Back-in-stock alerts waiting for it (issue 36; keys.ALERTS_WAITING). Not an import's: to_item
    # leaves it out, so an import never resets it.
    alerts_waiting: int = field(default=0, compare=False)

    @classmethod
    def from_item(cls, item):
        return cls(
            alerts_waiting=max(0, _int(item.get(keys.ALERTS_WAITING), 0)),
            band=_int(item["stockBand"]) if item.get("stockBand") is not None else None,
            reorder_point=_int(item["reorderPoint"]) if item.get("reorderPoint") is not None else None,
            product_id=item["productId"],
            name=item.get("name", ""),
            brand_id=item.get("brandId", ""),
            category_id=item.get("categoryId", ""),
            price=_price(item.get("price")),
            stock_level=_int(item["stockLevel"]) if "stockLevel" in item and not item.get("stockSpread") else None,
            stock_buckets=_int(item.get("stockBuckets"), 1),
            spread=item.get("stockSpread"),
            reserve=_int(item["stockLevel"]) if "stockLevel" in item else None,
            description=item.get("description", ""),
            attributes={k: _plain(v) for k, v in (item.get("attributes") or {}).items()},
            image=item.get("image", ""),
        )

    @property
    def normalised_name(self):
        return text.normalise_name(self.name)

    def to_item(self):
        item = {
            **keys.product_key(self.product_id),
            **keys.product_index_keys(
                product_id=self.product_id, brand_id=self.brand_id, category_id=self.category_id
            ),
            **keys.product_sort_keys(
                product_id=self.product_id, brand_id=self.brand_id, category_id=self.category_id,
                normalised_name=self.normalised_name, price=self.price,
            ),
            "type": "PRODUCT",
            "productId": self.product_id,
            "name": self.name,
            "brandId": self.brand_id,
            "categoryId": self.category_id,
            "price": self.price,
            "stockLevel": self.stock_level,
            **({"stockBand": availability.stock_band(self.stock_level)} if self.stock_level is not None else {}),
            "description": self.description,
            "attributes": dict(self.attributes),
            **({"reorderPoint": self.reorder_point} if self.reorder_point is not None else {}),
            **({"stockBuckets": self.stock_buckets} if (self.stock_buckets or 1) > 1 else {}),
            **reorder_index_keys(self.product_id, self.stock_level, self.reorder_point),
        }
        if self.image:
            item["image"] = self.image
        return item

    def term_items(self):
        """The search index items of this product: one per term of its name (text.terms), with
        what a search result shows (no stock level)."""
        normalised = self.normalised_name
        shown = {
            "type": "TERM", "productId": self.product_id, "name": self.name, "brandId": self.brand_id,
            "categoryId": self.category_id, "price": self.price,
        }
        if self.image:
            shown["image"] = self.image
        return [
            {
                **keys.term_key(term, product_id=self.product_id, normalised_name=normalised),
                **keys.term_index_keys(term, product_id=self.product_id, price=self.price),
                "term": term,
                **shown,
            }
            for term in sorted(text.terms(self.name))
        ]

    @property
    def stock_band(self):
        """What a list shows of the stock (availability.stock_band): from the exact level when it was
        read (a product page, a search's levels, an index of before issue 32), else from the stored
        band (the v2 list indexes); None when neither was read."""
        if self.stock_level is not None:
            return availability.stock_band(self.stock_level)
        return availability.band_as_read(self.band) if self.band is not None else None

    @property
    def in_stock(self):
        return availability.can_buy(self.stock_level)

    @property
    def effective_reorder_point(self):
        return availability.reorder_point(self.reorder_point)

    @property
    def needs_reorder(self):
        return availability.at_or_below_reorder_point(self.stock_level, self.reorder_point)


def reorder_index_keys(product_id, level, reorder_point):
    """The Reorder index keys when a product at `level` is at or below its reorder point, else {}."""
    if not availability.at_or_below_reorder_point(level, reorder_point):
        return {}
    return keys.reorder_keys(product_id, level)


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
    # A sale's or a cancellation's order: whose it is and its number (issue 37: staff open it from the
    # history); "" on the changes of before.
    customer_id: str = ""
    order_number: str = ""

    @classmethod
    def from_item(cls, item):
        reason, note = item.get("reason", ""), item.get("note", "")
        if reason not in REASONS:  # a free-text reason of before the codes: keep it as the note
            reason, note = "", note or reason
        # An order line that is its sale's record (is_sale_record) leaves out what follows from the order.
        line = item.get("type") == "ORDER_LINE"
        return cls(
            product_id=item["productId"],
            adjustment_id=item["orderId"] if line else item["adjustmentId"],
            at=datetime.fromisoformat(item["at"]),
            delta=-_int(item["quantity"]) if line else _int(item["delta"]),
            resulting_level=_int(item.get("resultingLevel"), None),
            reason=SOLD if line else reason,
            who=item.get("customerName", "") if line else item.get("who", ""),
            order_id=item.get("orderId"),
            reference=item["orderId"] if line else item.get("reference", ""),
            # A sale of units held while the shopper paid (timed holds, issue 36) says so.
            note="Sold from a hold" if line and item.get("fromHold") else note,
            customer_id=item.get("customerId", ""),
            order_number=item.get("orderNumber", ""),
        )

    @property
    def reason_label(self):
        return REASON_LABELS.get(self.reason, "")

    @property
    def resulting_level_shown(self):
        """The level after the change as staff pages and downloads show it: the number, or words
        saying it was not recorded (a relative sale) rather than a guess."""
        return LEVEL_NOT_RECORDED if self.resulting_level is None else self.resulting_level

    @property
    def stamp(self):
        return self.at.isoformat(timespec="microseconds")

    def attributes(self):
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

    def to_item(self):
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
    def from_item(cls, item):
        return cls(
            adjustment=StockAdjustment.from_item(item["adjustment"]),
            token=item["SK"].removeprefix(keys.TOKEN_PREFIX),
            expires_at=_int(item.get("expiresAt")),
        )

    def to_item(self):
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
    def total(self):
        return self.unit_price * self.quantity

    @classmethod
    def from_item(cls, item):
        return cls(
            product_id=item["productId"],
            name=item.get("productName", ""),
            unit_price=_price(item.get("unitPrice")),
            quantity=_int(item.get("quantity")),
        )

    def to_item(self, *, customer_id, order_id):
        return {
            **keys.order_line_key(customer_id, order_id, self.product_id),
            "type": "ORDER_LINE",
            "orderId": order_id,
            "productId": self.product_id,
            "productName": self.name,
            "unitPrice": self.unit_price,
            "quantity": self.quantity,
        }


def is_sale_record(item):
    """Whether an order line is its sale's record (placed since issue 33: it carries the Ledger keys),
    so it counts as a stock change. A line of before has its sale recorded as a stock adjustment
    under P#<pid>; migration 0036 gave it Buyers keys only, so it is listed as a buyer, never counted twice."""
    return item.get("type") == "ORDER_LINE" and f"{keys.LEDGER}PK" in item


def sale_record(line_item, *, at, customer_id, customer_name, customer_email, order_number, resulting_level):
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
    def from_item(cls, item):
        return cls(
            cancelled="cancelledAt" in item,
            product_id=item["productId"], order_id=item["orderId"], customer_id=item.get("customerId", ""),
            at=datetime.fromisoformat(item["at"]), quantity=_int(item.get("quantity")),
            unit_price=_price(item.get("unitPrice")), order_number=item.get("orderNumber", ""),
            customer_name=item.get("customerName", ""), customer_email=item.get("customerEmail", ""),
        )

    @property
    def reference(self):
        return self.order_number or self.order_id


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
    # The short number people read out (issue 37); "" on an order placed before numbers existed.
    number: str = ""
    # Who placed it, as the account said then, so staff lists name customers without a read a row;
    # "" on an order placed before (shop.customers fills them in from the accounts).
    customer_name: str = ""
    customer_email: str = ""

    @property
    def reference(self):
        """What people call the order: its number, or the internal ID of an order from before numbers."""
        return self.number or self.order_id

    @property
    def is_open(self):
        return self.status == PLACED

    @property
    def item_count(self):
        if not self.lines and self.stored_item_count is not None:
            return self.stored_item_count
        return sum(line.quantity for line in self.lines)

    @classmethod
    def from_items(cls, order_item, line_items):
        return cls(
            order_id=order_item["orderId"],
            customer_id=order_item["customerId"],
            placed_at=datetime.fromisoformat(order_item["placedAt"]),
            total=_price(order_item.get("total")),
            lines=tuple(sorted((OrderLine.from_item(i) for i in line_items), key=lambda line: line.name)),
            address=dict(order_item["address"]) if order_item.get("address") else None,
            token=order_item.get("idempotencyKey", ""),
            status=order_item.get("status", PLACED),  # orders placed before statuses are open
            stored_item_count=_int(order_item.get("itemCount"), None),
            number=order_item.get("orderNumber", ""),
            customer_name=order_item.get("customerName", ""),
            customer_email=order_item.get("customerEmail", ""),
        )

    @classmethod
    def from_item(cls, order_item):
        """An order without its lines (the open-orders index)."""
        return cls.from_items(order_item, ())

    def to_item(self):
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
        }

    def number_claim_item(self):
        """The item that claims the order's number for it (keys.order_number_key)."""
        return {
            **keys.order_number_key(self.number),
            "type": "ORDER_NUMBER",
            "orderNumber": self.number,
            "customerId": self.customer_id,
            "orderId": self.order_id,
        }

    def line_items(self):
        return [line.to_item(customer_id=self.customer_id, order_id=self.order_id) for line in self.lines]
