"""Staff's order actions with a card payment: ship captures first, cancel voids (or refunds what was
captured) and puts the stock back, refund gives back part or all of a captured payment. Stripe is asked
first and the order changed only if Stripe agreed; each step is safe to repeat (a voided payment is not
voided again, a captured one not captured again), so a retry after a failure finishes the job."""
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from django.conf import settings

from catalog import gateway
from catalog.gateway import InvalidInput, OrderStatusRefused

from . import stripe_api
from .money import from_cents, to_cents
from .stripe_api import PaymentRefused

states = gateway.payment_states


def ship(order: gateway.Order) -> gateway.Order:
    """Capture the order's authorisation, then mark it shipped; PaymentRefused (Stripe's reason) changes nothing."""
    if not order.is_open:
        raise OrderStatusRefused(order.order_id, order.status, "shipped")
    payment = order.payment
    if payment is not None and payment.status in (states.VOIDED, states.FAILED):
        raise PaymentRefused(f"Its payment is {payment.status}: nothing can be charged for it.")
    if payment is not None and payment.status == states.AUTHORISED:
        intent = _captured(payment.intent_id)
        _record(order, replace(payment, status=states.CAPTURED, captured=intent.captured or payment.authorised))
    return gateway.order_ship(customer_id=order.customer_id, order_id=order.order_id)


def _captured(intent_id: str) -> stripe_api.Intent:
    try:
        return stripe_api.capture(intent_id)
    except PaymentRefused:
        intent = stripe_api.intent_get(intent_id)
        if intent.status == "succeeded":  # captured before (a retry after the order's write failed)
            return intent
        raise


def cancel(order: gateway.Order, *, who: str) -> gateway.Order:
    """Void the authorisation (or refund what was captured), then cancel the order and put its stock back."""
    if not order.is_open:
        raise OrderStatusRefused(order.order_id, order.status, "cancelled")
    payment = order.payment
    if payment is not None and payment.status == states.AUTHORISED:
        stripe_api.void(payment.intent_id)
        _record(order, replace(payment, status=states.VOIDED))
    elif payment is not None and payment.refundable > 0:
        refunded = stripe_api.refund(payment.intent_id, amount=payment.refundable, refunded_before=payment.refunded)
        _record(order, replace(payment, status=states.REFUNDED, refunded=payment.refunded + refunded))
    return gateway.order_cancel(customer_id=order.customer_id, order_id=order.order_id, who=who)


def refund(order: gateway.Order, amount: Decimal | None) -> Decimal:
    """Refund `amount` (all that is left: None) of a captured payment; returns the amount refunded."""
    payment = order.payment
    if payment is None or payment.status == states.AUTHORISED:
        raise InvalidInput("Nothing was charged for this order yet: cancel it to void its payment.")
    left = payment.refundable
    cents = left if amount is None else to_cents(amount)
    if left <= 0:
        raise InvalidInput("Everything charged for this order is refunded already.")
    if not 0 < cents <= left:
        raise InvalidInput(f"A refund is more than €0.00 and at most {from_cents(left)} (what is left to refund).")
    refunded = payment.refunded + stripe_api.refund(payment.intent_id, amount=cents, refunded_before=payment.refunded)
    status = states.REFUNDED if refunded >= payment.captured else states.PARTIALLY_REFUNDED
    _record(order, replace(payment, status=status, refunded=refunded))
    return from_cents(cents)


def _record(order: gateway.Order, payment: gateway.Payment) -> None:
    gateway.order_payment_update(customer_id=order.customer_id, order_id=order.order_id, payment=payment)


def lapsing(orders) -> list:
    """The open orders whose authorisation lapses soon (Stripe voids it 7 days after): ship or cancel them."""
    before = datetime.now(UTC) - timedelta(days=settings.PAYMENT_LAPSE_WARNING_DAYS)
    return [o for o in orders if o.payment is not None and o.payment.status == states.AUTHORISED
            and o.placed_at <= before]
