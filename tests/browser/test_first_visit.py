"""A first visit, as a person sees it, at phone and laptop width: the shopper's whole path
(home, brand, product, cart, checkout, order) and the staff's (open orders, an order found by its
number, a sale in the stock history), asserting what is on the screen: no stray fields, order numbers
not IDs, names not UUIDs, stock badges, what prices include. axe-core checks these pages in
test_a11y.py."""
import re

import pytest
from django.test import Client
from playwright.sync_api import expect

from catalog import gateway
from tests.helpers import page_overflow, screenshot, seed, warehouse_staff
from tests.shop.test_views import checkout_form

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTHS = {"phone": {"width": 390, "height": 844}, "laptop": {"width": 1280, "height": 800}}
NUMBER = re.compile(r"^[2-9A-HJKMNP-TV-Z]{8}$")


@pytest.fixture
def site(ddb, live_server, django_user_model):
    seed()
    alice = django_user_model.objects.create_user("alice", email="alice@example.com", password="a-long-password-1",
                                                  name="Alice Liddell")
    ann = warehouse_staff(django_user_model.objects.create_user("ann", password="pw-ann-staff", is_staff=True))
    return {"url": live_server.url, "alice": alice, "ann": ann}


def browser_page(chromium, site, user, viewport):
    client = Client()
    client.force_login(user)
    context = chromium.new_context(viewport=viewport)
    context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": site["url"]}])
    page = context.new_page()
    page.set_default_timeout(10_000)
    return context, page


def fits(page):
    assert page_overflow(page) == 0, f"{page.url} is wider than the window"


@pytest.mark.parametrize("width", WIDTHS)
def test_a_shopper_from_the_home_page_to_the_order_sees_what_they_would_trust(site, chromium, width):
    context, page = browser_page(chromium, site, site["alice"], WIDTHS[width])
    try:
        page.goto(site["url"] + "/")
        page.locator("#brands").get_by_role("link", name="Tesla").click()
        expect(page.locator("h1")).to_have_text("Tesla")
        cards = page.locator(".card")
        expect(cards.filter(has_text="Wall Connector").locator(".badge")).to_have_text("Sold out")
        expect(cards.filter(has_text="Model Y").locator(".badge")).to_have_text("Only 3 left")
        fits(page)
        page.get_by_role("link", name="Categories").or_(page.get_by_role("link", name="Brands")).first.click()
        expect(page).to_have_url(re.compile(r"/#brands$"))
        page.go_back()

        page.locator(".card").filter(has_text="Model Y").get_by_role("link").click()
        expect(page.locator(".product-buy .vat-note")).to_have_text("incl. VAT")
        expect(page.locator(".product-buy .delivery-note")).to_have_text("Delivery is free and takes 2–4 working days.")
        fits(page)
        page.get_by_label("Quantity").fill("2")
        page.get_by_role("button", name="Add to cart").click()
        expect(page.locator("#cart-count")).to_have_text("2")

        page.get_by_role("link", name=re.compile("^Cart")).click()
        expect(page.locator("#cart .vat-note")).to_have_text("incl. VAT")
        expect(page.locator("#cart .delivery-note")).to_be_visible()
        fits(page)
        page.get_by_role("link", name="Checkout").click()

        form = page.locator("#place-order")
        # Only what the shopper fills in: no "Order id" or "Token" box, whatever the width.
        visible = form.locator("input:visible, select:visible")
        expect(visible).to_have_count(5)
        assert [visible.nth(i).get_attribute("name") for i in range(5)] == [
            "name", "street", "postcode", "city", "country"]
        assert form.locator("input[name=order_id]").get_attribute("type") == "hidden"
        assert form.locator("input[name=token]").get_attribute("type") == "hidden"
        expect(page.get_by_text("Order id")).to_have_count(0)
        expect(page.locator("main .vat-note")).to_have_text("incl. VAT")
        expect(page.locator("main .delivery-note")).to_be_visible()
        page.get_by_label("Name").fill("Alice Liddell")
        page.get_by_label("Street").fill("Hauptstraße 1")
        page.get_by_label("Postcode").fill("10115")
        page.get_by_label("City").fill("Berlin")
        page.get_by_label("Country").select_option("DE")
        fits(page)
        screenshot(page, f"first-visit-checkout-{width}")
        page.get_by_role("button", name="Place order").click()

        number = page.locator("#order-number")
        expect(number).to_have_text(NUMBER)
        thanks = f"Thank you! Your order {number.inner_text()} is placed."
        expect(page.locator(".messages .message")).to_have_text(thanks)
        order_id = page.url.rstrip("/").rsplit("/", 1)[1]
        assert order_id not in page.locator("main").inner_text()  # the long internal ID is only in the address
        fits(page)
        screenshot(page, f"first-visit-order-{width}")
    finally:
        context.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_staff_see_names_open_an_order_by_its_number_and_follow_a_sale_to_its_order(site, chromium, width):
    buyer = Client()
    buyer.force_login(site["alice"])
    buyer.post("/cart/add/", {"product_id": "4", "quantity": 2})
    order_id = buyer.post("/checkout/", checkout_form(buyer))["Location"].rstrip("/").rsplit("/", 1)[1]
    order = gateway.order_get(customer_id=site["alice"].customer_key_id, order_id=order_id)

    context, page = browser_page(chromium, site, site["ann"], WIDTHS[width])
    try:
        page.goto(site["url"] + "/staff/orders/")
        main = page.locator("main")
        row = page.locator("#order-rows tr").first
        expect(row).to_contain_text("Alice Liddell")
        expect(row).to_contain_text("alice@example.com")
        expect(row.get_by_role("link", name=order.number)).to_be_visible()
        # The key columns of a row are on screen at either width: nothing hidden off to the side.
        for label in ("Customer", "Items", "Total"):
            cell = row.locator(f'td[data-label="{label}"]')
            expect(cell).to_be_visible()
            box = cell.bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= WIDTHS[width]["width"], label
        assert site["alice"].customer_key_id not in main.inner_text()  # a name, not a UUID
        fits(page)
        screenshot(page, f"first-visit-staff-orders-{width}")

        # A customer on the phone reads out the number: typed as heard, it opens the order.
        page.get_by_label("Order number").fill(f"{order.number[:4].lower()} {order.number[4:].lower()}")
        page.get_by_role("button", name="Open the order").click()
        expect(page.locator("h1")).to_have_text(f"Order {order.number}")
        expect(main).to_contain_text("Alice Liddell")
        expect(main).to_contain_text("10115 Berlin")
        fits(page)

        page.goto(site["url"] + "/staff/products/4/stock/")
        page.get_by_role("link", name=f"Order {order.number}").click()
        expect(page.locator("h1")).to_have_text(f"Order {order.number}")
        fits(page)
    finally:
        context.close()
