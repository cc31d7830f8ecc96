"""Shopper pages with the Django test client: pages, filters, fragments, errors, cost."""
import re

import pytest
from botocore.stub import Stubber
from django.test import Client

from catalog import names
from catalog.gateway import client as dynamo
from catalog.gateway.dynamo.testing import count_requests
from tests.helpers import paged_catalog, seed, small_catalog

HX = {"HX-Request": "true"}


def product_names(response):
    return re.findall(r'<span class="card-title">([^<]*)</span>', response.content.decode())


def test_home_links_every_brand_and_category(catalog, client):
    response = client.get("/")
    assert response.status_code == 200
    for brand in catalog["brands"]:
        assert f'href="/brands/{brand["brandId"]}/"' in response.content.decode()
    for category in catalog["categories"]:
        assert f'href="/categories/{category["categoryId"]}/"' in response.content.decode()
    assert "Microsoft" in response.content.decode() and "Chargers" in response.content.decode()


def test_brand_page_lists_its_products_with_price_category_and_stock(catalog, client):
    response = client.get("/brands/3/")
    assert response.status_code == 200
    assert sorted(product_names(response)) == ["Model 3", "Model Y", "Wall Connector"]
    html = response.content.decode()
    assert "€39,990.00" in html and "Only 3 left" in html and "Sold out" in html
    assert '<p class="card-meta">Chargers</p>' in html  # on a brand page a card names its category
    assert 'href="/products/1/"' in html


def test_brand_page_filters_by_category_and_marks_the_choice(catalog, client):
    response = client.get("/brands/3/?category=1")
    assert sorted(product_names(response)) == ["Model 3", "Model Y"]
    html = response.content.decode()
    assert re.search(r'id="filter-category-1"[^>]*aria-current="true"', html, re.S)
    assert not re.search(r'id="filter-all"[^>]*aria-current', html, re.S)
    # category 10 is not category 1
    assert product_names(client.get("/brands/3/?category=10")) == ["Wall Connector"]


def test_category_page_filters_by_brand(catalog, client):
    assert sorted(product_names(client.get("/categories/1/"))) == ["Acme Roadster", "Model 3", "Model Y"]
    response = client.get("/categories/1/?brand=10")
    assert product_names(response) == ["Acme Roadster"]
    assert '<p class="card-meta">Acme</p>' in response.content.decode()  # here a card names its brand


def test_filters_are_real_links_enhanced_with_htmx(catalog, client):
    html = client.get("/categories/1/").content.decode()
    link = re.search(r'<a id="filter-brand-3"[^>]*>', html, re.S).group(0)
    assert 'href="/categories/1/?brand=3"' in link
    assert 'hx-get="/categories/1/?brand=3"' in link
    assert 'hx-push-url="true"' in link


def test_an_empty_filter_says_so(catalog, client):
    response = client.get("/brands/3/?category=2")
    assert response.status_code == 200
    assert "No products here yet." in response.content.decode()


def test_htmx_gets_the_fragment_and_a_plain_request_the_whole_page(catalog, client):
    full = client.get("/brands/3/?category=1")
    fragment = client.get("/brands/3/?category=1", headers=HX)
    assert "<html" in full.content.decode() and "<html" not in fragment.content.decode()
    # the new view's title first, at the top level, where htmx takes it for the document's title
    assert fragment.content.decode().lstrip().startswith('<title>Tesla · Cars · Fromatoz</title>\n<section id="browse"')
    assert product_names(fragment) == product_names(full)
    assert "HX-Request" in full["Vary"] and "HX-Request" in fragment["Vary"]


def test_a_history_restore_request_gets_the_whole_page(catalog, client):
    response = client.get("/brands/3/", headers={**HX, "HX-History-Restore-Request": "true"})
    assert "<html" in response.content.decode()


def test_load_more_walks_every_page_without_javascript(ddb, client, settings):
    paged_catalog(settings)
    seen, url = [], "/brands/2/?category=3"
    while url:
        response = client.get(url)
        seen += product_names(response)
        match = re.search(r'<li class="load-more">\s*<a class="button" href="([^"]+)"', response.content.decode())
        url = match.group(1).replace("&amp;", "&") if match else None
    assert sorted(seen) == sorted(f"Gadget {i}" for i in range(7))


def test_load_more_with_htmx_appends_just_the_next_page(ddb, client, settings):
    paged_catalog(settings)
    first = client.get("/brands/2/").content.decode()
    next_url = re.search(r'hx-get="([^"]+after=[^"]+)"', first).group(1).replace("&amp;", "&")
    fragment = client.get(next_url, headers=HX).content.decode()
    assert fragment.lstrip().startswith('<title>Google · pages 1–2 · Fromatoz</title>\n')
    assert "<section" not in fragment and len(product_names(client.get(next_url, headers=HX))) == 3
    assert 'autofocus' in fragment  # keyboard focus moves to the first new product
    assert 'class="load-more"' in fragment  # and there is a third page
    # the address bar gets a URL that shows both pages again (Back, reload)
    assert 'hx-push-url="/brands/2/?pages=3"' in fragment
    assert 'hx-push-url="/brands/2/?pages=2"' in first


def test_the_pages_url_shows_every_page_loaded_so_far_with_one_query(ddb, client, settings):
    paged_catalog(settings)
    client.get("/brands/2/")  # brand and category names cached
    with count_requests() as requests:
        response = client.get("/brands/2/?pages=2")
    assert response.status_code == 200 and requests.operations == ["Query"]
    html = response.content.decode()
    assert product_names(response) == [f"Gadget {i}" for i in range(6)]
    assert "<title>Google · pages 1–2 · Fromatoz</title>" in html
    assert re.search(r'href="/brands/2/\?[^"]*after=[^"]*page=3', html)
    assert 'hx-push-url="/brands/2/?pages=3"' in html
    assert product_names(client.get("/brands/2/?pages=3")) == [f"Gadget {i}" for i in range(7)]


@pytest.mark.parametrize("query", ["pages=0", "pages=21", "pages=two", "after=x&page=1"])
def test_a_bad_page_number_is_refused(catalog, client, query):
    response = client.get(f"/brands/3/?{query}")
    assert response.status_code == 400


def test_product_page_shows_everything_a_shopper_needs(catalog, client):
    html = client.get("/products/1/").content.decode()
    assert "<h1>Model 3</h1>" in html
    assert 'href="/brands/3/">Tesla</a>' in html and 'href="/categories/1/">Cars</a>' in html
    assert "€39,990.00" in html and "Electric sedan." in html
    assert "<th scope=\"row\">Range (km)</th><td>510</td>" in html
    assert ">In stock<" in html


def test_products_opened_in_new_tabs_from_a_first_browse_page_can_all_be_added_to_the_cart(catalog, db):
    """A new visitor's first browse page sets the CSRF cookie (it shows no token: nothing on it
    posts). Products opened from it in new tabs are asked for with that cookie, so every tab's
    form carries a token of the same secret and each add to cart is accepted."""
    for first in ("/", "/brands/3/", "/categories/1/?brand=3", "/search/?q=model"):
        client = Client(enforce_csrf_checks=True)
        response = client.get(first)
        assert response.status_code == 200 and "X-CSRFToken" not in response.content.decode()
        assert response.cookies["csrftoken"].value
        cookies = client.cookies
        tabs = {}
        for product_id in ("1", "2"):  # both tabs sent with the cookies the list page left
            client.cookies = type(cookies)(cookies)
            tab = client.get(f"/products/{product_id}/")
            tabs[product_id] = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', tab.content.decode()).group(1)
        for product_id, token in tabs.items():
            form = {"product_id": product_id, "quantity": "1", "csrfmiddlewaretoken": token}
            assert client.post("/cart/add/", form, headers=HX).status_code == 200, (first, product_id)
        assert set(client.session["cart"]) == {"1", "2"}


def test_a_browse_page_makes_no_new_csrf_cookie_for_a_visitor_who_has_one(catalog, client):
    client.get("/brands/3/")
    assert "csrftoken" not in client.get("/categories/1/").cookies


def test_a_signed_in_shopper_can_sign_out_from_a_browse_page(catalog, django_user_model):
    client = Client(enforce_csrf_checks=True)
    client.force_login(django_user_model.objects.create_user("alice", password="a long passphrase"))
    page = client.get("/brands/3/").content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    assert client.post("/accounts/logout/", {"csrfmiddlewaretoken": token}).status_code == 302
    assert "Sign in" in client.get("/brands/3/").content.decode()


@pytest.mark.parametrize("product_id,label", [("2", "Only 3 left"), ("3", "Sold out"), ("4", "In stock")])
def test_stock_reads_as_a_shopper_understands_it(catalog, client, product_id, label):
    assert f">{label}<" in client.get(f"/products/{product_id}/").content.decode()


@pytest.mark.parametrize(
    "url",
    ["/brands/404/", "/categories/404/", "/products/404/", "/brands/3/?category=404", "/categories/1/?brand=404"],
)
def test_unknown_ids_are_a_styled_404(catalog, client, url):
    response = client.get(url)
    assert response.status_code == 404
    assert "We couldn’t find that" in response.content.decode()
    assert "404" in response.content.decode()


@pytest.mark.parametrize(
    "url",
    ["/brands/a%20b/", "/products/x%23y/", "/categories/1/?brand=%3Cb%3E", "/brands/3/?category=" + "9" * 70,
     "/brands/3/?after=forged", "/categories/1/?after=eyJQSyI6IlAjMSJ9"],
)
def test_malformed_ids_and_cursors_are_a_400_with_an_explanation(catalog, client, url):
    response = client.get(url)
    assert response.status_code == 400
    html = response.content.decode()
    assert "That request doesn’t look right" in html
    assert "ID must be" in html or "page link is invalid" in html


def test_a_cursor_for_another_brand_is_rejected(ddb, client, settings):
    paged_catalog(settings)
    first = client.get("/brands/2/").content.decode()
    cursor = re.search(r"after=([^\"&]+)", first).group(1)
    assert client.get(f"/brands/3/?after={cursor}").status_code == 400


def test_names_with_markup_are_shown_as_text(ddb, client):
    data = small_catalog()
    data["brands"][2]["name"] = 'Tesla "<b>Motors</b>"'
    data["products"][0]["name"] = '<script>alert("x")</script> Model 3'
    data["products"][0]["description"] = "It's \"fast\" & <i>quiet</i>"
    data["products"][0]["attributes"] = {"note": "<img src=x onerror=alert(1)>"}
    seed(data)
    for url in ("/products/1/", "/brands/3/", "/categories/1/", "/"):
        html = client.get(url).content.decode()
        assert "<script>alert" not in html and "<b>Motors" not in html and "<img src=x" not in html
    html = client.get("/products/1/").content.decode()
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; Model 3" in html
    assert "It&#x27;s &quot;fast&quot; &amp; &lt;i&gt;quiet&lt;/i&gt;" in html
    # On a category page the brand's name is a filter chip and the heading of its group of cards.
    html = client.get("/categories/1/").content.decode()
    shown = "Tesla &quot;&lt;b&gt;Motors&lt;/b&gt;&quot;"
    assert f"{shown} (2)</a>" in html and f"<h3>{shown}</h3>" in html


def test_dynamodb_down_is_a_friendly_503_and_the_site_recovers(catalog, client):
    with Stubber(dynamo.client()) as stub:
        stub.add_client_error("query", service_error_code="ThrottlingException", http_status_code=400)
        response = client.get("/brands/3/")
    assert response.status_code == 503
    html = response.content.decode()
    assert "The shop is taking a short break" in html and "Traceback" not in html
    assert response["Retry-After"]
    assert client.get("/brands/3/").status_code == 200  # no restart needed


def test_unreachable_dynamodb_is_a_503_on_every_page(client, settings):
    settings.DYNAMODB_ENDPOINT_URL = "http://127.0.0.1:9"
    settings.DYNAMODB_MAX_ATTEMPTS = 1
    try:
        for url in ("/", "/brands/3/", "/categories/1/", "/products/1/"):
            response = client.get(url)
            assert response.status_code == 503, url
    finally:
        dynamo.reset_client()


def test_only_get_is_allowed_on_shopper_pages(catalog, client):
    assert client.post("/brands/3/").status_code in (403, 405)


@pytest.mark.parametrize("url", ["/", "/brands/3/", "/categories/1/?brand=3", "/products/1/", "/cart/",
                                 "/accounts/signup/", "/accounts/login/", "/contact/", "/returns/", "/terms/"])
def test_head_is_answered_as_get(catalog, client, url):
    response = client.head(url)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")


# --- cost per page ------------------------------------------------------------------------

def test_home_is_two_queries_cold_and_none_warm(catalog, client):
    with count_requests() as cold:
        client.get("/")
    with count_requests() as warm:
        client.get("/")
    assert cold.operations == ["Query", "Query"]
    assert warm.operations == []


@pytest.mark.parametrize(
    "url", ["/brands/3/", "/brands/3/?category=1", "/categories/1/", "/categories/1/?brand=3"]
)
def test_a_browse_page_is_one_query_when_names_are_cached(catalog, client, url):
    client.get("/")  # warms the names cache
    with count_requests() as counter:
        assert client.get(url).status_code == 200
    assert counter.operations == ["Query"]
    with count_requests() as counter:
        client.get(url, headers=HX)
    assert counter.operations == ["Query"]


def test_a_product_page_is_one_getitem(catalog, client):
    client.get("/")
    with count_requests() as counter:
        client.get("/products/1/")
    assert counter.operations == ["GetItem"]


def test_names_are_read_again_after_the_cache_expires(catalog, client):
    client.get("/")
    names.forget()  # what expiry does after CATALOG_NAMES_TTL seconds
    with count_requests() as counter:
        client.get("/")
    assert counter.total == 2


def test_an_unknown_brand_costs_no_request_when_names_are_cached(catalog, client):
    client.get("/")
    with count_requests() as counter:
        assert client.get("/brands/999/").status_code == 404
    assert counter.total == 0


@pytest.mark.parametrize("name,label", [
    ("battery_mah", "Battery (mAh)"), ("ram_gb", "RAM (GB)"), ("top_speed_kmh", "Top speed (km/h)"),
    ("5g", "5G"), ("screen_in", "Screen (in)"), ("stylus_support", "Stylus support"), ("kw", "kW"),
    ("battery_days", "Battery (days)"), ("capacity_l", "Capacity (L)"), ("color", "Color"),
])
def test_attribute_names_read_like_words(name, label):
    from catalog.templatetags.catalog_tags import attribute_name

    assert attribute_name(name) == label


def test_a_script_in_a_product_name_is_shown_as_text_on_every_list_page(ddb, client, settings):
    settings.CATALOG_PAGE_SIZE = 1
    data = small_catalog()
    for product in data["products"]:
        if product["brandId"] == "3":
            product["name"] = "<script>alert(1)</script>"
    seed(data)
    escaped = '<span class="card-title">&lt;script&gt;alert(1)&lt;/script&gt;</span>'
    first = client.get("/brands/3/").content.decode()
    next_url = re.search(r'hx-get="([^"]+after=[^"]+)"', first).group(1).replace("&amp;", "&")
    pages = [first, client.get("/search/?q=script").content.decode(), client.get(next_url, headers=HX).content.decode()]
    for html in pages:
        assert "<script>alert" not in html and escaped in html
    assert pages[2].count(" autofocus") == 1  # Load more still focuses its first card


def _card(html, name):
    return next(c for c in re.findall(r'<li class="card">.*?</li>', html, re.S) if f">{name}<" in c)


def test_a_card_shows_the_stock_the_product_has_now(catalog, client, settings):
    from catalog import gateway

    assert ">Only 3 left<" in _card(client.get("/brands/3/").content.decode(), "Model Y")
    gateway.stock_decrease(product_id="2", quantity=3, token=gateway.new_token(), reason="damaged", who="cy")
    assert ">Sold out<" in _card(client.get("/brands/3/").content.decode(), "Model Y")
    assert ">In stock<" in _card(client.get("/brands/3/").content.decode(), "Model 3")
    settings.LOW_STOCK_THRESHOLD = 10_000  # what "low" means is a setting: the cards follow it
    assert re.search(r">Only \d+ left<", _card(client.get("/brands/3/").content.decode(), "Model 3"))
