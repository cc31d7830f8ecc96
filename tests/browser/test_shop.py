"""A shopper buys in a real browser: cart badge in place, sign in, order, order history."""
import re

import pytest
from playwright.sync_api import expect

from catalog import gateway
from tests.helpers import make_account, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def shop(shop, django_user_model):
    make_account(django_user_model, "alice", "a-long-password-1")
    return shop


def test_add_two_products_sign_in_place_the_order_and_see_it(shop, page):
    page.goto(f"{shop}/products/1/")
    page.evaluate("window.__sameDocument = true")
    page.get_by_label("Quantity").fill("2")
    page.get_by_role("button", name="Add to cart").click()
    expect(page.locator("#cart-status")).to_contain_text("Added 2 × Model 3 to your cart.")
    expect(page.locator("#cart-count")).to_have_text("2")
    assert page.evaluate("window.__sameDocument") is True  # the badge changed in place
    screenshot(page, "product-added")

    page.goto(f"{shop}/products/4/")
    page.get_by_role("button", name="Add to cart").click()
    expect(page.locator("#cart-count")).to_have_text("3")

    page.get_by_role("link", name=re.compile("^Cart")).click()
    expect(page.locator("#cart tbody tr")).to_have_count(2)
    expect(page.locator("#cart .total")).to_have_text("€80,879.00")
    screenshot(page, "cart")
    page.get_by_role("link", name="Checkout").click()

    expect(page).to_have_url(re.compile(r"/accounts/login/\?next=/checkout/"))
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill("a-long-password-1")
    page.get_by_role("button", name="Sign in").click()

    expect(page).to_have_url(re.compile(r"/checkout/$"))
    page.get_by_label("Name").fill("Alice Liddell")
    page.get_by_label("Street").fill("Hauptstraße 1")
    page.get_by_label("Postcode").fill("10115")
    page.get_by_label("City").fill("Berlin")
    page.get_by_label("Country").select_option("DE")
    screenshot(page, "checkout")
    page.get_by_role("button", name="Place order").click()
    expect(page.locator(".messages .message")).to_contain_text("Thank you! Your order")
    expect(page.locator("h1")).to_have_text(re.compile(r"^Your order of \d{1,2} \w+ \d{4}$"))  # not its raw ID
    order_id = page.locator("#order-number").inner_text()  # what the customer calls it
    expect(page.locator(".delivery-address")).to_contain_text("10115 Berlin")
    expect(page.locator("#cart-count")).to_have_text("0")
    screenshot(page, "order")

    page.get_by_role("link", name="Orders", exact=True).click()
    expect(page.locator(".order").first).to_contain_text(order_id)
    expect(page.locator(".order").first).to_contain_text("2 × Model 3")
    expect(page.locator(".order").first).to_contain_text("1 × Pixel 9")
    screenshot(page, "orders")
    assert gateway.product_get(product_id="1", consistent=True).stock_level == 68


def test_changing_a_quantity_in_the_cart_updates_it_in_place(shop, page):
    page.goto(f"{shop}/products/4/")
    page.get_by_role("button", name="Add to cart").click()
    expect(page.locator("#cart-count")).to_have_text("1")
    page.goto(f"{shop}/cart/")
    page.evaluate("window.__sameDocument = true")
    page.get_by_label("Quantity of Pixel 9").fill("3")
    page.get_by_role("button", name="Update").click()
    expect(page.locator("#cart .total")).to_have_text("€2,697.00")
    expect(page.locator("#cart-count")).to_have_text("3")
    page.get_by_label("Quantity of Pixel 9").fill("0")
    page.get_by_role("button", name="Update").click()
    # the browser's own validation stops it (the server refuses it too: see test_shop.py)
    assert page.get_by_label("Quantity of Pixel 9").evaluate("input => !input.validity.valid")
    expect(page.locator("#cart-count")).to_have_text("3")
    assert page.evaluate("window.__sameDocument") is True
