"""Back-in-stock alerts as shoppers meet them (Django test client, moto, locmem email): the sold-out
page's box, double opt-in, one click when signed in, the account page, unsubscribe, and the job."""
import re
import time

import pytest
from django.core import mail
from django.core.management import call_command
from django.test import Client

from catalog import gateway
from catalog.gateway import keys
from catalog.gateway.alerts import asking, claiming, sending
from catalog.gateway.dynamo import backoff
from catalog.gateway.dynamo.testing import count_requests
from shop.stock_alerts import send_due_alerts
from tests.helpers import alert_count, make_account

pytestmark = pytest.mark.django_db
HX = {"HX-Request": "true"}
SOLD_OUT = "3"  # Home charger, stock 0


def receive(product_id, quantity):
    gateway.stock_increase(product_id=product_id, quantity=quantity, token=gateway.new_token())


def link(message, kind):
    return re.search(rf"https?://[^/\s]+(/alerts/{kind}/[^/\s]+/)", message.body).group(1)


def test_the_sold_out_page_offers_the_alert_and_an_in_stock_page_does_not(catalog, client, settings):
    settings.STOCK_HOLD_SECONDS = 0  # (with holds on, the held units are read too: a Query a hold partition)
    client.get("/")  # the names cache
    with count_requests() as counter:
        html = client.get(f"/products/{SOLD_OUT}/").content.decode()
    assert "Email me when it’s back" in html and 'name="email"' in html and "Nobody is waiting yet" in html
    assert counter.operations == ["GetItem"]  # the product, which counts the alerts waiting for it
    assert "Email me when it’s back" not in client.get("/products/1/").content.decode()
    asking.alert_ask(product_id=SOLD_OUT, email="ann@example.com", customer_id="c1")
    assert "1 person is waiting for this product" in client.get(f"/products/{SOLD_OUT}/").content.decode()


def test_a_guest_confirms_by_email_and_gets_one_alert_when_stock_arrives(catalog, client, settings):
    settings.STOCK_ALERT_MARGIN = 0
    response = client.post(f"/products/{SOLD_OUT}/notify/", {"email": "guest@example.com"})
    assert response.status_code == 302
    assert "we are sending a link to guest@example.com" in client.get(response["Location"]).content.decode()
    assert alert_count(product_id=SOLD_OUT) == 0  # not before it is confirmed
    call_command("run_stock_jobs")
    [confirmation] = mail.outbox
    assert confirmation.to == ["guest@example.com"] and "Confirm" in confirmation.subject
    assert confirmation.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    confirm = link(confirmation, "confirm")
    # Stock arrives before it is confirmed: nothing is sent to an unconfirmed address.
    receive(SOLD_OUT, 1)
    send_due_alerts()
    assert len(mail.outbox) == 1
    gateway.stock_decrease(product_id=SOLD_OUT, quantity=1, token=gateway.new_token(), reason="damaged")
    page = client.get(confirm)  # a mail scanner opening the link confirms nothing
    assert "Yes, email me" in page.content.decode() and alert_count(product_id=SOLD_OUT) == 0
    assert "Your alert is on" in client.post(confirm).content.decode()
    assert alert_count(product_id=SOLD_OUT) == 1
    receive(SOLD_OUT, 1)
    call_command("run_stock_jobs")
    call_command("run_stock_jobs")
    assert [m.subject for m in mail.outbox[1:]] == ["Back in stock: Wall Connector"]
    back = mail.outbox[1]
    assert back.to == ["guest@example.com"] and "/products/3/" in back.body
    assert back.extra_headers["List-Unsubscribe"].startswith("<http") and link(back, "unsubscribe")
    assert alert_count(product_id=SOLD_OUT) == 0


def test_a_confirm_the_shop_was_too_busy_to_make_says_so(catalog, client, monkeypatch):
    from catalog.gateway.dynamo.transact import Refusal

    client.post(f"/products/{SOLD_OUT}/notify/", {"email": "guest@example.com"})
    call_command("run_stock_jobs")
    confirm = link(mail.outbox[0], "confirm")
    monkeypatch.setattr(asking, "transact_write", lambda actions, **kw: Refusal(conflict=True))
    monkeypatch.setattr(backoff, "CONTENDED_WRITE_SECONDS", 0.05)  # a few tries, then busy
    busy = client.post(confirm)
    assert busy.status_code == 503 and "too busy to turn your alert on" in busy.content.decode()
    assert busy["Retry-After"] == "5"
    assert "Your alert is on" not in busy.content.decode() and alert_count(product_id=SOLD_OUT) == 0
    monkeypatch.undo()
    assert "Your alert is on" in client.post(confirm).content.decode()
    assert alert_count(product_id=SOLD_OUT) == 1


def test_a_signed_in_shopper_asks_with_one_click_and_sees_it_on_the_account_page(catalog, client, shopper):
    client.force_login(shopper)
    response = client.post(f"/products/{SOLD_OUT}/notify/", {"email": "ignored@example.com"}, headers=HX)
    assert response.status_code == 200
    assert "we will email alice@example.com" in response.content.decode()
    assert "1 person is waiting" in response.content.decode()
    account = client.get("/account/").content.decode()
    assert "Wall Connector" in account and "waiting since" in account
    again = client.post(f"/products/{SOLD_OUT}/notify/", headers=HX).content.decode()
    assert "You already asked" in again and alert_count(product_id=SOLD_OUT) == 1
    receive(SOLD_OUT, 1)
    send_due_alerts()
    assert [m.to for m in mail.outbox] == [["alice@example.com"]]  # no confirmation needed: one click
    assert "emailed" in client.get("/account/").content.decode()


def test_later_askers_are_told_how_many_wait(catalog, client, shopper):
    for i in range(3):
        asking.alert_ask(product_id=SOLD_OUT, email=f"s{i}@example.com", customer_id=f"c{i}")
    assert "3 people are waiting" in client.get(f"/products/{SOLD_OUT}/").content.decode()
    client.force_login(shopper)
    answer = client.post(f"/products/{SOLD_OUT}/notify/", headers=HX).content.decode()
    assert "3 people asked before you" in answer and "4 people are waiting" in answer


def test_a_shopper_cancels_their_alert_and_another_cannot(catalog, client, shopper, django_user_model):
    client.force_login(shopper)
    client.post(f"/products/{SOLD_OUT}/notify/")
    mallory = Client()
    mallory.force_login(make_account(django_user_model, "mallory", "a-long-password-2"))
    assert "Wall Connector" not in mallory.get("/account/").content.decode()
    assert mallory.post(f"/account/alerts/{SOLD_OUT}/cancel/").status_code == 404
    assert alert_count(product_id=SOLD_OUT) == 1
    assert Client(enforce_csrf_checks=True).post(f"/account/alerts/{SOLD_OUT}/cancel/").status_code in (302, 403)
    csrf_client = Client(enforce_csrf_checks=True)
    csrf_client.force_login(shopper)
    assert csrf_client.post(f"/account/alerts/{SOLD_OUT}/cancel/").status_code == 403  # no CSRF token
    response = client.post(f"/account/alerts/{SOLD_OUT}/cancel/")
    assert response.status_code == 302
    assert "is cancelled" in client.get(response["Location"]).content.decode()
    assert alert_count(product_id=SOLD_OUT) == 0
    receive(SOLD_OUT, 1)
    send_due_alerts()
    assert mail.outbox == []


def test_one_click_unsubscribe_from_the_email(catalog, client, shopper):
    client.force_login(shopper)
    client.post(f"/products/{SOLD_OUT}/notify/")
    alert = asking.alerts_of_owner(owner=keys.alert_owner_customer(shopper.customer_key_id))[0]
    from shop.stock_alerts import alert_email, link_token

    url = link(alert_email(alert), "unsubscribe")
    assert url == f"/alerts/unsubscribe/{link_token(alert)}/"
    anonymous = Client(enforce_csrf_checks=True)
    page = anonymous.get(url)  # GET asks; it changes nothing
    assert "Stop the alert" in page.content.decode() and alert_count(product_id=SOLD_OUT) == 1
    # The mail program's RFC 8058 POST: no cookie, no CSRF token, the signed link is enough.
    response = anonymous.post(url, {"List-Unsubscribe": "One-Click"})
    assert response.status_code == 200 and "Alert stopped" in response.content.decode()
    assert alert_count(product_id=SOLD_OUT) == 0
    assert anonymous.post(url).status_code == 200  # twice is fine
    assert anonymous.post(url[:-3] + "x/").status_code == 400  # a tampered link


@pytest.mark.parametrize(("product_id", "data", "status", "text"), [
    (SOLD_OUT, {"email": "not an email"}, 400, "valid email address"),
    (SOLD_OUT, {}, 400, "Enter your email address"),
    ("999", {"email": "ann@example.com"}, 404, ""),
    ("bad id!", {"email": "ann@example.com"}, 400, ""),
    ("1", {"email": "ann@example.com"}, 409, "is in stock"),
])
def test_bad_input_is_refused_and_changes_nothing(catalog, client, product_id, data, status, text):
    for headers in ({}, HX):
        response = client.post(f"/products/{product_id}/notify/", data, headers=headers)
        assert response.status_code == status
        assert text in response.content.decode()
    assert alert_count(product_id=SOLD_OUT) == 0 and alert_count(product_id="1") == 0
    assert [a for s in range(keys.ALERT_SHARDS) for a in sending.alerts_outbox(shard=s)] == []


def test_never_more_than_units_plus_margin_oldest_first(catalog, settings):
    settings.STOCK_ALERT_MARGIN = 1
    for i in range(5):
        asking.alert_ask(product_id=SOLD_OUT, email=f"s{i}@example.com", customer_id=f"c{i}")
    receive(SOLD_OUT, 2)
    send_due_alerts()
    send_due_alerts()
    assert [m.to[0] for m in mail.outbox] == ["s0@example.com", "s1@example.com", "s2@example.com"]


def test_a_crash_between_claim_and_send_neither_loses_nor_doubles(catalog, monkeypatch):
    asking.alert_ask(product_id=SOLD_OUT, email="ann@example.com", customer_id="c1")
    receive(SOLD_OUT, 1)
    # The job stops right after claiming (before any email): the claim is kept.
    assert claiming.alerts_claim(product_id=SOLD_OUT, margin=0) == 1
    # The next job's mail server fails: nothing sent, the alert stays due.
    from django.core.mail.backends.locmem import EmailBackend

    def down(self, messages):
        raise ConnectionRefusedError("mail server down")

    monkeypatch.setattr(EmailBackend, "send_messages", down)
    assert send_due_alerts().failed == 1
    monkeypatch.undo()
    assert send_due_alerts().sent == 0 and mail.outbox == []  # its lease still runs
    assert send_due_alerts(now=time.time() + sending.LEASE_SECONDS + 1).sent == 1
    assert send_due_alerts(now=time.time() + 2 * sending.LEASE_SECONDS + 2).sent == 0
    assert [m.to for m in mail.outbox] == [["ann@example.com"]]


class RefusingBackend:
    """A mail backend whose server refuses every message; `tries` counts the messages it was given."""

    tries = 0

    def __init__(self, *args, **kwargs):
        pass

    def send_messages(self, messages):
        RefusingBackend.tries += len(messages)
        raise ConnectionRefusedError("550 refused")


def test_an_email_that_keeps_failing_is_given_up_after_the_set_attempts(catalog, settings, caplog):
    settings.EMAIL_BACKEND = "tests.shop.test_stock_alerts.RefusingBackend"
    settings.STOCK_ALERT_MAIL_ATTEMPTS = 3
    RefusingBackend.tries = 0
    asking.alert_ask(product_id=SOLD_OUT, email="ann@example.com", customer_id="c1")
    receive(SOLD_OUT, 1)
    summaries = [send_due_alerts(now=time.time() + n * (sending.LEASE_SECONDS + 1)) for n in range(6)]
    assert RefusingBackend.tries == 3  # one pass after another, then never again
    assert [(s.failed, s.given_up) for s in summaries] == [(1, 0), (1, 0), (0, 1), (0, 0), (0, 0), (0, 0)]
    assert "email not sent after 3 attempts; given up" in caplog.text
    assert "1 given up" in str(summaries[2])
    alert = asking.alerts_of_owner(owner=keys.alert_owner_customer("c1"))[0]
    assert alert.status == "failed" and alert.attempts == 3
    # Sold out again, the shopper may ask again: the new alert takes the failed one's place and waits.
    gateway.stock_decrease(product_id=SOLD_OUT, quantity=1, token=gateway.new_token(), reason="damaged")
    assert asking.alert_ask(product_id=SOLD_OUT, email="ann@example.com", customer_id="c1").state == "waiting"


def test_a_guest_alert_whose_confirmation_needed_tries_still_gets_every_try_for_its_email(catalog, settings):
    """The tries of the confirmation are its own: the alert's email, once confirmed, gets the full
    STOCK_ALERT_MAIL_ATTEMPTS."""
    settings.STOCK_ALERT_MAIL_ATTEMPTS = 2
    asking.alert_ask(product_id=SOLD_OUT, email="bob@example.com")
    settings.EMAIL_BACKEND = "tests.shop.test_stock_alerts.RefusingBackend"
    assert send_due_alerts().failed == 1  # the confirmation's first try fails
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    assert send_due_alerts(now=time.time() + sending.LEASE_SECONDS + 1).sent == 1  # its second goes out
    owner = keys.alert_owner_email("bob@example.com")
    pending = asking.alerts_of_owner(owner=owner)[0]
    asking.alert_confirm(owner=owner, product_id=SOLD_OUT, alert_id=pending.alert_id)
    receive(SOLD_OUT, 1)
    settings.EMAIL_BACKEND = "tests.shop.test_stock_alerts.RefusingBackend"
    RefusingBackend.tries = 0
    summaries = [send_due_alerts(now=time.time() + n * (sending.LEASE_SECONDS + 1)) for n in range(2, 5)]
    assert RefusingBackend.tries == 2 and [s.given_up for s in summaries] == [0, 1, 0]


def test_a_failing_mail_server_never_fails_a_stock_write(catalog, monkeypatch):
    from django.core.mail.backends.locmem import EmailBackend

    monkeypatch.setattr(EmailBackend, "send_messages", lambda self, messages: 1 / 0)
    asking.alert_ask(product_id=SOLD_OUT, email="ann@example.com", customer_id="c1")
    receive(SOLD_OUT, 4)  # the write itself sends nothing
    assert gateway.product_get(product_id=SOLD_OUT).stock_level == 4
    assert send_due_alerts().failed == 1


def test_a_guest_cannot_tell_whether_an_address_asked_before(catalog, client):
    first = client.post(f"/products/{SOLD_OUT}/notify/", {"email": "bob@example.com"}, headers=HX).content.decode()
    again = Client().post(f"/products/{SOLD_OUT}/notify/", {"email": "bob@example.com"}, headers=HX).content.decode()
    assert "we are sending a link to bob@example.com" in first
    assert "we are sending a link to bob@example.com" in again and "already" not in again.split("unless")[0]
    call_command("run_stock_jobs")
    assert len(mail.outbox) == 1  # one confirmation, however often the address is entered


# --- rate limits: per client address, per email address, per account (STOCK_ALERT_ASKS_PER_*) ----------

TOO_OFTEN = "You have asked for alerts too often in the last hour"


def ask(client, product_id, email=None, ip="10.0.0.1", **kwargs):
    return client.post(f"/products/{product_id}/notify/", {"email": email} if email else {}, REMOTE_ADDR=ip, **kwargs)


@pytest.fixture
def two_sold_out(catalog):
    gateway.stock_decrease(product_id="8", quantity=1, token=gateway.new_token(), reason="damaged")  # Roadster


def test_one_address_asks_at_most_5_times_an_hour_from_anywhere(two_sold_out, client):
    for i in range(5):  # from five connections, as written or in capitals
        response = ask(client, SOLD_OUT, "bob@example.com" if i % 2 else "Bob@Example.COM ", ip=f"10.0.1.{i}",
                       headers=HX)
        assert response.status_code == 200
    # The sixth is answered as any guest's ask (a 429 would tell a stranger how often the address was entered),
    # and nothing is saved or sent.
    response = ask(client, "8", "bob@example.com", ip="10.0.1.9", headers=HX)
    html = response.content.decode()
    assert response.status_code == 200 and "Almost done: we are sending a link to bob@example.com" in html
    assert TOO_OFTEN not in html and 'id="stock-alert-waiting"' in html  # the box's partial, as every answer
    assert alert_count(product_id="8") == 0
    assert [a.product_id for s in range(keys.ALERT_SHARDS) for a in sending.alerts_outbox(shard=s)] == [SOLD_OUT]
    assert ask(client, "8", "carol@example.com", ip="10.0.1.9", headers=HX).status_code == 200  # others may


def test_one_connection_asks_at_most_20_times_an_hour(two_sold_out, client, shopper):
    client.force_login(shopper)
    for i in range(10):  # signed in and as guests: one count a connection
        assert ask(client, SOLD_OUT if i == 0 else "8").status_code == 302
    client.logout()
    for i in range(10, 20):
        assert ask(client, SOLD_OUT, f"s{i}@example.com").status_code == 302
    response = ask(client, "8", "late@example.com")  # without HTMX: the page in the shop's frame, 429
    html = response.content.decode()
    assert response.status_code == 429 and "<h1>Your alert was not saved</h1>" in html and TOO_OFTEN in html
    assert "Back to Acme Roadster" in html and '<nav' in html
    assert len([a for s in range(keys.ALERT_SHARDS) for a in sending.alerts_outbox(shard=s)]) == 10
    assert ask(client, "8", "late@example.com", ip="10.0.0.2").status_code == 302  # another connection


def test_a_signed_in_shopper_asks_at_most_20_times_an_hour(two_sold_out, client, shopper):
    client.force_login(shopper)
    for i in range(20):  # one click each, from whichever connection
        assert ask(client, SOLD_OUT, ip=f"10.0.2.{i}", headers=HX).status_code == 200
    response = ask(client, "8", ip="10.0.2.99", headers=HX)
    assert response.status_code == 429 and TOO_OFTEN in response.content.decode()
    assert alert_count(product_id="8") == 0 and alert_count(product_id=SOLD_OUT) == 1


def test_a_hidden_product_takes_no_alert(catalog, client, shopper):
    product = gateway.product_get(product_id=SOLD_OUT)
    gateway.product_update(product_id=SOLD_OUT, version=product.version, who="eve", changes={"published": False})
    assert client.post(f"/products/{SOLD_OUT}/notify/", {"email": "guest@example.com"}).status_code == 404
    client.force_login(shopper)
    assert client.post(f"/products/{SOLD_OUT}/notify/", headers=HX).status_code == 404
    assert alert_count(product_id=SOLD_OUT) == 0 and mail.outbox == []
