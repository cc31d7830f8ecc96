"""What a shopper meets on list pages: search results with the same stock badges as the
other lists, and breadcrumbs that lead to the part of the home page they name."""
import re

from catalog import gateway, names
from catalog.gateway.dynamo.testing import count_requests


def card_badges(html):
    return dict(re.findall(r'<span class="card-title">([^<]+)</span>.*?<span class="badge [^"]*">([^<]+)</span>',
                           html, re.S))


def test_search_results_carry_the_stock_badges_of_the_brand_page(catalog, client):
    on_brand = card_badges(client.get("/brands/3/").content.decode())
    found = card_badges(client.get("/search/?q=model").content.decode())
    assert found == {"Model 3": on_brand["Model 3"], "Model Y": on_brand["Model Y"]}
    assert found["Model Y"] == "Only 3 left"
    assert card_badges(client.get("/search/?q=wall").content.decode()) == {"Wall Connector": "Sold out"}


def test_a_search_reads_its_page_and_the_page_stock_levels_once_each(catalog, client):
    names.brands(), names.categories()
    with count_requests() as counted:
        client.get("/search/?q=acme")
    assert sorted(counted.operations) == ["BatchGetItem", "Query"]


def test_a_sale_shows_on_the_search_results_at_once(catalog, client):
    gateway.stock_decrease(product_id="2", quantity=3, token=gateway.new_token(), reason="damaged", who="ann",
                           expected_level=3)
    assert card_badges(client.get("/search/?q=model").content.decode())["Model Y"] == "Sold out"


def test_breadcrumbs_lead_to_the_list_of_brands_or_of_categories(catalog, client):
    home = client.get("/").content.decode()
    assert 'id="brands"' in home and 'id="categories"' in home
    assert '<a href="/#categories">Categories</a>' in client.get("/categories/3/").content.decode()
    assert '<a href="/#brands">Brands</a>' in client.get("/brands/3/").content.decode()
