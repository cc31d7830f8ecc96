"""The checkout page of a timed hold in a browser: opening it holds nothing; its button holds
the units (an HTMX post that swaps in the hold's part), then the time it ends, a live countdown, polite
announcements for screen readers, and the cancel button that releases the units."""
import re

import pytest
from playwright.sync_api import expect

from catalog import gateway
from tests.helpers import axe_violations, make_account

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def shop(shop, django_user_model, settings):
    settings.STOCK_HOLD_SECONDS = 600
    make_account(django_user_model, "alice", "a-long-password-1")
    return shop


@pytest.fixture
def page(chromium):
    context = chromium.new_context(viewport={"width": 1200, "height": 900}, bypass_csp=True)  # to inject axe-core
    page = context.new_page()
    page.set_default_timeout(10_000)
    yield page
    context.close()


def test_the_checkout_counts_down_the_hold_and_cancel_releases_it(shop, page, axe_script):
    page.goto(f"{shop}/products/4/")  # Pixel 9, 12 in stock
    page.get_by_role("button", name="Add to cart").click()
    expect(page.locator("#cart-count")).to_have_text("1")
    page.goto(f"{shop}/checkout/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill("a-long-password-1")
    page.get_by_role("button", name="Sign in").click()
    expect(page).to_have_url(re.compile(r"/checkout/$"))
    expect(page.locator(".hold-note")).to_have_count(0)
    assert gateway.product_get(product_id="4", consistent=True).stock_level == 12  # opening it holds nothing
    page.get_by_role("button", name="Hold my units while I pay").click()
    expect(page.locator(".hold-note")).to_contain_text("We hold these units for you until")
    expect(page).to_have_url(re.compile(r"/checkout/$"))
    expect(page.locator(".hold-countdown")).to_have_text(re.compile(r"^\((10:00|9:[0-5]\d) left\)$"))
    expect(page.locator("#hold-announce")).to_have_attribute("aria-live", "polite")
    assert gateway.product_get(product_id="4", consistent=True).stock_level == 11  # others can buy 11
    assert axe_violations(page, axe_script) == []
    page.get_by_role("button", name="Cancel checkout and release the units").click()
    expect(page).to_have_url(re.compile(r"/cart/$"))
    expect(page.locator(".messages")).to_contain_text("released")
    assert gateway.product_get(product_id="4", consistent=True).stock_level == 12
