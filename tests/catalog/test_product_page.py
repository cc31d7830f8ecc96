"""catalog.product_page: the product page's parts that show only the product's own values, kept
per process for those values."""
from dataclasses import replace
from decimal import Decimal

import pytest

from catalog import gateway
from catalog.gateway import Product
from catalog.product_page import product_parts

MODEL_3 = Product(
    product_id="1", name="Model 3", brand_id="3", category_id="1", price=Decimal("39990.00"), stock_level=3,
    description="Electric.", attributes={"range_km": 500, "autopilot": True},
)


def _html(product, brand_name="Tesla", category_name="Cars"):
    return "".join(product_parts(product, brand_name=brand_name, category_name=category_name).values())


def test_the_parts_show_the_products_values_escaped():
    html = _html(replace(MODEL_3, name="Model <3>", description="Fast & <b>quiet</b>"), brand_name="Tesla <Motors>")
    assert "<h1>Model &lt;3&gt;</h1>" in html and 'alt="Model &lt;3&gt;"' in html
    assert '<p class="description">Fast &amp; &lt;b&gt;quiet&lt;/b&gt;</p>' in html
    assert '<a href="/brands/3/">Tesla &lt;Motors&gt;</a>' in html
    assert "<td>500</td>" in html and "<td>Yes</td>" in html


@pytest.mark.parametrize(
    "changed,shown",
    [
        (dict(name="Model S"), "<h1>Model S</h1>"),
        (dict(description="Now with more range."), "Now with more range."),
        (dict(attributes={"range_km": 500, "autopilot": 1}), "<td>1</td>"),  # 1 is not True
        (dict(attributes={"range_km": 510, "autopilot": True}), "<td>510</td>"),
        (dict(category_id="10"), 'href="/categories/10/"'),
        (dict(image="https://img.example/m3.jpg"), 'src="https://img.example/m3.jpg"'),
    ],
)
def test_a_changed_value_gives_new_parts(changed, shown):
    assert shown not in _html(MODEL_3)
    assert shown in _html(replace(MODEL_3, **changed))


def test_a_renamed_brand_or_category_gives_new_parts():
    assert "Tesla Motors" in _html(MODEL_3, brand_name="Tesla Motors")
    assert ">Automobiles</a>" in _html(MODEL_3, category_name="Automobiles")


def test_the_page_shows_the_stock_read_now_beside_the_kept_parts(catalog, client):
    html = client.get("/products/2/").content.decode()
    assert ">Only 3 left<" in html and "<h1>Model Y</h1>" in html
    gateway.stock_decrease(product_id="2", quantity=3, token=gateway.new_token(), reason="damaged", who="cy")
    html = client.get("/products/2/").content.decode()
    assert ">Sold out<" in html and 'disabled aria-disabled="true">Sold out</button>' in html
    assert "<h1>Model Y</h1>" in html
