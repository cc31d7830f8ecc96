"""Customers and their orders in the single table, as in the customer-order hierarchy:

    CUSTOMER#<uid> / METADATA                 the customer
    CUSTOMER#<uid> / ORDER#<oid>              an order
    CUSTOMER#<uid> / ORDER#<oid>#ITEM#<pid>   its lines (name, unit price, quantity at purchase)
    ORDERNO#<number> / CLAIM                  its short number, claimed for it (customer and order IDs)

Order IDs sort by time, so a customer's orders newest first are one Query, ScanIndexForward=False.
Placing an order is one TransactWriteItems: every line's stock decrease (relative while plenty is
left, exact near the edge: _transact_order; only if the price is still the one seen), the order,
its lines (each its sale's record: entities.sale_record), the claim of its number and the customer. A transaction
that conflicted with another is sent again at once (after a few ms of jitter); a refused condition
is decided again from the product DynamoDB returns; the shopper hears "busy" only when the write
budget is spent.

An order has two names: its ID (sorts by time, unguessable, what URLs and keys use) and its number
(numbers.py), 8 characters people can read out on the phone.
"""
from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError
from django.conf import settings

from .. import keys
from ..alerts.marks import transact_write_marking_due
from ..catalog.products import products_get_many
from ..dynamo.backoff import AGAIN, AGAIN_NOW, AGAIN_SOON, Again, retry_optimistic
from ..dynamo.boundary import error_code, translate_errors
from ..dynamo.client import client, table_name
from ..dynamo.codec import serialize
from ..dynamo.conditions import Attr, expression
from ..dynamo.pages import KeyRange, Page, query_items
from ..dynamo.transact import put
from ..errors import IdempotencyConflict, NotFound, OrderRejected, StockBusy
from ..lines import MAX_LINES, beyond_hold, check_lines, line_problems, with_held
from ..stock import hold_limits
from ..stock.buckets import settle_for_sale
from ..stock.entities import sale_record
from ..stock.holds import holds_enabled, holds_of
from ..stock.takes import HOLD_GONE, order_line_take
from ..validate import check_id, client_request_token, utc_now
from .customers import check_address, customer_update
from .entities import Order, OrderLine, Payment
from .numbers import order_number_for

if TYPE_CHECKING:
    from catalog.gateway.catalog.entities import Product
    from catalog.gateway.orders.entities import PurchaseLine
    from catalog.gateway.stock.entities import Hold


def new_order_id() -> str:
    """Sorts by time (UTC, microseconds), then 80 random bits (20 hex digits), unguessable:
    20261122T024500123456-1a2b3c4d5e6f708192a3. Issued by the server (the checkout in progress)."""
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%S%f") + "-" + secrets.token_hex(10)


def order_place(
    *, customer_id: str, customer_name: str, order_id: str, token: str, lines: Sequence[PurchaseLine],
    customer_email: str | None = None, address: Any = None, payment: Payment | None = None
) -> Order:
    """Place an order in one transaction, or raise OrderRejected and write nothing.

    `order_id` and `token` come from the checkout form: submitting the same form twice
    (double click, retry, Back and resubmit) places one order and answers it both times; the same
    ID with another key or other lines is IdempotencyConflict, naming the order placed.
    `address` (name, street, postcode, city, country) is copied onto the order; the customer item
    gets `customer_name` and `customer_email`, so it heals if an earlier customer_put was lost.
    `payment`: the card payment authorised for it, recorded on the order (a replay answers the order
    with the payment it was placed with, which may be another authorisation's)."""
    check_id("Customer", customer_id)
    address = check_address(address)
    check_id("Order", order_id)
    check_id("Idempotency key", token)
    check_lines(lines)
    placing = _Placing(customer_id=customer_id, customer_name=customer_name, order_id=order_id, token=token,
                       lines=lines, customer_email=customer_email, address=address, payment=payment)
    # Until the request's write budget runs out (retry_optimistic): a crowd is no reason to give up, only
    # the time the shopper can wait is.
    return retry_optimistic(placing.attempt, busy=StockBusy(
        "So many people are buying these right now that your order did not go through; please try again."))


@dataclasses.dataclass
class _Placing:
    """One order_place's tries (retry_optimistic), and what a try leaves for the next: the shopper's holds
    (None: read them), the products as last read or as a refused condition returned them (None: read
    them), whether reads are consistent from now on, and which of the order's numbers it asks for."""

    customer_id: str
    customer_name: str
    order_id: str
    token: str
    lines: Sequence[PurchaseLine]
    customer_email: str | None
    address: dict[str, Any] | None
    payment: Payment | None
    holds: Mapping[str, Hold] | None = None
    products: dict[str, Product] | None = None
    consistent: bool = False
    number_attempt: int = 0

    def attempt(self, _n: int) -> Order | Again:
        lines, ids = self.lines, [line.product_id for line in self.lines]
        if self.holds is None:  # timed holds: the units the shopper holds are theirs, no stock check
            self.holds = holds_of(customer_id=self.customer_id, product_ids=ids) if holds_enabled() else {}
        holds = self.holds
        # What each line takes beyond the shopper's hold: only those products' buckets are read.
        beyond = [beyond_hold(line, holds) for line in lines]
        taking = [line for line in beyond if line.quantity > 0]
        products = self.products = _products_for_sale(self.products, ids, taking, consistent=self.consistent)
        problems = line_problems(lines, with_held(products, holds))
        if problems and not self.consistent:
            self.products, self.consistent = None, True  # confirm on the latest write before saying no
            return AGAIN_NOW
        if problems:
            placed = _order_or_none(customer_id=self.customer_id, order_id=self.order_id)
            if placed is not None:  # a replay: it took the stock itself
                return _same_order(placed, token=self.token, lines=lines)
            raise OrderRejected(problems)
        outcome = _transact_order(
            customer_id=self.customer_id, customer_name=self.customer_name, order_id=self.order_id,
            token=self.token, lines=lines, products=products, at=utc_now(), customer_email=self.customer_email,
            address=self.address, number=order_number_for(self.order_id, self.number_attempt), holds=holds,
            payment=self.payment,
        )
        if isinstance(outcome, Order):
            return outcome
        if outcome is REPLAY:
            order = order_get(customer_id=self.customer_id, order_id=self.order_id)
            return _same_order(order, token=self.token, lines=lines)
        return self._again(outcome)

    def _again(self, outcome: Any) -> Again:
        """What to read again after `outcome` of the order's transaction (NUMBER_TAKEN, HOLD_GONE, CONFLICT,
        THROTTLED or the products a refused condition returned), and how long to wait first."""
        if outcome is NUMBER_TAKEN:
            self.number_attempt += 1  # another order has that number: the next one (nothing was written)
            return AGAIN_NOW
        if outcome is HOLD_GONE:
            self.products, self.holds = None, None  # a hold was released (it ended) or renewed meanwhile
            return AGAIN_NOW
        if outcome is CONFLICT:
            # Another transaction had one of the items at that moment: nothing was decided, so the
            # same request again after a moment's jitter (a relative take does not depend on the level
            # read; an exact one that is stale is refused next time with the level now).
            return AGAIN_SOON
        if outcome is THROTTLED:
            return AGAIN  # DynamoDB had no capacity: give it a growing pause
        if not self.consistent:  # a condition refused what a replica showed: from now on, the latest write
            self.products, self.consistent = None, True
        else:
            # A condition was refused: `outcome` holds the products as DynamoDB returned them; decide
            # again from those (the exact path near the edge, or sold out / only N left).
            self.products = outcome
        return AGAIN_NOW


def _products_for_sale(
    products: Mapping[str, Product] | None, ids: Any, taking: Any, *, consistent: bool
) -> dict[str, Product]:
    """The products of an order (`products`: as read before, None: read them), ready for its takes.

    Read as a hot product's crowd can afford (half the units, any replica): every take is
    conditional, so a stale level is refused and read again; a refusal of the order is
    only ever said from a consistent read (order_place). A line the shopper holds writes only its
    hold, so its price and its product's existence are checked on this read alone: a price
    changed less than the replica's lag ago (about a second) may still be ordered at the price
    the shopper saw (a consistent read here would take a hot product below its target: README, Scale).
    Only the buckets of `taking` (the lines beyond the shopper's holds) are read."""
    if products is None:
        products = products_get_many(product_ids=ids, consistent=consistent,
                                     levels_of={line.product_id for line in taking})
    # A product spread over stock buckets: a bucket that can serve the line, or gathered (exact).
    return settle_for_sale(products, taking, consistent=consistent)


REPLAY = object()  # the order was placed before: answer it
NUMBER_TAKEN = object()  # another order holds the number asked for
CONFLICT = object()  # a TransactionConflict: nothing decided, try the same again
THROTTLED = object()  # DynamoDB throttled an item: nothing decided, try again after a pause
# HOLD_GONE (takes): a line's hold is no longer the one read: read again


def _same_order(order: Any, *, token: str, lines: Sequence[PurchaseLine]) -> Any:
    """`order`, placed before under this ID, if this is the same request again (same key, same
    lines); IdempotencyConflict naming the order if it is not."""
    asked = sorted((line.product_id, line.quantity, line.price) for line in lines)
    placed = sorted((line.product_id, line.quantity, line.unit_price) for line in order.lines)
    if order.token and order.token != token or asked != placed:
        first = f"order {order.order_id} of {order.placed_at:%Y-%m-%d %H:%M} UTC, " + ", ".join(
            f"{line.quantity} × {line.name}" for line in order.lines
        )
        raise IdempotencyConflict(
            f"This order ID was already used for {first}. Nothing was ordered this time.", first=first
        )
    return order


def _transact_order(
    *, customer_id: str, customer_name: str, order_id: str, token: str, lines: Sequence[PurchaseLine],
    products: Mapping[str, Product], at: datetime, number: str, customer_email: str | None = None, address: Any = None,
    holds: Mapping[str, Hold] | None = None, payment: Payment | None = None
) -> Any:
    """One TransactWriteItems: each line's stock decrease (relative or exact, below; if the price is
    still the one seen), the order, its lines (each the record of its sale), the claim of its number
    and the customer. Returns the Order; REPLAY when the order exists already; NUMBER_TAKEN when
    another order has `number`; CONFLICT when another transaction was in the way; THROTTLED when
    DynamoDB had no capacity; or, when a line's condition was refused (a sale took the product to
    the edge, its price or reorder point changed), the products as DynamoDB returned them.

    A line takes its units relatively (stock_level_take) while the level read leaves the product
    above take_floor, so buyers of one product do not invalidate each other; near the edge it takes
    the exact path (stock_level_update), which keeps the band and the Reorder index exact. The sale's
    record of a relative take has no resulting level. A line the shopper holds (`holds`)
    deletes its hold (takes.order_line_take) and takes only the units beyond it: its units left the
    stock when they were held; its record says `fromHold`. Returns HOLD_GONE when a hold is no longer
    the one read."""
    holds = holds or {}
    order = _new_order(customer_id=customer_id, customer_name=customer_name, customer_email=customer_email,
                       order_id=order_id, token=token, lines=lines, products=products, at=at, number=number,
                       address=address, payment=payment)
    takes, hold_actions = [], []
    for line in lines:
        # Relative from a bucket or the product item while plenty is left, exact near the edge.
        take, hold_action = order_line_take(
            product=products[line.product_id], line=line, hold=holds.get(line.product_id))
        takes.append(take)
        if hold_action is not None:
            hold_actions.append(hold_action)
    actions = [take.action for take in takes]
    order_index = len(actions)
    actions.append(put(order.to_item(), if_absent=True))
    stamp = at.isoformat(timespec="microseconds")
    levels_after = {line.product_id: take.resulting_level for line, take in zip(lines, takes, strict=True)}
    actions.extend(_sale_records(order, stamp=stamp, levels_after=levels_after, holds=holds))
    number_index = len(actions)
    actions.append(put(order.number_claim_item(), if_absent=True))
    actions.append(customer_update(customer_id=customer_id, name=customer_name, email=customer_email, at=at))
    first_hold_action = len(actions)
    actions.extend(hold_actions)
    counted = sum(holds[line.product_id].counted_units for line in lines if line.product_id in holds)
    if counted:  # the units the order takes from its holds leave the shopper's count of units held
        actions.append(hold_limits.units_change(customer_id, -counted))
    levels = tuple((take.path, products[line.product_id].reorder_point)
                   for take, line in zip(takes, lines, strict=True))
    # Units a hold bigger than its line gives back are due to back-in-stock alerts, as a released hold's.
    refusal = transact_write_marking_due(
        actions, [take.due for take in takes if take.due is not None],
        request_token=client_request_token(token, order_id, stamp, levels, number),
        due_token=client_request_token("order-due", customer_id, order_id))
    if refusal is None:
        return order
    if refusal.replay or refusal.failed(order_index):
        return REPLAY
    if refusal.failed(number_index):
        return NUMBER_TAKEN
    return _after_refusal(refusal, lines, takes, products,
                          hold_actions=range(first_hold_action, len(actions)))


def _new_order(
    *, customer_id: str, customer_name: str, customer_email: str | None, order_id: str, token: str,
    lines: Sequence[PurchaseLine], products: Mapping[str, Product], at: datetime, number: str, address: Any,
    payment: Payment | None = None
) -> Order:
    return Order(
        order_id=order_id, customer_id=customer_id, placed_at=at, token=token,
        total=sum((line.price * line.quantity for line in lines), Decimal("0.00")),
        lines=tuple(
            OrderLine(product_id=line.product_id, name=products[line.product_id].name, unit_price=line.price,
                      quantity=line.quantity)
            for line in lines
        ),
        address=address,
        number=number,
        customer_name=customer_name,
        customer_email=customer_email or "",
        payment=payment,
    )


def _sale_records(order: Any, *, stamp: Any, levels_after: Any, holds: Mapping[str, Hold]) -> list[Any]:
    """The Put of each order line as its sale's record (entities.sale_record): no sale item under P#<pid>."""
    return [put(sale_record(
        item, at=stamp, customer_id=order.customer_id, customer_name=order.customer_name,
        customer_email=order.customer_email or None, order_number=order.number,
        resulting_level=levels_after[item["productId"]],
    ) | ({"fromHold": True} if item["productId"] in holds else {})) for item in order.line_items()]


def _after_refusal(
    refusal: Any, lines: Sequence[PurchaseLine], takes: Any, products: Mapping[str, Product], *, hold_actions: Any
) -> Any:
    """THROTTLED or CONFLICT when nothing was refused; HOLD_GONE if a refused action was of a hold (at
    `hold_actions`, or a take of a held line); else the products as DynamoDB's refusal shows them."""
    if refusal.throttled and not refusal.any_failed:
        return THROTTLED
    if not refusal.any_failed:
        return CONFLICT  # another transaction was in the way: nothing to read
    if any(refusal.failed(i) for i in hold_actions):
        return HOLD_GONE
    fresh = dict(products)
    for i, (line, take) in enumerate(zip(lines, takes, strict=True)):
        if not refusal.failed(i):
            continue
        product = take.after_refusal(refusal.items[i])
        if product is HOLD_GONE:
            return HOLD_GONE
        if product is None:
            fresh.pop(line.product_id, None)  # the product is gone
        else:
            fresh[line.product_id] = product
    return fresh


def order_confirmation_claim(*, customer_id: str, order_id: str) -> bool:
    """Claim the right to send an order's confirmation email: True for the first caller only (one
    conditional UpdateItem on the order), so a replayed or doubled checkout sends no second email,
    on whichever app server it lands."""
    check_id("Customer", customer_id)
    check_id("Order", order_id)
    try:
        with translate_errors():
            client().update_item(
                TableName=table_name(),
                Key=serialize(keys.order_key(customer_id, order_id)),
                UpdateExpression="SET confirmationClaimedAt = :at",
                **expression(condition=Attr("PK").exists() & Attr("confirmationClaimedAt").not_exists(),
                             values={":at": utc_now().isoformat(timespec="microseconds")}),
            )
    except ClientError as exc:
        if error_code(exc) == "ConditionalCheckFailedException":
            return False
        raise
    return True


def _order_or_none(*, customer_id: str, order_id: str) -> Order | None:
    try:
        return order_get(customer_id=customer_id, order_id=order_id)
    except NotFound:
        return None


def order_get(*, customer_id: str, order_id: str) -> Order:
    """One order with its lines: one Query on the customer's partition."""
    check_id("Customer", customer_id)
    check_id("Order", order_id)
    order_sk = keys.order_key(customer_id, order_id)["SK"]
    items, _ = query_items(
        KeyRange(partition=keys.customer_pk(customer_id), prefix=order_sk, consistent=True), limit=MAX_LINES + 1
    )
    head = next((i for i in items if i["SK"] == order_sk), None)
    if head is None:
        raise NotFound("Order", order_id)
    return Order.from_items(head, [i for i in items if i["SK"].startswith(order_sk + "#ITEM#")])


def orders_by_customer(*, customer_id: str, after: str | None = None, limit: int | None = None) -> Page[Order]:
    """A customer's orders with their lines, newest first: one Query a page.

    Newest first, an order's lines come before the order itself (ORDER#b#ITEM#… > ORDER#b);
    a page that ends inside an order leaves that order for the next page."""
    check_id("Customer", customer_id)
    size = limit or settings.CATALOG_PAGE_SIZE
    key_range = KeyRange(partition=keys.customer_pk(customer_id), prefix=keys.ORDER_PREFIX, forward=False)
    items, last = query_items(key_range, limit=size * (MAX_LINES + 1) + 1, after=after)
    orders: list[Order] = []
    lines: list[dict[str, Any]] = []
    last_head = None
    for item in items:
        if item.get("type") == "ORDER":
            if len(orders) == size:
                break
            orders.append(Order.from_items(item, [line for line in lines if line["orderId"] == item["orderId"]]))
            lines, last_head = [], item
        else:
            lines.append(item)
    read = sum(len(o.lines) + 1 for o in orders)
    more = last is not None or len(items) > read
    return Page(items=orders, next_cursor=key_range.encode(last_head) if more and last_head else None)

