"""A shopper's passkeys in a real browser: the list (allauth's page, which needs django.contrib.humanize),
adding one with Chromium's virtual authenticator (CDP WebAuthn domain), and removing it."""
import re

import pytest
from allauth.mfa.models import Authenticator
from playwright.sync_api import expect

from tests.helpers import make_account

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PASSWORD = "pw-alice-long-enough"


@pytest.fixture
def shop(shop, django_user_model, settings):
    settings.MFA_WEBAUTHN_ALLOW_INSECURE_ORIGIN = True  # http://localhost in tests
    make_account(django_user_model, "alice", PASSWORD)
    return shop


def virtual_authenticator(page):
    cdp = page.context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    cdp.send("WebAuthn.addVirtualAuthenticator", {"options": {
        "protocol": "ctap2", "transport": "internal", "hasResidentKey": True, "hasUserVerification": True,
        "isUserVerified": True, "automaticPresenceSimulation": True}})


def confirm_password_if_asked(page):
    if "/reauthenticate/" in page.url:
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Confirm").click()


def test_a_shopper_lists_adds_and_removes_a_passkey(shop, page):
    virtual_authenticator(page)
    page.goto(f"{shop}/accounts/login/")
    page.get_by_label("Username or email").fill("alice@example.com")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("link", name="Signed in as alice")).to_be_visible()

    page.goto(f"{shop}/accounts/2fa/webauthn/")
    expect(page.get_by_role("heading", name="Security Keys")).to_be_visible()
    expect(page.get_by_text("No security keys have been added.")).to_be_visible()

    page.get_by_role("link", name="Add", exact=True).click()
    confirm_password_if_asked(page)
    expect(page).to_have_url(re.compile(r"/accounts/2fa/webauthn/add/"))
    page.get_by_label("Name").fill("Laptop")
    page.get_by_role("button", name="Add", exact=True).click()
    expect(page).not_to_have_url(re.compile(r"/webauthn/add/"))
    assert Authenticator.objects.filter(user__username="alice", type=Authenticator.Type.WEBAUTHN).count() == 1

    page.goto(f"{shop}/accounts/2fa/webauthn/")
    expect(page.get_by_role("cell", name=re.compile("Laptop"))).to_be_visible()
    page.get_by_role("link", name="Remove").click()
    confirm_password_if_asked(page)
    expect(page.get_by_role("heading", name="Remove Security Key")).to_be_visible()
    page.get_by_role("button", name="Remove").click()
    page.goto(f"{shop}/accounts/2fa/webauthn/")
    expect(page.get_by_text("No security keys have been added.")).to_be_visible()
    assert not Authenticator.objects.filter(user__username="alice", type=Authenticator.Type.WEBAUTHN).exists()
