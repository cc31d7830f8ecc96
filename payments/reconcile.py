"""reconcile_payments: checkouts whose payment was asked for but whose order is not placed (a crash or
DynamoDB down between the authorisation and the order, a shopper who never came back from 3-D Secure).
Each is settled as Stripe says: an authorisation becomes its order if it still can, else it is voided;
one never authorised is given up after ABANDON_SECONDS (an authorisation still waiting is cancelled)."""
import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime

from catalog import gateway

from . import placing, stripe_api
from .stripe_api import CardDeclined, Intent, PaymentRefused

log = logging.getLogger(__name__)

GRACE_SECONDS = 60  # a checkout younger than this is the shopper's browser's to finish
ABANDON_SECONDS = 3600  # a payment not authorised after this long is given up
REASK_SECONDS = 23 * 3600  # Stripe keeps an idempotency key 24 hours: asking again is safe only before


@dataclass
class Summary:
    placed: list[str] = field(default_factory=list)
    voided: list[str] = field(default_factory=list)
    waiting: list[str] = field(default_factory=list)

    def __str__(self):
        return (f"reconcile_payments: {len(self.placed)} placed, {len(self.voided)} voided, "
                f"{len(self.waiting)} still waiting")


def reconcile(*, grace_seconds: int | None = None, abandon_seconds: int | None = None) -> Summary:
    """One pass over the checkouts still waiting for their payment (a Query a day and shard, no Scan)."""
    grace_seconds = GRACE_SECONDS if grace_seconds is None else grace_seconds
    abandon_seconds = ABANDON_SECONDS if abandon_seconds is None else abandon_seconds
    summary = Summary()
    for pending in gateway.payments_pending(older_than_seconds=grace_seconds):
        age = (datetime.now(UTC) - pending.created_at).total_seconds()
        intent = _intent(pending, age)
        if intent is None:
            kind = placing.WAITING_OUTCOME
            if age >= abandon_seconds and gateway.payment_pending_settle(
                    pending=pending, status=placing.VOIDED, reason="never authorised"):
                kind = placing.VOIDED_OUTCOME
        elif intent.status in ("requires_capture", "succeeded", "canceled"):
            kind = placing.place_authorised(intent, pending=pending).kind
            kind = placing.VOIDED_OUTCOME if intent.status == "canceled" else kind
        elif age >= abandon_seconds:
            stripe_api.void(intent.id)
            gateway.payment_pending_settle(pending=pending, status=placing.VOIDED, intent_id=intent.id,
                                           reason="never authorised")
            kind = placing.VOIDED_OUTCOME
        else:
            kind = placing.WAITING_OUTCOME
        {placing.PLACED_OUTCOME: summary.placed, placing.VOIDED_OUTCOME: summary.voided}.get(
            kind, summary.waiting).append(pending.order_id)
    return summary


def _intent(pending: gateway.PendingPayment, age: float) -> Intent | None:
    """The checkout's PaymentIntent: the one recorded, or (the answer was lost before it was recorded) the one
    Stripe answers when asked again with the same idempotency key; None when there is none to find."""
    if pending.intent_id:
        return stripe_api.intent_get(pending.intent_id)
    if not (pending.intent_key and pending.provider_customer and pending.card) or age >= REASK_SECONDS:
        return None
    try:
        return stripe_api.authorise(amount=pending.amount, currency=pending.currency,
                                    customer=pending.provider_customer, card=pending.card,
                                    order_id=pending.order_id, key=pending.intent_key)
    except (CardDeclined, PaymentRefused) as exc:
        log.info("Checkout %s: its payment was refused (%s)", pending.order_id, exc)
        return None
