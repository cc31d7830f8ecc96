"""Card payments' settings: `check --deploy` wants Stripe's secrets unless the shop takes no card payments; the
Content-Security-Policy allows exactly Stripe.js's origins, and only with payments on."""
import runpy
from pathlib import Path

import pytest
from django.core.checks import run_checks

from payments.checks import shop_currency, stripe_secrets
from storefront import env
from storefront import settings as settings_module


@pytest.mark.parametrize(("payments", "secret", "webhook", "errors"), [
    ("stripe", "", "", ["payments.E001"]),
    ("stripe", "sk_live_x", "", ["payments.E001"]),
    ("stripe", "sk_live_x", "whsec_x", []),
    ("off", "", "", []),
])
def test_deploy_check_wants_the_stripe_secrets(settings, payments, secret, webhook, errors):
    settings.DEBUG, settings.SHOP_PAYMENTS = False, payments
    settings.STRIPE_SECRET_KEY, settings.STRIPE_WEBHOOK_SECRET = secret, webhook
    settings.STRIPE_PUBLISHABLE_KEY = "pk_x"
    assert [e.id for e in stripe_secrets(None)] == errors
    assert ("payments.E001" in [e.id for e in run_checks(include_deployment_checks=True)]) == bool(errors)


def built_policy(monkeypatch, **environment):
    """The Content-Security-Policy storefront/settings.py builds from this environment (nothing from var/run.env)."""
    monkeypatch.setattr(env, "RUN_ENV", {})
    monkeypatch.setenv("DJANGO_DEBUG", "1")
    for name in ("SHOP_PAYMENTS", "STRIPE_API_BASE", "STRIPE_JS_URL"):
        monkeypatch.setenv(name, environment.get(name, ""))
    built = runpy.run_path(str(Path(settings_module.__file__)))
    return built["CONTENT_SECURITY_POLICY"]["DIRECTIVES"]


def test_with_stripe_itself_the_policy_allows_what_stripe_documents_for_stripe_js_and_3d_secure(monkeypatch):
    policy = built_policy(monkeypatch)
    assert policy["script-src"] == ["'self'", "https://js.stripe.com", "https://*.js.stripe.com"]
    assert policy["frame-src"] == ["'self'", "https://js.stripe.com", "https://*.js.stripe.com",
                                   "https://hooks.stripe.com"]
    assert policy["connect-src"] == ["'self'", "https://api.stripe.com"]


def test_with_another_stripe_the_policy_allows_its_origin_only(monkeypatch):
    policy = built_policy(monkeypatch, STRIPE_API_BASE="http://127.0.0.1:8420",
                          STRIPE_JS_URL="http://127.0.0.1:8420/js.stripe.com/v3/")
    for directive in ("script-src", "frame-src", "connect-src"):
        assert policy[directive] == ["'self'", "http://127.0.0.1:8420"]


def test_without_card_payments_the_policy_allows_no_payment_origin(monkeypatch):
    policy = built_policy(monkeypatch, SHOP_PAYMENTS="off")
    assert policy["script-src"] == ["'self'"] and policy["connect-src"] == ["'self'"] and "frame-src" not in policy


@pytest.mark.django_db
def test_the_checkout_page_carries_that_policy(catalog, client, shopper, stripe_on):
    client.force_login(shopper)
    client.post("/cart/add/", {"product_id": "4", "quantity": 1})
    header = client.get("/checkout/").headers["Content-Security-Policy"]
    origin = stripe_on.url
    assert f"script-src 'self' {origin}" in header and f"frame-src 'self' {origin}" in header
    assert f"connect-src 'self' {origin}" in header


@pytest.mark.parametrize(("currency", "errors"), [
    ("EUR", []), ("USD", []), ("JPY", ["payments.E003"]), ("KWD", ["payments.E003"]), ("EURO", ["payments.E003"]),
])
def test_deploy_check_wants_a_two_decimal_currency(settings, currency, errors):
    settings.SHOP_PAYMENTS, settings.SHOP_CURRENCY = "stripe", currency
    assert [e.id for e in shop_currency(None)] == errors
    assert ("payments.E003" in [e.id for e in run_checks(include_deployment_checks=True)]) == bool(errors)
