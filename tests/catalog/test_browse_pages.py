"""Browse pages with sort orders, counts, search and pictures."""
import re

import pytest
from django.core.cache import cache

from catalog import names
from catalog.gateway import Brand, Category
from catalog.gateway.dynamo.testing import count_requests

HX = {"HX-Request": "true"}


def product_names(response):
    return re.findall(r'<span class="card-title">([^<]*)</span>', response.content.decode())


def test_brand_page_sorts_by_price_and_keeps_the_order_across_filters(catalog, client):
    response = client.get("/brands/3/?sort=price")
    assert product_names(response) == ["Wall Connector", "Model 3", "Model Y"]
    assert product_names(client.get("/brands/3/?sort=-price")) == ["Model Y", "Model 3", "Wall Connector"]
    html = response.content.decode()
    chip = re.search(r'<a id="filter-category-1"[^>]*>([^<]*)</a>', html, re.S)
    assert chip.group(1) == "Cars (2)"
    assert 'href="/brands/3/?category=1&amp;sort=price"' in chip.group(0)
    assert re.search(r'id="sort-price"[^>]*aria-current="true"', html, re.S)


def test_a_brand_page_shows_only_chips_with_products_and_counts(catalog, client):
    html = client.get("/brands/3/").content.decode()
    chips = re.findall(r'<a id="filter-[^"]*" class="chip"[^>]*>([^<]*)</a>', html, re.S)
    assert chips == ["All (3)", "Cars (2)", "Chargers (1)"]  # no Boats, no Phones: Tesla has none
    assert "3 products" in html
    assert "2 products" in client.get("/brands/3/?category=1").content.decode()
    assert "1 product<" in client.get("/categories/2/").content.decode()


def test_the_seed_order_names_its_groups(catalog, client):
    html = client.get("/brands/10/").content.decode()
    assert re.findall(r'<li class="group-heading"><h3>([^<]*)</h3>', html) == ["Cars", "Chargers", "Boats"]


def test_a_bad_sort_is_a_400(catalog, client):
    assert client.get("/brands/3/?sort=cheap").status_code == 400
    assert client.get("/search/?q=model&sort=cheap").status_code == 400


@pytest.mark.parametrize(
    "url",
    ["/brands/3/?sort=name", "/brands/3/?sort=price", "/brands/3/?sort=-price",
     "/brands/3/?category=1&sort=price", "/categories/1/?sort=name", "/categories/1/?brand=3&sort=-price",
     "/search/?q=model", "/search/?q=mod&sort=-price"],
)
def test_every_sorted_and_search_page_is_one_query(catalog, client, url):
    """A search page also reads its products' stock levels (one BatchGetItem: term items carry none)."""
    names.brands(), names.categories()
    with count_requests() as counter:
        response = client.get(url)
    assert response.status_code == 200
    assert counter.operations == (["Query", "BatchGetItem"] if url.startswith("/search/") else ["Query"])


def test_search_page_lists_matches_with_their_count(catalog, client):
    response = client.get("/search/?q=MOD")
    assert product_names(response) == ["Model 3", "Model Y"]
    assert "2 products" in response.content.decode()
    assert product_names(client.get("/search/?q=mod&sort=-price")) == ["Model Y", "Model 3"]
    fragment = client.get("/search/?q=mod", headers=HX).content.decode()
    # the list alone, with the title htmx gives the document
    assert re.match(r'\s*<title>Search: mod · Fromatoz</title>\s*<section id="browse"', fragment)
    assert "<html" not in fragment
    assert "No product name has these words." in client.get("/search/?q=zebra").content.decode()


@pytest.mark.parametrize("q", ["", "m", "  ", "-"])
def test_a_too_short_search_is_a_hint_and_no_request(catalog, client, q):
    names.brands(), names.categories()
    with count_requests() as counter:
        response = client.get("/search/", {"q": q})
    assert response.status_code == 200
    assert "Type at least 2 letters" in response.content.decode()
    assert counter.operations == []


def test_an_overlong_search_is_cut_not_an_error(catalog, client):
    assert client.get("/search/", {"q": "model " * 2000}).status_code == 200


def test_cards_have_lazy_sized_pictures_and_the_product_page_a_large_one(catalog, client):
    html = client.get("/brands/3/").content.decode()
    img = re.search(r'<img class="card-image" src="([^"]+)" width="160" height="120" loading="lazy" alt="">', html)
    assert img and img.group(1).startswith("/placeholder/T-")
    svg = client.get(img.group(1))
    assert svg.status_code == 200 and svg["Content-Type"] == "image/svg+xml" and b">T</text>" in svg.content
    page = client.get("/products/1/").content.decode()
    big = r'<img class="product-image" src="/placeholder/T-\d+\.svg" width="480" height="360" alt="Model 3">'
    assert re.search(big, page)
    assert client.get("/placeholder/TT-1.svg").status_code == 404
    assert client.get("/placeholder/T-99.svg").status_code == 404


def test_the_header_has_a_search_box(catalog, client):
    html = client.get("/").content.decode()
    assert re.search(r'<form class="site-search" role="search" method="get" action="/search/">', html)
    assert 'name="q"' in html
    box = r'<input id="site-search-q" type="search" name="q" [^>]*value="([^"]*)">'
    for url in ["/", "/brands/3/", "/products/1/", "/contact/"]:
        assert re.search(box, client.get(url).content.decode()).group(1) == "", url
    # a search keeps its words in the box, escaped
    searched = client.get("/search/", {"q": 'model "y" <'}).content.decode()
    assert re.search(box, searched).group(1) == "model &quot;y&quot; &lt;"


CHIP = r'<a id="filter-[^"]*" class="chip"[^>]*>([^<]*)</a>'


def test_the_chips_follow_the_names_when_they_are_read_anew(catalog, client):
    def chips(url="/brands/3/"):
        return re.findall(CHIP, client.get(url).content.decode(), re.S)

    assert chips() == chips() == ["All (3)", "Cars (2)", "Chargers (1)"]
    # Another server read the names anew: Tesla has more cars, and a category was renamed.
    cache.set_many({
        names.BRANDS_KEY: ("b2", [Brand(brand_id="3", name="Tesla", category_counts={"1": 5, "10": 1})]),
        f"{names.BRANDS_KEY}:stamp": "b2",
    })
    assert chips() == ["All (6)", "Cars (5)", "Chargers (1)"]
    categories = [Category(category_id="1", name="Cars & <Vans>"), Category(category_id="10", name="Chargers")]
    cache.set_many({names.CATEGORIES_KEY: ("c2", categories), f"{names.CATEGORIES_KEY}:stamp": "c2"})
    assert chips() == ["All (6)", "Cars &amp; &lt;Vans&gt; (5)", "Chargers (1)"]


def test_each_sort_order_and_filter_has_its_own_chips(catalog, client):
    def chip_tags(url):
        return re.findall(r'<a id="filter-[^"]*" class="chip"[^>]*>', client.get(url).content.decode(), re.S)

    by_price = chip_tags("/brands/3/?sort=price")
    featured = chip_tags("/brands/3/")
    cars = chip_tags("/brands/3/?category=1")
    assert 'href="/brands/3/?category=1&amp;sort=price"' in by_price[1]
    assert 'href="/brands/3/?category=1"' in featured[1]
    assert "aria-current" in featured[0] and "aria-current" not in featured[1]
    assert "aria-current" in cars[1] and "aria-current" not in cars[0]
    html = client.get("/brands/3/?sort=-price").content.decode()
    sorts = re.findall(r'<a id="sort-[^"]*"[^>]*aria-current="true"', html)
    assert len(sorts) == 1 and 'id="sort--price"' in sorts[0]
