"""Accounts on django-allauth: sign-up (never telling whether an address has an account), sign-in by
email or username, the rate limits, the account page, confirmed email changes, password reset and
change (the old address told of each), safe `next`, the delivery address at checkout, the confirmation
email, and the customer ID that is never reused."""
import re
import smtplib
import uuid

import pytest
from allauth.account.models import EmailAddress
from django.core import mail
from django.core.cache import cache
from django.core.mail.backends.base import BaseEmailBackend
from django.core.management import call_command

from catalog import gateway
from catalog.gateway.dynamo.testing import count_requests
from catalog.gateway.orders import orders
from tests.helpers import items_in_partition, mailed_code

from .test_views import ADDRESS, add, checkout_form, stock

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-password-1"


def signup(client, **fields):
    data = {"username": "alice", "email": "alice@example.com", "password1": PASSWORD, "password2": PASSWORD,
            **fields}
    return client.post("/accounts/signup/", data)


def confirm_email(client):
    return client.post("/accounts/confirm-email/", {"code": mailed_code(mail.outbox[-1])})


def customer_item(user):
    items = [i for i in items_in_partition(f"CUSTOMER#{user.customer_id}") if i["SK"] == "METADATA"]
    return items[0] if items else None


def login(client, identifier, password=PASSWORD, **kwargs):
    return client.post("/accounts/login/", {"login": identifier, "password": password}, **kwargs)


def signed_in_as(client):
    return client.session.get("_auth_user_id")


@pytest.fixture
def alice(catalog, client, django_user_model):
    assert signup(client, name="Alice Liddell").status_code == 302
    assert confirm_email(client).status_code == 302
    mail.outbox.clear()
    cache.clear()  # the rate limits' counts (allauth keeps them in the cache): the sign-up was a while ago
    return django_user_model.objects.get(username="alice")


# --- sign-up ----------------------------------------------------------------------------------

def test_sign_up_confirms_the_address_then_signs_in_with_a_customer_item(catalog, client, django_user_model):
    response = signup(client)  # the contract's four fields, no name
    assert response.status_code == 302 and response["Location"] == "/accounts/confirm-email/"
    user = django_user_model.objects.get(username="alice")
    assert isinstance(user.customer_id, uuid.UUID) and user.customer_id.version == 4
    assert customer_item(user) is None  # nothing in DynamoDB before the address is confirmed
    assert signed_in_as(client) is None  # not before the address is confirmed
    assert mail.outbox[0].to == ["alice@example.com"]
    assert client.post("/accounts/confirm-email/", {"code": "WRONG-CODE"}).status_code == 400
    assert customer_item(user) is None
    assert confirm_email(client).status_code == 302
    assert signed_in_as(client) == str(user.pk)
    item = customer_item(user)
    assert (item["name"], item["email"], item["customerId"]) == ("alice", "alice@example.com", str(user.customer_id))
    assert EmailAddress.objects.get(user=user).verified
    other = django_user_model.objects.create_user("bob", password=PASSWORD)
    assert other.customer_id != user.customer_id


def test_sign_up_keeps_an_optional_name(catalog, client, django_user_model):
    signup(client, name="Alice Liddell")
    confirm_email(client)
    user = django_user_model.objects.get(username="alice")
    assert user.name == "Alice Liddell" and customer_item(user)["name"] == "Alice Liddell"


@pytest.mark.database
@pytest.mark.parametrize("email", ["alice@example.com", "ALICE@Example.COM"])
def test_sign_up_with_a_taken_email_answers_the_same_and_tells_the_owner(alice, client, django_user_model, email):
    client.logout()
    taken = signup(client, username="mallory", email=email)
    fresh_client = type(client)()
    fresh = signup(fresh_client, username="newcomer", email="newcomer@example.com")
    assert (taken.status_code, taken["Location"]) == (fresh.status_code, fresh["Location"])
    page = client.get(taken["Location"]).content.decode()
    assert "Enter Email Verification Code" in page and "already" not in page
    assert not django_user_model.objects.filter(username="mallory").exists()
    owner_mail = [m for m in mail.outbox if m.to == ["alice@example.com"]]
    assert len(owner_mail) == 1 and "already" in owner_mail[0].body.lower()
    alice.refresh_from_db()
    assert alice.check_password(PASSWORD)


@pytest.mark.database
@pytest.mark.parametrize("username", ["carol@example.com", "carol@home", "carol＠example.com"])
def test_a_username_that_looks_like_an_email_is_refused(catalog, client, django_user_model, username):
    response = signup(client, username=username, email="carol@example.com")
    assert response.status_code == 400
    assert "A username can’t be an email address" in response.content.decode()
    assert not django_user_model.objects.exists()


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"email": ""}, "This field is required."),
        ({"email": "not-an-email"}, "Enter a valid email address."),
        ({"name": "x" * 151}, "Ensure this value has at most 150 characters"),
        ({"email": "a" * 250 + "@example.com"}, "Ensure this value has at most 254 characters"),
        ({"username": "u" * 151}, "Ensure this value has at most 150 characters"),
        ({"name": "Bad\x00name"}, "Null characters are not allowed."),
        ({"password2": "something-else-1"}, "You must type the same password each time."),
        ({"password1": "123", "password2": "123"}, "This password is too short."),
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
    assert mail.outbox == []


def test_dynamodb_unreachable_at_confirmation_still_confirms_and_the_first_order_writes_the_item(
        catalog, client, django_user_model, settings, caplog):
    from catalog.gateway import client as dynamo

    assert signup(client).status_code == 302
    endpoint = settings.DYNAMODB_ENDPOINT_URL
    settings.DYNAMODB_ENDPOINT_URL = "http://127.0.0.1:9"  # nothing listens there
    settings.DYNAMODB_MAX_ATTEMPTS = 1
    dynamo.reset_client()
    assert confirm_email(client).status_code == 302
    user = django_user_model.objects.get(username="alice")
    assert signed_in_as(client) == str(user.pk) and EmailAddress.objects.get(user=user).verified
    assert "not written after an address confirmation" in caplog.text
    settings.DYNAMODB_ENDPOINT_URL = endpoint
    dynamo.reset_client()
    assert customer_item(user) is None
    add(client, "4", 1)
    assert client.post("/checkout/", checkout_form(client)).status_code == 302
    assert customer_item(user)["email"] == "alice@example.com"


def _counting_hashes(monkeypatch):
    from django.contrib.auth.hashers import get_hasher

    hasher_class = type(get_hasher())
    encode, hashes = hasher_class.encode, []

    def counted(self, password, salt, *args, **kwargs):
        hashes.append(password)
        return encode(self, password, salt, *args, **kwargs)

    monkeypatch.setattr(hasher_class, "encode", counted)
    return hashes


def test_a_taken_and_a_new_address_cost_the_same_hashing_and_no_dynamodb(alice, client, django_user_model,
                                                                         monkeypatch):
    """The answer's time must not tell whether an address has an account: one password hash each, and
    no DynamoDB request (the customer item waits for the confirmation)."""
    client.logout()
    hashes = _counting_hashes(monkeypatch)
    work = {}
    for kind, email in (("taken", "alice@example.com"), ("new", "newcomer@example.com")):
        hashes.clear()
        with count_requests() as counter:
            response = type(client)().post("/accounts/signup/", {
                "username": f"someone-{kind}", "email": email, "password1": PASSWORD, "password2": PASSWORD})
        assert response.status_code == 302
        work[kind] = (len(hashes), counter.operations)
    assert work["taken"] == work["new"] == (1, [])
    assert django_user_model.objects.filter(username="someone-new").exists()
    assert not django_user_model.objects.filter(username="someone-taken").exists()


@pytest.mark.parametrize("next_url", ["not-a-url", "home", "https://evil.example/", "//evil.example/",
                                      "/\\evil.example/", "javascript:alert(1)"])
def test_an_unsafe_next_is_ignored_never_a_500(catalog, client, next_url):
    response = client.post("/accounts/signup/", {"username": "alice", "email": "alice@example.com",
                                                 "password1": PASSWORD, "password2": PASSWORD, "next": next_url})
    assert response.status_code == 302
    response = confirm_email(client)
    assert response.status_code == 302 and response["Location"] == "/"
    client.logout()
    response = client.post("/accounts/login/", {"login": "alice", "password": PASSWORD, "next": next_url})
    assert response.status_code == 302 and response["Location"] == "/"
    assert "evil" not in client.get(f"/accounts/login/?next={next_url}").content.decode()


def test_a_local_next_is_followed(alice, client):
    client.logout()
    response = client.post("/accounts/login/", {"login": "alice", "password": PASSWORD, "next": "/account/orders/"})
    assert response["Location"] == "/account/orders/"


# --- sign-in ----------------------------------------------------------------------------------

@pytest.mark.database
@pytest.mark.parametrize("identifier", ["alice", "alice@example.com", "ALICE@example.com"])
def test_sign_in_with_username_or_email(alice, client, identifier):
    client.logout()
    response = login(client, identifier)
    assert response.status_code == 302 and response["Location"] == "/"
    assert signed_in_as(client) == str(alice.pk)


@pytest.mark.database
def test_an_account_named_like_an_address_does_not_take_the_owners_sign_in(alice, client, django_user_model):
    # An account from before the rule, named after Alice's address: her email sign-in still finds her.
    django_user_model.objects.create_user("alice@example.com", email="squatter@example.com", password=PASSWORD)
    client.logout()
    assert login(client, "alice@example.com").status_code == 302
    assert signed_in_as(client) == str(alice.pk)


def test_a_wrong_password_is_a_clear_message(alice, client):
    client.logout()
    response = login(client, "alice@example.com", "wrong-password")
    assert response.status_code == 400
    assert "The email address and/or password you specified are not correct." in response.content.decode()
    assert signed_in_as(client) is None
    response = login(client, "nobody@example.com", "wrong-password")  # the same words for an unknown address
    assert "The email address and/or password you specified are not correct." in response.content.decode()


def test_sign_out_is_a_post(alice, client):
    assert client.get("/accounts/logout/").status_code == 200 and signed_in_as(client)  # a page that asks
    assert client.post("/accounts/logout/").status_code == 302
    assert signed_in_as(client) is None


# --- throttling (allauth's rate limits) ---------------------------------------------------------

TOO_MANY = "Too many failed sign-ins for this account or from this address"


def test_repeated_wrong_passwords_pause_the_account_but_the_owner_gets_in_with_an_emailed_code(alice, client):
    client.logout()
    for i in range(5):
        # from five addresses, by username and by email: all count against the one account
        response = login(client, "alice" if i % 2 else "Alice@example.com", "wrong", REMOTE_ADDR=f"198.51.100.{i}")
        assert TOO_MANY not in response.content.decode()
    response = login(client, "alice", REMOTE_ADDR="198.51.100.9")  # even the right password, from anywhere
    assert response.status_code == 400 and TOO_MANY in response.content.decode()
    assert signed_in_as(client) is None
    # the owner's way in: a code mailed to the address
    response = client.post("/accounts/login/code/", {"email": "alice@example.com"})
    assert response.status_code == 302
    assert mail.outbox[-1].to == ["alice@example.com"]
    response = client.post(response["Location"], {"code": mailed_code(mail.outbox[-1])})
    assert response.status_code == 302 and signed_in_as(client) == str(alice.pk)


def test_a_password_reset_lifts_the_pause(alice, client):
    client.logout()
    for _ in range(5):
        login(client, "alice", "wrong")
    assert TOO_MANY in login(client, "alice").content.decode()
    client.post("/accounts/password/reset/", {"email": "alice@example.com"})
    _set_password_from_link(client, "a-new-password-8")
    assert login(client, "alice", "a-new-password-8").status_code == 302


def test_one_client_address_trying_many_accounts_is_paused(alice, client):
    client.logout()
    for i in range(10):
        login(client, f"nobody{i}", "wrong", REMOTE_ADDR="203.0.113.7")
    response = login(client, "alice", REMOTE_ADDR="203.0.113.7")
    assert TOO_MANY in response.content.decode() and signed_in_as(client) is None
    assert login(client, "alice", REMOTE_ADDR="203.0.113.8").status_code == 302  # another address is fine


def test_behind_a_trusted_proxy_the_client_address_is_the_one_the_proxy_saw(alice, client, settings):
    settings.TRUSTED_PROXY_COUNT = 1
    client.logout()
    for i in range(10):
        login(client, f"nobody{i}", "wrong", REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="forged, 203.0.113.7")
    paused = login(client, "alice", REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="203.0.113.7")
    assert TOO_MANY in paused.content.decode()
    # another shopper behind the same proxy is not paused
    assert login(client, "alice", REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="203.0.113.8").status_code == 302


# --- the account page -------------------------------------------------------------------------

def test_account_page_changes_the_name_and_the_customer_item(alice, client):
    html = client.get("/account/").content.decode()
    assert "alice@example.com" in html and 'href="/accounts/email/"' in html and 'href="/accounts/2fa/"' in html
    response = client.post("/account/", {"name": "Alice Pleasance"})
    assert response.status_code == 302
    alice.refresh_from_db()
    assert alice.name == "Alice Pleasance" and customer_item(alice)["name"] == "Alice Pleasance"
    assert "Your details are saved." in client.get("/account/").content.decode()


@pytest.mark.parametrize(("fields", "message"), [({"name": "n" * 151}, "Ensure this value has at most 150 characters"),
                                                 ({"name": "Bad\x07bell"}, "Use letters, digits, spaces")])
def test_bad_account_changes_are_refused_and_change_nothing(alice, client, fields, message):
    response = client.post("/account/", fields)
    assert response.status_code == 400 and message in response.content.decode()
    alice.refresh_from_db()
    assert alice.name == "Alice Liddell" and customer_item(alice)["name"] == "Alice Liddell"


def test_the_account_page_cannot_change_the_email(alice, client):
    client.post("/account/", {"name": "Alice", "email": "mallory@example.com"})
    alice.refresh_from_db()
    assert alice.email == "alice@example.com"


def test_account_page_needs_sign_in(client):
    assert client.get("/account/")["Location"].startswith("/accounts/login/")


# --- email change: the password again, a code from the new address, a note to the old one --------

def _reauthenticate(client, password=PASSWORD):
    return client.post("/accounts/reauthenticate/?next=/accounts/email/", {"password": password})


def _change_email(client, email, **fields):
    return client.post("/accounts/email/", {"action_add": "", "email": email, **fields})


def test_changing_the_email_needs_the_password_and_the_new_address_and_tells_the_old(alice, client):
    assert 'name="password"' in client.get("/accounts/email/").content.decode()
    response = _change_email(client, "ap@example.com")
    assert response.status_code == 400 and "This field is required." in response.content.decode()
    response = _change_email(client, "ap@example.com", password="wrong")
    assert response.status_code == 400 and "Incorrect password." in response.content.decode()
    assert mail.outbox == []
    response = _change_email(client, "ap@example.com", password=PASSWORD)  # the change goes on at once
    assert response.status_code == 302
    assert [m.to for m in mail.outbox] == [["ap@example.com"]]
    alice.refresh_from_db()
    assert alice.email == "alice@example.com"  # nothing changes before the new address confirms
    response = client.post(response["Location"], {"code": mailed_code(mail.outbox[-1])})
    assert response.status_code == 302
    alice.refresh_from_db()
    assert alice.email == "ap@example.com"
    assert list(EmailAddress.objects.filter(user=alice).values_list("email", "verified", "primary")) == [
        ("ap@example.com", True, True)]
    assert customer_item(alice)["email"] == "ap@example.com"
    told = [m for m in mail.outbox if m.to == ["alice@example.com"]]
    assert told and "ap@example.com" in told[-1].body
    client.logout()
    assert login(client, "ap@example.com").status_code == 302
    client.logout()
    assert login(client, "alice@example.com").status_code == 400


def test_a_stolen_session_cannot_change_the_email_without_the_password(alice, client):
    _change_email(client, "thief@example.com")
    alice.refresh_from_db()
    assert alice.email == "alice@example.com"
    assert not [m for m in mail.outbox if m.to == ["thief@example.com"]]


def test_the_email_form_asks_for_the_password_even_right_after_a_reauthentication(alice, client):
    """The owner typed the password a moment ago (allauth's 5-minute window): the session alone still
    cannot send the change to another address."""
    assert _reauthenticate(client).status_code == 302
    response = _change_email(client, "thief@example.com")
    assert response.status_code == 400 and "This field is required." in response.content.decode()
    assert not [m for m in mail.outbox if m.to == ["thief@example.com"]]
    assert "thief@example.com" not in str(dict(client.session))  # no pending address either


@pytest.mark.database
def test_an_address_of_another_account_is_not_revealed_on_change(alice, client, django_user_model):
    bob = django_user_model.objects.create_user("bob", email="bob@example.com", password=PASSWORD)
    EmailAddress.objects.create(user=bob, email="bob@example.com", primary=True, verified=True)
    taken = _change_email(client, "BOB@example.com", password=PASSWORD)
    free = _change_email(client, "free@example.com", password=PASSWORD)
    assert (taken.status_code, taken["Location"]) == (free.status_code, free["Location"])  # the same answer
    alice.refresh_from_db()
    assert alice.email == "alice@example.com"


# --- password change and reset --------------------------------------------------------------------

def test_change_password_needs_the_old_one_and_tells_the_address(alice, client):
    response = client.post("/accounts/password/change/", {
        "oldpassword": "wrong", "password1": "a-new-password-9", "password2": "a-new-password-9"})
    assert response.status_code == 400
    alice.refresh_from_db()
    assert alice.check_password(PASSWORD)
    response = client.post("/accounts/password/change/", {
        "oldpassword": PASSWORD, "password1": "a-new-password-9", "password2": "a-new-password-9"})
    assert response.status_code == 302
    assert signed_in_as(client) == str(alice.pk)  # still signed in here
    assert mail.outbox[-1].to == ["alice@example.com"] and "password" in mail.outbox[-1].subject.lower()
    client.logout()
    assert login(client, "alice", "a-new-password-9").status_code == 302


def _reset_link():
    return re.search(r"http://testserver(/accounts/password/reset/key/\S+/)", mail.outbox[-1].body).group(1)


def _set_password_from_link(client, password):
    link = _reset_link()
    form_url = client.get(link)["Location"]  # allauth swaps the key for a session one
    response = client.post(form_url, {"password1": password, "password2": password})
    assert response.status_code == 302
    return link


def test_password_reset_by_email_works_once_and_tells_the_address(alice, client):
    client.logout()
    response = client.post("/accounts/password/reset/", {"email": "ALICE@example.com"})
    assert response.status_code == 302
    assert mail.outbox[0].to == ["alice@example.com"]
    link = _set_password_from_link(client, "a-new-password-8")
    alice.refresh_from_db()
    assert alice.check_password("a-new-password-8")
    assert "reset" in mail.outbox[-1].subject.lower() or "password" in mail.outbox[-1].subject.lower()
    # the same link a second time
    html = client.get(link, follow=True).content.decode()
    assert 'name="password1"' not in html
    alice.refresh_from_db()
    assert alice.check_password("a-new-password-8")


def test_reset_for_an_unknown_email_says_the_same(alice, client):
    client.logout()
    known = client.post("/accounts/password/reset/", {"email": "alice@example.com"})
    unknown = client.post("/accounts/password/reset/", {"email": "nobody@example.com"})
    assert known["Location"] == unknown["Location"]
    assert not [m for m in mail.outbox if m.to == ["nobody@example.com"] and "/key/" in m.body]
    response = client.post("/accounts/password/reset/", {"email": "not an email"})
    assert response.status_code == 400 and "Enter a valid email address." in response.content.decode()


# --- existing accounts: allauth's email addresses (shop/migrations/0002) ----------------------------

@pytest.mark.database
@pytest.mark.django_db(transaction=True)
def test_accounts_from_before_allauth_keep_signing_in_with_their_orders(catalog, client, django_user_model):
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    state = executor.migrate([("shop", "0001_user")])  # the database at its first migration, without allauth's tables
    # Accounts as the old sign-up made them (UserCreationForm.save with a customer item), and one from
    # createsuperuser with no email address; made with the model of that migration (the model of today
    # has columns that database lacks).
    then = state.apps.get_model("shop", "User")
    made = then.objects.create_user("alice", email="Alice@Example.com", password=PASSWORD, name="Alice Liddell")
    gateway.customer_put(customer_id=str(made.customer_id), name=made.name, email=made.email)
    then.objects.create_user("noemail", password=PASSWORD)

    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    old = django_user_model.objects.get(pk=made.pk)
    client.force_login(old)
    add(client, "4", 1)
    order_url = client.post("/checkout/", checkout_form(client))["Location"]
    client.logout()

    assert list(EmailAddress.objects.values_list("user__username", "email", "primary", "verified")) == [
        ("alice", "alice@example.com", True, True)]
    for identifier in ("alice", "alice@example.com"):
        assert login(client, identifier).status_code == 302  # no code to confirm: the address was known
        assert signed_in_as(client) == str(old.pk)
        assert client.get(order_url).status_code == 200
        assert "Hauptstraße 1" in client.get(order_url).content.decode()
        client.logout()


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
    number = gateway.order_number_for(form["order_id"])  # the short number people read out
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

@pytest.mark.database
@pytest.mark.django_db(transaction=True)
def test_a_recreated_auth_database_does_not_hand_over_old_orders(catalog, client, django_user_model):
    call_command("flush", interactive=False, verbosity=0)  # a new database: row numbers from 1
    assert signup(client).status_code == 302
    assert confirm_email(client).status_code == 302
    first = django_user_model.objects.get()
    add(client, "4", 1)
    order_url = client.post("/checkout/", checkout_form(client))["Location"]
    assert client.get(order_url).status_code == 200
    client.logout()

    call_command("flush", interactive=False, verbosity=0)  # every table emptied, row numbers restarted

    assert signup(client, username="mallory", email="mallory@example.com").status_code == 302
    assert confirm_email(client).status_code == 302
    newcomer = django_user_model.objects.get()
    assert newcomer.pk == first.pk  # the same row number as the first account's: a key made of it would match
    assert newcomer.customer_id != first.customer_id
    html = client.get("/account/orders/").content.decode()
    assert "You have no orders yet." in html
    assert client.get(order_url).status_code == 404


# --- the accounts database out of reach -------------------------------------------------------

@pytest.mark.database
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


@pytest.mark.parametrize("path", ["/accounts/login/", "/accounts/signup/", "/accounts/password/reset/",
                                  "/accounts/email/", "/accounts/2fa/", "/account/"])
def test_account_pages_are_kept_by_no_cache(alice, client, path):
    response = client.get(path)
    assert response.status_code in (200, 302)
    assert "no-store" in response["Cache-Control"] and "private" in response["Cache-Control"]
