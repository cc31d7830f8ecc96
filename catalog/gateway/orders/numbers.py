"""An order's number: 8 characters people can read out on the phone (ORDER_NUMBER_ALPHABET has no 0/O,
1/I/L or U), a hash of the order ID and an attempt count, so a retried checkout asks for the same number; a
number another order holds already (the claim's condition fails) is tried again with the next."""
from __future__ import annotations

import hashlib
from typing import Any

from .. import keys
from ..dynamo.boundary import translate_errors
from ..dynamo.client import read, table_name
from ..dynamo.codec import deserialize, serialize

ORDER_NUMBER_ALPHABET = "23456789ABCDEFGHJKMNPQRSTVWXYZ"  # 30 symbols: 30**8 is 6.6e11 numbers
ORDER_NUMBER_LENGTH = 8


def order_number_for(order_id: str, attempt: int = 0) -> str:
    """The number an order asks for on its `attempt`th try (0 first): 8 symbols of a SHA-256 of the
    ID and the attempt, so every retry of one checkout asks for the same numbers in the same order."""
    value = int.from_bytes(hashlib.sha256(f"{order_id}#{attempt}".encode()).digest(), "big")
    symbols = []
    for _ in range(ORDER_NUMBER_LENGTH):
        value, index = divmod(value, len(ORDER_NUMBER_ALPHABET))
        symbols.append(ORDER_NUMBER_ALPHABET[index])
    return "".join(symbols)


def order_number_clean(text: str) -> str | None:
    """The order number in `text` as typed (any case, spaces or hyphens between), or None when it
    is not one."""
    number = "".join(ch for ch in str(text or "") if ch not in " -").upper()
    if len(number) != ORDER_NUMBER_LENGTH or any(ch not in ORDER_NUMBER_ALPHABET for ch in number):
        return None
    return number


ORDER_NUMBER_TRIES = 3  # numbers an order ID is looked up under: a fourth is never needed (6.6e11 numbers)


def number_claim(number: str) -> dict[str, Any] | None:
    with translate_errors():
        response = read("GetItem", {
            "TableName": table_name(), "Key": serialize(keys.order_number_key(number)), "ConsistentRead": True,
        })
    return deserialize(response["Item"]) if "Item" in response else None
