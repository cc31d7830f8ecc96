"""The catalog editor in a real browser (Debian's Chromium through Playwright) against the live site: a catalog
editor creates a product with a picture, and a shopper finds it in the shop with its picture."""
import re

import pytest
from playwright.sync_api import expect

from catalog import gateway
from tests.helpers import CATALOG_EDITORS, make_account, picture_bytes, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def shop(shop, django_user_model, tmp_path):
    make_account(django_user_model, "eve", "pw-eve-editor", is_staff=True, groups=[CATALOG_EDITORS])
    (tmp_path / "plug.png").write_bytes(picture_bytes("PNG", size=(800, 600)))
    return shop


def test_an_editor_creates_a_product_with_a_picture_and_it_is_in_the_shop(shop, page, tmp_path):
    page.goto(f"{shop}/staff/catalog/products/new/")
    page.get_by_label("Username").fill("eve")
    page.get_by_label("Password").fill("pw-eve-editor")
    page.get_by_role("button", name="Sign in").click()
    expect(page).to_have_url(re.compile(r"/staff/catalog/products/new/$"))
    page.get_by_label("Product ID").fill("plug-1")
    page.get_by_label("Name", exact=True).fill("Acme Travel Plug")
    page.get_by_label("Brand").select_option(label="Acme")
    page.get_by_label("Category").select_option(label="Chargers")
    page.get_by_label("Price", exact=True).fill("19.90")
    page.get_by_label("Opening stock level").fill("25")
    page.get_by_label("Description").fill("Fits every socket.")
    page.get_by_label("Attribute 1 name").fill("volts")
    page.get_by_label("Attribute 1 value").fill("230")
    page.get_by_label("Picture").set_input_files(str(tmp_path / "plug.png"))
    page.get_by_role("button", name="Create the product").click()
    expect(page).to_have_url(re.compile(r"/staff/catalog/products/plug-1/$"))
    expect(page.get_by_role("status")).to_contain_text("Acme Travel Plug was created.")
    screenshot(page, "catalog-editor-product")
    product = gateway.product_get(product_id="plug-1")
    assert product.image.startswith("media:") and product.attributes == {"volts": 230}

    page.context.clear_cookies()  # a shopper now
    page.goto(f"{shop}/search/?q=travel")
    card = page.get_by_role("link", name=re.compile("Acme Travel Plug"))
    expect(card.first).to_be_visible()
    card.first.click()
    expect(page).to_have_url(re.compile(r"/products/plug-1/$"))
    picture = page.get_by_role("img", name="Acme Travel Plug")
    expect(picture).to_have_attribute("src", re.compile(r"/media/pictures/plug-1/.+\.webp$"))
    assert picture.evaluate("img => img.complete && img.naturalWidth") == 480
    expect(page.get_by_text("€19.90").first).to_be_visible()
    screenshot(page, "catalog-editor-in-the-shop")
