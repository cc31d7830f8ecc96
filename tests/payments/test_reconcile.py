"""reconcile_payments (and each run_stock_jobs pass): an authorisation whose order was never written becomes
its order, or is voided when the stock is gone; a payment never authorised is given up. An authorisation that
arrives when the stock is gone is voided at the checkout too."""
from types import SimpleNamespace

import pytest
from django.core.management import CommandError, call_command

from catalog import gateway
from catalog.gateway import CatalogUnavailable
from catalog.gateway.dynamo.testing import count_requests
from payments import reconcile as reconciling
from payments import stripe_api

from .helpers import add, checkout_form, order_id_of, orders_of, pay, pending, stock
from .test_webhooks import crash

pytestmark = pytest.mark.django_db


@pytest.fixture
def crashed(catalog, client, shopper, stripe_on, monkeypatch):
    return crash(client, shopper, monkeypatch)


def reconcile(capsys, *args):
    call_command("reconcile_payments", "--grace", "0", *args)
    return capsys.readouterr().out.strip()


def test_a_crash_between_authorisation_and_order_is_mended(crashed, shopper, capsys, mailoutbox):
    form, intent_id = crashed
    sent = stripe_api.requests_sent()
    with count_requests() as counter:
        assert reconcile(capsys) == "reconcile_payments: 1 placed, 0 voided, 0 still waiting"
    assert stripe_api.requests_sent() - sent == 1  # the intent read
    # one Query a day and shard (8 days back and today, 4 shards), then the order placed as the browser would
    assert counter.operations.count("Query") == 36
    assert [op for op in counter.operations if op != "Query"] == [
        "BatchGetItem", "TransactWriteItems", "UpdateItem", "UpdateItem"]
    (order,) = orders_of(shopper)
    assert order.order_id == form["order_id"] and order.payment.intent_id == intent_id
    assert stock("4") == 10 and len(mailoutbox) == 1
    assert reconcile(capsys) == "reconcile_payments: 0 placed, 0 voided, 0 still waiting"
    assert len(orders_of(shopper)) == 1 and len(mailoutbox) == 1


def test_run_stock_jobs_reconciles_too(crashed, shopper, capsys, monkeypatch):
    monkeypatch.setattr(reconciling, "GRACE_SECONDS", 0)
    call_command("run_stock_jobs")
    assert "1 placed" in capsys.readouterr().out
    assert len(orders_of(shopper)) == 1


def test_an_authorisation_whose_stock_is_gone_is_voided_by_reconcile(crashed, shopper, capsys, mailoutbox):
    form, intent_id = crashed
    gateway.stock_decrease(product_id="4", quantity=stock("4"), token=gateway.new_token(), reason="damaged")
    assert reconcile(capsys) == "reconcile_payments: 0 placed, 1 voided, 0 still waiting"
    assert orders_of(shopper) == [] and stock("4") == 0
    assert stripe_api.intent_get(intent_id).status == "canceled"
    assert pending(form["order_id"]).status == "voided"
    assert [m.subject for m in mailoutbox] == ["Your Fromatoz order could not be placed"]


def test_a_checkout_paid_after_its_stock_sold_out_is_voided_and_the_shopper_told(catalog, client, shopper, stripe_on):
    client.force_login(shopper)
    add(client, "4", 2)
    form = checkout_form(client)
    gateway.stock_decrease(product_id="4", quantity=11, token=gateway.new_token(), reason="damaged")  # 1 left
    response, _ = pay(client, form=form)
    assert order_id_of(response) is None and response.headers["Location"] == "/cart/"
    messages = [m.message for m in response.wsgi_request._messages]
    assert any("nothing was charged" in m for m in messages)
    waiting = pending(form["order_id"])
    assert waiting.status == "voided" and stripe_api.intent_get(waiting.intent_id).status == "canceled"
    assert orders_of(shopper) == [] and stock("4") == 1


def test_a_payment_never_authorised_is_given_up_and_its_intent_cancelled(catalog, client, shopper, stripe_on,
                                                                       capsys):
    client.force_login(shopper)
    add(client, "4", 1)
    response, form = pay(client, "4000002500003155")  # 3-D Secure, never finished
    assert 'id="confirm-payment"' in response.content.decode()
    assert reconcile(capsys) == "reconcile_payments: 0 placed, 0 voided, 1 still waiting"
    assert reconcile(capsys, "--abandon", "0") == "reconcile_payments: 0 placed, 1 voided, 0 still waiting"
    assert stripe_api.intent_get(pending(form["order_id"]).intent_id).status == "canceled"
    assert orders_of(shopper) == [] and stock("4") == 12


def test_one_checkout_stripe_refuses_is_counted_failed_and_the_pass_goes_on(crashed, shopper, capsys, monkeypatch):
    def refused(*args, **kwargs):
        raise stripe_api.PaymentRefused("No such payment_intent")

    monkeypatch.setattr(stripe_api, "intent_get", refused)
    assert reconcile(capsys) == "reconcile_payments: 0 placed, 0 voided, 0 still waiting, 1 failed (see the log)"
    monkeypatch.undo()
    assert reconcile(capsys) == "reconcile_payments: 1 placed, 0 voided, 0 still waiting"


def test_stripe_out_of_reach_ends_reconcile_with_a_message(crashed, shopper, settings):
    settings.STRIPE_API_BASE = "http://127.0.0.1:9"  # nothing listens there
    with pytest.raises(CommandError, match="Card payments are unavailable"):
        call_command("reconcile_payments", "--grace", "0")
    assert orders_of(shopper) == []


def lose_the_intent_id(client, monkeypatch):
    """A checkout whose card was authorised, but whose intent's ID could not be recorded (DynamoDB down right
    after Stripe answered), with Stripe's list of a customer's intents answered as Stripe does (localstripe's
    takes no `customer`): (the form, the checkout paying, that list)."""
    add(client, "4", 1)
    form = checkout_form(client)

    def down(*args, **kwargs):
        raise CatalogUnavailable("DynamoDB is down")

    with monkeypatch.context() as patch:
        patch.setattr(gateway, "payment_pending_intent", down)
        assert pay(client, form=form)[0].status_code == 503
    waiting = pending(form["order_id"])
    assert waiting.intent_id == "" and waiting.provider_customer
    intents = stripe_api.client().v1.payment_intents
    every = intents.list

    def of_customer(params):
        found = every(params={"limit": 100}).data
        return SimpleNamespace(data=[i for i in found if i.customer == params["customer"]])

    monkeypatch.setattr(intents, "list", of_customer)
    return form, waiting, of_customer


def test_an_intent_whose_id_was_lost_is_found_among_its_customers_never_asked_for_again(
        catalog, client, shopper, stripe_on, capsys, monkeypatch):
    client.force_login(shopper)
    form, waiting, of_customer = lose_the_intent_id(client, monkeypatch)
    (intent,) = of_customer({"customer": waiting.provider_customer}).data
    sent = stripe_api.requests_sent()
    assert reconcile(capsys) == "reconcile_payments: 1 placed, 0 voided, 0 still waiting"
    assert stripe_api.requests_sent() - sent == 1  # the list; no authorisation asked for
    assert len(of_customer({"customer": waiting.provider_customer}).data) == 1
    (order,) = orders_of(shopper)
    assert order.payment.intent_id == intent.id


def test_paying_again_after_the_intent_id_was_lost_uses_that_authorisation(catalog, client, shopper, stripe_on,
                                                                           monkeypatch):
    client.force_login(shopper)
    form, waiting, of_customer = lose_the_intent_id(client, monkeypatch)
    (intent,) = of_customer({"customer": waiting.provider_customer}).data
    response, _ = pay(client, form=form)  # the shopper presses Pay again (another token, another customer)
    assert order_id_of(response) == form["order_id"]
    (order,) = orders_of(shopper)
    assert order.payment.intent_id == intent.id  # one authorisation standing, not two


def test_a_checkout_given_up_is_settled_before_its_intent_is_cancelled(catalog, client, shopper, stripe_on, capsys,
                                                                      monkeypatch):
    client.force_login(shopper)
    add(client, "4", 1)
    _, form = pay(client, "4000002500003155")  # 3-D Secure, never finished
    monkeypatch.setattr(gateway, "payment_pending_settle", lambda **kwargs: False)  # settled by someone else
    assert reconcile(capsys, "--abandon", "0") == "reconcile_payments: 0 placed, 0 voided, 1 still waiting"
    assert stripe_api.intent_get(pending(form["order_id"]).intent_id).status == "requires_action"
