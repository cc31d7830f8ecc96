"""Staff need a second factor (STAFF_MFA_REQUIRED, on by default), used in the session: without one on the
account, every staff page sends them to set one up; with one, allauth asks for it at sign-in, and a session
that has not used it (signed in before the factor existed) is asked for it before any staff page. The
recovery codes need the factor again, not the password alone. Shoppers may turn it on too."""
import base64
import os
import re
import time

import pytest
from allauth.account.models import EmailAddress
from allauth.mfa.models import Authenticator
from django.core import mail

from shop.mfa import FACTORS
from tests.helpers import mailed_code, totp_code, warehouse_staff, wrong_totp_code

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-password-1"


@pytest.fixture(autouse=True)
def _second_factor_required(settings):
    settings.STAFF_MFA_REQUIRED = True  # the default


def make_user(django_user_model, username, **fields):
    user = django_user_model.objects.create_user(username, email=f"{username}@example.com", password=PASSWORD,
                                                 **fields)
    EmailAddress.objects.create(user=user, email=user.email, primary=True, verified=True)
    return user


def sign_in(client, login, password=PASSWORD):
    return client.post("/accounts/login/", {"login": login, "password": password})


@pytest.fixture
def ann(django_user_model):
    return warehouse_staff(make_user(django_user_model, "ann", is_staff=True))


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
    """Tests that add a factor this way commit (django_db(transaction=True)): allauth tells of a new factor
    once its transaction commits, as in the request."""
    response = client.get("/accounts/2fa/totp/activate/")
    assert response["Location"].startswith("/accounts/reauthenticate/")  # the password again first
    assert client.post(response["Location"], {"password": PASSWORD})["Location"] == "/accounts/2fa/totp/activate/"
    page = client.get("/accounts/2fa/totp/activate/").content.decode()
    secret = re.search(r'value="([A-Z2-7]{16,})"', page).group(1)
    assert client.post("/accounts/2fa/totp/activate/", {"code": wrong_totp_code(secret)}).status_code == 400
    response = client.post("/accounts/2fa/totp/activate/", {"code": totp_code(secret)})
    assert response.status_code == 302
    return secret


@pytest.mark.database
@pytest.mark.django_db(transaction=True)
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


@pytest.mark.database
@pytest.mark.django_db(transaction=True)
def test_a_shopper_may_turn_on_an_authenticator_app(django_user_model, client):
    bo = make_user(django_user_model, "bo")
    sign_in(client, "bo")
    assert "Off" in client.get("/account/").content.decode()
    _activate_totp(client)
    assert Authenticator.objects.filter(user=bo, type="totp").exists()
    assert "Manage it" in client.get("/account/").content.decode()


# --- a factor used in this session ----------------------------------------------------------------

def _add_totp(user):
    """An authenticator app added to the account (by its owner, elsewhere): its secret."""
    secret = base64.b32encode(os.urandom(20)).decode()
    Authenticator.objects.create(user=user, type=Authenticator.Type.TOTP, data={"secret": secret})
    return secret


def test_a_session_from_before_the_factor_gets_no_staff_page_until_it_uses_the_factor(ann, client, catalog):
    assert sign_in(client, "ann").status_code == 302  # the password alone: no factor on the account yet
    secret = _add_totp(ann)
    reauthenticate = "/accounts/2fa/reauthenticate/?next=%2Fstaff%2Fstock%2F"
    for path in ("/staff/stock/", "/staff/orders/", "/staff/products/4/buyers/?format=csv"):
        response = client.get(path)
        assert response.status_code == 302 and response["Location"].startswith("/accounts/2fa/reauthenticate/?next=")
    assert client.get("/staff/stock/")["Location"] == reauthenticate
    response = client.get("/staff/stock/", headers={"HX-Request": "true", "HX-Current-URL": "http://testserver/staff/stock/"})
    assert response["HX-Redirect"] == reauthenticate
    # a stock change is refused, before anything is read or written
    response = client.post("/staff/products/4/stock/", {"action": "decrease", "quantity": "12", "reason": "counted"})
    assert response.status_code == 302 and response["Location"].startswith("/accounts/2fa/reauthenticate/")
    assert "Staff pages need your second factor" in client.get(response["Location"]).content.decode()
    # the password again is not the factor
    assert client.post("/accounts/reauthenticate/", {"password": PASSWORD}).status_code == 302
    assert client.get("/staff/stock/")["Location"] == reauthenticate
    # the app's code is: then the staff pages open
    assert client.post(reauthenticate, {"code": wrong_totp_code(secret)}).status_code == 400
    response = client.post(reauthenticate, {"code": totp_code(secret)})
    assert response.status_code == 302 and response["Location"] == "/staff/stock/"
    assert client.get("/staff/stock/").status_code == 200


def test_the_recovery_codes_need_the_factor_again_not_the_password(ann, client, catalog):
    secret = _add_totp(ann)
    now = time.time()
    sign_in(client, "ann")
    assert client.post("/accounts/2fa/authenticate/", {"code": totp_code(secret, at=now)}).status_code == 302
    assert client.post("/accounts/reauthenticate/", {"password": PASSWORD}).status_code == 302
    for path in ("/accounts/2fa/recovery-codes/", "/accounts/2fa/recovery-codes/generate/",
                 "/accounts/2fa/recovery-codes/download/"):
        response = client.get(path)
        assert response.status_code == 302 and response["Location"].startswith("/accounts/2fa/reauthenticate/?next=")
    response = client.post("/accounts/2fa/recovery-codes/generate/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/2fa/reauthenticate/")
    assert not Authenticator.objects.filter(user=ann, type=Authenticator.Type.RECOVERY_CODES).exists()
    # with the app's code again (the next step's: the sign-in's is spent), they open
    response = client.post(response["Location"], {"code": totp_code(secret, at=now + 30)})
    assert response.status_code == 302
    assert client.post("/accounts/2fa/recovery-codes/generate/").status_code == 302
    codes = client.get("/accounts/2fa/recovery-codes/").content.decode()
    assert len(re.findall(r"^\s*(\d{8})\s*$", codes, re.M)) >= 8


def test_a_session_from_before_a_passkey_is_asked_for_the_passkey(ann, client, catalog):
    assert sign_in(client, "ann").status_code == 302
    Authenticator.objects.create(user=ann, type=Authenticator.Type.WEBAUTHN, data={"name": "Laptop"})
    response = client.get("/staff/stock/")
    assert response.status_code == 302
    assert response["Location"] == "/accounts/2fa/webauthn/reauthenticate/?next=%2Fstaff%2Fstock%2F"


def test_changing_the_factors_needs_the_factor_again_not_the_password(ann, client, catalog):
    """Someone with the session and the password cannot put a factor of their own beside or in place of
    the owner's: adding a passkey, turning the app off or removing a passkey asks for the factor."""
    secret = _add_totp(ann)
    passkey = Authenticator.objects.create(user=ann, type=Authenticator.Type.WEBAUTHN, data={"name": "Laptop"})
    now = time.time()
    sign_in(client, "ann")
    assert client.post("/accounts/2fa/authenticate/", {"code": totp_code(secret, at=now)}).status_code == 302
    assert client.post("/accounts/reauthenticate/", {"password": PASSWORD}).status_code == 302
    for path in ("/accounts/2fa/webauthn/add/", "/accounts/2fa/totp/deactivate/",
                 f"/accounts/2fa/webauthn/keys/{passkey.pk}/remove/"):
        for response in (client.get(path), client.post(path)):
            assert response.status_code == 302 and response["Location"].startswith("/accounts/2fa/reauthenticate/")
    assert Authenticator.objects.filter(user=ann, type__in=FACTORS).count() == 2  # nothing removed
    # with the app's code again, the page opens
    response = client.post(client.get("/accounts/2fa/totp/deactivate/")["Location"],
                           {"code": totp_code(secret, at=now + 30)})
    assert response.status_code == 302
    assert client.get("/accounts/2fa/totp/deactivate/").status_code == 200
