"""Bad input on allauth's account pages is a 400 with a clear message and changes nothing, as on the
shop's own: the passkey list, a passkey answer that is not one (at sign-in and when adding a passkey),
a sign-in name or an email address longer than the database keeps, a PUT or DELETE on a form page."""
import json

import pytest
from allauth.account.models import EmailAddress
from allauth.mfa.models import Authenticator
from django.core import mail
from django.test import Client

from tests.helpers import make_account

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-password-1"
SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"

MADE_UP = json.dumps({"id": "AAAA", "rawId": "AAAA", "type": "public-key",
                      "response": {"clientDataJSON": "AAAA", "attestationObject": "AAAA",
                                   "authenticatorData": "AAAA", "signature": "AAAA", "userHandle": "AAAA"}})
BAD_CREDENTIALS = {
    "4500 digits": "1" * 4500,
    "nested arrays": "[" * 5000 + "]" * 5000,
    "made up": MADE_UP,
    "not an object": '["public-key"]',
}
UNREADABLE = "The passkey’s answer could not be read. Please try again."


@pytest.fixture
def ann(catalog, client, django_user_model):
    user = make_account(django_user_model, "ann", PASSWORD)
    assert client.post("/accounts/login/", {"login": "ann", "password": PASSWORD}).status_code == 302
    return user


def reauthenticate(client):
    assert client.post("/accounts/reauthenticate/", {"password": PASSWORD}).status_code == 302


def test_the_passkey_list_opens(ann, client):
    response = client.get("/accounts/2fa/webauthn/")
    assert response.status_code == 200
    assert "Security Keys" in response.content.decode() or "Passkeys" in response.content.decode()


@pytest.mark.parametrize("credential", BAD_CREDENTIALS.values(), ids=BAD_CREDENTIALS.keys())
def test_adding_a_passkey_with_a_bad_answer_is_refused(ann, client, credential):
    reauthenticate(client)
    assert client.get("/accounts/2fa/webauthn/add/").status_code == 200  # the page's challenge
    response = client.post("/accounts/2fa/webauthn/add/", {"name": "Laptop", "credential": credential})
    assert response.status_code == 400
    assert UNREADABLE in response.content.decode()
    assert not Authenticator.objects.filter(user=ann).exists()


@pytest.mark.parametrize("credential", BAD_CREDENTIALS.values(), ids=BAD_CREDENTIALS.keys())
def test_signing_in_with_a_bad_passkey_answer_is_refused(ann, client, credential):
    client.logout()
    client.get("/accounts/2fa/webauthn/login/", headers={"X-Requested-With": "XMLHttpRequest"})  # the challenge
    response = client.post("/accounts/2fa/webauthn/login/", {"credential": credential})
    assert response.status_code == 400
    page = response.content.decode()
    assert UNREADABLE in page and "<h1>Sign in</h1>" in page  # the sign-in page, with the message
    assert client.session.get("_auth_user_id") is None


def test_a_second_factor_passkey_answer_that_is_not_one_is_refused(ann, client):
    Authenticator.objects.create(user=ann, type=Authenticator.Type.TOTP, data={"secret": SECRET})
    client.logout()
    client.post("/accounts/login/", {"login": "ann", "password": PASSWORD})  # now the second factor's page
    response = client.post("/accounts/2fa/authenticate/", {"credential": "1" * 4500})
    assert response.status_code == 400 and UNREADABLE in response.content.decode()
    assert client.session.get("_auth_user_id") is None


def test_a_sign_in_name_longer_than_any_account_has_is_a_form_error(catalog, client):
    response = client.post("/accounts/login/", {"login": "x" * 60_000, "password": PASSWORD})
    assert response.status_code == 400
    assert "Ensure this value has at most 254 characters" in response.content.decode()


def test_an_email_longer_than_the_database_keeps_is_a_form_error(ann, client):
    reauthenticate(client)
    long_address = "a" * 250 + "@example.com"  # 262 characters
    response = client.post("/accounts/email/", {"action_add": "", "email": long_address})
    assert response.status_code == 400
    assert "Ensure this value has at most 254 characters" in response.content.decode()
    ann.refresh_from_db()
    assert ann.email == "ann@example.com"
    assert list(EmailAddress.objects.filter(user=ann).values_list("email", "primary")) == [("ann@example.com", True)]
    assert mail.outbox == []


@pytest.mark.parametrize("path", ["/accounts/password/reset/", "/accounts/login/code/"])
def test_an_overlong_email_asking_for_a_mail_is_a_form_error(catalog, client, path):
    response = client.post(path, {"email": "a" * 250 + "@example.com"})
    assert response.status_code == 400 and mail.outbox == []


@pytest.mark.parametrize("method", ["put", "delete"])
def test_put_or_delete_on_a_form_page_is_not_processed(ann, method):
    Authenticator.objects.create(user=ann, type=Authenticator.Type.TOTP, data={"secret": SECRET})
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(ann)
    page = browser.get("/accounts/reauthenticate/")
    token = page.cookies["csrftoken"].value
    browser.post("/accounts/reauthenticate/", {"password": PASSWORD, "csrfmiddlewaretoken": token})
    response = getattr(browser, method)("/accounts/2fa/totp/deactivate/", headers={"X-CSRFToken": token})
    assert response.status_code == 405
    assert Authenticator.objects.filter(user=ann, type=Authenticator.Type.TOTP).exists()
