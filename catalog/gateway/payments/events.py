"""The payment provider's events (webhooks), each handled once: its ID is claimed by a conditional
PutItem (status `handling`, with the time) before it is handled, and marked `handled` only after handling
succeeded. A claim whose handling failed is given back; one left `handling` (the process died, or DynamoDB
failed before it could be given back) is taken over by a delivery STALE_SECONDS later, so the provider's
retries are never ignored."""
from __future__ import annotations

from datetime import timedelta

from botocore.exceptions import ClientError

from .. import keys
from ..dynamo.boundary import error_code, translate_errors
from ..dynamo.client import client, table_name
from ..dynamo.codec import deserialize, serialize
from ..dynamo.conditions import Attr, expression
from ..errors import CatalogUnavailable
from ..validate import check_text, expires_in, utc_now

KEPT_DAYS = 30  # Stripe retries an event for 3 days; its ID is remembered longer
STALE_SECONDS = 120  # longer than any handling takes (its DynamoDB and Stripe time limits)
HANDLING, HANDLED = "handling", "handled"


def payment_event_claim(*, event_id: str, event_type: str) -> bool:
    """True for the caller that claims this event ID (one conditional PutItem): the first, or one after a claim
    left `handling` for STALE_SECONDS; False once it was handled. CatalogUnavailable (a 503: the provider
    delivers it again later) while another request is handling it."""
    check_text("Event ID", event_id, 255)
    now = utc_now()
    item = {**keys.payment_event_key(event_id), "type": "PAYMENT_EVENT", "eventType": event_type[:100],
            "status": HANDLING, "at": now.isoformat(timespec="microseconds"),
            "expiresAt": expires_in(KEPT_DAYS * 86400)}
    stale = (now - timedelta(seconds=STALE_SECONDS)).isoformat(timespec="microseconds")
    try:
        with translate_errors():
            client().put_item(TableName=table_name(), Item=serialize(item),
                              **expression(condition=Attr("PK").not_exists()
                                           | (Attr("status").eq(HANDLING) & Attr("at").lt(stale))),
                              ReturnValuesOnConditionCheckFailure="ALL_OLD")
    except ClientError as exc:
        if error_code(exc) != "ConditionalCheckFailedException":
            raise
        old = deserialize(exc.response.get("Item") or {})
        if old.get("status") == HANDLING:
            raise CatalogUnavailable("This event is being handled by another request; send it again later.") from exc
        return False
    return True


def payment_event_handled(*, event_id: str) -> None:
    """Mark a claimed event handled (one UpdateItem): later deliveries change nothing."""
    with translate_errors():
        client().update_item(TableName=table_name(), Key=serialize(keys.payment_event_key(event_id)),
                             UpdateExpression="SET #status = :handled",
                             **expression(names={"#status": "status"}, values={":handled": HANDLED}))


def payment_event_release(*, event_id: str) -> None:
    """Forget a claimed event whose handling failed (one DeleteItem), so its next delivery is handled."""
    with translate_errors():
        client().delete_item(TableName=table_name(), Key=serialize(keys.payment_event_key(event_id)))
