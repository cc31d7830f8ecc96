"""The catalog's own exceptions: the gateway turns DynamoDB's errors into these."""
from __future__ import annotations

from typing import Any


class CatalogError(Exception):
    """Base of every catalog error."""


class InvalidInput(CatalogError, ValueError):
    """Bad input, rejected before any request is sent (HTTP 400)."""


# keys.ID_PATTERN in words, for every message about an ID.
ID_RULE = "1 to 64 letters, digits, '-' or '_'"


class InvalidId(InvalidInput):
    def __init__(self, what: str, value: Any) -> None:
        self.what = what
        self.value = value
        super().__init__(f"{what} ID must be {ID_RULE}")


class InvalidCursor(InvalidInput):
    def __init__(self) -> None:
        super().__init__("This page link is invalid or has expired; start again from the first page.")


class InvalidQuantity(InvalidInput):
    pass


class NotFound(CatalogError):
    def __init__(self, what: str, identifier: str) -> None:
        self.what = what
        self.identifier = identifier
        super().__init__(f"No {what.lower()} with ID {identifier!r}")


class InsufficientStock(CatalogError):
    """A decrease would take stock below zero; nothing was changed."""

    def __init__(self, product_id: str, available: Any, requested: Any) -> None:
        self.product_id = product_id
        self.available = available
        self.requested = requested
        super().__init__(
            f"Only {available} in stock for product {product_id}; cannot take {requested}."
        )


class CatalogUnavailable(CatalogError):
    """DynamoDB cannot be reached, is throttling, or failed (HTTP 503)."""


class OutcomeUnknown(CatalogUnavailable):
    """A write went out but DynamoDB's answer did not come back (a timeout, a lost connection, a
    5xx): it may have been applied, now or when DynamoDB catches up. Sending the same request
    again (same idempotency key) is safe: it applies at most once."""


class IdempotencyConflict(CatalogError):
    """An idempotency key (or an order ID) came back with a different request than the one it was
    first used for: refused, nothing changed (HTTP 409). `first` describes the first request."""

    def __init__(self, message: str, *, first: Any) -> None:
        self.first = first
        super().__init__(message)


class StockBusy(CatalogUnavailable):
    """Too many concurrent changes to one product; the caller may try again. Without a message, the
    one said of a product whose stock changes too often (`product_id`)."""

    CHANGING = "Stock of product {product_id} is changing too often right now; try again."

    def __init__(self, message: str | None = None, *, product_id: str | None = None) -> None:
        self.product_id = product_id
        super().__init__(self.CHANGING.format(product_id=product_id) if message is None else message)


class OrderRejected(CatalogError):
    """Nothing was written: some lines cannot be bought as they are. `problems` says which
    and why (a LineProblem each)."""

    def __init__(self, problems: list[Any]) -> None:
        self.problems = problems
        super().__init__("; ".join(f"{p.product_id}: {p.kind}" for p in problems))


class StockMoved(CatalogError):
    """A stocktake's compare-and-set lost: the level is no longer the one the count was made
    against (a sale meanwhile), or other units are held for shoppers now (timed holds). Nothing was
    written; `level` is the level now, `held` the units held now (None: not the reason)."""

    def __init__(self, product_id: str, level: int | None, *, held: Any = None) -> None:
        self.product_id = product_id
        self.level = level
        self.held = held
        super().__init__(f"The stock of product {product_id} changed to {level} since the count was started.")


class OrderStatusRefused(CatalogError):
    """An order cannot go where it was asked to (cancel a cancelled or shipped one, ship a
    cancelled one); nothing was changed. `status` is its status now."""

    def __init__(self, order_id: str, status: str, wanted: Any) -> None:
        self.order_id = order_id
        self.status = status
        self.wanted = wanted
        super().__init__(f"Order {order_id} is {status}: it cannot be {wanted}. Nothing was changed.")
