""""Email me when it's back" in a real browser: with JavaScript the answer appears in place (HTMX);
without it the form posts and the product page shows the answer."""
import pytest
from playwright.sync_api import expect

from catalog.gateway.alerts import asking
from tests.helpers import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_guest_asks_in_place_and_the_count_follows(shop, page):
    asking.alert_ask(product_id="3", email="first@example.com", customer_id="c1")
    page.goto(f"{shop}/products/3/")
    expect(page.locator("#stock-alert-waiting")).to_contain_text("1 person is waiting")
    page.evaluate("window.__sameDocument = true")
    page.get_by_label("Your email address").fill("guest@example.com")
    page.get_by_role("button", name="Email me when it’s back").click()
    expect(page.locator("#stock-alert-result")).to_contain_text("we are sending a link to guest@example.com")
    expect(page.locator("#stock-alert-result")).to_contain_text("1 person asked before you")
    assert page.evaluate("window.__sameDocument") is True
    screenshot(page, "stock-alert-asked")


def test_without_javascript_the_form_still_works(shop, chromium):
    context = chromium.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(f"{shop}/products/3/")
        page.get_by_label("Your email address").fill("nojs@example.com")
        page.get_by_role("button", name="Email me when it’s back").click()
        expect(page.locator(".messages")).to_contain_text("we are sending a link to nojs@example.com")
        expect(page).to_have_url(f"{shop}/products/3/")
    finally:
        context.close()


def test_asking_too_often_is_answered_in_place(shop, page, settings):
    settings.ACCOUNT_RATE_LIMITS = {**settings.ACCOUNT_RATE_LIMITS, "stock_alert": "1/h/ip"}
    page.goto(f"{shop}/products/3/")
    page.evaluate("window.__sameDocument = true")
    for _ in range(2):
        page.get_by_label("Your email address").fill("keen@example.com")
        page.get_by_role("button", name="Email me when it’s back").click()
        expect(page.locator("#stock-alert-result")).not_to_be_empty()
    expect(page.locator("#stock-alert-result")).to_contain_text("asked for alerts too often")  # the 429, swapped in
    assert page.evaluate("window.__sameDocument") is True
