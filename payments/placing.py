"""The order of an authorised card payment, placed exactly once: the one function that the shopper's
browser coming back, the webhook and reconcile_payments all call, whichever comes first.

The order's own transaction refuses a second order with the same ID (gateway.order_place answers the
order placed), so two callers at once place one order; the confirmation email is claimed on the order
(one conditional write), so it is sent once. An authorisation that cannot become an order (the stock is
gone, the checkout was settled, an earlier attempt's amount) is voided at once: never a charge without
an order, never an order without its authorisation."""
import logging
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.core.mail import send_mail
from django.template.loader import render_to_string

from catalog import gateway
from catalog.gateway import IdempotencyConflict, OrderRejected, Payment, valid_id
from shop.accounts import send_order_confirmation
from shop.messages import line_problem_text

from . import stripe_api
from .stripe_api import Intent

log = logging.getLogger(__name__)
states = gateway.payment_states
PENDING, PLACED, VOIDED = states.PENDING, states.PLACED, states.VOIDED

PLACED_OUTCOME, VOIDED_OUTCOME, WAITING_OUTCOME = "placed", "voided", "waiting"
STOCK_GONE = "Some of what you paid for sold out before your payment came through, so nothing was charged"


@dataclass(frozen=True)
class Outcome:
    kind: str  # placed, voided (nothing charged), waiting (not authorised yet: 3-D Secure, or refused)
    order: gateway.Order | None = None
    reasons: tuple[str, ...] = field(default=())  # what the shopper is told when it was voided


def place_authorised(intent: Intent, *, pending: gateway.PendingPayment | None = None,
                     mail: bool = True) -> Outcome:
    """Place the order `intent` (an authorised PaymentIntent) pays for, once; or void the authorisation.
    `mail`: send the confirmation email here (the webhook, reconcile); the browser's checkout sends it."""
    if not valid_id(intent.order_id):
        return Outcome(WAITING_OUTCOME)  # not one of the shop's checkouts (no order ID): none of its business
    if pending is None:
        pending = gateway.payment_pending_get(order_id=intent.order_id)
    if intent.status not in ("requires_capture", "succeeded"):
        if intent.status == "canceled" and pending is not None and pending.intent_id == intent.id:
            gateway.payment_pending_settle(pending=pending, status=VOIDED, intent_id=intent.id)
        return Outcome(WAITING_OUTCOME)
    if pending is None:
        return _void(intent, "This payment belongs to no checkout of the shop.")
    if pending.status == PLACED:
        order = gateway.order_get(customer_id=pending.customer_id, order_id=pending.order_id)
        return _placed_before(intent, order)
    if pending.status == VOIDED:
        return _void(intent, pending.reason or "This checkout was given up.")
    if intent.amount != pending.amount or intent.currency != pending.currency.upper():
        return _void(intent, "The cart changed after this payment was asked for; nothing was charged.")
    return _place(intent, pending, mail=mail)


def _place(intent: Intent, pending: gateway.PendingPayment, *, mail: bool) -> Outcome:
    captured = intent.captured
    payment = Payment(intent_id=intent.id, status=states.CAPTURED if captured else states.AUTHORISED,
                      currency=intent.currency, authorised=intent.amount, captured=captured)
    try:
        order = gateway.order_place(
            customer_id=pending.customer_id, customer_name=pending.customer_name, order_id=pending.order_id,
            token=pending.token, lines=pending.lines, customer_email=pending.customer_email or None,
            address=pending.address, payment=payment)
    except OrderRejected as exc:
        reasons = tuple(line_problem_text(p) for p in exc.problems) + (STOCK_GONE + ".",)
        outcome = _void(intent, " ".join(reasons))
        if gateway.payment_pending_settle(pending=pending, status=VOIDED, intent_id=intent.id, reason=STOCK_GONE):
            _tell_voided(pending, mail=mail)
        return outcome
    except IdempotencyConflict:
        return _void(intent, "This checkout's order was placed with other lines; nothing was charged.")
    if order.payment is None or order.payment.intent_id != intent.id:
        return _placed_before(intent, order)
    gateway.payment_pending_settle(pending=pending, status=PLACED, intent_id=intent.id)
    if mail:
        send_confirmation(order)
    return Outcome(PLACED_OUTCOME, order=order)


def _placed_before(intent: Intent, order: gateway.Order) -> Outcome:
    """The order was placed already: with this authorisation, or with another (this one is voided)."""
    if order.payment is not None and order.payment.intent_id != intent.id and intent.status == "requires_capture":
        stripe_api.void(intent.id)
        log.info("Order %s is paid by %s: a second authorisation %s was voided", order.order_id,
                 order.payment.intent_id, intent.id)
    return Outcome(PLACED_OUTCOME, order=order)


def _void(intent: Intent, reason: str) -> Outcome:
    if intent.status == "requires_capture":
        stripe_api.void(intent.id)
        log.info("Authorisation %s (order %s) voided: %s", intent.id, intent.order_id, reason)
    return Outcome(VOIDED_OUTCOME, reasons=(reason,))


def _user(customer_id: str):
    return get_user_model()._default_manager.filter(customer_id=customer_id).first()


def send_confirmation(order: gateway.Order) -> bool:
    """The order's confirmation email, sent once (claimed on the order), to the account that placed it."""
    user = _user(order.customer_id)
    return bool(user) and send_order_confirmation(user, order)


def _tell_voided(pending: gateway.PendingPayment, *, mail: bool) -> None:
    """An authorisation voided away from the browser (the webhook, reconcile): the shopper hears it by email."""
    if not mail or not pending.customer_email:
        return
    try:
        send_mail(subject="Your Fromatoz order could not be placed",
                  message=render_to_string("shop/email/payment_voided.txt", {"pending": pending}),
                  from_email=None, recipient_list=[pending.customer_email])
    except Exception:
        log.exception("Checkout %s: the email saying its payment was voided was not sent", pending.order_id)

