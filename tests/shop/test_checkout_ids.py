"""Checkout order IDs are the server's: issued to the checkout in progress and kept in the session.
A posted ID that was not issued to this checkout is refused without touching the cart; a lost
answer keeps the cart, the ID and the key, and placing the order again answers it."""
import json

import boto3
import pytest
from botocore.exceptions import ReadTimeoutError
from django.conf import settings
from django.test import Client

from catalog import gateway
from catalog.gateway import client as dynamo

from .test_views import checkout_form

pytestmark = pytest.mark.django_db


def add(client, product_id, quantity=1):
    return client.post("/cart/add/", {"product_id": product_id, "quantity": quantity})


def stock(product_id):
    return gateway.product_get(product_id=product_id, consistent=True).stock_level


def orders_of(user):
    return gateway.orders_by_customer(customer_id=user.customer_key_id).items


def test_the_checkout_page_issues_the_same_id_until_the_order_is_placed(catalog, client, shopper):
    client.force_login(shopper)
    add(client, "4", 1)
    first, again = checkout_form(client), checkout_form(client)
    assert first == again
    client.post("/checkout/", first)
    add(client, "4", 1)
    assert checkout_form(client)["order_id"] != first["order_id"]


@pytest.mark.parametrize("forged", ["20990101T000000000000-00000000000000000000", "my-own-id"])
def test_an_order_id_not_issued_to_this_checkout_is_refused_and_the_cart_kept(catalog, client, shopper, forged):
    client.force_login(shopper)
    add(client, "4", 2)
    form = checkout_form(client)
    response = client.post("/checkout/", {**form, "order_id": forged})
    assert response.status_code == 400
    assert "not the one we gave you" in response.content.decode()
    assert client.session["cart"] == {"4": {"quantity": 2, "price": "899.00"}}
    assert stock("4") == 12 and orders_of(shopper) == []


def test_an_earlier_orders_id_is_refused_and_the_cart_kept(catalog, shopper):
    earlier_session = Client()
    earlier_session.force_login(shopper)
    add(earlier_session, "4", 1)
    earlier = checkout_form(earlier_session)
    earlier_session.post("/checkout/", earlier)
    client = Client()
    client.force_login(shopper)
    add(client, "1", 1)
    checkout_form(client)
    response = client.post("/checkout/", earlier)
    assert response.status_code == 400
    assert client.session["cart"] == {"1": {"quantity": 1, "price": "39990.00"}}
    assert stock("1") == 70 and len(orders_of(shopper)) == 1


def test_another_customer_cannot_place_an_order_under_my_id(catalog, shopper, django_user_model):
    alice = Client()
    alice.force_login(shopper)
    add(alice, "4", 1)
    form = checkout_form(alice)
    alice.post("/checkout/", form)
    bob_user = django_user_model.objects.create_user("bob", password="another-long-password-2")
    bob = Client()
    bob.force_login(bob_user)
    add(bob, "1", 1)
    checkout_form(bob)
    assert bob.post("/checkout/", form).status_code == 400
    assert orders_of(bob_user) == []


def test_a_lost_answer_at_checkout_says_so_keeps_everything_and_a_retry_shows_the_order(catalog, client, shopper):
    client.force_login(shopper)
    add(client, "4", 2)
    form = checkout_form(client)

    def applied_then_lost(request, **kwargs):
        if request.headers.get("X-Amz-Target", b"").decode().endswith("TransactWriteItems"):
            params = json.loads(request.body)
            params.pop("ClientRequestToken", None)
            boto3.client("dynamodb", region_name=settings.AWS_REGION).transact_write_items(**params)
            raise ReadTimeoutError(endpoint_url="http://dynamodb")

    events = dynamo.client().meta.events
    events.register("before-send.dynamodb", applied_then_lost, unique_id="lost")
    try:
        response = client.post("/checkout/", form)
    finally:
        events.unregister("before-send.dynamodb", unique_id="lost")
    html = response.content.decode()
    assert response.status_code == 504 and response["Retry-After"]
    assert "We don’t know yet whether your order was placed." in html
    assert f'value="{form["order_id"]}"' in html and f'value="{form["token"]}"' in html
    assert client.session["cart"] == {"4": {"quantity": 2, "price": "899.00"}}
    again = client.post("/checkout/", form, follow=True)
    assert again.status_code == 200 and again.redirect_chain[-1][0] == f"/account/orders/{form['order_id']}/"
    number = gateway.order_number_for(form["order_id"])  # the replay answers the order placed, with its number
    assert f'<strong id="order-number" class="order-number">{number}</strong>' in again.content.decode()
    assert stock("4") == 10 and len(orders_of(shopper)) == 1
    assert client.session["cart"] == {}


def test_the_same_order_id_with_another_cart_after_a_lost_answer_is_a_409(catalog, client, shopper):
    client.force_login(shopper)
    add(client, "4", 2)
    form = checkout_form(client)
    gateway.order_place(  # the first request went through, but its answer never came back
        customer_id=shopper.customer_key_id, customer_name="alice", order_id=form["order_id"], token=form["token"],
        lines=[gateway.PurchaseLine(product_id="4", quantity=2, price=gateway.product_get(product_id="4").price)],
    )
    add(client, "1", 1)
    response = client.post("/checkout/", form)
    assert response.status_code == 409
    assert f"order {form['order_id']}" in response.content.decode() and "2 × Pixel 9" in response.content.decode()
    assert stock("1") == 70 and len(orders_of(shopper)) == 1
