"""Back-in-stock alerts, the shop's side: the signed links in their emails, the emails, and the job's
pass (run_stock_jobs) that claims due alerts and sends what is due. DynamoDB is the gateway's
(catalog/gateway/alerts/); nothing here runs in a stock write, so a slow or failing mail server
delays alerts and never a sale, a receipt or a cancellation.

Crash safety: an alert's email is sent under a lease and marked sent after the mail server took it.
A job that stops between the two leaves the alert leased; after LEASE_SECONDS the next pass sends it
again (at least once; the same Message-ID both times). A job that stops before sending loses nothing.
An email that fails STOCK_ALERT_MAIL_ATTEMPTS times (counted on the alert's item) is given up.
"""
import dataclasses
import heapq
import logging

from django.conf import settings
from django.core import signing
from django.core.mail import EmailMultiAlternatives, get_connection
from django.template.loader import render_to_string
from django.urls import reverse

from catalog.gateway import (
    alert_give_up,
    alert_lease,
    alert_mark_sent,
    alerts_claim,
    alerts_due,
    alerts_outbox,
    keys,
)

log = logging.getLogger(__name__)

SALT = "fromatoz.stock-alert"
# A confirmation link works this long (an unconfirmed alert is forgotten after PENDING_DAYS anyway).
CONFIRM_MAX_AGE = 7 * 24 * 3600


def link_token(alert):
    """The signed part of an alert's links (confirm, unsubscribe): owner, product and alert ID."""
    return signing.dumps({"o": alert.owner, "p": alert.product_id, "a": alert.alert_id}, salt=SALT, compress=True)


def read_link_token(token, *, max_age=None):
    """(owner, product ID, alert ID) of a signed link; None when it was tampered with or is too old."""
    try:
        data = signing.loads(token, salt=SALT, max_age=max_age)
        return data["o"], data["p"], data["a"]
    except (signing.BadSignature, KeyError, TypeError):
        return None


def _absolute(path):
    return f"{settings.SHOP_BASE_URL}{path}"


def alert_email(alert):
    """The email of a leased alert: its confirmation (a guest's pending alert) or the alert itself.
    Both carry a one-click unsubscribe (RFC 8058: List-Unsubscribe with an https URL and
    List-Unsubscribe-Post) and the same link in the text. The Message-ID is the alert's own, so a
    second send after a crash is recognisably the same message."""
    token = link_token(alert)
    unsubscribe = _absolute(reverse("alert_unsubscribe", args=[token]))
    context = {
        "alert": alert, "unsubscribe_url": unsubscribe,
        "product_url": _absolute(reverse("product", args=[alert.product_id])),
        "confirm_url": _absolute(reverse("alert_confirm", args=[token])),
    }
    kind = "confirm" if alert.is_confirmation else "back"
    subject = (f"Confirm your alert for {alert.product_name}" if kind == "confirm"
               else f"Back in stock: {alert.product_name}")
    domain = settings.DEFAULT_FROM_EMAIL.rsplit("@", 1)[-1].strip(">") or "localhost"
    return EmailMultiAlternatives(
        subject=subject,
        body=render_to_string(f"shop/email/stock_alert_{kind}.txt", context),
        to=[alert.email],
        headers={
            "List-Unsubscribe": f"<{unsubscribe}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
            "Message-ID": f"<alert-{kind}-{alert.alert_id}@{domain}>",
            "Auto-Submitted": "auto-generated",
        },
    )


@dataclasses.dataclass
class PassSummary:
    claimed: int = 0
    sent: int = 0
    failed: int = 0
    given_up: int = 0

    def __str__(self):
        return (f"alerts: {self.claimed} claimed, {self.sent} emails sent, {self.failed} failed (tried again later)"
                + (f", {self.given_up} given up" if self.given_up else ""))


def send_due_alerts(*, margin=None, now=None):
    """One pass: every due product's units go to its waiting alerts (alerts_claim), then every email
    due (confirmations and claimed alerts, oldest asked first) is sent under a lease and marked sent.
    A failed email stays due (its lease runs out, the next pass tries again), until it has failed
    STOCK_ALERT_MAIL_ATTEMPTS times: then the alert is given up (`failed`) and logged as an error."""
    margin = settings.STOCK_ALERT_MARGIN if margin is None else margin
    summary = PassSummary()
    for shard in range(keys.ALERT_SHARDS):
        for due in alerts_due(shard=shard):
            summary.claimed += alerts_claim(product_id=due.product_id, margin=margin)
    shards = [alerts_outbox(shard=shard) for shard in range(keys.ALERT_SHARDS)]
    connection = get_connection(fail_silently=False)
    for alert in heapq.merge(*shards, key=lambda a: (a.asked_at, a.alert_id)):
        leased = alert_lease(alert, now=now)
        if leased is None:
            continue  # another job has it, or it is no longer due
        try:
            message = alert_email(leased)
            message.connection = connection
            message.send()
        except Exception:
            if leased.attempts >= settings.STOCK_ALERT_MAIL_ATTEMPTS and alert_give_up(leased):
                log.exception("Alert %s (product %s): email not sent after %s attempts; given up",
                              leased.alert_id, leased.product_id, leased.attempts)
                summary.given_up += 1
            else:
                log.exception("Alert %s (product %s): email not sent; tried again after its lease",
                              leased.alert_id, leased.product_id)
                summary.failed += 1
            continue
        alert_mark_sent(leased)
        summary.sent += 1
    return summary
