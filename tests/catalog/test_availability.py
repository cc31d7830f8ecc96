"""catalog/availability.py, the one home of a product's availability: the shopper's "low" and the
reorder list use the same comparison (at or below), shoppers and staff see their own words, and
the pages, cards and errors all say the same."""
import re

import pytest

from catalog import availability, gateway
from catalog.gateway import Product
from tests.helpers import warehouse_staff


def product(level, reorder_point=None):
    return Product(product_id="1", name="Model 3", brand_id="3", category_id="1", price=1, stock_level=level,
                   reorder_point=reorder_point)


@pytest.mark.parametrize("level,label,css", [
    (0, "Sold out", "sold-out"), (-1, "Sold out", "sold-out"), (1, "Only 1 left", "low"),
    (5, "Only 5 left", "low"), (6, "In stock", "in-stock"),
])
def test_a_shopper_sees_low_stock_at_or_below_the_threshold_the_reorder_list_uses(settings, level, label, css):
    settings.LOW_STOCK_THRESHOLD = 5
    state = availability.shopper_state(level)
    assert (state.label, state.css_class) == (label, css)
    # the same comparison puts a product without its own reorder point on the reorder list
    assert product(level).needs_reorder == (level <= 5)


@pytest.mark.parametrize("level,reorder_point,label,css", [
    (0, None, "Sold out", "reorder-sold-out"), (5, None, "Reorder", "reorder-due"),
    (6, None, "Stocked", "reorder-ok"), (20, 20, "Reorder", "reorder-due"), (3, 2, "Stocked", "reorder-ok"),
])
def test_staff_see_a_products_state_against_its_own_reorder_point(settings, level, reorder_point, label, css):
    settings.LOW_STOCK_THRESHOLD = 5
    state = availability.reorder_state(product(level, reorder_point))
    assert (state.label, state.css_class) == (label, css)
    assert product(level, reorder_point).needs_reorder == (css != "reorder-ok")


def test_whether_it_can_be_bought():
    assert availability.can_buy(3, 3) and not availability.can_buy(3, 4) and not availability.can_buy(0)
    assert not availability.can_buy(None) and product(1).in_stock and not product(0).in_stock


def test_the_reorder_page_colours_rows_with_the_staff_states(catalog, client, django_user_model, settings):
    settings.STAFF_MFA_REQUIRED = False  # signed in with force_login: the second factor is tested elsewhere
    staff_user = warehouse_staff(django_user_model.objects.create_user(
        username="ann", password="pw-ann", is_staff=True))
    client.force_login(staff_user)
    gateway.product_set_reorder_point(product_id="1", reorder_point=70)  # 70 in stock: at its reorder point
    html = client.get("/staff/reorder/").content.decode()
    rows = {pid: css for css, pid in re.findall(r'<tr class="([^"]+)">\s*<td><a href="/staff/products/([^/]+)/stock/"',
                                                  html)}
    assert len(rows) == 6
    assert rows["3"] == "reorder-sold-out" and rows["1"] == "reorder-due" and rows["5"] == "reorder-due"
    assert '<td data-label="State">Reorder</td>' in html and '<td data-label="State">Sold out</td>' in html
    assert 'class="low"' not in html and 'class="in-stock"' not in html


def test_a_product_at_the_threshold_is_low_on_its_page_and_card(catalog, client, settings):
    settings.LOW_STOCK_THRESHOLD = 5
    assert ">Only 5 left<" in client.get("/products/5/").content.decode()  # Surface Duo: 5 in stock


@pytest.mark.parametrize("threshold", [0, 5, 12])
def test_a_list_shows_from_the_stock_band_what_the_level_would_show(settings, threshold):
    settings.LOW_STOCK_THRESHOLD = threshold
    for level in range(0, threshold + 40):
        band = availability.stock_band(level)
        assert availability.shopper_state(band) == availability.shopper_state(level), level
        # a list item carries only the stored band (the v2 list indexes); a product page the level
        from_list = Product.from_item({"productId": "1", "stockBand": band})
        assert from_list.stock_level is None and from_list.stock_band == band
    # Every level above the threshold is one band: a sale among them changes nothing a list index holds.
    assert {availability.stock_band(level) for level in range(threshold + 1, threshold + 1000)} == {threshold + 1}


def test_a_lowered_threshold_caps_the_stored_bands_again(settings):
    settings.LOW_STOCK_THRESHOLD = 5
    stored = Product.from_item({"productId": "1", "stockLevel": 4}).to_item()["stockBand"]
    assert stored == 4
    settings.LOW_STOCK_THRESHOLD = 3
    assert availability.stock_label(Product.from_item({"productId": "1", "stockBand": stored}).stock_band) == "In stock"
