"""The webhook: signed by Stripe or refused; each event handled once; the order placed once whichever comes
first (the browser or the webhook), late or repeated events changing nothing wrong."""
from datetime import timedelta

import pytest

from catalog import gateway
from catalog.gateway import CatalogUnavailable, keys
from catalog.gateway.dynamo.client import client as gateway_client
from catalog.gateway.dynamo.client import table_name
from catalog.gateway.dynamo.codec import serialize
from catalog.gateway.dynamo.testing import count_requests
from catalog.gateway.payments import events
from payments import fulfilment, stripe_api

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
    sent = stripe_api.requests_sent()
    with count_requests() as counter:
        assert post_event(client, event).content == b"placed"
    assert stripe_api.requests_sent() - sent == 1  # the intent read again
    # the event's claim, the checkout, the products, the order, the checkout placed, the email's claim, handled
    assert counter.operations == ["PutItem", "GetItem", "BatchGetItem", "TransactWriteItems", "UpdateItem",
                                  "UpdateItem", "UpdateItem"]
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


def test_an_event_whose_handling_died_with_dynamodb_is_handled_on_stripes_retry(crashed, client, shopper,
                                                                                 monkeypatch):
    form, intent_id = crashed
    event = intent_event(intent_id)

    def down(*args, **kwargs):
        raise CatalogUnavailable("DynamoDB is down")

    with monkeypatch.context() as patch:  # DynamoDB fails mid-handling, and cannot give the claim back either
        patch.setattr(gateway, "order_place", down)
        patch.setattr(gateway, "payment_event_release", down)
        assert post_event(client, event).status_code == 503
    assert orders_of(shopper) == []
    later = events.utc_now() + timedelta(seconds=events.STALE_SECONDS + 1)
    monkeypatch.setattr(events, "utc_now", lambda: later)  # Stripe's retry, minutes later
    assert post_event(client, event).content == b"placed"
    assert [o.order_id for o in orders_of(shopper)] == [form["order_id"]]
    assert post_event(client, event).content == b"Handled before."


def test_a_stale_authorised_event_places_no_order_for_an_intent_cancelled_since(crashed, client, shopper):
    form, intent_id = crashed
    stale = intent_event(intent_id)  # requires_capture when Stripe sent it
    stripe_api.void(intent_id)
    sent = stripe_api.requests_sent()
    assert post_event(client, stale).content == b"waiting"
    assert stripe_api.requests_sent() - sent == 1  # the intent read again
    assert orders_of(shopper) == [] and stock("4") == 12 and pending(form["order_id"]).status == "voided"


def test_events_about_an_intent_stripe_does_not_know_are_ignored(catalog, client, stripe_on):
    unknown = {"id": "pi_someone_elses", "object": "payment_intent", "status": "requires_capture", "amount": 100,
               "currency": "eur", "metadata": {}}
    authorised = {"id": "evt_foreign_1", "type": "payment_intent.amount_capturable_updated",
                  "data": {"object": unknown}}
    refunded = {"id": "evt_foreign_2", "type": "charge.refunded",
                "data": {"object": {"id": "ch_x", "payment_intent": "pi_someone_elses", "amount_refunded": 100}}}
    for event in (authorised, refunded):
        response = post_event(client, event)
        assert (response.status_code, response.content) == (200, b"ignored")


def test_a_refund_before_the_capture_event_records_the_capture_and_finds_the_order_without_its_checkout(
        catalog, client, shopper, stripe_on):
    client.force_login(shopper)
    add(client, "4", 2)
    pay(client)
    (order,) = orders_of(shopper)
    intent_id = order.payment.intent_id
    stripe_api.capture(intent_id)
    # The checkout's item is gone (TTL, 30 days): the intent's metadata names the customer and the order.
    client_ = gateway_client()
    client_.delete_item(TableName=table_name(), Key=serialize(keys.payment_pending_key(order.order_id)))
    charge = {"id": "ch_2", "object": "charge", "payment_intent": intent_id, "amount_captured": 179800,
              "amount_refunded": 5000}
    with count_requests() as counter:
        assert post_event(client, {"id": "evt_refund_early", "type": "charge.refunded",
                                   "data": {"object": charge}}).content == b"refunded"
    # the event's claim, the order (no GetItem of its checkout), the payment recorded, the event marked handled
    assert counter.operations == ["PutItem", "Query", "UpdateItem", "UpdateItem"]
    payment = orders_of(shopper)[0].payment
    assert (payment.status, payment.captured, payment.refunded) == ("partially_refunded", 179800, 5000)
    with pytest.raises(stripe_api.PaymentRefused):  # part of it went back: it is not shipped as it is
        fulfilment.ship(orders_of(shopper)[0])
    assert orders_of(shopper)[0].status == "placed"
