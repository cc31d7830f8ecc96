"""Stripe, through its official library (`stripe`): the only module that calls it. Every call has a
timeout and an idempotency key where it changes something, and Stripe's errors become the shop's:
CardDeclined (the card was refused: Stripe's message for the shopper), PaymentRefused (Stripe refused
the request as it stands: its message), PaymentUnavailable (Stripe out of reach or failing: a 503).

PaymentIntents with manual capture: authorised at checkout, captured when shipped. The card comes from
Stripe.js's createToken; the token becomes a card of a Stripe customer (Customer.create with `source`),
which the PaymentIntent is confirmed with. Both Stripe and localstripe take this flow (docs/payments.md).
"""
import logging
import threading
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from catalog.gateway import CatalogUnavailable

log = logging.getLogger(__name__)


class PaymentError(Exception):
    """Base of the payment errors."""


class CardDeclined(PaymentError):
    """The card was refused; `str()` is Stripe's message, meant for the shopper."""

    def __init__(self, message: str, code: str = ""):
        self.code = code
        super().__init__(message or "Your card was declined.")


class PaymentRefused(PaymentError):
    """Stripe refused the request as it stands (a capture of a voided payment, a refund of more than is
    left, ...); `str()` is Stripe's message."""


class PaymentUnavailable(CatalogUnavailable):
    """Stripe cannot be reached, timed out, or failed: nothing can be said about the payment now (503)."""


@dataclass(frozen=True)
class Intent:
    """A PaymentIntent as the shop needs it (amounts in cents)."""

    id: str
    status: str  # requires_capture (authorised), requires_action (3-D Secure), succeeded, canceled, ...
    amount: int
    currency: str
    order_id: str
    client_secret: str = ""
    amount_received: int = 0
    error: str = ""  # the last payment error's message (a refused card)

    @property
    def authorised(self) -> bool:
        return self.status == "requires_capture"

    @property
    def captured(self) -> int:
        """The amount captured (localstripe's intents carry no amount_received: all of it, once succeeded)."""
        return (self.amount_received or self.amount) if self.status == "succeeded" else 0

    @classmethod
    def from_stripe(cls, data: Any) -> "Intent":
        data = data if isinstance(data, dict) else data.to_dict()
        error = data.get("last_payment_error") or {}
        return cls(id=data["id"], status=data.get("status") or "", amount=int(data.get("amount") or 0),
                   currency=(data.get("currency") or "").upper(), order_id=(data.get("metadata") or {}).get(
                       "order_id", ""), client_secret=data.get("client_secret") or "",
                   amount_received=int(data.get("amount_received") or 0), error=error.get("message") or "")


_lock = threading.Lock()
_sent = 0
_clients: dict[tuple, Any] = {}


def requests_sent() -> int:
    """How many requests this process has sent to Stripe (tests and the benchmark count them)."""
    return _sent


def client() -> Any:
    """A StripeClient for the settings in force (STRIPE_API_BASE: localstripe under `make run` and tests).
    The library is imported here, on first use (a fifth of a second): pages that take no payment never wait
    for it, and with card payments on, PaymentsConfig.ready imports it as a worker starts."""
    import stripe

    config = (settings.STRIPE_SECRET_KEY, settings.STRIPE_API_BASE, settings.STRIPE_TIMEOUT)
    found = _clients.get(config)
    if found is None:
        base = {"api": settings.STRIPE_API_BASE} if settings.STRIPE_API_BASE else None
        found = stripe.StripeClient(
            settings.STRIPE_SECRET_KEY or "sk_unset", base_addresses=base, max_network_retries=1,
            http_client=stripe.RequestsClient(timeout=settings.STRIPE_TIMEOUT))
        _clients[config] = found
    return found


def _call(what: str, send: Any) -> Any:
    """Send one request to Stripe (`send()`), its errors turned into the shop's."""
    import stripe

    global _sent
    with _lock:
        _sent += 1
    try:
        return send()
    except stripe.CardError as exc:
        raise CardDeclined(exc.user_message or str(exc.error.message if exc.error else exc), exc.code or "") from exc
    except (stripe.InvalidRequestError, stripe.IdempotencyError) as exc:
        raise PaymentRefused(exc.user_message or "Stripe refused the request.") from exc
    except (stripe.AuthenticationError, stripe.PermissionError) as exc:
        log.error("Stripe refused the shop's key (%s): %s", what, exc.user_message)
        raise PaymentUnavailable("Card payments are unavailable right now.") from exc
    except stripe.StripeError as exc:  # no connection, a timeout, a rate limit, Stripe's own failure
        log.warning("Stripe did not answer %s: %s", what, exc.user_message or type(exc).__name__)
        raise PaymentUnavailable("Card payments are unavailable right now.") from exc


def card_of_token(*, token: str, order_id: str, customer_id: str, email: str = "") -> tuple[str, str]:
    """The card a Stripe.js token stands for, kept as the card of a new Stripe customer: (customer, card).
    CardDeclined when Stripe refuses to keep the card (most declined test cards, such as 4000 0000 0000 0002)."""
    params: dict[str, Any] = {"source": token, "metadata": {"order_id": order_id, "customer_id": customer_id}}
    if email:
        params["email"] = email
    customer = _call("customer", lambda: client().v1.customers.create(
        params=params, options={"idempotency_key": f"{order_id}-{token}-customer"}))
    return customer.id, customer.default_source if isinstance(customer.default_source, str) else (
        customer.default_source.id)


def authorise(*, amount: int, currency: str, customer: str, card: str, order_id: str, key: str) -> Intent:
    """Create and confirm a PaymentIntent with manual capture for `amount` cents (the idempotency `key` is
    derived from the order: asking again with it answers the same intent). CardDeclined when the card is
    refused; an intent that needs 3-D Secure comes back `requires_action` (Stripe.js finishes it)."""
    params: dict[str, Any] = {
        "amount": amount, "currency": currency.lower(), "customer": customer, "payment_method": card,
        "payment_method_types": ["card"], "capture_method": "manual", "confirm": True,
        "metadata": {"order_id": order_id}}
    return Intent.from_stripe(_call("authorise", lambda: client().v1.payment_intents.create(
        params=params, options={"idempotency_key": key})))


def intent_get(intent_id: str) -> Intent:
    return Intent.from_stripe(_call("retrieve", lambda: client().v1.payment_intents.retrieve(intent_id)))


def capture(intent_id: str) -> Intent:
    """Capture an authorisation in full; PaymentRefused (Stripe's reason) when it cannot be."""
    return Intent.from_stripe(_call("capture", lambda: client().v1.payment_intents.capture(
        intent_id, options={"idempotency_key": f"capture-{intent_id}"})))


def void(intent_id: str) -> Intent:
    """Cancel an authorisation (nothing is charged); one cancelled before is answered as it is."""
    try:
        return Intent.from_stripe(_call("void", lambda: client().v1.payment_intents.cancel(
            intent_id, options={"idempotency_key": f"void-{intent_id}"})))
    except PaymentRefused:
        intent = intent_get(intent_id)
        if intent.status == "canceled":
            return intent
        raise


def refund(intent_id: str, *, amount: int, refunded_before: int) -> int:
    """Refund `amount` cents of a captured payment; returns the amount refunded. The key names the amount
    refunded before, so a resent form refunds once."""
    created = _call("refund", lambda: client().v1.refunds.create(
        params={"payment_intent": intent_id, "amount": amount},
        options={"idempotency_key": f"refund-{intent_id}-{refunded_before}-{amount}"}))
    return int(created.amount)


def webhook_event(payload: bytes, signature: str | None) -> dict[str, Any]:
    """The event of a webhook request, checked against STRIPE_WEBHOOK_SECRET (the library's construct_event).
    ValueError for a bad or missing signature or a body that is not an event."""
    import stripe

    if not settings.STRIPE_WEBHOOK_SECRET:
        raise ValueError("STRIPE_WEBHOOK_SECRET is not set: no webhook can be checked")
    try:
        event = stripe.Webhook.construct_event(payload, signature or "", settings.STRIPE_WEBHOOK_SECRET)
    except stripe.SignatureVerificationError as exc:
        raise ValueError("bad signature") from exc
    return event.to_dict()
