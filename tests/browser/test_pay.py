"""Paying in Chromium: Stripe.js (localstripe's) mounts its card element in #card-element, "Pay €…" turns the
card into a token and the order is placed; a 3-D Secure card asks the shopper to confirm (Stripe.js's
confirmCardPayment) before it is; a declined card is said on the page. No console errors, no CSP reports."""
import re

import pytest
from playwright.sync_api import expect

from catalog import gateway
from payments import stripe_api
from tests.helpers import make_account

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def shop(shop, django_user_model, stripe_on):
    make_account(django_user_model, "alice", "a-long-password-1")
    return shop


def to_checkout(page, shop):
    page.goto(f"{shop}/products/4/")  # Pixel 9, 899.00, 12 in stock
    page.get_by_role("button", name="Add to cart").click()
    expect(page.locator("#cart-count")).to_have_text("1")
    page.goto(f"{shop}/checkout/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill("a-long-password-1")
    page.get_by_role("button", name="Sign in").click()
    expect(page).to_have_url(re.compile(r"/checkout/$"))
    page.get_by_label("Name").fill("Alice Liddell")
    page.get_by_label("Street").fill("Hauptstraße 1")
    page.get_by_label("Postcode").fill("10115")
    page.get_by_label("City").fill("Berlin")
    page.get_by_label("Country").select_option("DE")


def enter_card(page, number):
    card = page.locator("#card-element")
    card.get_by_placeholder("number").fill(number)
    card.get_by_placeholder("exp_month").fill("12")
    card.get_by_placeholder("exp_year").fill("34")
    card.get_by_placeholder("cvc").fill("123")
    card.get_by_placeholder("postal_code").fill("10115")


def watch(page):
    problems = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    return problems


def the_order(page):
    order_id = re.search(r"/account/orders/([^/]+)/$", page.url).group(1)
    (order,) = [o for o in gateway.orders_by_customer(customer_id=_alice().customer_key_id).items
                if o.order_id == order_id]
    return order


def _alice():
    from django.contrib.auth import get_user_model
    return get_user_model().objects.get(username="alice")


def test_paying_with_4242_lands_on_the_order_page(shop, page):
    problems = watch(page)
    to_checkout(page, shop)
    pay = page.get_by_role("button", name=re.compile(r"^Pay"))
    expect(pay).to_have_text("Pay €899.00")
    enter_card(page, "4242424242424242")
    pay.click()
    expect(page).to_have_url(re.compile(r"/account/orders/[^/]+/$"))
    expect(page.locator("[data-payment-status]")).to_have_attribute("data-payment-status", "authorised")
    order = the_order(page)
    assert stripe_api.intent_get(order.payment.intent_id).status == "requires_capture"
    assert gateway.product_get(product_id="4", consistent=True).stock_level == 11
    assert problems == []


def test_a_3d_secure_card_is_confirmed_in_the_browser_then_the_order_placed(shop, page):
    problems = watch(page)
    to_checkout(page, shop)
    enter_card(page, "4000002500003155")
    page.get_by_role("button", name=re.compile(r"^Pay")).click()
    page.get_by_role("button", name="Complete authentication").click()  # localstripe's 3-D Secure dialog
    expect(page).to_have_url(re.compile(r"/account/orders/[^/]+/$"))
    expect(page.locator("[data-payment-status]")).to_have_attribute("data-payment-status", "authorised")
    assert problems == []


def test_a_declined_card_says_why_and_keeps_the_cart(shop, page):
    to_checkout(page, shop)
    enter_card(page, "4000000000000002")
    page.get_by_role("button", name=re.compile(r"^Pay")).click()
    expect(page.locator(".messages")).to_contain_text("Your card was declined.")
    expect(page).to_have_url(re.compile(r"/checkout/$"))
    expect(page.get_by_label("Street")).to_have_value("Hauptstraße 1")
    enter_card(page, "4242424242424242")
    page.get_by_role("button", name=re.compile(r"^Pay")).click()
    expect(page).to_have_url(re.compile(r"/account/orders/[^/]+/$"))


def test_the_paying_checkout_passes_axe(shop, chromium, axe_script):
    from tests.helpers import axe_violations

    context = chromium.new_context(viewport={"width": 1200, "height": 900}, bypass_csp=True)  # to inject axe-core
    page = context.new_page()
    try:
        to_checkout(page, shop)
        expect(page.locator("#card-element input")).to_have_count(5)  # the card element is mounted
        assert axe_violations(page, axe_script) == []
    finally:
        context.close()
