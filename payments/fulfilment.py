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
from common.numbers import amount_in

from . import stripe_api
from .money import from_cents, to_cents
from .stripe_api import CardDeclined, PaymentRefused

states = gateway.payment_states


class RefusedAfterChange(PaymentRefused):
    """Stripe refused a step after the order was changed (cancelled, its refund refused; a lapsed authorisation
    recorded as failed): `str()` says what changed."""

CANCELLED = "cancelled"  # the order's status once cancelled


def ship(order: gateway.Order) -> gateway.Order:
    """Capture the order's authorisation, then mark it shipped; PaymentRefused (Stripe's reason) changes nothing."""
    if not order.is_open:
        raise OrderStatusRefused(order.order_id, order.status, "shipped")
    payment = order.payment
    if payment is not None and payment.status in (states.VOIDED, states.FAILED, states.REFUNDED,
                                                  states.PARTIALLY_REFUNDED):
        raise PaymentRefused(f"Its payment is {payment.status}: nothing can be charged for it.")
    if payment is not None and payment.status == states.AUTHORISED:
        intent = _captured(order, payment)
        _record(order, replace(payment, status=states.CAPTURED, captured=intent.captured or payment.authorised))
    return gateway.order_ship(customer_id=order.customer_id, order_id=order.order_id)


def _captured(order: gateway.Order, payment: gateway.Payment) -> stripe_api.Intent:
    """Capture the authorisation. Refused: captured before (a retry after the order's write failed) is fine; an
    authorisation that can no longer be captured (it lapsed after 7 days and Stripe cancelled it, or the bank
    refused the capture) is recorded as the payment `failed`, and the refusal raised."""
    try:
        return stripe_api.capture(payment.intent_id)
    except (PaymentRefused, CardDeclined) as exc:
        intent = stripe_api.intent_get(payment.intent_id)
        if intent.status == "succeeded":
            return intent
        if intent.status != "requires_capture":
            _record(order, replace(payment, status=states.FAILED))
            raise RefusedAfterChange(f"Its payment could not be captured ({exc}): it is recorded as failed, and "
                                 "nothing was charged. Cancel the order, or ask the customer to pay again.") from exc
        raise


def cancel(order: gateway.Order, *, who: str) -> gateway.Order:
    """Void the authorisation, then cancel the order and put its stock back; or, for a captured payment, cancel
    the order first and then refund what was captured.

    Ship and Cancel pressed at once never end shipped and refunded: an authorisation is voided at Stripe before
    the order changes, and Stripe refuses to void what ship captured (or to capture what cancel voided); a captured
    payment is refunded only after the order's own conditional write (still open: cancelled) succeeded, so a ship
    that won leaves it captured. A cancelled order whose refund failed is refunded by cancelling it again."""
    payment = order.payment
    if order.status == CANCELLED and payment is not None and payment.status in (
            states.CAPTURED, states.PARTIALLY_REFUNDED) and payment.refundable > 0:
        _refund_all(order, payment)  # the order was cancelled, its refund failed: finish the job
        return order
    if not order.is_open:
        raise OrderStatusRefused(order.order_id, order.status, "cancelled")
    if payment is not None and payment.status == states.AUTHORISED:
        stripe_api.void(payment.intent_id)
        _record(order, replace(payment, status=states.VOIDED))
    cancelled = gateway.order_cancel(customer_id=order.customer_id, order_id=order.order_id, who=who)
    if payment is not None and payment.status != states.AUTHORISED and payment.refundable > 0:
        try:
            _refund_all(order, payment)
        except PaymentRefused as exc:
            raise RefusedAfterChange(f"The order is cancelled and its stock back, but Stripe refused its refund: {exc} "
                               "Cancel it again to refund it.") from exc
    return cancelled


def _refund_all(order: gateway.Order, payment: gateway.Payment) -> None:
    refunded = stripe_api.refund(payment.intent_id, amount=payment.refundable, refunded_before=payment.refunded)
    _record(order, replace(payment, status=states.REFUNDED, refunded=payment.refunded + refunded))


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
        raise InvalidInput(f"A refund is more than {amount_in(Decimal(0), payment.currency)} and at most "
                           f"{amount_in(from_cents(left), payment.currency)} (what is left to refund).")
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
