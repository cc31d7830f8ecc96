"""An order by another name than its customer's partition: its number as people read it out, or its ID
alone (a stock change's reference names no customer); each through the claim of its number (numbers.py)."""
from __future__ import annotations

from ..errors import InvalidInput, NotFound
from ..validate import check_id
from .entities import Order
from .numbers import ORDER_NUMBER_TRIES, number_claim, order_number_clean, order_number_for
from .orders import order_get


def order_get_by_number(*, number: str) -> Order:
    """The order of a number (as typed: order_number_clean), or NotFound: one GetItem of its claim,
    then the order (order_get). An order placed before numbers has none until a backfill claims it."""
    cleaned = order_number_clean(number)
    if cleaned is None:
        raise InvalidInput("An order number is 8 letters and digits, such as K7QM4XPD.")
    claim = number_claim(cleaned)
    if claim is None:
        raise NotFound("Order", cleaned)
    return order_get(customer_id=claim["customerId"], order_id=claim["orderId"])


def order_get_by_id(*, order_id: str) -> Order:
    """An order by its internal ID alone (a stock change's reference names no customer): the claim
    of the number it asked for first (order_number_for), then the next if another order has that;
    then the order. NotFound for an order without a number (placed before numbers, not backfilled)."""
    check_id("Order", order_id)
    for attempt in range(ORDER_NUMBER_TRIES):
        claim = number_claim(order_number_for(order_id, attempt))
        if claim is None:
            break
        if claim["orderId"] == order_id:
            return order_get(customer_id=claim["customerId"], order_id=order_id)
    raise NotFound("Order", order_id)
