"""Staff order screens name customers and link every order reference: the open orders,
an order, finding one by the number a customer reads out, and a sale in a product's history."""
import re
from datetime import UTC, datetime
from decimal import Decimal

import pytest

from catalog import gateway
from catalog.gateway import keys
from catalog.gateway.dynamo.testing import count_requests
from catalog.gateway.dynamo.transact import put, transact_write
from catalog.gateway.orders import orders
from tests.helpers import buy


@pytest.fixture
def alice(django_user_model):
    return django_user_model.objects.create_user("alice", email="alice@example.com", password="pw",
                                                 name="Alice Liddell")


def test_open_orders_name_the_customer_and_link_the_order_by_its_number(catalog, staff_client, alice):
    order = buy(alice, "4")
    staff_client.get("/staff/orders/")  # the header's brand and category names, cached as on a busy site
    with count_requests() as counted:
        html = staff_client.get("/staff/orders/").content.decode()
    # The open orders (a Query of each shard); the names come with them.
    assert counted.operations == ["Query"] * keys.OPEN_ORDER_SHARDS
    assert "Alice Liddell" in html and "alice@example.com" in html
    assert alice.customer_key_id not in re.sub(r'href="[^"]*"', "", html)  # no UUID to read
    link = f'href="/staff/orders/{alice.customer_key_id}/{order.order_id}/">{order.number}</a>'
    assert link in html


def test_orders_without_names_take_them_from_the_accounts_in_one_query(
        catalog, staff_client, alice, django_user_model, django_assert_max_num_queries):
    bob = django_user_model.objects.create_user("bob", email="bob@example.com", password="pw", name="Bob Stone")
    for user in (alice, bob, alice):
        old = gateway.Order(order_id=orders.new_order_id(), customer_id=user.customer_key_id,
                            placed_at=datetime(2026, 1, 2, tzinfo=UTC), total=Decimal("5.00"))
        transact_write([put(old.to_item())], request_token=old.order_id)
    staff_client.get("/staff/orders/")  # the session and the user, read once
    # session, user, the account's staff permissions (its own and its groups', staff/access.py), and one for
    # every name of the page
    with django_assert_max_num_queries(4):
        html = staff_client.get("/staff/orders/").content.decode()
    assert html.count("Alice Liddell") == 2 and "Bob Stone" in html and "bob@example.com" in html


def test_the_order_page_names_the_customer_and_shows_the_address(catalog, staff_client, alice):
    order = buy(alice, "4")
    html = staff_client.get(f"/staff/orders/{alice.customer_key_id}/{order.order_id}/").content.decode()
    assert f"<title>Order {order.number}" in html
    assert "Alice Liddell" in html and 'href="mailto:alice@example.com"' in html


def test_staff_find_an_order_by_the_number_a_customer_reads_out(catalog, staff_client, alice):
    order = buy(alice, "4")
    typed = f"{order.number[:4].lower()} {order.number[4:]}"
    response = staff_client.get("/staff/orders/", {"number": typed})
    assert response.status_code == 302
    assert response["Location"] == f"/staff/orders/{alice.customer_key_id}/{order.order_id}/"


@pytest.mark.parametrize(("typed", "status", "message"), [
    ("ZZZZ2222", 404, "No order has the number ZZZZ2222."),
    ("K7QM4XP!", 400, "An order number is 8 letters and digits"),
    ("", 400, "Enter an order number."),
])
def test_a_number_that_is_no_order_says_so(catalog, staff_client, typed, status, message):
    response = staff_client.get("/staff/orders/", {"number": typed})
    assert response.status_code == status
    assert message in response.content.decode()


def test_a_sale_in_the_stock_history_links_to_its_order(catalog, staff_client, alice):
    order = buy(alice, "4")
    html = staff_client.get("/staff/products/4/stock/").content.decode()
    assert (f'<a class="order-ref" href="/staff/orders/{alice.customer_key_id}/{order.order_id}/">'
            f"Order {order.number}</a>") in html
    cancelled = staff_client.post(f"/staff/orders/{alice.customer_key_id}/{order.order_id}/", {"action": "cancel"},
                                  follow=True).content.decode()
    assert f"Order {order.number} is cancelled; its stock is back." in cancelled
    html = staff_client.get("/staff/products/4/stock/").content.decode()
    assert html.count(f'href="/staff/orders/{alice.customer_key_id}/{order.order_id}/">Order {order.number}</a>') == 2


def test_staff_tables_fold_into_cards_on_a_phone_with_the_key_columns_first(catalog, staff_client, alice):
    buy(alice, "4")
    for url, first in (("/staff/orders/", "Order"), ("/staff/stock/?brand=3", "Product"),
                       ("/staff/reorder/", "Product"), ("/staff/products/4/stock/", "When")):
        html = staff_client.get(url).content.decode()
        table = re.search(r'<table class="data [^"]*\bstack\b[^"]*">(.*?)</table>', html, re.S)
        assert table, url
        headers = re.findall(r'<th scope="col"[^>]*>([^<]+)</th>', table.group(1))
        assert headers[0] == first, url
