"""A paid checkout on localstripe (real HTTP through the `stripe` library): the card is authorised, the
order placed once with its payment; a declined card keeps the cart; Stripe out of reach says so."""
import pytest

from catalog.gateway.dynamo.testing import count_requests
from payments import stripe_api

from .helpers import CARD_DECLINED, add, checkout_form, order_id_of, orders_of, pay, pending, stock

pytestmark = pytest.mark.django_db


def test_paying_with_4242_places_the_order_with_its_authorisation(catalog, client, shopper, stripe_on, mailoutbox):
    client.force_login(shopper)
    add(client, "4", 2)
    page = client.get("/checkout/").content.decode()
    assert 'id="card-element"' in page and "Pay €1,798.00" in page
    form, sent = checkout_form(client), stripe_api.requests_sent()
    with count_requests() as counter:
        response, _ = pay(client, form=form)
    assert stripe_api.requests_sent() - sent == 2  # the card kept for a customer, the PaymentIntent
    assert response.status_code == 302 and order_id_of(response) == form["order_id"]
    # the checkout paying put, its intent recorded; the order (BatchGetItem, TransactWriteItems); the checkout
    # settled; the email's claim
    assert counter.operations == ["PutItem", "UpdateItem", "BatchGetItem", "TransactWriteItems", "UpdateItem",
                                  "UpdateItem"]
    (order,) = orders_of(shopper)
    assert order.payment.status == "authorised" and order.payment.authorised == 179800
    intent = stripe_api.intent_get(order.payment.intent_id)
    assert intent.status == "requires_capture" and intent.order_id == order.order_id and intent.amount == 179800
    assert pending(order.order_id).status == "placed"
    assert stock("4") == 10 and client.session["cart"] == {}
    html = client.get(response.headers["Location"]).content.decode()
    assert 'data-payment-status="authorised"' in html
    assert len(mailoutbox) == 1 and "Payment: Authorised" in mailoutbox[0].body


def test_a_declined_card_says_why_and_keeps_the_cart_and_can_be_tried_again(catalog, client, shopper, stripe_on):
    client.force_login(shopper)
    add(client, "4", 1)
    response, form = pay(client, CARD_DECLINED)
    assert response.status_code == 402
    assert "Your card was declined." in response.content.decode()
    assert client.session["cart"] == {"4": {"quantity": 1, "price": "899.00"}}
    assert orders_of(shopper) == [] and stock("4") == 12
    response, _ = pay(client, form=form)  # the same checkout, another card
    assert order_id_of(response) == form["order_id"]
    assert [o.payment.status for o in orders_of(shopper)] == ["authorised"]


def test_stripe_out_of_reach_keeps_the_cart_and_says_so(catalog, client, shopper, stripe_on, settings):
    client.force_login(shopper)
    add(client, "4", 1)
    token_form = checkout_form(client)
    settings.STRIPE_API_BASE = "http://127.0.0.1:9"  # nothing listens there
    response = client.post("/checkout/", {**token_form, "stripe_token": "tok_unreachable"})
    assert response.status_code == 503
    assert "Card payments are unavailable right now" in response.content.decode()
    assert client.session["cart"] == {"4": {"quantity": 1, "price": "899.00"}}
    assert orders_of(shopper) == [] and stock("4") == 12


def test_payments_off_places_orders_as_before(catalog, client, shopper, settings):
    assert settings.SHOP_PAYMENTS == "off"
    client.force_login(shopper)
    add(client, "4", 1)
    page = client.get("/checkout/").content.decode()
    assert "card-element" not in page and ">Place order</button>" in page


def test_a_declined_card_keeps_the_hold_and_the_next_card_buys_the_held_units(catalog, client, shopper, stripe_on,
                                                                             settings):
    settings.STOCK_HOLD_SECONDS = 600
    client.force_login(shopper)
    add(client, "4", 2)
    client.post("/checkout/", {"action": "hold"})
    assert stock("4") == 10  # held for the shopper
    response, form = pay(client, CARD_DECLINED)
    assert response.status_code == 402 and stock("4") == 10
    assert "We hold these units for you" in response.content.decode()
    response, _ = pay(client, form=form)
    assert order_id_of(response) == form["order_id"] and stock("4") == 10  # the hold became the order
    assert [o.payment.status for o in orders_of(shopper)] == ["authorised"]


def test_paying_again_after_the_order_could_not_be_confirmed_uses_the_same_authorisation(
        catalog, client, shopper, stripe_on, monkeypatch):
    from .test_webhooks import crash

    form, intent_id = crash(client, shopper, monkeypatch)
    sent = stripe_api.requests_sent()
    response, _ = pay(client, form=form)
    assert order_id_of(response) == form["order_id"]
    assert stripe_api.requests_sent() - sent == 2  # the new card kept, the earlier intent read: no second intent
    (order,) = orders_of(shopper)
    assert order.payment.intent_id == intent_id and stock("4") == 10


def test_a_3d_secure_step_given_up_then_another_card_leaves_one_authorisation(catalog, client, shopper, stripe_on):
    client.force_login(shopper)
    add(client, "4", 1)
    response, form = pay(client, "4000002500003155")
    first = pending(form["order_id"]).intent_id
    response, _ = pay(client, form=form)  # the shopper closed the bank's window and typed 4242
    assert order_id_of(response) == form["order_id"]
    assert stripe_api.intent_get(first).status == "canceled"
    (order,) = orders_of(shopper)
    assert order.payment.intent_id != first


def test_a_3d_secure_step_failed_says_so_and_keeps_the_cart(catalog, client, shopper, stripe_on):
    import requests

    client.force_login(shopper)
    add(client, "4", 1)
    response, form = pay(client, "4000002500003155")
    assert 'id="confirm-payment"' in response.content.decode()
    waiting = pending(form["order_id"])
    secret = stripe_api.client().v1.payment_intents.retrieve(waiting.intent_id).client_secret
    # What Stripe.js's confirmCardPayment does when the shopper fails the bank's step (localstripe's endpoint).
    requests.post(f"{stripe_on.url}/v1/payment_intents/{waiting.intent_id}/_authenticate?success=false",
                  json={"key": "pk_test_fromatoz", "client_secret": secret}, timeout=10)
    response = client.post("/checkout/paid/", {"order_id": form["order_id"]}, follow=True)
    assert "failed authentication" in response.content.decode() and "Nothing was charged" in response.content.decode()
    assert orders_of(shopper) == [] and client.session["cart"] == {"4": {"quantity": 1, "price": "899.00"}}
    forged = client.post("/checkout/paid/", {"order_id": "20990101T000000000000-00000000000000000000"})
    assert forged.status_code == 400
