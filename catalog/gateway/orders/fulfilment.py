"""What staff do with orders: the list of open orders, shipping and cancelling one (its units back in
stock, exactly), and a product's buyers."""
from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import TYPE_CHECKING, Any, Never

from .. import keys
from ..alerts.marks import alert_due_action, transact_write_marking_due
from ..catalog.entities import Product
from ..catalog.products import products_get_many
from ..dynamo.backoff import AGAIN, Again, retry_optimistic
from ..dynamo.conditions import Attr
from ..dynamo.merged import Stream, merged_all, merged_page
from ..dynamo.pages import KeyRange
from ..dynamo.transact import put, transact_write, update
from ..errors import (
    NotFound,
    OrderStatusRefused,
    StockBusy,
)
from ..stock.buckets import gathered_products
from ..stock.entities import CANCELLED, Sale, StockAdjustment
from ..stock.history import buyer_streams
from ..stock.takes import stock_level_update
from ..validate import check_id, client_request_token, page_size, utc_now
from .entities import PLACED, SHIPPED, Order
from .orders import order_get

if TYPE_CHECKING:
    from catalog.gateway.dynamo.pages import Page


def orders_open(*, after: str | None = None, limit: int | None = None) -> Page[Order]:
    """Open (placed) orders, oldest first, from the sparse OpenOrders index (an order leaves it when
    shipped or cancelled): its OPEN_ORDER_SHARDS partitions merged by order ID (merged.py): one Query a
    partition not yet done, a page. Each order
    carries its customer ID, whose partition holds the order (order_get)."""
    streams = [Stream(KeyRange(index=keys.OPEN_ORDERS, partition=pk)) for pk in keys.open_orders_partitions()]
    return merged_page(streams, size=page_size(limit), after=after, build=Order.from_item)


def product_buyers(*, product_id: str, after: str | None = None, limit: int | None = None) -> Page[Sale]:
    """Who bought a product: its order lines (Sale: order number, customer, quantity, time), newest
    first, from its BUYER_SHARDS partitions of the Buyers index merged: one Query a shard not yet
    done, a page; never a Scan."""
    check_id("Product", product_id)
    return merged_page(buyer_streams(product_id), size=page_size(limit), after=after, build=Sale.from_item)


def product_buyers_all(*, product_id: str) -> Iterator[Sale]:
    """Every order line of a product, newest first (a generator: the recall CSV streams it)."""
    check_id("Product", product_id)
    return merged_all(buyer_streams(product_id), build=Sale.from_item)


def _status_update(customer_id: str, order_id: str, status: str, at: datetime) -> dict[str, Any]:
    """The Update that moves an order from placed (or no status: an order stored without one)
    to `status` and takes it out of the OpenOrders index."""
    pk, sk = keys.OPEN_ORDER_ATTRIBUTES
    return update(
        keys.order_key(customer_id, order_id),
        f"SET #status = :status, #when = :at REMOVE {pk}, {sk}",
        {":status": status, ":at": at.isoformat(timespec="microseconds")},
        names={"#status": "status", "#when": f"{status}At"},
        condition=Attr("PK").exists() & (Attr("status").eq(PLACED) | Attr("status").not_exists()),
        return_old=True,
    )


def _refused(order_id: str, old_item: dict[str, Any], wanted: Any) -> Never:
    if old_item is None:
        raise NotFound("Order", order_id)
    raise OrderStatusRefused(order_id, old_item.get("status", PLACED), wanted)


def order_ship(*, customer_id: str, order_id: str) -> Order:
    """Mark an open order shipped: one conditional write (status placed). A cancelled or shipped
    order is refused (OrderStatusRefused) and nothing changes."""
    check_id("Customer", customer_id)
    check_id("Order", order_id)
    refusal = transact_write(
        [_status_update(customer_id, order_id, SHIPPED, utc_now())],
        request_token=client_request_token("ship", customer_id, order_id),
    )
    if refusal is None or refusal.replay:
        return order_get(customer_id=customer_id, order_id=order_id)
    if refusal.failed(0):
        _refused(order_id, refusal.items[0], "shipped")
    raise StockBusy(f"Order {order_id} is being changed right now; try again.")


def order_cancel(*, customer_id: str, order_id: str, who: str = "") -> Order:
    """Cancel an open order: one transaction puts every line's quantity back in stock (each
    conditional on the level read, with a `cancelled` stock change referencing the order), marks
    each line cancelled (`cancelledAt`, for the list of buyers) with the status change (conditional
    on status placed). Cancelling twice, or a shipped order, is
    refused (OrderStatusRefused) and changes nothing; a race with a stock write is retried."""
    order = order_get(customer_id=customer_id, order_id=order_id)
    if not order.is_open:
        raise OrderStatusRefused(order_id, order.status, "cancelled")
    products: dict[str, Product] | None = None

    def attempt(_n: int) -> Order | Again:
        nonlocal products
        if products is None:
            products = gathered_products(
                products_get_many(product_ids=[line.product_id for line in order.lines], consistent=True)
            )
        at = utc_now()
        actions, stock_actions = _cancel_actions(order, products, at=at, who=who)
        # Back-in-stock alerts: the units put back are due to the product's alerts (after the lines),
        # in the same transaction while it has room (an order of MAX_LINES lines: not all of them).
        due = [alert_due_action(line.product_id, line.quantity) for line in order.lines if line.product_id in products]
        state = tuple((p.product_id, p.stock_level, p.reorder_point) for p in products.values())
        refusal = transact_write_marking_due(
            actions, due, request_token=client_request_token("cancel", customer_id, order_id, at.isoformat(), state),
            due_token=client_request_token("cancel-due", customer_id, order_id),
        )
        if refusal is None or refusal.replay:
            return order_get(customer_id=customer_id, order_id=order_id)
        if refusal.failed(0):
            _refused(order_id, refusal.items[0], "cancelled")
        if not refusal.any_failed:
            products = None  # a conflict with another transaction: read again
            return AGAIN
        fresh = dict(products)
        for i in range(1, stock_actions, 2):
            if refusal.failed(i) and refusal.items[i] is not None:
                product = Product.from_item(refusal.items[i])
                fresh[product.product_id] = product
        products = gathered_products(fresh)
        return AGAIN

    return retry_optimistic(attempt, busy=StockBusy(
        f"Order {order_id} could not be cancelled now (its products' stock is busy); try again."))


def _cancel_actions(order: Order, products: dict[str, Product], *, at: datetime, who: str) -> tuple[list[Any], int]:
    """The cancellation's actions: the status change (first), each line's units back in stock (the exact
    level, conditional on the one read) with its `cancelled` stock change, then each line marked
    cancelled; and how many actions come before those marks."""
    customer_id, order_id = order.customer_id, order.order_id
    actions = [_status_update(customer_id, order_id, CANCELLED, at)]
    for line in order.lines:
        product = products.get(line.product_id)
        if product is None:
            continue  # a product no longer sold: nothing to put back
        level = product.stock_level or 0  # gathered: its item holds the total
        actions.append(stock_level_update(
            product_id=line.product_id, current=product.stock_level, new=level + line.quantity,
            reorder_point=product.reorder_point,
        ))
        actions.append(put(StockAdjustment(
            product_id=line.product_id, adjustment_id=f"{order_id}-cancel", at=at, delta=line.quantity,
            resulting_level=level + line.quantity, reason=CANCELLED, reference=order_id,
            who=who, order_id=order_id, customer_id=customer_id, order_number=order.number,
        ).to_item(), if_absent=True))
    stock_actions = len(actions)
    # Each line (the sale's record, in the Buyers index) says the order was cancelled: the list of
    # buyers shows it (a recall skips it); its units back are the `cancelled` change above.
    actions.extend(update(keys.order_line_key(customer_id, order_id, line.product_id), "SET cancelledAt = :at",
                          {":at": at.isoformat(timespec="microseconds")}, condition=Attr("PK").exists())
                   for line in order.lines)
    return actions, stock_actions
