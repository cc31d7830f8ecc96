"""Input checks shared by every access pattern: nothing malformed is sent to DynamoDB."""
from __future__ import annotations

import hashlib
import time
import uuid
from datetime import UTC, datetime
from typing import Any

from django.conf import settings

from . import keys
from .errors import InvalidId, InvalidInput, InvalidQuantity

MAX_QUANTITY = 1_000_000
MAX_WHO = 150
MAX_REFERENCE = 100
MAX_NOTE = 500
MAX_REORDER = 1_000_000


def valid_id(value: Any) -> bool:
    """Whether `value` can be the ID of a brand, category, product, order or idempotency key
    (the one rule for IDs: keys.ID_PATTERN)."""
    return isinstance(value, str) and keys.ID_PATTERN.fullmatch(value) is not None


def check_id(what: str, value: Any) -> str:
    if not valid_id(value):
        raise InvalidId(what, value)
    return value


def check_quantity(quantity: int) -> int:
    if isinstance(quantity, bool) or not isinstance(quantity, int):
        raise InvalidQuantity("Quantity must be a whole number.")
    if not 1 <= quantity <= MAX_QUANTITY:
        raise InvalidQuantity(f"Quantity must be between 1 and {MAX_QUANTITY:,}.")
    return quantity


def page_size(limit: int | None) -> int:
    size = settings.CATALOG_PAGE_SIZE if limit is None else limit
    if not isinstance(size, int) or not 1 <= size <= 1000:
        raise ValueError("page size must be 1 to 1000")
    return size


def check_text(what: str, value: Any, limit: int) -> str:
    if not isinstance(value, str):
        raise InvalidInput(f"{what} must be text.")
    value = value.strip()
    if len(value) > limit:
        raise InvalidInput(f"{what} must be at most {limit} characters.")
    return value



def new_token() -> str:
    """A fresh idempotency key for one stock write (a form render, a command run)."""
    return uuid.uuid4().hex


def utc_now() -> datetime:
    return datetime.now(UTC)


def expires_in(seconds: int) -> int:
    """The epoch second `seconds` from now: the value of an item's TTL attribute, after which DynamoDB deletes it."""
    return int(time.time()) + seconds


def client_request_token(*parts: Any) -> str:
    """DynamoDB's ClientRequestToken (at most 36 characters) for one exact request."""
    return hashlib.sha256("|".join(str(p) for p in parts).encode()).hexdigest()[:36]

