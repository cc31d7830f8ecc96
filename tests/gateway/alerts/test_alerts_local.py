"""Back-in-stock alerts on DynamoDB Local (real conditions, transactions and index): a receipt sends
each alert once, never more than units + margin, oldest first, with jobs running at the same time."""
import threading
import time

import pytest
from django.core import mail

from catalog import gateway
from catalog.gateway.alerts import asking, claiming, sending
from shop.stock_alerts import send_due_alerts
from tests.helpers import alert_count

pytestmark = pytest.mark.django_db
SOLD_OUT = "3"


def ask(n):
    for i in range(n):
        asking.alert_ask(product_id=SOLD_OUT, email=f"s{i:02d}@example.com", customer_id=f"c{i}")


def wait_for_index(expected):
    """The AlertQueue index is eventually consistent: wait until it shows the waiting alerts."""
    for _ in range(100):
        if len(claiming._waiting(SOLD_OUT, limit=100)) == expected:
            return
        time.sleep(0.05)
    raise AssertionError("the index never showed the waiting alerts")


def test_a_receipt_sends_each_alert_once_within_the_margin_with_four_jobs_at_once(local_catalog, settings):
    settings.STOCK_ALERT_MARGIN = 2
    ask(12)
    wait_for_index(12)
    gateway.stock_increase(product_id=SOLD_OUT, quantity=3, token="shipment-1")
    gateway.stock_increase(product_id=SOLD_OUT, quantity=3, token="shipment-1")  # the same line again: once
    errors = []

    def job():
        try:
            send_due_alerts()
        except Exception as exc:  # pragma: no cover - shown by the assert below
            errors.append(exc)

    threads = [threading.Thread(target=job) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    send_due_alerts()  # a later pass finds nothing more to send
    sent = [m.to[0] for m in mail.outbox]
    assert sorted(sent) == [f"s{i:02d}@example.com" for i in range(5)]  # 3 units + 2, the oldest five, once each
    assert alert_count(product_id=SOLD_OUT) == 7


def test_a_job_that_stops_after_claiming_loses_nothing(local_catalog):
    ask(2)
    wait_for_index(2)
    gateway.stock_increase(product_id=SOLD_OUT, quantity=1, token="shipment-2")
    assert claiming.alerts_claim(product_id=SOLD_OUT, margin=0) == 1  # and then the job stops
    assert claiming.alerts_claim(product_id=SOLD_OUT, margin=0) == 0  # the units are not given out again
    for _ in range(100):  # the outbox entry is in the (eventually consistent) index a moment later
        if send_due_alerts().sent:
            break
        time.sleep(0.05)
    send_due_alerts(now=time.time() + sending.LEASE_SECONDS + 1)
    assert [m.to for m in mail.outbox] == [["s00@example.com"]]


@pytest.mark.dynamodb_local
def test_a_guest_ask_is_one_conditional_put_whose_outcome_differs(local_catalog, monkeypatch):
    """On real DynamoDB: a new ask writes, asking again while the confirmation is due writes nothing,
    after RESEND_CONFIRMATION_SECONDS the same alert is due again, and over MAX_PENDING_PER_OWNER the
    oldest pending ask goes in the same transaction."""
    gateway.stock_decrease(product_id="8", quantity=1, token=gateway.new_token())  # Roadster sold out too
    first = asking.alert_ask(product_id=SOLD_OUT, email="bob@example.com")
    assert first.state == "pending"
    again = asking.alert_ask(product_id=SOLD_OUT, email="bob@example.com")
    assert again.state == "already" and again.alert.alert_id == first.alert.alert_id
    send_due_alerts()
    assert len(mail.outbox) == 1
    monkeypatch.setattr(asking, "RESEND_CONFIRMATION_SECONDS", -5)
    assert asking.alert_ask(product_id=SOLD_OUT, email="bob@example.com").state == "already"
    send_due_alerts()
    assert len(mail.outbox) == 2 and mail.outbox[1].extra_headers["Message-ID"] == mail.outbox[0].extra_headers[
        "Message-ID"]  # the same alert's confirmation again
    monkeypatch.setattr(asking, "MAX_PENDING_PER_OWNER", 1)
    assert asking.alert_ask(product_id="8", email="bob@example.com").state == "pending"
    left = asking.alerts_of_owner(owner=first.alert.owner)
    assert [(a.product_id, a.status) for a in left] == [("8", "pending")]
