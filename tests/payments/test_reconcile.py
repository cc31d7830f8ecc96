"""reconcile_payments (and each run_stock_jobs pass): an authorisation whose order was never written becomes
its order, or is voided when the stock is gone; a payment never authorised is given up. An authorisation that
arrives when the stock is gone is voided at the checkout too."""
import pytest
from django.core.management import call_command

from catalog import gateway
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
