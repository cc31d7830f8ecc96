"""The customer item (name and email, so it heals if a write was lost) and an order's address."""
from __future__ import annotations

from datetime import datetime
from typing import Any

from .. import keys
from ..dynamo.boundary import translate_errors
from ..dynamo.client import client
from ..dynamo.transact import update
from ..errors import InvalidInput
from ..validate import check_id

ADDRESS_FIELDS = ("name", "street", "postcode", "city", "country")

ADDRESS_MAX_LENGTH = 200
CUSTOMER_NAMES = {"#type": "type", "#name": "name"}


def _customer_fields(customer_id: str, name: str, email: str | None) -> tuple[str, dict[str, Any]]:
    """The customer item's own fields, its name and (unless None) its email: a SET clause and its values."""
    known = {":email": email} if email is not None else {}
    return ("SET #type = :type, customerId = :cid, #name = :name" + (", email = :email" if known else ""),
            {":type": "CUSTOMER", ":cid": customer_id, ":name": name} | known)


def customer_update(*, customer_id: str, name: str, email: str | None, at: datetime) -> dict[str, Any]:
    """The customer item: its name and email (so it heals if an earlier customer_put was lost), the
    time of the last order and the order count."""
    expression, values = _customer_fields(customer_id, name, email or None)
    return update(
        keys.customer_key(customer_id), expression + ", lastOrderAt = :at ADD orderCount :one",
        values | {":at": at.isoformat(timespec="microseconds"), ":one": 1}, names=CUSTOMER_NAMES,
    )


def check_address(address: Any) -> dict[str, Any] | None:
    if address is None:
        return None
    missing = [f for f in ADDRESS_FIELDS if not isinstance(address.get(f), str) or not address[f].strip()]
    if missing:
        raise InvalidInput(f"The delivery address lacks: {', '.join(missing)}.")
    if any(len(address[f]) > ADDRESS_MAX_LENGTH for f in ADDRESS_FIELDS):
        raise InvalidInput(f"A delivery address field is longer than {ADDRESS_MAX_LENGTH} characters.")
    return {f: address[f] for f in ADDRESS_FIELDS}


def customer_put(*, customer_id: str, name: str, email: str) -> None:
    """The customer item (CUSTOMER#<uuid>/METADATA) gets the account's name and email: one UpdateItem,
    which keeps what orders wrote there (order count, last order time)."""
    check_id("Customer", customer_id)
    expression, values = _customer_fields(customer_id, name, email)
    with translate_errors():
        client().update_item(**update(keys.customer_key(customer_id), expression, values,
                                      names=CUSTOMER_NAMES)["Update"])
