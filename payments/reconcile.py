"""reconcile_payments: checkouts whose payment was asked for but whose order is not placed (a crash or
DynamoDB down between the authorisation and the order, a shopper who never came back from 3-D Secure).
Each is settled as Stripe says: an authorisation becomes its order if it still can, else it is voided;
one never authorised is given up after ABANDON_SECONDS (the checkout first, then its intent cancelled).

Reconcile only reads what Stripe has (the recorded intent, or the intents of the checkout's Stripe customer)
and places or voids: it never asks for an authorisation, since the shopper may have been told that nothing
was charged. One checkout that fails (Stripe refuses a request, a write fails) is logged and counted, and the
pass goes on; Stripe out of reach ends the pass (PaymentUnavailable: the next pass tries again)."""
import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime

from catalog import gateway
from catalog.gateway import CatalogError

from . import placing, stripe_api
from .stripe_api import Intent, PaymentError, PaymentUnavailable

log = logging.getLogger(__name__)

GRACE_SECONDS = 60  # a checkout younger than this is the shopper's browser's to finish
ABANDON_SECONDS = 3600  # a payment not authorised after this long is given up
NEVER_AUTHORISED = "never authorised"


@dataclass
class Summary:
    placed: list[str] = field(default_factory=list)
    voided: list[str] = field(default_factory=list)
    waiting: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)

    def __str__(self):
        failed = f", {len(self.failed)} failed (see the log)" if self.failed else ""
        return (f"reconcile_payments: {len(self.placed)} placed, {len(self.voided)} voided, "
                f"{len(self.waiting)} still waiting{failed}")


def reconcile(*, grace_seconds: int | None = None, abandon_seconds: int | None = None) -> Summary:
    """One pass over the checkouts still waiting for their payment (a Query a day and shard, no Scan)."""
    grace_seconds = GRACE_SECONDS if grace_seconds is None else grace_seconds
    abandon_seconds = ABANDON_SECONDS if abandon_seconds is None else abandon_seconds
    summary = Summary()
    for pending in gateway.payments_pending(older_than_seconds=grace_seconds):
        try:
            kind = _settle(pending, abandon_seconds)
        except PaymentUnavailable:
            raise
        except (PaymentError, CatalogError) as exc:
            log.warning("reconcile_payments: checkout %s not settled this pass: %s", pending.order_id, exc)
            summary.failed.append(pending.order_id)
            continue
        {placing.PLACED_OUTCOME: summary.placed, placing.VOIDED_OUTCOME: summary.voided}.get(
            kind, summary.waiting).append(pending.order_id)
    return summary


def _settle(pending: gateway.PendingPayment, abandon_seconds: int) -> str:
    """Settle one checkout as Stripe says; returns the outcome's kind."""
    abandoned = (datetime.now(UTC) - pending.created_at).total_seconds() >= abandon_seconds
    intent = _intent(pending)
    if intent is not None and intent.status in ("requires_capture", "succeeded", "canceled"):
        kind = placing.place_authorised(intent, pending=pending).kind
        return placing.VOIDED_OUTCOME if intent.status == "canceled" else kind
    if not abandoned:
        return placing.WAITING_OUTCOME
    # Given up: the checkout is settled first, so that an authorisation arriving later is voided by whoever
    # sees it (placing.place_authorised); its intent is cancelled only by the pass that settled it.
    intent_id = intent.id if intent is not None else ""
    if not gateway.payment_pending_settle(pending=pending, status=placing.VOIDED, intent_id=intent_id,
                                          reason=NEVER_AUTHORISED):
        return placing.WAITING_OUTCOME
    if intent is not None:
        stripe_api.void(intent.id)
    return placing.VOIDED_OUTCOME


def _intent(pending: gateway.PendingPayment) -> Intent | None:
    """The checkout's PaymentIntent: the one recorded, or (the answer was lost before it was recorded) the one
    among its Stripe customer's intents that names this checkout; None when there is none."""
    if pending.intent_id:
        return stripe_api.intent_get(pending.intent_id)
    if not pending.provider_customer:
        return None  # the card was never kept at Stripe: no intent was asked for
    return stripe_api.intent_of_checkout(customer=pending.provider_customer, order_id=pending.order_id)
