"""Stripe's events: what each changes. Handling is order-independent: placing is idempotent
(placing.place_authorised) and a payment on an order only moves forward (gateway.order_payment_update), so
an event late, early or twice changes nothing wrong."""
import logging
from dataclasses import replace

from catalog import gateway
from catalog.gateway import NotFound, valid_id

from . import placing, stripe_api
from .stripe_api import Intent, PaymentRefused

log = logging.getLogger(__name__)
states = gateway.payment_states

AUTHORISED = "payment_intent.amount_capturable_updated"
SUCCEEDED = "payment_intent.succeeded"
FAILED = "payment_intent.payment_failed"
CANCELED = "payment_intent.canceled"
REFUNDED = "charge.refunded"
EVENTS = (AUTHORISED, SUCCEEDED, FAILED, CANCELED, REFUNDED)  # what to register at Stripe


def handle(event: dict) -> str:
    """Apply one event; returns what it did (for the log and the tests). An event about an intent Stripe does
    not know (another account's, a deleted test one) is ignored."""
    kind, data = event.get("type", ""), (event.get("data") or {}).get("object") or {}
    if kind in (AUTHORISED, SUCCEEDED):
        # The authorisation's snapshot may be stale (cancelled since): the order is placed from the intent as it is.
        intent = _read(data.get("id")) if kind == AUTHORISED else Intent.from_stripe(data)
        if intent is None:
            return "ignored"
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
        intent = _read(data.get("payment_intent"))
        if intent is None:
            return "ignored"
        order = _order_of(intent)
        if order is not None:
            # It may come before payment_intent.succeeded: what was captured is recorded with the refund.
            refunded = int(data.get("amount_refunded") or 0)
            captured = max(order.payment.captured, int(data.get("amount_captured") or 0), intent.captured)
            status = states.REFUNDED if refunded >= captured else states.PARTIALLY_REFUNDED
            _record(order, intent, lambda p: replace(p, status=status, refunded=refunded, captured=captured))
        return "refunded"
    if kind == FAILED:
        log.info("Payment %s failed: %s", data.get("id"), (data.get("last_payment_error") or {}).get("message"))
        return "failed"
    return "ignored"


def _read(intent_id) -> Intent | None:
    """The intent as Stripe has it now; None when Stripe does not know it."""
    if not intent_id:
        return None
    try:
        return stripe_api.intent_get(str(intent_id or ""))
    except PaymentRefused as exc:
        log.info("Stripe does not know the intent %r of an event: %s", intent_id, exc)
        return None


def _order_of(intent: Intent):
    """The order `intent` pays for, if it was placed with it: found by the customer and order in the intent's
    metadata (an older intent without the customer: through its checkout, kept 30 days)."""
    if not valid_id(intent.order_id):
        return None
    customer_id = intent.customer_id
    if not valid_id(customer_id):
        pending = gateway.payment_pending_get(order_id=intent.order_id)
        if pending is None:
            return None
        customer_id = pending.customer_id
    try:
        order = gateway.order_get(customer_id=customer_id, order_id=intent.order_id)
    except NotFound:
        return None
    return order if order.payment is not None and order.payment.intent_id == intent.id else None


def _record(order, intent: Intent, change) -> bool:
    """Move the order's payment forward as the event says (nothing if it is as far or further already)."""
    if order.payment is None or order.payment.intent_id != intent.id:
        return False
    return gateway.order_payment_update(customer_id=order.customer_id, order_id=order.order_id,
                                        payment=change(order.payment))
