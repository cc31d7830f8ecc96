"""The checkout with card payments on (SHOP_PAYMENTS=stripe): the card is authorised, then the order placed.

The browser turns the card into a token with Stripe.js (card details never reach the shop); the server
computes the amount from the cart's lines, writes the checkout paying (gateway.payment_pending_put) before it
asks Stripe for the authorisation, and places the order once the authorisation is confirmed
(payments.placing: the same function as the webhook's and reconcile_payments'). A declined card says
Stripe's reason and keeps the cart and the hold; Stripe out of reach says so and keeps them too."""
import dataclasses
import re
from datetime import UTC, datetime

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from catalog import gateway
from catalog.gateway import CatalogUnavailable, InvalidInput, OrderStatusRefused, StockBusy
from payments import placing, stripe_api
from payments.money import to_cents
from payments.stripe_api import CardDeclined, PaymentRefused, PaymentUnavailable

from . import checkout as checkouts
from .cart import Cart

TOKEN = re.compile(r"tok_[A-Za-z0-9_]{1,250}")
UNAVAILABLE = ("Card payments are unavailable right now, so nothing was charged. Your cart and the units held "
               "for you are kept: please try again in a minute.")


def enabled() -> bool:
    return settings.SHOP_PAYMENTS == "stripe"


def page_context(total, payment) -> dict:
    """What the checkout page needs to take a card: Stripe.js, the publishable key, the amount to show on the
    button; `payment`: a 3-D Secure step to finish ({"secret", "order_id"})."""
    if not enabled():
        return {"payments_on": False}
    return {"payments_on": True, "stripe_js_url": settings.STRIPE_JS_URL,
            "stripe_key": settings.STRIPE_PUBLISHABLE_KEY, "pay_total": total, "confirm_payment": payment}


def pay(request, cart, form, *, page):
    """POST /checkout/ with a card token: authorise the cart's amount, then place the order (or say why not)."""
    token = request.POST.get("stripe_token", "")
    if not TOKEN.fullmatch(token):
        messages.error(request, "Please enter your card details: nothing was charged.")
        return page(request, cart, form=form, status=400)
    lines = cart.order_lines()
    order_id = form.cleaned_data["order_id"]
    user = request.user
    pending = gateway.PendingPayment(
        order_id=order_id, customer_id=user.customer_key_id, token=form.cleaned_data["token"], lines=tuple(lines),
        amount=to_cents(sum((line.price * line.quantity for line in lines), start=0)),
        currency=settings.SHOP_CURRENCY, created_at=datetime.now(UTC), customer_name=user.display_name,
        customer_email=user.email or "", address=form.address())
    try:
        customer, card = stripe_api.card_of_token(token=token, order_id=order_id, customer_id=user.customer_key_id,
                                                  email=user.email or "")
        pending = dataclasses.replace(pending, provider_customer=customer, card=card,
                                      intent_key=f"{order_id}-{token}")
        earlier = _earlier_intent(gateway.payment_pending_put(pending=pending), pending)
        intent = earlier or stripe_api.authorise(amount=pending.amount, currency=pending.currency, customer=customer,
                                                 card=card, order_id=order_id, key=pending.intent_key)
    except CardDeclined as exc:
        messages.error(request, f"{exc} Nothing was charged; your cart is kept. Try again or use another card.")
        return page(request, cart, form=form, status=402)
    except (PaymentUnavailable, PaymentRefused):
        messages.error(request, UNAVAILABLE)
        return page(request, cart, form=form, status=503)
    except OrderStatusRefused:
        return _settled(request, cart, order_id)
    # Recorded at once: whatever happens next (a crash, DynamoDB down), reconcile_payments finds this intent.
    pending = gateway.payment_pending_intent(pending=pending, intent_id=intent.id)
    if intent.status == "requires_action":  # 3-D Secure: Stripe.js asks the bank, then /checkout/paid/
        return page(request, cart, form=form, payment={"secret": intent.client_secret, "order_id": order_id})
    return _finish(request, cart, intent, pending)


def _earlier_intent(previous, pending):
    """An earlier attempt of this checkout left an intent: one authorised for this amount is used (the shopper
    pays again after the order could not be confirmed); any other is cancelled, so that one checkout never has
    two authorisations standing. None: ask for a new one."""
    if previous is None or not previous.intent_id:
        return None
    earlier = stripe_api.intent_get(previous.intent_id)
    if earlier.authorised and earlier.amount == pending.amount and earlier.currency == pending.currency.upper():
        return earlier
    if earlier.status not in ("canceled", "succeeded"):
        stripe_api.void(earlier.id)
    return None


def _finish(request, cart, intent, pending):
    if intent.status != "requires_capture":
        messages.error(request, (intent.error or "Your card's bank did not confirm the payment.")
                       + " Nothing was charged; your cart is kept. Try again or use another card.")
        return redirect("checkout")
    try:
        outcome = placing.place_authorised(intent, pending=pending, mail=False)
    except (StockBusy, CatalogUnavailable) as exc:
        # Authorised, but the order could not be written now: it stays to be placed (the webhook,
        # reconcile_payments, or the shopper paying again, which uses this authorisation).
        messages.error(request, "Your card is authorised, but we could not confirm your order just now "
                       f"({exc}). Please press Pay again in a moment: you will not be charged twice.")
        return redirect("checkout")
    if outcome.kind == placing.PLACED_OUTCOME:
        return checkouts.placed(request, cart, pending.address, outcome.order)
    for reason in outcome.reasons:
        messages.error(request, reason)
    if outcome.kind == placing.VOIDED_OUTCOME:
        checkouts.done(request.session)  # the next try is a new checkout, with a new order ID
    return redirect("cart")


def _settled(request, cart, order_id):
    """The checkout was settled before (placed by the webhook or another tab, or given up)."""
    if cart.was_placed(order_id):
        return redirect("order", order_id=order_id)
    pending = gateway.payment_pending_get(order_id=order_id)
    if pending is not None and pending.status == placing.PLACED:
        order = gateway.order_get(customer_id=pending.customer_id, order_id=order_id)
        return checkouts.placed(request, cart, pending.address, order)
    checkouts.done(request.session)
    messages.error(request, "That checkout was given up and nothing was charged; please check out again.")
    return redirect("cart")


@login_required
@require_POST
def checkout_paid(request):
    """The browser back from Stripe.js's 3-D Secure step: place the order if the payment is authorised."""
    order_id = request.POST.get("order_id", "")
    if not checkouts.is_issued(request.session, order_id=order_id,
                               token=(request.session.get(checkouts.SESSION_KEY) or {}).get("token")):
        cart = Cart(request.session)
        if cart.was_placed(order_id):
            return redirect("order", order_id=order_id)
        raise InvalidInput("This payment is not the one of your checkout in progress; nothing was done.")
    cart = Cart(request.session)
    pending = gateway.payment_pending_get(order_id=order_id)
    if pending is None or pending.customer_id != request.user.customer_key_id or not pending.intent_id:
        raise InvalidInput("This payment is not the one of your checkout in progress; nothing was done.")
    if pending.status != placing.PENDING:
        return _settled(request, cart, order_id)
    try:
        intent = stripe_api.intent_get(pending.intent_id)
    except (PaymentUnavailable, PaymentRefused):
        messages.error(request, UNAVAILABLE)
        return redirect("checkout")
    return _finish(request, cart, intent, pending)

