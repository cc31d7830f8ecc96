"""Purchase lines: the checks of an order's or a hold's lines, and what stands in the way of buying
each as it is (LineProblem, data: the shop words it)."""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from .errors import InvalidInput
from .validate import check_id, check_quantity

if TYPE_CHECKING:
    from catalog.gateway.catalog.entities import Product
    from catalog.gateway.stock.entities import Hold


# 2 actions a line (stock, order line) + 3, or 3 with a timed hold of another quantity (its delete): within
# DynamoDB's 100 actions a transaction (transact.TRANSACTION_ACTIONS). A cancellation takes 3 a line + 1; its
# back-in-stock marks (1 a line), and those of the units a smaller hold gives back when an order is placed
# (1 such line), go in the same transaction while they fit, after it when they do not
# (alerts.transact_write_marking_due).
MAX_LINES = 25


def check_lines(lines: Any) -> None:
    if not lines:
        raise InvalidInput("The cart is empty.")
    if len(lines) > MAX_LINES:
        raise InvalidInput(f"An order can have at most {MAX_LINES} different products.")
    seen = set()
    for line in lines:
        check_id("Product", line.product_id)
        check_quantity(line.quantity)
        if line.product_id in seen:
            raise InvalidInput(f"Product {line.product_id} is in the order twice.")
        seen.add(line.product_id)


@dataclasses.dataclass(frozen=True)
class LineProblem:
    """What stands in the way of buying one line as it is (a value, not an exception): the product is
    gone, short of stock or its price changed, or a hold's limit. OrderRejected carries a list of them;
    the shop words them (shop.messages)."""

    GONE = "gone"
    SHORT = "short"
    PRICE = "price"
    LIMIT = "limit"  # more than STOCK_HOLD_MAX_UNITS to hold (holds.holds_take; `available` is the limit)
    ENDED = "ended"  # a hold that ended at STOCK_HOLD_MAX_SECONDS, released (holds.holds_take; `available`: those)
    COOLING = "cooling"  # not to be held again by the shopper before `until` (epoch s; hold_limits)
    TOTAL = "total"  # beyond STOCK_HOLD_MAX_UNITS_PER_SHOPPER units held over every product (`available`: those)

    product_id: str
    kind: str
    name: str = ""
    available: int | None = None
    price: Decimal | None = None
    until: int | None = None

    def __post_init__(self) -> None:
        if not self.name:
            object.__setattr__(self, "name", self.product_id)


def line_problems(lines: Any, products: Mapping[str, Product]) -> list[LineProblem]:
    """Why lines cannot be bought as they are (a LineProblem each: gone, price changed, short),
    given the products as they are now ({product_id: Product}). The order's transaction holds
    DynamoDB to the same three conditions."""
    problems = []
    for line in lines:
        product = products.get(line.product_id)
        if product is None or not product.published:  # deleted, or hidden by staff
            problems.append(LineProblem(line.product_id, LineProblem.GONE, name=product.name if product else ""))
        elif product.price != line.price:
            problems.append(LineProblem(line.product_id, LineProblem.PRICE, name=product.name, price=product.price))
        elif product.stock_level < line.quantity:
            problems.append(
                LineProblem(line.product_id, LineProblem.SHORT, name=product.name, available=product.stock_level)
            )
    return problems


def beyond_hold(line: Any, holds: Mapping[str, Hold]) -> Any:
    """The line's units beyond what the shopper holds of it."""
    hold = holds.get(line.product_id)
    return dataclasses.replace(line, quantity=line.quantity - hold.quantity) if hold else line


def with_held(products: Mapping[str, Product], holds: Mapping[str, Hold]) -> dict[str, Any]:
    """The products as the shopper may buy them: what others can buy plus the units they hold."""
    return {pid: dataclasses.replace(p, stock_level=(p.stock_level or 0) + holds[pid].quantity) if pid in holds else p
            for pid, p in products.items()}
