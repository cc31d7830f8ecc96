"""Cart, checkout and order pages with the Django test client."""
import re

import pytest
from django.core import mail
from django.test import Client

from catalog import gateway
from catalog.gateway import importer
from catalog.gateway.dynamo.testing import count_requests
from catalog.gateway.orders import orders
from tests.helpers import items_in_partition, mailed_code, small_catalog

pytestmark = pytest.mark.django_db
HX = {"HX-Request": "true"}


def add(client, product_id, quantity=1, **kwargs):
    return client.post("/cart/add/", {"product_id": product_id, "quantity": quantity}, **kwargs)


def cart_of(client):
    return client.session.get("cart", {})


def stock(product_id):
    return gateway.product_get(product_id=product_id, consistent=True).stock_level


ADDRESS = {"name": "Alice Liddell", "street": "Hauptstraße 1", "postcode": "10115", "city": "Berlin", "country": "DE"}


def checkout_form(client, **address):
    html = client.get("/checkout/").content.decode()
    return {
        "order_id": re.search(r'name="order_id" value="([^"]+)"', html).group(1),
        "token": re.search(r'name="token" value="([^"]+)"', html).group(1),
        **ADDRESS,
        **address,
    }


# --- the product page and the cart ----------------------------------------------------------

def test_product_page_offers_add_to_cart_and_sold_out_is_disabled(catalog, client):
    html = client.get("/products/1/").content.decode()
    assert 'hx-post="/cart/add/"' in html and ">Add to cart</button>" in html
    html = client.get("/products/3/").content.decode()
    assert re.search(r"<button[^>]*disabled[^>]*>Sold out</button>", html)


def test_add_with_htmx_updates_the_badge_in_place(catalog, client):
    response = add(client, "1", 2, headers=HX)
    assert response.status_code == 200
    html = response.content.decode()
    assert "Added 2 × Model 3 to your cart." in html
    assert re.search(r'<span id="cart-count"[^>]*hx-swap-oob="true"[^>]*>2</span>', html)
    add(client, "4", 1, headers=HX)
    assert cart_of(client) == {"1": {"quantity": 2, "price": "39990.00"}, "4": {"quantity": 1, "price": "899.00"}}
    assert re.search(r'id="cart-count"[^>]*>3</span>', client.get("/").content.decode())


def test_add_without_htmx_goes_back_to_the_product_with_a_message(catalog, client):
    response = add(client, "1", 1)
    assert response.status_code == 302 and response["Location"] == "/products/1/"
    assert "Added 1 × Model 3" in client.get("/products/1/").content.decode()


@pytest.mark.parametrize(
    "quantity",
    ["0", "-1", "1.5", "abc", "", "100", "99999999999999999999", "²", "①", "1e3", "٣", "３", " ", "1_0", "9" * 5000],
)
def test_bad_quantities_are_refused_and_the_cart_is_unchanged(catalog, client, quantity):
    response = add(client, "1", quantity, headers=HX)
    assert response.status_code == 400
    assert 'class="field-error"' in response.content.decode()
    assert cart_of(client) == {}
    update = client.post("/cart/update/", {"product_id": "1", "quantity": quantity}, headers=HX)
    assert update.status_code == 400 and cart_of(client) == {}


def test_adding_past_the_cap_of_a_line_says_how_many_were_really_added(catalog, client):
    gateway.stock_increase(product_id="7", quantity=100, token="restock")  # 140 in stock: the cap is what stops
    add(client, "7", 60)
    response = add(client, "7", 50, headers=HX)
    html = response.content.decode()
    assert response.status_code == 200
    assert "Added 39 × Acme Car Charger, not 50: you now have 99 in your cart, the most one order can take." in html
    assert "Added 50" not in html
    assert cart_of(client)["7"]["quantity"] == 99


def test_unknown_and_malformed_products_cannot_be_added(catalog, client):
    assert add(client, "999").status_code == 404
    assert add(client, "<script>").status_code == 400
    assert add(client, "1", "-3").status_code == 400
    assert cart_of(client) == {}


def test_sold_out_and_more_than_in_stock_are_refused(catalog, client):
    response = add(client, "3", 1, headers=HX)
    assert response.status_code == 409 and "Wall Connector is sold out." in response.content.decode()
    add(client, "2", 2, headers=HX)
    response = add(client, "2", 2, headers=HX)
    assert response.status_code == 409
    assert "Only 3 of Model Y left; you have 2 in your cart." in response.content.decode()
    assert cart_of(client)["2"]["quantity"] == 2


def test_adding_needs_the_csrf_token(catalog):
    client = Client(enforce_csrf_checks=True)
    assert add(client, "1").status_code == 403
    assert cart_of(client) == {}


def test_cart_page_reads_prices_and_stock_in_one_batch(catalog, client):
    add(client, "1", 2)
    add(client, "4", 1)
    client.get("/")  # the header's brand and category menus are cached for a minute
    with count_requests() as counter:
        html = client.get("/cart/").content.decode()
    assert counter.operations == ["BatchGetItem"]
    assert "Model 3" in html and "€79,980.00" in html and "€80,879.00" in html  # line total, order total
    assert 'href="/checkout/"' in html


def test_a_line_beyond_current_stock_is_flagged_with_the_available_amount(catalog, client):
    add(client, "4", 5)
    gateway.stock_decrease(product_id="4", quantity=10, token="elsewhere", reason="sold")
    html = client.get("/cart/").content.decode()
    assert "Only 2 available" in html
    assert 'href="/checkout/"' not in html


def test_a_changed_price_shows_on_the_cart(catalog, client):
    add(client, "4", 1)
    data = small_catalog()
    data["products"][3]["price"] = "849.00"
    importer.import_catalog(data)
    html = client.get("/cart/").content.decode()
    assert "€849.00" in html and "was €899.00" in html


def test_change_and_remove_lines_with_htmx(catalog, client):
    add(client, "1", 1)
    add(client, "4", 1)
    response = client.post("/cart/update/", {"product_id": "4", "quantity": "3"}, headers=HX)
    html = response.content.decode()
    assert response.status_code == 200 and html.lstrip().startswith('<section id="cart"')
    assert re.search(r'id="cart-count"[^>]*hx-swap-oob="true"[^>]*>4</span>', html)
    assert client.post("/cart/update/", {"product_id": "4", "quantity": "0"}, headers=HX).status_code == 400
    assert cart_of(client)["4"]["quantity"] == 3
    client.post("/cart/remove/", {"product_id": "1"}, headers=HX)
    assert list(cart_of(client)) == ["4"]
    response = client.post("/cart/remove/", {"product_id": "4"})
    assert response.status_code == 302 and cart_of(client) == {}
    assert "Your cart is empty." in client.get("/cart/").content.decode()


# --- checkout ---------------------------------------------------------------------------------

def test_checkout_needs_a_signed_in_customer_and_keeps_the_cart(catalog, client, shopper):
    add(client, "4", 2)
    response = client.get("/checkout/")
    assert response.status_code == 302 and response["Location"] == "/accounts/login/?next=/checkout/"
    response = client.post(
        "/accounts/login/", {"login": "alice", "password": "a-long-password-1", "next": "/checkout/"}
    )
    assert response["Location"] == "/checkout/"
    assert cart_of(client) == {"4": {"quantity": 2, "price": "899.00"}}
    assert "Place order" in client.get("/checkout/").content.decode()


def test_sign_up_then_return_to_checkout(catalog, client):
    add(client, "4", 1)
    response = client.post(
        "/accounts/signup/",
        {"username": "bob", "name": "Bob", "email": "bob@example.com", "password1": "a-long-password-2",
         "password2": "a-long-password-2", "next": "/checkout/"},
    )
    assert response.status_code == 302 and response["Location"] == "/accounts/confirm-email/"
    response = client.post("/accounts/confirm-email/", {"code": mailed_code(mail.outbox[-1])})
    assert response.status_code == 302 and response["Location"] == "/checkout/"
    assert "Place order" in client.get("/checkout/").content.decode()


def test_sign_up_refuses_a_foreign_next_url(catalog, client):
    response = client.post(
        "/accounts/signup/",
        {"username": "eve", "name": "Eve", "email": "eve@example.com", "password1": "a-long-password-3",
         "password2": "a-long-password-3", "next": "https://evil.example/"},
    )
    response = client.post("/accounts/confirm-email/", {"code": mailed_code(mail.outbox[-1])})
    assert response["Location"] == "/"


def test_placing_an_order_shows_the_confirmation_and_takes_the_stock(catalog, client, shopper):
    client.force_login(shopper)
    add(client, "1", 1)
    add(client, "4", 2)
    response = client.post("/checkout/", checkout_form(client), follow=True)
    html = response.content.decode()
    order_id = response.redirect_chain[-1][0].rstrip("/").rsplit("/", 1)[1]
    assert re.search(r'<strong id="order-number" class="order-number">[2-9A-Z]{8}</strong>', html)
    assert re.search(r"<h1>Your order of \d{1,2} \w+ \d{4}</h1>", html)  # a heading a person reads, not the ID
    assert "Thank you! Your order" in html
    assert "Model 3" in html and "Pixel 9" in html and "€41,788.00" in html
    assert (stock("1"), stock("4")) == (69, 10)
    assert cart_of(client) == {}
    assert re.search(r'id="cart-count"[^>]*>0</span>', html)
    history = gateway.stock_history(product_id="4").items
    assert [(h.delta, h.order_id, h.who) for h in history] == [(-2, order_id, "alice"), (12, None, "import")]


def test_a_stale_checkout_tab_lands_on_the_cart_with_one_message(catalog, client, shopper):
    client.force_login(shopper)
    add(client, "4", 2)
    stale = checkout_form(client)  # the checkout page open in a second tab
    client.post("/cart/remove/", {"product_id": "4"})  # the cart emptied in the first tab
    response = client.post("/checkout/", stale, follow=True)
    assert response.redirect_chain == [("/cart/", 302)] and response.status_code == 200
    html = response.content.decode()
    assert html.count("Nothing was ordered from that page") == 1
    assert stock("4") == 12 and orders.orders_by_customer(customer_id=shopper.customer_key_id).items == []


def test_order_times_are_in_the_shops_time_zone(catalog, client, shopper, settings):
    from datetime import datetime
    from zoneinfo import ZoneInfo

    settings.TIME_ZONE = "Asia/Tokyo"
    client.force_login(shopper)
    add(client, "4", 1)
    html = client.post("/checkout/", checkout_form(client), follow=True).content.decode()
    placed = datetime.fromisoformat(re.search(r'<time datetime="([^"]+)"', html).group(1))
    assert placed.utcoffset().total_seconds() == 9 * 3600
    assert f"{placed.astimezone(ZoneInfo('Asia/Tokyo')):%H:%M} JST" in html and " UTC" not in html
    assert f"{placed.astimezone(ZoneInfo('Asia/Tokyo')):%H:%M} JST" in client.get("/account/orders/").content.decode()


def test_sign_up_shows_the_password_rules_first_and_describes_fields_with_ids_that_exist(catalog, client):
    def described_ids_missing(html):
        ids = set(re.findall(r'\bid="([^"]+)"', html))
        described = [i for group in re.findall(r'aria-describedby="([^"]+)"', html) for i in group.split()]
        assert described
        return [i for i in described if i not in ids]

    blank = client.get("/accounts/signup/").content.decode()
    assert "at least 8 characters" in blank  # the rules before any error
    assert described_ids_missing(blank) == []
    refused = client.post("/accounts/signup/", {"username": "bob", "password1": "short", "password2": "other"})
    html = refused.content.decode()
    assert refused.status_code == 400 and "This password is too short." in html
    assert 'aria-describedby="id_password1_error id_password1_helptext"' in html
    assert described_ids_missing(html) == []


def test_placing_the_same_form_twice_places_one_order(catalog, client, shopper):
    client.force_login(shopper)
    add(client, "4", 2)
    form = checkout_form(client)
    first = client.post("/checkout/", form)
    second = client.post("/checkout/", form)  # Back and resubmit
    assert first["Location"] == second["Location"] == f"/account/orders/{form['order_id']}/"
    assert stock("4") == 10
    assert len(orders.orders_by_customer(customer_id=str(shopper.customer_id)).items) == 1


def test_short_stock_at_checkout_writes_nothing_and_says_why(catalog, client, shopper):
    client.force_login(shopper)
    add(client, "1", 1)
    add(client, "2", 3)
    form = checkout_form(client)
    gateway.stock_decrease(product_id="2", quantity=2, token="other-buyer", reason="sold")
    response = client.post("/checkout/", form, follow=True)
    html = response.content.decode()
    assert "Only 1 of Model Y left." in html and "Nothing was ordered." in html
    assert (stock("1"), stock("2")) == (70, 1)
    assert items_in_partition(f"CUSTOMER#{shopper.customer_id}") == []


def test_a_changed_price_at_checkout_writes_nothing_and_names_the_new_price(catalog, client, shopper):
    client.force_login(shopper)
    add(client, "4", 1)
    form = checkout_form(client)
    data = small_catalog()
    data["products"][3]["price"] = "949.00"
    importer.import_catalog(data)
    html = client.post("/checkout/", form, follow=True).content.decode()
    assert "The price of Pixel 9 changed to €949.00." in html
    assert stock("4") == 12
    # the cart now shows the new price; checking out again agrees to it
    client.post("/checkout/", checkout_form(client))
    assert stock("4") == 11


def test_a_tampered_checkout_form_is_a_400(catalog, client, shopper):
    client.force_login(shopper)
    add(client, "4", 1)
    response = client.post("/checkout/", {"order_id": "../x", "token": "t", **ADDRESS})
    assert response.status_code == 400
    assert stock("4") == 12


def test_checkout_needs_the_csrf_token(catalog, shopper):
    client = Client(enforce_csrf_checks=True)
    client.force_login(shopper)
    assert client.post("/checkout/", {"order_id": "a", "token": "b"}).status_code == 403


# --- order pages ------------------------------------------------------------------------------

def _order(client, shopper, product_id="4", quantity=1):
    client.force_login(shopper)
    add(client, product_id, quantity)
    return client.post("/checkout/", checkout_form(client))["Location"].rstrip("/").rsplit("/", 1)[1]


def test_order_history_newest_first_from_one_query(catalog, client, shopper):
    first = _order(client, shopper, "4", 1)
    second = _order(client, shopper, "7", 2)
    with count_requests() as counter:
        html = client.get("/account/orders/").content.decode()
    assert counter.operations == ["Query"]
    assert html.index(second) < html.index(first)
    assert "2 × Acme Car Charger" in html and "1 × Pixel 9" in html


def test_nobody_sees_another_customers_order(catalog, client, shopper, django_user_model):
    order_id = _order(client, shopper)
    other = django_user_model.objects.create_user("mallory", password="a-long-password-4")
    client.force_login(other)
    assert client.get(f"/account/orders/{order_id}/").status_code == 404
    assert order_id not in client.get("/account/orders/").content.decode()


def test_order_pages_need_sign_in(catalog, client):
    assert client.get("/account/orders/")["Location"].startswith("/accounts/login/")
