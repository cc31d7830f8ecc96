"""Paying in tests: card tokens as Stripe.js makes them, the checkout posted with one, webhooks signed as
Stripe signs them (the library's own helper)."""
import json
import re
import time

import stripe

from catalog import gateway
from payments import stripe_api
from tests.shop.test_views import checkout_form

CARD_OK = "4242424242424242"
CARD_3DS = "4000002500003155"
CARD_DECLINED = "4000000000000002"


def card_token(number=CARD_OK):
    """What Stripe.js's createToken gives the browser for a card."""
    token = stripe_api.client().v1.tokens.create(
        params={"card": {"number": number, "exp_month": 12, "exp_year": 2034, "cvc": "123"}})
    return token.id


def add(client, product_id, quantity=1):
    return client.post("/cart/add/", {"product_id": product_id, "quantity": quantity})


def pay(client, number=CARD_OK, form=None, **address):
    """Post the checkout as the browser does after createToken: the address, the issued IDs, the card's token."""
    form = form or checkout_form(client, **address)
    return client.post("/checkout/", {**form, "stripe_token": card_token(number)}), form


def order_id_of(response):
    match = re.search(r"/account/orders/([^/]+)/", response.headers.get("Location", ""))
    return match.group(1) if match else None


def signed(event, secret="whsec_test_fromatoz"):
    """A webhook body and its Stripe-Signature header, as Stripe would send them."""
    payload = json.dumps(event)
    return payload, stripe.WebhookSignature.generate_signature_header(payload, secret, int(time.time()))


def post_event(client, event, secret="whsec_test_fromatoz"):
    payload, header = signed(event, secret)
    return client.post("/payments/stripe/webhook/", payload, content_type="application/json",
                       HTTP_STRIPE_SIGNATURE=header)


def intent_event(intent_id, kind="payment_intent.amount_capturable_updated", event_id=None):
    """The event Stripe sends about a PaymentIntent, with the intent as localstripe has it now."""
    intent = stripe_api.client().v1.payment_intents.retrieve(intent_id).to_dict()
    return {"id": event_id or f"evt_{kind}_{intent_id}_{time.monotonic_ns()}", "object": "event", "type": kind,
            "data": {"object": intent}, "created": int(time.time()), "livemode": False}


def pending(order_id):
    return gateway.payment_pending_get(order_id=order_id)


def orders_of(user):
    return gateway.orders_by_customer(customer_id=user.customer_key_id).items


def stock(product_id):
    return gateway.product_get(product_id=product_id, consistent=True).stock_level
