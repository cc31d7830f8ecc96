"""Stripe's webhook: POST /payments/stripe/webhook/."""
import logging

from django.http import HttpResponse, HttpResponseBadRequest
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from catalog import gateway

from . import stripe_api, webhooks

log = logging.getLogger(__name__)


@csrf_exempt  # no CSRF token: the request is trusted only because its signature is checked
@require_POST
def stripe_webhook(request):
    """One event from Stripe, checked against STRIPE_WEBHOOK_SECRET (a bad or missing signature is a 400
    and changes nothing), handled once: its ID is claimed first, and given back if handling failed, so
    that Stripe's next delivery is handled (a 503 asks for it)."""
    try:
        event = stripe_api.webhook_event(request.body, request.headers.get("Stripe-Signature"))
    except ValueError:
        return HttpResponseBadRequest("Bad or missing Stripe-Signature.", content_type="text/plain")
    event_id, kind = str(event.get("id", "")), str(event.get("type", ""))
    if kind not in webhooks.EVENTS:
        return HttpResponse("Not an event the shop acts on.", content_type="text/plain")
    if not event_id or not gateway.payment_event_claim(event_id=event_id, event_type=kind):
        return HttpResponse("Handled before.", content_type="text/plain")
    try:
        done = webhooks.handle(event)
    except BaseException:
        gateway.payment_event_release(event_id=event_id)
        raise
    log.info("Stripe event %s (%s): %s", event_id, kind, done)
    return HttpResponse(done, content_type="text/plain")
