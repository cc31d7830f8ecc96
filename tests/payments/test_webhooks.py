"""The webhook: signed by Stripe or refused; each event handled once; the order placed once whichever comes
first (the browser or the webhook), late or repeated events changing nothing wrong."""
import pytest

from catalog import gateway
from catalog.gateway import CatalogUnavailable
from payments import stripe_api

from .helpers import add, checkout_form, intent_event, orders_of, pay, pending, post_event, stock

pytestmark = pytest.mark.django_db


@pytest.fixture
def crashed(catalog, client, shopper, stripe_on, monkeypatch):
    return crash(client, shopper, monkeypatch)


def crash(client, shopper, monkeypatch):
    """A checkout whose card was authorised, but whose order was not written (DynamoDB down at that moment):
    (the checkout's form, its PaymentIntent's ID)."""
    client.force_login(shopper)
    add(client, "4", 2)
    form = checkout_form(client)

    def down(*args, **kwargs):
        raise CatalogUnavailable("DynamoDB is down")

    with monkeypatch.context() as patch:
        patch.setattr(gateway, "order_place", down)
        response, _ = pay(client, form=form)
    assert response.status_code == 302 and response.headers["Location"] == "/checkout/"
    assert orders_of(shopper) == []
    waiting = pending(form["order_id"])
    assert waiting.status == "pending" and waiting.amount == 179800 and waiting.intent_id
    assert stripe_api.intent_get(waiting.intent_id).status == "requires_capture"
    return form, waiting.intent_id


def test_a_bad_or_missing_signature_is_refused_and_changes_nothing(crashed, client, shopper):
    form, intent_id = crashed
    event = intent_event(intent_id)
    assert post_event(client, event, secret="whsec_someone_else").status_code == 400
    assert client.post("/payments/stripe/webhook/", event, content_type="application/json").status_code == 400
    assert orders_of(shopper) == [] and pending(form["order_id"]).status == "pending"


def test_the_webhook_places_the_order_once_and_mails_once(crashed, client, shopper, mailoutbox):
    form, intent_id = crashed
    event = intent_event(intent_id)
    assert post_event(client, event).content == b"placed"
    assert post_event(client, event).content == b"Handled before."  # the same event again
    assert post_event(client, intent_event(intent_id)).content == b"placed"  # another event, the same news
    (order,) = orders_of(shopper)
    assert order.order_id == form["order_id"] and order.payment.intent_id == intent_id
    assert stock("4") == 10 and len(mailoutbox) == 1
    # The shopper's browser comes back afterwards (a retry of the same checkout): it lands on the order.
    response, _ = pay(client, form=form)
    assert response.headers["Location"] == f"/account/orders/{form['order_id']}/"
    assert len(orders_of(shopper)) == 1 and stock("4") == 10


def test_events_out_of_order_never_move_the_payment_back(crashed, client, shopper):
    form, intent_id = crashed
    authorised = intent_event(intent_id)
    post_event(client, authorised)
    stripe_api.capture(intent_id)
    assert post_event(client, intent_event(intent_id, "payment_intent.succeeded")).content == b"placed"
    assert orders_of(shopper)[0].payment.status == "captured"
    assert orders_of(shopper)[0].payment.captured == 179800
    late = {**authorised, "id": "evt_late_copy"}  # the authorisation's news, delivered late
    post_event(client, late)
    assert orders_of(shopper)[0].payment.status == "captured"


def test_an_event_the_shop_does_not_act_on_is_answered_without_a_write(crashed, client):
    from catalog.gateway.dynamo.testing import count_requests

    with count_requests() as counter:
        response = post_event(client, {"id": "evt_customer", "type": "customer.created", "data": {"object": {}}})
    assert response.status_code == 200 and counter.operations == []


def test_the_webhook_after_the_browser_placed_the_order_changes_nothing(catalog, client, shopper, stripe_on,
                                                                         mailoutbox):
    client.force_login(shopper)
    add(client, "4", 2)
    response, form = pay(client)
    (order,) = orders_of(shopper)
    assert post_event(client, intent_event(order.payment.intent_id)).content == b"placed"
    assert orders_of(shopper) == [order] and stock("4") == 10 and len(mailoutbox) == 1


def test_refunds_and_voids_made_at_stripe_are_recorded_from_their_events(catalog, client, shopper, stripe_on):
    """charge.refunded and payment_intent.canceled, as Stripe sends them for changes made in its dashboard
    (localstripe sends neither)."""
    client.force_login(shopper)
    add(client, "4", 2)
    pay(client)
    (order,) = orders_of(shopper)
    intent_id = order.payment.intent_id
    stripe_api.capture(intent_id)
    post_event(client, intent_event(intent_id, "payment_intent.succeeded"))
    charge = {"id": "ch_1", "object": "charge", "payment_intent": intent_id, "amount_captured": 179800}
    refunded = {"id": "evt_refund_1", "type": "charge.refunded",
                "data": {"object": {**charge, "amount_refunded": 5000}}}
    assert post_event(client, refunded).content == b"refunded"
    payment = orders_of(shopper)[0].payment
    assert (payment.status, payment.refunded) == ("partially_refunded", 5000)
    late = {**refunded, "id": "evt_refund_0", "data": {"object": {**charge, "amount_refunded": 1000}}}
    post_event(client, late)  # an earlier, smaller refund's event arriving late
    assert orders_of(shopper)[0].payment.refunded == 5000
    full = {**refunded, "id": "evt_refund_2", "data": {"object": {**charge, "amount_refunded": 179800}}}
    post_event(client, full)
    assert orders_of(shopper)[0].payment.status == "refunded"


def test_a_void_at_stripe_is_recorded_on_the_order(catalog, client, shopper, stripe_on):
    client.force_login(shopper)
    add(client, "4", 1)
    pay(client)
    (order,) = orders_of(shopper)
    stripe_api.void(order.payment.intent_id)
    assert post_event(client, intent_event(order.payment.intent_id, "payment_intent.canceled")).content == b"voided"
    assert orders_of(shopper)[0].payment.status == "voided"
