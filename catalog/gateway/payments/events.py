"""The payment provider's events (webhooks), each handled once: its ID is claimed by a conditional
PutItem before it is handled, and given back if handling failed, so the provider's retry is handled."""
from __future__ import annotations

from botocore.exceptions import ClientError

from .. import keys
from ..dynamo.boundary import error_code, translate_errors
from ..dynamo.client import client, table_name
from ..dynamo.codec import serialize
from ..dynamo.conditions import Attr, expression
from ..validate import check_text, expires_in, utc_now

KEPT_DAYS = 30  # Stripe retries an event for 3 days; its ID is remembered longer


def payment_event_claim(*, event_id: str, event_type: str) -> bool:
    """True for the first caller with this event ID (one conditional PutItem), False for any later one."""
    check_text("Event ID", event_id, 255)
    item = {**keys.payment_event_key(event_id), "type": "PAYMENT_EVENT", "eventType": event_type[:100],
            "at": utc_now().isoformat(timespec="microseconds"), "expiresAt": expires_in(KEPT_DAYS * 86400)}
    try:
        with translate_errors():
            client().put_item(TableName=table_name(), Item=serialize(item),
                              **expression(condition=Attr("PK").not_exists()))
    except ClientError as exc:
        if error_code(exc) == "ConditionalCheckFailedException":
            return False
        raise
    return True


def payment_event_release(*, event_id: str) -> None:
    """Forget a claimed event whose handling failed (one DeleteItem), so its next delivery is handled."""
    with translate_errors():
        client().delete_item(TableName=table_name(), Key=serialize(keys.payment_event_key(event_id)))
