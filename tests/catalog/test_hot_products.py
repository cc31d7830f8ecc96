"""A product whose stock is spread over buckets: shoppers' pages read it about once a second
(catalog/hot_products.py), a product on one item on every page; the checkout still decides
exactly, on a consistent read and conditional writes."""
import re

import pytest
from django.core.cache import caches

from catalog import gateway, hot_products
from catalog.gateway.catalog import importer
from catalog.gateway.dynamo.testing import count_requests
from catalog.gateway.orders import orders
from tests.helpers import keep_hot_products, make_account, seed, small_catalog

pytestmark = pytest.mark.django_db
HOT = "7"  # Acme Car Charger, 29.90
HX = {"HX-Request": "true"}


@pytest.fixture
def hot(ddb):
    """The small catalog, product 7 with 100 units over 10 buckets, spread by a first sale (99 left)."""
    data = small_catalog()
    data["products"][6].update(stockLevel=100, stockBuckets=10)
    seed(data)
    orders.order_place(customer_id="first", customer_name="first", order_id=orders.new_order_id(),
                       token=gateway.new_token(), lines=[gateway.PurchaseLine(HOT, 1, gateway.product_get(
                           product_id=HOT).price)])
    assert gateway.product_get(product_id=HOT).spread
    return HOT


def test_a_spread_products_pages_read_it_once_while_it_is_kept(hot, client, settings):
    keep_hot_products(settings)
    client.get("/")  # the header's brand and category menus are cached for a minute
    with count_requests() as counter:
        assert 'max="99"' in client.get(f"/products/{HOT}/").content.decode()
    assert counter.operations == ["GetItem", "BatchGetItem"]  # the product item, its 10 buckets
    with count_requests() as counter:  # a buyer's add to cart, cart and checkout page: nothing more read
        assert client.post("/cart/add/", {"product_id": HOT, "quantity": 2}, headers=HX).status_code == 200
        assert "€59.80" in client.get("/cart/").content.decode()
        assert 'max="99"' in client.get(f"/products/{HOT}/").content.decode()
    assert counter.operations == []
    caches[hot_products.CACHE].clear()  # its second is over: read again
    with count_requests() as counter:
        client.get("/cart/")
    assert counter.operations == ["BatchGetItem", "BatchGetItem"]


def test_a_product_on_one_item_is_read_on_every_page(hot, client):
    client.get("/")
    for _ in range(2):
        with count_requests() as counter:
            client.get("/products/1/")
        assert counter.operations == ["GetItem"]


def test_the_checkout_decides_on_the_product_as_it_is_not_as_kept(hot, client, django_user_model, settings):
    # (with a second, the cart page could read the new price, show it and the order be rightly placed at it)
    keep_hot_products(settings)
    client.force_login(make_account(django_user_model, "alice", "a-long-password-1"))
    client.post("/cart/add/", {"product_id": HOT, "quantity": 1})
    html = client.get("/checkout/").content.decode()
    form = {name: re.search(rf'name="{name}" value="([^"]+)"', html).group(1) for name in ("order_id", "token")}
    data = small_catalog()  # staff import a new price (and the product is gathered for it) within the second
    data["products"][6].update(price="24.90", stockLevel=99, stockBuckets=10)
    importer.import_catalog(data)
    assert "€29.90" in client.get("/cart/").content.decode()  # the shopper's pages: the kept copy
    form.update(name="Alice Liddell", street="Hauptstraße 1", postcode="10115", city="Berlin", country="DE")
    html = client.post("/checkout/", form, follow=True).content.decode()
    assert "The price of Acme Car Charger changed to €24.90." in html and "Nothing was ordered." in html
    assert gateway.product_get(product_id=HOT, consistent=True).stock_level == 99
