"""The Content-Security-Policy holds in a real browser: no page breaks it (Chromium reports every
refused script, style or image on the console) and HTMX still works under it."""
import pytest
from playwright.sync_api import expect

from tests.helpers import make_account, seed

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_pages_and_htmx_work_under_the_policy_with_nothing_refused(ddb, live_server, page, django_user_model):
    seed()
    make_account(django_user_model, "ann", "pw-ann-staff", is_staff=True)
    refused = []
    page.on("console", lambda message: refused.append(message.text) if "Content Security Policy" in message.text
            else None)
    page.goto(f"{live_server.url}/")
    page.goto(f"{live_server.url}/brands/3/")
    page.goto(f"{live_server.url}/products/1/")
    page.get_by_role("button", name="Add to cart").click()
    expect(page.locator("#cart-count")).to_have_text("1")  # HTMX swapped the badge in place
    page.goto(f"{live_server.url}/accounts/login/?next=/staff/products/4/stock/")
    page.get_by_label("Username").fill("ann")
    page.get_by_label("Password").fill("pw-ann-staff")
    page.get_by_role("button", name="Sign in").click()
    page.get_by_label("Quantity").fill("2")
    page.get_by_role("button", name="Save adjustment").click()
    expect(page.locator("#stock-level")).to_have_text("14")
    assert refused == []
