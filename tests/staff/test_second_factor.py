"""Staff need a second factor (STAFF_MFA_REQUIRED, on by default): without one, every staff page sends
them to set one up; with one, allauth asks for it at sign-in. Shoppers may turn it on too."""
import re

import pytest
from allauth.account.models import EmailAddress
from allauth.mfa.models import Authenticator
from django.core import mail

from tests.helpers import mailed_code, totp_code, wrong_totp_code

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-password-1"


@pytest.fixture(autouse=True)
def _second_factor_required(settings):
    settings.STAFF_MFA_REQUIRED = True  # the default (tests/staff/conftest.py turns it off for the others)


def make_user(django_user_model, username, **fields):
    user = django_user_model.objects.create_user(username, email=f"{username}@example.com", password=PASSWORD,
                                                 **fields)
    EmailAddress.objects.create(user=user, email=user.email, primary=True, verified=True)
    return user


def sign_in(client, login, password=PASSWORD):
    return client.post("/accounts/login/", {"login": login, "password": password})


@pytest.fixture
def ann(django_user_model):
    return make_user(django_user_model, "ann", is_staff=True)


def test_staff_without_a_second_factor_are_sent_to_set_one_up(ann, client, catalog):
    assert sign_in(client, "ann").status_code == 302
    for path in ("/staff/", "/staff/stock/", "/staff/orders/", "/staff/products/4/stock/", "/staff/products/4/buyers/"):
        response = client.get(path)
        assert response.status_code == 302 and response["Location"] == "/accounts/2fa/", path
    assert "Staff pages need a second factor" in client.get("/accounts/2fa/").content.decode()
    response = client.get("/staff/stock/", headers={"HX-Request": "true"})
    assert response["HX-Redirect"] == "/accounts/2fa/"
    # a stock change is refused as well, before anything is read
    response = client.post("/staff/products/4/stock/", {"action": "increase", "quantity": "5"})
    assert response.status_code == 302 and response["Location"] == "/accounts/2fa/"


def test_a_shop_that_decides_so_lets_staff_in_with_a_password(ann, client, settings, catalog):
    settings.STAFF_MFA_REQUIRED = False
    sign_in(client, "ann")
    assert client.get("/staff/stock/").status_code == 200


def test_shoppers_are_not_asked(django_user_model, client, catalog):
    make_user(django_user_model, "bo")
    sign_in(client, "bo")
    assert client.get("/account/orders/").status_code == 200
    assert client.get("/staff/stock/").status_code == 403


def _activate_totp(client):
    response = client.get("/accounts/2fa/totp/activate/")
    assert response["Location"].startswith("/accounts/reauthenticate/")  # the password again first
    assert client.post(response["Location"], {"password": PASSWORD})["Location"] == "/accounts/2fa/totp/activate/"
    page = client.get("/accounts/2fa/totp/activate/").content.decode()
    secret = re.search(r'value="([A-Z2-7]{16,})"', page).group(1)
    assert client.post("/accounts/2fa/totp/activate/", {"code": wrong_totp_code(secret)}).status_code == 400
    response = client.post("/accounts/2fa/totp/activate/", {"code": totp_code(secret)})
    assert response.status_code == 302
    return secret


def test_staff_set_up_an_authenticator_app_then_sign_in_with_it_or_a_recovery_code(ann, client, catalog):
    sign_in(client, "ann")
    secret = _activate_totp(client)
    assert Authenticator.objects.filter(user=ann, type="totp").exists()
    assert client.get("/staff/stock/").status_code == 200
    codes = client.get("/accounts/2fa/recovery-codes/").content.decode()
    recovery = re.findall(r"^\s*(\d{8})\s*$", codes, re.M)
    client.logout()

    # the password alone is not a sign-in any more
    response = sign_in(client, "ann@example.com")
    assert response["Location"] == "/accounts/2fa/authenticate/"
    assert "_auth_user_id" not in client.session
    assert client.get("/staff/stock/")["Location"].startswith("/accounts/login/")
    assert client.post("/accounts/2fa/authenticate/", {"code": wrong_totp_code(secret)}).status_code == 400
    # nor is an emailed sign-in code
    other = type(client)()
    response = other.post("/accounts/login/code/", {"email": "ann@example.com"})
    code = mailed_code(mail.outbox[-1])
    response = other.post(response["Location"], {"code": code})
    assert response["Location"] == "/accounts/2fa/authenticate/" and "_auth_user_id" not in other.session
    # one of the recovery codes (the app's code of this half-minute is spent: allauth refuses a replay)
    assert len(recovery) >= 8
    response = client.post("/accounts/2fa/authenticate/", {"code": recovery[0]})
    assert response.status_code == 302 and client.session["_auth_user_id"] == str(ann.pk)
    assert client.get("/staff/stock/").status_code == 200


def test_a_code_the_phone_showed_a_step_ago_still_signs_in_but_not_one_from_a_minute_ago(ann, client, catalog):
    """A code typed as the phone turns it over, or a phone's clock a little off, is taken (MFA_TOTP_TOLERANCE)."""
    import base64
    import os
    import time

    if time.time() % 30 > 27:
        time.sleep(30 - time.time() % 30)  # the steps must not turn over between here and the last post
    now = time.time()
    while True:  # a secret whose code of a minute ago is none of the three taken now (almost any)
        secret = base64.b32encode(os.urandom(20)).decode()
        old = totp_code(secret, at=now - 60)
        if old not in {totp_code(secret, at=now + 30 * step) for step in (-1, 0, 1)}:
            break
    Authenticator.objects.create(user=ann, type=Authenticator.Type.TOTP, data={"secret": secret})
    assert sign_in(client, "ann")["Location"] == "/accounts/2fa/authenticate/"
    assert client.post("/accounts/2fa/authenticate/", {"code": old}).status_code == 400
    response = client.post("/accounts/2fa/authenticate/", {"code": totp_code(secret, at=now - 30)})
    assert response.status_code == 302 and client.session["_auth_user_id"] == str(ann.pk)


def test_a_shopper_may_turn_on_an_authenticator_app(django_user_model, client):
    bo = make_user(django_user_model, "bo")
    sign_in(client, "bo")
    assert "Off" in client.get("/account/").content.decode()
    _activate_totp(client)
    assert Authenticator.objects.filter(user=bo, type="totp").exists()
    assert "Manage it" in client.get("/account/").content.decode()
