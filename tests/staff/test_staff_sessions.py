"""Sessions and factors: adding or removing a second factor signs the account out everywhere else (the
session that made the change stays); staff sessions end STAFF_SESSION_SECONDS after their sign-in, while
a shopper's lasts SESSION_COOKIE_AGE."""
import re
import time
from unittest import mock

import pytest
from allauth.mfa.models import Authenticator
from django.conf import settings

from shop.account_sessions import SIGNED_IN_AT
from tests.helpers import make_account, totp_code

pytestmark = pytest.mark.database  # ORM writes that race or commit: SQLite and PostgreSQL differ

PASSWORD = "a-long-password-1"


@pytest.fixture
def ann(django_user_model):
    return make_account(django_user_model, "ann", PASSWORD, is_staff=True)


def sign_in(client, login="ann"):
    return client.post("/accounts/login/", {"login": login, "password": PASSWORD})


def signed_in(client):
    return "_auth_user_id" in client.session


def activate_totp(client):
    response = client.get("/accounts/2fa/totp/activate/")
    client.post(response["Location"], {"password": PASSWORD})  # the password again first
    secret = re.search(r'value="([A-Z2-7]{16,})"', client.get("/accounts/2fa/totp/activate/").content.decode())[1]
    assert client.post("/accounts/2fa/totp/activate/", {"code": totp_code(secret)}).status_code == 302
    return secret


# Adding a factor is committed before allauth tells of it: these tests commit as the request does.
@pytest.mark.django_db(transaction=True)
def test_adding_a_factor_signs_out_the_other_sessions_and_keeps_this_one(ann, client, catalog, django_user_model):
    thief, other_device = type(client)(), type(client)()
    for each in (client, thief, other_device):
        assert sign_in(each).status_code == 302 and signed_in(each)
    make_account(django_user_model, "bo", PASSWORD)
    shopper = type(client)()
    sign_in(shopper, "bo")

    activate_totp(client)
    assert client.get("/staff/stock/").status_code == 200  # this session proved the new factor
    for each in (thief, other_device):
        response = each.get("/staff/stock/")
        assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
        assert not signed_in(each)
    assert shopper.get("/account/").status_code == 200  # another account's session is untouched


@pytest.mark.django_db(transaction=True)
def test_removing_a_factor_signs_out_the_other_sessions(ann, client, catalog, settings):
    settings.STAFF_MFA_REQUIRED = False  # a staff account may be left without a factor here
    sign_in(client)
    secret = activate_totp(client)
    now = time.time()
    other = type(client)()
    sign_in(other)
    assert other.post("/accounts/2fa/authenticate/", {"code": totp_code(secret, at=now + 30)}).status_code == 302
    assert signed_in(other)
    totp = Authenticator.objects.get(user=ann, type=Authenticator.Type.TOTP)
    assert client.post("/accounts/2fa/totp/deactivate/").status_code == 302
    assert not Authenticator.objects.filter(pk=totp.pk).exists()
    assert other.get("/account/")["Location"].startswith("/accounts/login/")
    assert client.get("/account/").status_code == 200
    # with the rule on, this session is sent to set a factor up again: the one it used is gone
    settings.STAFF_MFA_REQUIRED = True
    assert client.get("/staff/stock/")["Location"] == "/accounts/2fa/"


@pytest.mark.django_db
def test_a_staff_sign_in_lasts_staff_session_seconds_and_a_shoppers_the_usual(ann, client, django_user_model):
    sign_in(client)
    assert client.session.get_expiry_age() == settings.STAFF_SESSION_SECONDS == 8 * 3600
    make_account(django_user_model, "bo", PASSWORD)
    shopper = type(client)()
    sign_in(shopper, "bo")
    assert shopper.session.get_expiry_age() == settings.SESSION_COOKIE_AGE == 14 * 24 * 3600


@pytest.mark.django_db
def test_a_staff_session_ends_staff_session_seconds_after_its_sign_in_even_if_active(ann, client, catalog):
    sign_in(client)
    assert client.get("/account/").status_code == 200
    later = time.time() + settings.STAFF_SESSION_SECONDS + 1
    with mock.patch("shop.account_sessions.time.time", return_value=later):
        response = client.get("/account/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    assert not signed_in(client)


@pytest.mark.django_db
def test_a_staff_session_from_before_the_limit_is_limited_too(ann, client, catalog, django_user_model):
    """A session signed in before the limit existed has no sign-in time of the shop's own: allauth's record
    of its sign-in dates it, and without one it is ended."""
    sign_in(client)
    session = client.session
    del session[SIGNED_IN_AT]
    session.set_expiry(None)
    session.save()
    assert client.get("/account/").status_code == 200  # dated by allauth's record: still young
    with mock.patch("shop.account_sessions.time.time", return_value=time.time() + settings.STAFF_SESSION_SECONDS + 1):
        assert client.get("/account/").status_code == 302
    undated = type(client)()
    undated.force_login(ann)
    session = undated.session
    del session[SIGNED_IN_AT]
    session.save()
    assert undated.get("/account/").status_code == 302 and not signed_in(undated)
    # a shopper's old session is not touched
    bo = make_account(django_user_model, "bo", PASSWORD)
    shopper = type(client)()
    shopper.force_login(bo)
    session = shopper.session
    del session[SIGNED_IN_AT]
    session.save()
    assert shopper.get("/account/").status_code == 200
