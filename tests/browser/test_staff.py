"""Staff in a real browser (Debian's Chromium through Playwright) against the live site."""
import re

import pytest
from playwright.sync_api import expect

from catalog import gateway
from tests.helpers import make_account, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def shop(shop, django_user_model):
    gateway.stock_decrease(product_id="1", quantity=2, token=gateway.new_token(), reason="damaged", who="cy")
    make_account(django_user_model, "ann", "pw-ann-staff", is_staff=True)
    return shop


def sign_in(page, shop):
    page.goto(f"{shop}/staff/stock/")
    expect(page).to_have_url(re.compile(r"/accounts/login/\?next=/staff/stock/$"))
    page.get_by_label("Username").fill("ann")
    page.get_by_label("Password").fill("pw-ann-staff")
    page.get_by_role("button", name="Sign in").click()
    expect(page).to_have_url(re.compile(r"/staff/stock/$"))


def submit_adjustment(page, action, *, quantity, reason, reference=""):
    page.get_by_label(action, exact=True).check()
    page.get_by_label("Quantity").fill(quantity)
    page.get_by_label("Reason", exact=True).select_option(reason)
    page.get_by_label("Reference").fill(reference)
    page.get_by_role("button", name="Save adjustment").click()


def test_staff_receive_a_shipment_without_a_page_load(shop, page):
    sign_in(page, shop)
    page.get_by_label("Product ID").fill("1")
    page.get_by_role("button", name="Open its stock").click()
    expect(page).to_have_url(re.compile(r"/staff/products/1/stock/$"))
    expect(page.locator("#stock-level")).to_have_text("68")
    expect(page.locator("#history-rows tr")).to_have_count(2)  # the sale and the import's opening level
    page.evaluate("window.__sameDocument = true")  # gone if the page reloads

    submit_adjustment(page, "Increase", quantity="12", reason="received", reference="PO-42")

    expect(page.locator("#stock-level")).to_have_text("80")
    expect(page.get_by_role("status")).to_have_text("Received 12: stock is now 80.")
    rows = page.locator("#history-rows tr")
    expect(rows).to_have_count(3)
    expect(rows.first.locator("td")).to_have_text(
        [re.compile(r"\d{4}-\d\d-\d\d"), "+12", "80", "received", "PO-42", "ann", ""]  # key columns first
    )
    expect(page.get_by_label("Quantity")).to_have_value("")  # a fresh form
    assert page.evaluate("window.__sameDocument") is True
    assert gateway.product_get(product_id="1", consistent=True).stock_level == 80
    screenshot(page, "staff-stock")


def test_a_refused_decrease_shows_its_error_in_place(shop, page):
    sign_in(page, shop)
    page.goto(f"{shop}/staff/products/2/stock/")
    page.evaluate("window.__sameDocument = true")
    submit_adjustment(page, "Decrease", quantity="4", reason="damaged")
    expect(page.locator(".field-error")).to_have_text("Only 3 in stock: cannot remove 4. Nothing was changed.")
    expect(page.locator("#stock-level")).to_have_text("3")
    assert page.evaluate("window.__sameDocument") is True
    assert gateway.product_get(product_id="2", consistent=True).stock_level == 3


def test_the_stock_table_of_a_brand(shop, page):
    sign_in(page, shop)
    page.get_by_label("Brand", exact=True).select_option(label="Tesla")
    page.get_by_role("button", name="Show stock levels").click()
    expect(page).to_have_url(re.compile(r"/staff/stock/\?brand=3&category=$"))
    expect(page.locator("tr.low")).to_have_count(1)
    expect(page.locator("tr.sold-out")).to_have_count(1)
    screenshot(page, "staff-stock-table")
    page.get_by_role("link", name="Model Y").click()
    expect(page.locator("#stock-level")).to_have_text("3")


def test_a_long_shipment_file_is_received_in_chunks_with_progress_then_a_summary(shop, page, tmp_path, monkeypatch):
    from staff.views import receiving as views

    monkeypatch.setattr(views, "RECEIVE_CHUNK", 3)  # 10 lines: four requests, the last three by HTMX
    csv_file = tmp_path / "shipment.csv"
    csv_file.write_text("product_id,quantity,reference\n" + "".join(f"{1 + n % 8},1,PO-5\n" for n in range(10)))
    sign_in(page, shop)
    page.get_by_role("link", name="Receive a shipment").click()
    page.get_by_label("CSV file").set_input_files(str(csv_file))
    page.get_by_role("button", name="Check and receive").click()
    expect(page.locator("#receive-summary")).to_have_text(
        "10 lines: 10 received now (10 units), 0 received before.")
    assert gateway.product_get(product_id="3", consistent=True).stock_level == 1
    screenshot(page, "staff-receive")


def test_a_stocktake_that_lost_to_a_sale_asks_to_confirm(shop, page):
    sign_in(page, shop)
    page.goto(f"{shop}/staff/products/4/stock/")
    gateway.stock_decrease(product_id="4", quantity=2, token=gateway.new_token(), reason="sold")  # 12 -> 10
    page.get_by_label("Counted").fill("9")
    page.get_by_role("button", name="Save the count").click()
    expect(page.locator("#count-errors")).to_contain_text("it is now 10, not 12. Nothing was changed.")
    expect(page.locator("#stock-level")).to_have_text("10")
    page.get_by_role("button", name="Save the count").click()
    expect(page.locator("#stock-level")).to_have_text("9")
    assert gateway.product_get(product_id="4", consistent=True).stock_level == 9
