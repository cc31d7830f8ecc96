"""Staff's order actions with a card payment: ship captures first (a refused capture changes nothing), cancel
voids (or refunds) and puts the stock back with a ledger entry, refund gives back part or the rest; both
order pages show the payment's status; authorisations about to lapse are listed on the open orders."""
from dataclasses import replace
from datetime import timedelta

import pytest
from django.test import Client

from catalog import gateway
from catalog.gateway import OrderStatusRefused
from catalog.gateway.dynamo.testing import count_requests
from payments import fulfilment, stripe_api
from payments.stripe_api import PaymentRefused
from tests.helpers import sign_in_staff, warehouse_staff

from .helpers import add, order_id_of, orders_of, pay, stock

pytestmark = pytest.mark.django_db


@pytest.fixture
def paid_order(catalog, client, shopper, stripe_on):
    client.force_login(shopper)
    add(client, "4", 2)
    response, _ = pay(client)
    assert order_id_of(response)
    (order,) = orders_of(shopper)
    return order


@pytest.fixture
def staff_client(django_user_model):
    staff = warehouse_staff(django_user_model.objects.create_user(username="ann", password="pw-ann-staff",
                                                                  is_staff=True))
    return sign_in_staff(Client(), staff)


def act(staff_client, order, action, **fields):
    return staff_client.post(f"/staff/orders/{order.customer_id}/{order.order_id}/", {"action": action, **fields})


def now(order):
    return gateway.order_get(customer_id=order.customer_id, order_id=order.order_id)


def status_on_page(client, url):
    html = client.get(url).content.decode()
    return html.split('data-payment-status="')[1].split('"')[0]


def test_ship_captures_then_marks_shipped_and_refund_gives_back_part(paid_order, staff_client, client):
    page = f"/staff/orders/{paid_order.customer_id}/{paid_order.order_id}/"
    assert status_on_page(staff_client, page) == "authorised"
    sent = stripe_api.requests_sent()
    with count_requests() as counter:
        assert act(staff_client, paid_order, "ship").status_code == 302
    assert stripe_api.requests_sent() - sent == 1  # the capture
    assert counter.operations == ["Query", "UpdateItem", "TransactWriteItems", "Query"]
    order = now(paid_order)
    assert order.status == "shipped" and order.payment.status == "captured" and order.payment.captured == 179800
    assert stripe_api.intent_get(order.payment.intent_id).status == "succeeded"
    assert act(staff_client, order, "refund", amount="100.50").status_code == 302
    order = now(order)
    assert order.payment.status == "partially_refunded" and order.payment.refunded == 10050
    assert status_on_page(staff_client, page) == "partially_refunded"
    assert status_on_page(client, f"/account/orders/{order.order_id}/") == "partially_refunded"
    response = act(staff_client, order, "refund", amount="5000")
    assert response.status_code == 400 and now(order).payment.refunded == 10050  # more than is left
    assert act(staff_client, order, "refund").status_code == 302  # the rest
    assert now(order).payment.status == "refunded" and now(order).payment.refunded == 179800


def test_a_refused_capture_says_why_and_changes_nothing(paid_order, staff_client, monkeypatch):
    # What Stripe answers for an authorisation that lapsed (localstripe captures a cancelled intent's charge).
    message = "This PaymentIntent could not be captured because it has a status of canceled."

    def refused(intent_id):
        raise PaymentRefused(message)

    monkeypatch.setattr(stripe_api, "capture", refused)
    response = act(staff_client, paid_order, "ship")
    assert response.status_code == 409 and f"{message} Nothing was changed." in response.content.decode()
    order = now(paid_order)
    assert order.status == "placed" and order.payment.status == "authorised"


def test_a_capture_refused_because_the_authorisation_lapsed_records_the_payment_failed(paid_order, staff_client,
                                                                                       monkeypatch):
    stripe_api.void(paid_order.payment.intent_id)  # Stripe cancels an authorisation 7 days old

    def refused(intent_id):  # as Stripe answers (localstripe captures a cancelled intent's charge)
        raise PaymentRefused("This PaymentIntent could not be captured because it has a status of canceled.")

    monkeypatch.setattr(stripe_api, "capture", refused)
    response = act(staff_client, paid_order, "ship")
    assert response.status_code == 409 and "recorded as failed" in response.content.decode()
    order = now(paid_order)
    assert order.status == "placed" and order.payment.status == "failed"
    assert 'data-payment-status="failed"' in response.content.decode()
    assert act(staff_client, order, "cancel").status_code == 302 and now(order).status == "cancelled"


def test_cancel_voids_the_authorisation_and_puts_the_stock_back(paid_order, staff_client, client):
    assert stock("4") == 10
    assert act(staff_client, paid_order, "cancel").status_code == 302
    order = now(paid_order)
    assert order.status == "cancelled" and order.payment.status == "voided"
    assert stripe_api.intent_get(order.payment.intent_id).status == "canceled"
    assert stock("4") == 12
    (change,) = [c for c in gateway.stock_history(product_id="4").items if c.reason == "cancelled"]
    assert change.delta == 2 and change.reference == order.order_id
    assert status_on_page(client, f"/account/orders/{order.order_id}/") == "voided"


def test_authorisations_about_to_lapse_are_listed(paid_order, staff_client, settings):
    html = staff_client.get("/staff/orders/").content.decode()
    assert "Card payments about to lapse" not in html
    settings.PAYMENT_LAPSE_WARNING_DAYS = 1
    old = gateway.Order(**{**paid_order.__dict__, "placed_at": paid_order.placed_at - timedelta(days=2)})
    from payments.fulfilment import lapsing
    assert lapsing([old, paid_order]) == [old]


def test_a_card_refusal_at_capture_is_a_message_not_an_error_page(paid_order, staff_client, monkeypatch):
    def declined(intent_id):
        raise stripe_api.CardDeclined("Your card has insufficient funds.", "card_declined")

    monkeypatch.setattr(stripe_api, "capture", declined)
    response = act(staff_client, paid_order, "ship")
    assert response.status_code == 409
    assert "Your card has insufficient funds. Nothing was changed." in response.content.decode()
    assert now(paid_order).status == "placed" and now(paid_order).payment.status == "authorised"


def captured_open(order):
    """An open order whose payment is captured (a ship whose capture was recorded, not yet its shipping)."""
    stripe_api.capture(order.payment.intent_id)
    payment = replace(order.payment, status="captured", captured=order.payment.authorised)
    gateway.order_payment_update(customer_id=order.customer_id, order_id=order.order_id, payment=payment)
    return now(order)


def test_a_cancel_that_loses_to_a_ship_refunds_nothing(paid_order):
    seen = captured_open(paid_order)  # what Cancel read
    gateway.order_ship(customer_id=seen.customer_id, order_id=seen.order_id)  # Ship finishes first
    sent = stripe_api.requests_sent()
    with pytest.raises(OrderStatusRefused):
        fulfilment.cancel(seen, who="ann")
    assert stripe_api.requests_sent() == sent  # no refund asked for
    order = now(paid_order)
    assert order.status == "shipped" and (order.payment.status, order.payment.refunded) == ("captured", 0)


def test_a_cancel_that_wins_refunds_and_a_failed_refund_is_finished_by_cancelling_again(paid_order, monkeypatch):
    seen = captured_open(paid_order)
    with monkeypatch.context() as patch:
        patch.setattr(stripe_api, "refund", lambda *a, **k: (_ for _ in ()).throw(PaymentRefused("Stripe says no.")))
        with pytest.raises(fulfilment.RefusedAfterChange, match="cancelled and its stock back"):
            fulfilment.cancel(seen, who="ann")
    with pytest.raises(OrderStatusRefused):  # a ship after the cancel: refused, nothing captured twice
        fulfilment.ship(now(paid_order))
    assert now(paid_order).status == "cancelled" and now(paid_order).payment.status == "captured"
    fulfilment.cancel(now(paid_order), who="ann")
    order = now(paid_order)
    assert (order.payment.status, order.payment.refunded) == ("refunded", 179800) and stock("4") == 12


def test_the_refund_form_and_messages_name_the_payments_currency(paid_order, staff_client):
    order = gateway.order_get(customer_id=paid_order.customer_id, order_id=paid_order.order_id)
    stripe_api.capture(order.payment.intent_id)
    usd = replace(order.payment, status="captured", captured=order.payment.authorised, currency="USD")
    gateway.order_payment_update(customer_id=order.customer_id, order_id=order.order_id, payment=usd)
    page = staff_client.get(f"/staff/orders/{order.customer_id}/{order.order_id}/").content.decode()
    assert "Amount to refund (USD)" in page and "1,798.00 USD" in page and "€" not in page.split("refund-form")[1]
    response = act(staff_client, order, "refund", amount="5000")
    assert "at most 1,798.00 USD" in response.content.decode()
