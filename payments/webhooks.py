"""Stripe's events: what each changes. Handling is order-independent: placing is idempotent
(placing.place_authorised) and a payment on an order only moves forward (gateway.order_payment_update), so
an event late, early or twice changes nothing wrong."""
import logging
from dataclasses import replace

from catalog import gateway
from catalog.gateway import NotFound, valid_id

from . import placing, stripe_api
from .stripe_api import Intent

log = logging.getLogger(__name__)
states = gateway.payment_states

AUTHORISED = "payment_intent.amount_capturable_updated"
SUCCEEDED = "payment_intent.succeeded"
FAILED = "payment_intent.payment_failed"
CANCELED = "payment_intent.canceled"
REFUNDED = "charge.refunded"
EVENTS = (AUTHORISED, SUCCEEDED, FAILED, CANCELED, REFUNDED)  # what to register at Stripe


def handle(event: dict) -> str:
    """Apply one event; returns what it did (for the log and the tests)."""
    kind, data = event.get("type", ""), (event.get("data") or {}).get("object") or {}
    if kind in (AUTHORISED, SUCCEEDED):
        intent = Intent.from_stripe(data)
        outcome = placing.place_authorised(intent)
        if kind == SUCCEEDED and outcome.order is not None:
            captured = intent.captured
            _record(outcome.order, intent, lambda p: replace(p, status=states.CAPTURED, captured=captured))
        return outcome.kind
    if kind == CANCELED:
        intent = Intent.from_stripe(data)
        placing.place_authorised(intent)  # settles its checkout as voided if it was still waiting
        order = _order_of(intent)
        if order is not None:
            _record(order, intent, lambda p: replace(p, status=states.VOIDED))
        return "voided"
    if kind == REFUNDED:
        intent = stripe_api.intent_get(data.get("payment_intent") or "")
        order = _order_of(intent)
        if order is not None:
            refunded = int(data.get("amount_refunded") or 0)
            captured = max(order.payment.captured, int(data.get("amount_captured") or 0))
            status = states.REFUNDED if refunded >= captured else states.PARTIALLY_REFUNDED
            _record(order, intent, lambda p: replace(p, status=status, refunded=refunded))
        return "refunded"
    if kind == FAILED:
        log.info("Payment %s failed: %s", data.get("id"), (data.get("last_payment_error") or {}).get("message"))
        return "failed"
    return "ignored"


def _order_of(intent: Intent):
    """The order `intent` pays for, if it was placed with it."""
    if not valid_id(intent.order_id):
        return None
    pending = gateway.payment_pending_get(order_id=intent.order_id)
    if pending is None:
        return None
    try:
        order = gateway.order_get(customer_id=pending.customer_id, order_id=pending.order_id)
    except NotFound:
        return None
    return order if order.payment is not None and order.payment.intent_id == intent.id else None


def _record(order, intent: Intent, change) -> bool:
    """Move the order's payment forward as the event says (nothing if it is as far or further already)."""
    if order.payment is None or order.payment.intent_id != intent.id:
        return False
    return gateway.order_payment_update(customer_id=order.customer_id, order_id=order.order_id,
                                        payment=change(order.payment))
