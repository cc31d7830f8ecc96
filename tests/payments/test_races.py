"""Races on DynamoDB Local (moto's transactions are not safe across threads): the browser and the webhook
placing the same order at once; a crowd paying for the last units."""
import threading

import pytest
from django.db import close_old_connections

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
