"""Card payments' settings: `check --deploy` wants Stripe's secrets unless the shop takes no card payments; the
Content-Security-Policy allows exactly Stripe.js's origins, and only with payments on."""
import pytest
from django.core.checks import run_checks

from payments.checks import stripe_secrets
from storefront.security_headers import content_security_policy, payment_origins


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


def test_the_policy_allows_exactly_stripe_js_origins():
    stripe = payment_origins("stripe", "https://js.stripe.com/v3/", "")
    policy = content_security_policy([], payment_origins=stripe)["DIRECTIVES"]
    for directive in ("script-src", "frame-src", "connect-src"):
        assert policy[directive] == ["'self'", "https://js.stripe.com", "https://api.stripe.com"]
    local = payment_origins("stripe", "http://127.0.0.1:8420/js.stripe.com/v3/", "http://127.0.0.1:8420")
    assert local == ("http://127.0.0.1:8420",)
    assert payment_origins("off", "https://js.stripe.com/v3/", "") == ()
    off = content_security_policy([])["DIRECTIVES"]
    assert off["script-src"] == ["'self'"] and off["connect-src"] == ["'self'"] and "frame-src" not in off


@pytest.mark.django_db
def test_the_checkout_page_carries_that_policy(catalog, client, shopper, stripe_on):
    client.force_login(shopper)
    client.post("/cart/add/", {"product_id": "4", "quantity": 1})
    header = client.get("/checkout/").headers["Content-Security-Policy"]
    origin = stripe_on.url
    assert f"script-src 'self' {origin}" in header and f"frame-src 'self' {origin}" in header
    assert f"connect-src 'self' {origin}" in header
