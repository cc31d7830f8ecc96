"""The card payment recorded on an order: moved only forward (a higher rank, or more refunded), so a
late or repeated event never takes a captured payment back to authorised."""
from __future__ import annotations

from botocore.exceptions import ClientError

from .. import keys
from ..dynamo.boundary import error_code, translate_errors
from ..dynamo.client import client, table_name
from ..dynamo.codec import serialize
from ..dynamo.conditions import Attr, expression
from ..orders.entities import Payment
from ..validate import check_id, utc_now


def order_payment_update(*, customer_id: str, order_id: str, payment: Payment) -> bool:
    """Record `payment` on the order (one conditional UpdateItem): only for the same authorisation and
    only forward. True if it was recorded, False if the order's payment is as far or further already."""
    check_id("Customer", customer_id)
    check_id("Order", order_id)
    recorded = {name: value for name, value in payment.to_attributes().items() if name != "paymentIntentId"}
    setting = ", ".join(f"{name} = :{name}" for name in recorded)
    # The same authorisation, and forward: a higher rank, or the same rank with more refunded.
    forward = Attr("paymentIntentId").eq(payment.intent_id) & (
        Attr("paymentRank").lt(payment.rank)
        | (Attr("paymentRank").eq(payment.rank) & Attr("amountRefunded").lt(payment.refunded)))
    values = {f":{name}": value for name, value in recorded.items()}
    try:
        with translate_errors():
            client().update_item(
                TableName=table_name(), Key=serialize(keys.order_key(customer_id, order_id)),
                UpdateExpression=f"SET {setting}, paymentChangedAt = :at",
                **expression(condition=forward,
                             values=values | {":at": utc_now().isoformat(timespec="microseconds")}),
            )
    except ClientError as exc:
        if error_code(exc) == "ConditionalCheckFailedException":
            return False
        raise
    return True
