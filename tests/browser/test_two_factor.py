"""Staff sign in with a second factor in a real browser: an authenticator app's code (computed here as
the phone would), and a passkey held by Chromium's virtual authenticator (CDP WebAuthn domain)."""
import re

import pytest
from allauth.account.models import EmailAddress
from allauth.mfa.models import Authenticator
from playwright.sync_api import expect

from tests.helpers import totp_code, warehouse_staff, wrong_totp_code

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PASSWORD = "pw-ann-staff-long"
SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"


@pytest.fixture
def shop(shop, django_user_model, settings):
    settings.STAFF_MFA_REQUIRED = True
    settings.MFA_WEBAUTHN_ALLOW_INSECURE_ORIGIN = True  # http://localhost in tests
    ann = warehouse_staff(django_user_model.objects.create_user(
        "ann", email="ann@example.com", password=PASSWORD, is_staff=True))
    EmailAddress.objects.create(user=ann, email=ann.email, primary=True, verified=True)
    return shop


def sign_in_with_password(page, shop, next_path="/staff/stock/"):
    page.goto(f"{shop}{next_path}")
    expect(page).to_have_url(re.compile(r"/accounts/login/\?next="))
    page.get_by_label("Username or email").fill("ann@example.com")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()


def test_staff_sign_in_with_an_authenticator_app_code(shop, page, django_user_model):
    Authenticator.objects.create(user=django_user_model.objects.get(username="ann"), type=Authenticator.Type.TOTP,
                                 data={"secret": SECRET})
    sign_in_with_password(page, shop)
    expect(page).to_have_url(re.compile(r"/accounts/2fa/authenticate/"))
    page.get_by_label("Code", exact=True).fill(wrong_totp_code(SECRET))
    page.get_by_role("button", name=re.compile(r"^\s*Sign in\s*$", re.I)).click()
    expect(page.get_by_text("Incorrect code.")).to_be_visible()
    page.get_by_label("Code", exact=True).fill(totp_code(SECRET))
    page.get_by_role("button", name=re.compile(r"^\s*Sign in\s*$", re.I)).click()
    expect(page).to_have_url(re.compile(r"/staff/stock/$"))
    expect(page.get_by_role("heading", level=1)).to_be_visible()


def test_staff_add_a_passkey_then_sign_in_with_it_alone(shop, page, django_user_model):
    cdp = page.context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    cdp.send("WebAuthn.addVirtualAuthenticator", {"options": {
        "protocol": "ctap2", "transport": "internal", "hasResidentKey": True, "hasUserVerification": True,
        "isUserVerified": True, "automaticPresenceSimulation": True}})

    # No second factor yet: the staff page sends ann to set one up.
    sign_in_with_password(page, shop)
    expect(page).to_have_url(re.compile(r"/accounts/2fa/$"))
    expect(page.get_by_text("Staff pages need a second factor")).to_be_visible()
    page.goto(f"{shop}/accounts/2fa/webauthn/add/?passwordless=1")
    if "/reauthenticate/" in page.url:  # the password again before adding a factor
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Confirm").click()
    expect(page).to_have_url(re.compile(r"/accounts/2fa/webauthn/add/"))
    page.get_by_label("Name").fill("Laptop")
    passwordless = page.get_by_label(re.compile("Passwordless", re.I))
    if passwordless.count():
        passwordless.check()
    page.get_by_role("button", name="Add", exact=True).click()
    expect(page).not_to_have_url(re.compile(r"/webauthn/add/"))
    assert Authenticator.objects.filter(user__username="ann", type=Authenticator.Type.WEBAUTHN).exists()
    page.goto(f"{shop}/staff/stock/")
    expect(page).to_have_url(re.compile(r"/staff/stock/$"))

    # Signed out, the passkey alone signs in (it is both factors), and the staff pages open.
    page.get_by_role("button", name="Sign out").click()
    page.goto(f"{shop}/accounts/login/?next=/staff/stock/")
    page.get_by_role("button", name="Use a passkey").click()
    expect(page).to_have_url(re.compile(r"/staff/stock/$"))
    expect(page.get_by_role("link", name="Signed in as ann")).to_be_visible()
