"""Opaque pagination cursors: a DynamoDB key, signed and bound to the query it came from.

A cursor made for one list (say brand 3's products) does not open another (brand 4's),
and a tampered one is rejected before anything is sent to DynamoDB.
"""
from __future__ import annotations

from typing import Any

from django.core import signing

from ..errors import InvalidCursor

SALT = "catalog.cursor"


def encode(key: dict[str, Any], *, scope: Any) -> str:
    plain = {name: value for name, value in key.items()}
    return signing.dumps(plain, salt=f"{SALT}:{scope}", compress=True)


def decode(cursor: Any, *, scope: Any, key_names: Any) -> dict[str, Any]:
    if not isinstance(cursor, str) or not cursor or len(cursor) > 2048:
        raise InvalidCursor()
    try:
        key = signing.loads(cursor, salt=f"{SALT}:{scope}")
    except (signing.BadSignature, ValueError):
        raise InvalidCursor() from None
    if (
        not isinstance(key, dict)
        or set(key) != set(key_names)
        or not all(isinstance(v, str) for v in key.values())
    ):
        raise InvalidCursor()
    return key
