"""The one parser for numbers typed by people: form fields (quantities, stock levels), query
parameters, CSV files and environment variables (page sizes, timeouts, budgets); and the one
format of an amount shown (`euro`).

Only plain ASCII digits are numbers here. Python's own int() and str.isdigit() accept far more
("²".isdigit() is true, int("١٢") is 12, int("1_000") is 1000, float("1e3") and float("nan") work):
anything but `[0-9]+` (with one `.` for a decimal) is unreadable, a clear error and never a 500.
No Django imports: settings.py uses it too.
"""
from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

WHOLE = re.compile(r"-?[0-9]{1,100}", re.ASCII)  # a sign, so "-3" can say "at least 1"
DECIMAL = re.compile(r"[0-9]{1,18}(\.[0-9]{1,9})?", re.ASCII)


class Unreadable(ValueError):
    """Not a number this parser reads, or out of its range; the message says which."""


def parse_whole(text: str, *, minimum: int | None = 0, maximum: int | None = None) -> Any:
    """A whole number from `text` (surrounding spaces allowed), `minimum` to `maximum`."""
    if not isinstance(text, str) or not WHOLE.fullmatch(text.strip()):
        raise Unreadable("must be a whole number (digits 0-9 only)")
    return _in_range(int(text.strip(), 10), minimum, maximum)


def parse_decimal(text: str, *, minimum: int | None = 0, maximum: Decimal | int | None = None,
                  places: int | None = None) -> Any:
    """A non-negative decimal amount (digits, one optional point; at most `places` decimals) from `text`,
    as a Decimal."""
    if not isinstance(text, str) or not DECIMAL.fullmatch(text.strip()):
        raise Unreadable("must be a number (digits 0-9, and a point for decimals)")
    if places is not None and len(text.strip().partition(".")[2]) > places:
        raise Unreadable(f"must have at most {places} decimals")
    return _in_range(Decimal(text.strip()), minimum, maximum)


def _in_range(value: Any, minimum: int | None, maximum: Decimal | int | None) -> Any:
    if minimum is not None and value < minimum:
        raise Unreadable(f"must be at least {minimum}")
    if maximum is not None and value > maximum:
        raise Unreadable(f"must be at most {maximum:,}")
    return value


def euro(amount: Decimal) -> str:
    """€1,299.00: a price or a total as every page and message shows it."""
    return f"€{Decimal(amount):,.2f}"


def amount_in(amount: Decimal, currency: str) -> str:
    """An amount of a payment in its currency (SHOP_CURRENCY, two decimals): euros as `euro`, another as
    1,299.00 USD."""
    if currency.upper() == "EUR":
        return euro(amount)
    return f"{Decimal(amount):,.2f} {currency.upper()}"
