"""Races on DynamoDB Local (moto's transactions are not safe across threads): the browser and the webhook
placing the same order at once; a crowd paying for the last units."""
import threading

import pytest
from django.db import close_old_connections

from catalog.gateway import client as dynamo
from payments import placing, stripe_api

from .helpers import orders_of, stock
from .test_webhooks import crash

pytestmark = [pytest.mark.dynamodb_local, pytest.mark.django_db(transaction=True)]


def at_once(n, work):
    """Run `work(i)` in n threads started together; returns what each returned (or raised), in order."""
    results, start = [None] * n, threading.Barrier(n)

    def run(i):
        start.wait()
        try:
            results[i] = work(i)
        except Exception as exc:  # noqa: BLE001  (the test reads it)
            results[i] = exc
        finally:
            close_old_connections()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def test_the_browser_and_the_webhook_at_once_place_one_order(local_catalog, client, shopper, stripe_on, monkeypatch,
                                                             mailoutbox):
    form, intent_id = crash(client, shopper, monkeypatch)
    intent = stripe_api.intent_get(intent_id)
    outcomes = at_once(4, lambda i: placing.place_authorised(intent))
    assert [o.kind for o in outcomes] == ["placed"] * 4
    assert len(orders_of(shopper)) == 1 and stock("4") == 10
    assert len(mailoutbox) == 1
    assert stripe_api.intent_get(intent_id).status == "requires_capture"


BUYERS, UNITS = 32, 10


def test_32_buyers_paying_for_the_last_10_units(local_catalog, stripe_on, settings, django_user_model):
    """10 orders, each with an authorisation that can be captured; 22 told it sold out, their authorisations
    voided: none left standing."""
    from django.test import Client

    from catalog.gateway import stock_decrease
    from tests.helpers import make_account
    from tests.shop.test_views import ADDRESS

    from .helpers import card_token, checkout_form

    settings.SESSION_ENGINE = "django.contrib.sessions.backends.cache"  # no SQLite writes from the threads
    # 32 checkouts at once on a shared two-core machine: DynamoDB Local may answer slowly, which is not
    # what this test is about (a slow answer is the 503 of tests/shop/test_checkout_ids.py).
    settings.DYNAMODB_READ_BUDGET, settings.DYNAMODB_WRITE_BUDGET, settings.DYNAMODB_READ_TIMEOUT = 60, 60, 60
    dynamo.reset_client()
    stock_decrease(product_id="4", quantity=stock("4") - UNITS, token="crowd-setup", reason="damaged")
    buyers = []
    for i in range(BUYERS):
        user = make_account(django_user_model, f"buyer{i}", "a-long-password-1")
        django_user_model.objects.filter(pk=user.pk).update(last_address=ADDRESS)
        browser = Client()
        browser.force_login(user)
        assert browser.post("/cart/add/", {"product_id": "4", "quantity": 1}).status_code == 302
        buyers.append((user, browser, {**checkout_form(browser), "stripe_token": card_token()}))

    responses = at_once(BUYERS, lambda i: buyers[i][1].post("/checkout/", buyers[i][2]))
    placed = [r for r in responses if r.status_code == 302 and "/account/orders/" in r.headers["Location"]]
    told = [r for r in responses if r.status_code == 302 and r.headers["Location"] == "/cart/"]
    assert (len(placed), len(told)) == (UNITS, BUYERS - UNITS), responses
    for response in told:
        text = " ".join(m.message for m in response.wsgi_request._messages)
        assert "sold out" in text.lower() or "only" in text.lower(), text
    assert stock("4") == 0
    orders = [o for user, _, _ in buyers for o in orders_of(user)]
    assert len(orders) == UNITS
    assert all(stripe_api.capture(o.payment.intent_id).status == "succeeded" for o in orders)
    ours = {form["order_id"] for _, _, form in buyers}
    listed = stripe_api.client().v1.payment_intents.list(params={"limit": 100}).auto_paging_iter()
    intents = [stripe_api.Intent.from_stripe(i) for i in listed]
    intents = [i for i in intents if i.order_id in ours]
    assert len(intents) == BUYERS
    assert sorted(i.status for i in intents) == ["canceled"] * (BUYERS - UNITS) + ["succeeded"] * UNITS
