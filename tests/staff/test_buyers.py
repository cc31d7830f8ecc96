"""Who bought a product: staff see its orders and customers, newest first, a page at a
time, and download all of them as CSV for a recall; nobody else sees them."""
import csv
import io

import pytest

from catalog.gateway import keys
from catalog.gateway.dynamo.testing import count_requests
from tests.helpers import buy


@pytest.fixture
def shoppers(django_user_model):
    return [django_user_model.objects.create_user(name, email=f"{name}@example.com", password="pw",
                                                  name=title)
            for name, title in (("alice", "Alice Liddell"), ("bob", "=HYPERLINK(1)"), ("cy", "Cy Young"))]


def test_staff_see_who_bought_a_product_newest_first_a_page_at_a_time(catalog, staff_client, shoppers, settings):
    placed = [buy(user, "7", n + 1) for n, user in enumerate(shoppers)]
    stock_page = staff_client.get("/staff/products/7/stock/").content.decode()
    assert 'href="/staff/products/7/buyers/"' in stock_page  # linked from the product's stock page

    settings.CATALOG_PAGE_SIZE = 2
    with count_requests() as counted:
        response = staff_client.get("/staff/products/7/buyers/")
    html = response.content.decode()
    assert response.status_code == 200
    # The product (GetItem), then one Query of each of its Buyers shards.
    assert counted.operations == ["GetItem"] + ["Query"] * keys.BUYER_SHARDS
    assert html.index(placed[2].number) < html.index(placed[1].number)  # newest first
    assert placed[0].number not in html  # on the next page
    assert "Cy Young" in html and "cy@example.com" in html
    assert f'href="/staff/orders/{shoppers[2].customer_key_id}/{placed[2].order_id}/">{placed[2].number}</a>' in html
    next_url = html.split('hx-get="')[1].split('"')[0].replace("&amp;", "&")
    rows = staff_client.get(next_url, headers={"HX-Request": "true"}).content.decode()
    assert placed[0].number in rows and "Alice Liddell" in rows and "<h1" not in rows
    assert "Older orders" not in rows  # the last page


def test_the_buyers_csv_has_every_order_streamed_and_safe_to_open(catalog, staff_client, shoppers, settings):
    settings.CATALOG_PAGE_SIZE = 1  # the download is not paged like the page
    placed = [buy(user, "7", n + 1) for n, user in enumerate(shoppers)]
    buy(shoppers[0], "4")  # another product: not in this list
    response = staff_client.get("/staff/products/7/buyers/?format=csv")
    assert response.status_code == 200 and response.streaming
    assert response["Content-Disposition"] == 'attachment; filename="buyers-7.csv"'
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert rows[0][:6] == ["at_utc", "order_number", "customer_name", "customer_email", "quantity", "unit_price"]
    assert [(r[1], r[2], r[4]) for r in rows[1:]] == [
        (placed[2].number, "Cy Young", "3"), (placed[1].number, "'=HYPERLINK(1)", "2"),
        (placed[0].number, "Alice Liddell", "1")]


def test_the_buyers_page_is_for_staff_and_says_what_is_wrong(catalog, client, staff_client, django_user_model):
    shopper = django_user_model.objects.create_user("bo", password="pw")
    assert staff_client.get("/staff/products/nope/buyers/").status_code == 404
    bad = staff_client.get("/staff/products/7/buyers/?format=xlsx")
    assert bad.status_code == 400 and "format=csv" in bad.content.decode()
    assert "Nobody has ordered this product yet." in staff_client.get("/staff/products/1/buyers/").content.decode()
    client.logout()
    assert client.get("/staff/products/7/buyers/?format=csv")["Location"].startswith("/accounts/login/")
    client.force_login(shopper)
    assert client.get("/staff/products/7/buyers/").status_code == 403
    assert client.get("/staff/products/7/buyers/?format=csv").status_code == 403
