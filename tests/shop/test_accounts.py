"""Accounts: sign-up, sign-in by email, the account page, password reset and change, the lockout,
the delivery address at checkout, the confirmation email, and the customer ID that is never reused."""
import re
import smtplib
import uuid
from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.core import mail
from django.core.mail.backends.base import BaseEmailBackend
from django.core.management import call_command
from django.utils import timezone

from catalog import gateway
from catalog.gateway import orders
from catalog.gateway.client import count_requests
from tests.helpers import items_in_partition

from .test_views import ADDRESS, add, checkout_form, stock

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-password-1"


def signup(client, **fields):
    data = {"username": "alice", "name": "Alice Liddell", "email": "alice@example.com",
            "password1": PASSWORD, "password2": PASSWORD, **fields}
    return client.post("/accounts/signup/", data)


def customer_item(user):
    items = [i for i in items_in_partition(f"CUSTOMER#{user.customer_id}") if i["SK"] == "METADATA"]
    return items[0] if items else None


def login(client, username, password=PASSWORD, **kwargs):
    return client.post("/accounts/login/", {"username": username, "password": password}, **kwargs)


@pytest.fixture
def alice(catalog, client, django_user_model):
    assert signup(client).status_code == 302
    return django_user_model.objects.get(username="alice")


# --- sign-up ----------------------------------------------------------------------------------

def test_sign_up_gives_a_random_customer_id_and_writes_the_customer_item(catalog, client, django_user_model):
    response = signup(client)
    assert response.status_code == 302
    user = django_user_model.objects.get(username="alice")
    assert isinstance(user.customer_id, uuid.UUID) and user.customer_id.version == 4
    assert user.name == "Alice Liddell" and user.email == "alice@example.com"
    item = customer_item(user)
    assert (item["name"], item["email"], item["customerId"]) == ("Alice Liddell", "alice@example.com",
                                                                 str(user.customer_id))
    assert "Welcome, Alice Liddell!" in client.get("/").content.decode()
    other = django_user_model.objects.create_user("bob", password=PASSWORD)
    assert other.customer_id != user.customer_id


@pytest.mark.parametrize("email", ["alice@example.com", "ALICE@Example.COM", " Alice@example.com "])
def test_a_taken_email_in_any_case_is_refused_and_nothing_is_written(alice, client, django_user_model, email):
    client.logout()
    response = signup(client, username="alice2", email=email)
    assert response.status_code == 400
    assert "An account with this email address already exists." in response.content.decode()
    assert list(django_user_model.objects.values_list("username", flat=True)) == ["alice"]


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"name": ""}, "This field is required."),
        ({"email": ""}, "This field is required."),
        ({"email": "not-an-email"}, "Enter a valid email address."),
        ({"name": "x" * 151}, "Ensure this value has at most 150 characters"),
        ({"email": "a" * 250 + "@example.com"}, "Ensure this value has at most 254 characters"),
        ({"username": "u" * 151}, "Ensure this value has at most 150 characters"),
        ({"name": "Bad\x00name"}, "Null characters are not allowed."),
        ({"password2": "something-else-1"}, "The two password fields didn’t match."),
    ],
)
def test_bad_sign_up_input_gets_a_clear_message_and_writes_nothing(catalog, client, django_user_model,
                                                                   fields, message):
    client.get("/")  # the header's menus are cached for a minute
    with count_requests() as counter:
        response = signup(client, **fields)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not django_user_model.objects.exists()
    assert counter.operations == []  # no customer item either


def test_dynamodb_unreachable_at_sign_up_is_a_503_and_leaves_no_account(catalog, client, django_user_model,
                                                                       settings):
    from catalog.gateway import client as dynamo

    settings.DYNAMODB_ENDPOINT_URL = "http://127.0.0.1:9"  # nothing listens there
    settings.DYNAMODB_MAX_ATTEMPTS = 1
    dynamo.reset_client()
    response = signup(client)
    assert response.status_code == 503
    assert not django_user_model.objects.exists()


# --- sign-in ----------------------------------------------------------------------------------

@pytest.mark.parametrize("identifier", ["alice", "alice@example.com", "ALICE@example.com"])
def test_sign_in_with_username_or_email(alice, client, identifier):
    client.logout()
    response = login(client, identifier)
    assert response.status_code == 302
    assert client.session["_auth_user_id"] == str(alice.pk)


def test_a_wrong_password_is_a_clear_message(alice, client):
    client.logout()
    response = login(client, "alice@example.com", "wrong-password")
    assert response.status_code == 200
    assert "Please enter a correct username and password." in response.content.decode()
    assert "_auth_user_id" not in client.session


# --- lockout (django-axes) --------------------------------------------------------------------

def test_repeated_wrong_passwords_lock_the_account_until_the_cool_off(alice, client, settings):
    client.logout()
    for i in range(settings.AXES_FAILURE_LIMIT - 1):
        # alternating username and email: both count against the one account
        assert login(client, "alice" if i % 2 else "Alice@example.com", "wrong").status_code == 200
    response = login(client, "alice", "wrong")
    assert response.status_code == 429
    assert "Sign-in is locked" in response.content.decode() and "15 minutes" in response.content.decode()
    # locked: even the right password is refused, from another address too
    response = login(client, "alice@example.com", REMOTE_ADDR="10.0.0.9")
    assert response.status_code == 429 and "_auth_user_id" not in client.session
    # after the cool-off the right password works again
    AccessAttempt.objects.update(attempt_time=timezone.now() - settings.AXES_COOLOFF_TIME - timedelta(seconds=1))
    assert login(client, "alice").status_code == 302


def test_staff_lift_a_lockout_with_a_command(alice, client, settings):
    client.logout()
    for _ in range(settings.AXES_FAILURE_LIMIT):
        login(client, "alice", "wrong")
    assert login(client, "alice").status_code == 429
    call_command("axes_reset_username", "alice")
    assert login(client, "alice").status_code == 302


def test_one_client_address_trying_many_accounts_is_locked(alice, client, settings):
    client.logout()
    for i in range(settings.AXES_FAILURE_LIMIT):
        login(client, f"nobody{i}", "wrong", REMOTE_ADDR="203.0.113.7")
    response = login(client, "alice", REMOTE_ADDR="203.0.113.7")
    assert response.status_code == 429
    assert login(client, "alice", REMOTE_ADDR="203.0.113.8").status_code == 302  # another address is fine


# --- the account page -------------------------------------------------------------------------

def test_account_page_changes_name_and_email_and_the_customer_item(alice, client):
    response = client.post("/account/", {"name": "Alice Pleasance", "email": "ap@example.com"})
    assert response.status_code == 302
    alice.refresh_from_db()
    assert (alice.name, alice.email) == ("Alice Pleasance", "ap@example.com")
    item = customer_item(alice)
    assert (item["name"], item["email"]) == ("Alice Pleasance", "ap@example.com")
    assert "Your details are saved." in client.get("/account/").content.decode()


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"email": "BOB@example.com"}, "An account with this email address already exists."),
        ({"email": "nope"}, "Enter a valid email address."),
        ({"name": ""}, "This field is required."),
        ({"name": "n" * 151}, "Ensure this value has at most 150 characters"),
    ],
)
def test_bad_account_changes_are_refused_and_change_nothing(alice, client, django_user_model, fields, message):
    django_user_model.objects.create_user("bob", email="bob@example.com", password=PASSWORD)
    response = client.post("/account/", {"name": "Alice Liddell", "email": "alice@example.com", **fields})
    assert response.status_code == 400 and message in response.content.decode()
    alice.refresh_from_db()
    assert (alice.name, alice.email) == ("Alice Liddell", "alice@example.com")
    assert customer_item(alice)["email"] == "alice@example.com"


def test_account_page_needs_sign_in(client):
    assert client.get("/account/")["Location"].startswith("/accounts/login/")


def test_change_password(alice, client):
    response = client.post("/accounts/password/change/", {
        "old_password": PASSWORD, "new_password1": "a-new-password-9", "new_password2": "a-new-password-9"})
    assert response.status_code == 302 and response["Location"] == "/account/"
    assert "Your password is changed." in client.get("/account/").content.decode()
    client.logout()
    assert login(client, "alice", "a-new-password-9").status_code == 302


def test_change_password_with_a_wrong_old_password_changes_nothing(alice, client):
    response = client.post("/accounts/password/change/", {
        "old_password": "wrong", "new_password1": "a-new-password-9", "new_password2": "a-new-password-9"})
    assert response.status_code == 200
    assert "Your old password was entered incorrectly." in response.content.decode()
    alice.refresh_from_db()
    assert alice.check_password(PASSWORD)


# --- forgot password --------------------------------------------------------------------------

def _reset_link():
    assert len(mail.outbox) == 1
    return re.search(r"http://testserver(/accounts/password/reset/\S+/)", mail.outbox[0].body).group(1)


def test_password_reset_by_email_works_once(alice, client):
    client.logout()
    response = client.post("/accounts/password/reset/", {"email": "ALICE@example.com"})
    assert response.status_code == 302
    assert mail.outbox[0].to == ["alice@example.com"]
    link = _reset_link()
    form_url = client.get(link)["Location"]  # Django swaps the token for a session one
    response = client.post(form_url, {"new_password1": "a-new-password-8", "new_password2": "a-new-password-8"})
    assert response.status_code == 302 and response["Location"] == "/accounts/password/reset/complete/"
    alice.refresh_from_db()
    assert alice.check_password("a-new-password-8")
    # the same link a second time
    html = client.get(link, follow=True).content.decode()
    assert "This password reset link is not valid: it was used already" in html
    response = client.post(form_url, {"new_password1": "another-pass-77", "new_password2": "another-pass-77"})
    assert "This password reset link is not valid" in response.content.decode()
    alice.refresh_from_db()
    assert alice.check_password("a-new-password-8")


def test_a_wrong_reset_token_is_refused(alice, client):
    client.logout()
    client.post("/accounts/password/reset/", {"email": "alice@example.com"})
    link = _reset_link()
    bad = re.sub(r"/([^/]+)/$", "/x-wrongtoken/", link)
    html = client.get(bad, follow=True).content.decode()
    assert "This password reset link is not valid" in html and 'name="new_password1"' not in html
    alice.refresh_from_db()
    assert alice.check_password(PASSWORD)


def test_reset_for_an_unknown_email_sends_nothing_and_says_the_same(alice, client):
    client.logout()
    response = client.post("/accounts/password/reset/", {"email": "nobody@example.com"}, follow=True)
    assert "Check your email" in response.content.decode()
    assert mail.outbox == []
    response = client.post("/accounts/password/reset/", {"email": "not an email"})
    assert response.status_code == 200 and "Enter a valid email address." in response.content.decode()


# --- checkout: the delivery address -----------------------------------------------------------

def _place(client, **address):
    return client.post("/checkout/", checkout_form(client, **address))


def test_the_order_keeps_the_address_and_the_next_checkout_offers_it(alice, client):
    add(client, "4", 1)
    html = client.get("/checkout/").content.decode()
    assert re.search(r'name="name"[^>]*value="Alice Liddell"', html)  # the account's name to start with
    response = _place(client, country="de")
    order_id = response["Location"].rstrip("/").rsplit("/", 1)[1]
    order = orders.order_get(customer_id=str(alice.customer_id), order_id=order_id)
    assert order.address == {**ADDRESS, "country": "DE"}
    html = client.get(f"/account/orders/{order_id}/").content.decode()
    assert "Hauptstraße 1" in html and "10115 Berlin" in html and "Germany" in html
    # the next checkout is filled in with it; a new address there does not change the old order
    add(client, "4", 1)
    html = client.get("/checkout/").content.decode()
    assert re.search(r'name="street"[^>]*value="Hauptstraße 1"', html)
    assert re.search(r'<option value="DE" selected>', html)
    _place(client, street="Unter den Linden 5")
    assert orders.order_get(customer_id=str(alice.customer_id), order_id=order_id).address["street"] == "Hauptstraße 1"
    alice.refresh_from_db()
    assert alice.last_address["street"] == "Unter den Linden 5"


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"name": ""}, "Enter the name."),
        ({"street": "   "}, "Enter the street."),
        ({"postcode": ""}, "Enter the postcode."),
        ({"postcode": "10115; DROP"}, "A postcode has letters, digits, spaces and hyphens only."),
        ({"postcode": "1" * 13}, "The postcode can be at most 12 characters."),
        ({"city": ""}, "Enter the city."),
        ({"city": "c" * 101}, "The city can be at most 100 characters."),
        ({"street": "s" * 201}, "The street can be at most 200 characters."),
        ({"street": "Line\x07bell"}, "Use letters, digits, spaces and punctuation only."),
        ({"country": ""}, "Choose the country."),
        ({"country": "XX"}, "Choose a country from the list"),
        ({"country": "Germany"}, "Choose a country from the list"),
    ],
)
def test_a_bad_address_gets_a_clear_message_and_orders_nothing(alice, client, fields, message):
    add(client, "4", 2)
    form = checkout_form(client, **fields)
    response = client.post("/checkout/", form)
    html = response.content.decode()
    assert response.status_code == 400 and message in html
    assert f'value="{form["order_id"]}"' in html  # the same order ID: fixing and resubmitting is one order
    assert stock("4") == 12
    assert orders.orders_by_customer(customer_id=str(alice.customer_id)).items == []
    assert client.session["cart"]["4"]["quantity"] == 2
    assert mail.outbox == []


# --- the confirmation email -------------------------------------------------------------------

class BrokenEmailBackend(BaseEmailBackend):
    def send_messages(self, messages):
        raise smtplib.SMTPServerDisconnected("the mail server went away")


def test_the_confirmation_email_has_number_lines_total_and_address(alice, client):
    add(client, "1", 1)
    add(client, "4", 2)
    form = checkout_form(client)
    client.post("/checkout/", form)
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["alice@example.com"]
    number = gateway.order_number_for(form["order_id"])  # the short number people read out (issue 37)
    assert message.subject == f"Your Fromatoz order {number}"
    for text in ("1 × Model 3 at €39,990.00: €39,990.00", "2 × Pixel 9 at €899.00: €1,798.00",
                 "Order total: €41,788.00", "Alice Liddell", "Hauptstraße 1", "10115 Berlin", "Germany"):
        assert text in message.body


def test_a_replayed_checkout_sends_no_second_email(alice, client):
    add(client, "4", 1)
    cart = client.session["cart"]
    form = checkout_form(client)
    client.post("/checkout/", form)
    client.post("/checkout/", form)  # Back and resubmit: the session knows
    session = client.session
    # A replay the session cannot recognise as placed (its checkout still issued, as on a server
    # whose session write was lost): the gateway answers the order placed, and no second email.
    session["placed_orders"], session["cart"] = [], cart
    session["checkout"] = {"order_id": form["order_id"], "token": form["token"]}
    session.save()
    assert client.post("/checkout/", form)["Location"] == f"/account/orders/{form['order_id']}/"
    assert len(mail.outbox) == 1
    assert len(orders.orders_by_customer(customer_id=str(alice.customer_id)).items) == 1


def test_a_failed_email_neither_undoes_nor_repeats_the_order(alice, client, settings, caplog):
    settings.EMAIL_BACKEND = "tests.shop.test_accounts.BrokenEmailBackend"
    add(client, "4", 1)
    form = checkout_form(client)
    response = client.post("/checkout/", form, follow=True)
    assert "Thank you! Your order" in response.content.decode()
    assert stock("4") == 11
    assert f"Order {form['order_id']} is placed, but its confirmation email was not sent" in caplog.text
    client.post("/checkout/", form)
    assert stock("4") == 11
    assert len(orders.orders_by_customer(customer_id=str(alice.customer_id)).items) == 1


def test_placing_an_order_heals_the_customer_item(alice, client):
    gateway.customer_put(customer_id=str(alice.customer_id), name="stale", email="stale@example.com")
    add(client, "4", 1)
    client.post("/checkout/", checkout_form(client))
    item = customer_item(alice)
    assert (item["name"], item["email"], item["orderCount"]) == ("Alice Liddell", "alice@example.com", 1)


# --- the old defect: a recreated database hands out row number 1 again ----------------------------

@pytest.mark.django_db(transaction=True)
def test_a_recreated_auth_database_does_not_hand_over_old_orders(catalog, client, django_user_model):
    call_command("flush", interactive=False, verbosity=0)  # a new database: row numbers from 1
    assert signup(client).status_code == 302
    first = django_user_model.objects.get()
    add(client, "4", 1)
    order_url = client.post("/checkout/", checkout_form(client))["Location"]
    assert client.get(order_url).status_code == 200
    client.logout()

    call_command("flush", interactive=False, verbosity=0)  # every table emptied, row numbers restarted

    assert signup(client, username="mallory", email="mallory@example.com").status_code == 302
    newcomer = django_user_model.objects.get()
    assert newcomer.pk == first.pk  # the same row number as before: the old keys would have matched
    assert newcomer.customer_id != first.customer_id
    html = client.get("/account/orders/").content.decode()
    assert "You have no orders yet." in html
    assert client.get(order_url).status_code == 404


# --- the accounts database out of reach -------------------------------------------------------

def test_the_accounts_database_out_of_reach_is_a_friendly_503(alice, client, monkeypatch):
    from django.contrib.sessions.backends.db import SessionStore
    from django.db import OperationalError

    def unreachable(self):
        raise OperationalError("connection refused")

    monkeypatch.setattr(SessionStore, "load", unreachable)
    client.raise_request_exception = False
    for path in ("/", "/cart/", "/account/orders/"):
        response = client.get(path)
        assert response.status_code == 503, path
        assert "The shop is taking a short break" in response.content.decode()
        assert "Traceback" not in response.content.decode()
