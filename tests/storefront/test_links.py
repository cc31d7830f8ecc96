"""Every link on every page leads somewhere that exists: a walker follows each page's
links, as a visitor, a signed-in customer with an order and staff, and finds no 404 (nor any other
error) and no `#anchor` without its `id` on the page it points to."""
from html.parser import HTMLParser
from urllib.parse import urldefrag, urljoin, urlsplit

import pytest
from django.test import Client

from catalog import gateway
from catalog.gateway import PurchaseLine
from catalog.gateway.orders import orders
from tests.helpers import warehouse_staff

MAX_PAGES = 600  # the small catalog's pages, sorts and filters are far fewer: a loop would stop here


class Page(HTMLParser):
    """A page's link targets (<a href>) and the ids its elements have."""

    def __init__(self):
        super().__init__()
        self.links, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("href") is not None:
            self.links.append(attrs["href"])


def walk(client, starts):
    """{url: status} of every page reached from `starts`, and the broken anchors [(from, link)]."""
    seen, queue, statuses, pages, anchors = set(), list(starts), {}, {}, []
    while queue and len(statuses) < MAX_PAGES:
        url = queue.pop(0)
        if url in seen:
            continue
        seen.add(url)
        response = client.get(url)
        statuses[url] = (response.status_code, response.get("Location"))
        if response.status_code in (301, 302):
            queue.append(response["Location"])
            continue
        if "text/html" not in response.get("Content-Type", ""):
            continue
        page = Page()
        page.feed(response.content.decode())
        pages[url] = page
        for href in page.links:
            if href.startswith(("mailto:", "tel:")):
                continue
            target = urljoin(url, href)
            parts = urlsplit(target)
            if parts.scheme not in ("", "http") or parts.netloc not in ("", "testserver"):
                continue  # not this site
            path, fragment = urldefrag(parts.path + (f"?{parts.query}" if parts.query else ""))
            if fragment or "#" in href:
                anchors.append((url, path or url, urlsplit(href).fragment))
            if path and path not in seen and not path.startswith("/static/"):
                queue.append(path)
    missing = []
    for source, target, fragment in anchors:
        if not fragment:
            missing.append((source, f"{target}# (an empty anchor)"))
            continue
        page = pages.get(target)
        if page is None:
            page = Page()
            page.feed(client.get(target).content.decode())
            pages[target] = page
        if fragment not in page.ids:
            missing.append((source, f"{target}#{fragment}"))
    return statuses, missing


@pytest.fixture
def shop(catalog, django_user_model):
    alice = django_user_model.objects.create_user("alice", email="alice@example.com", password="pw",
                                                  name="Alice Liddell")
    orders.order_place(customer_id=alice.customer_key_id, customer_name=alice.display_name, customer_email=alice.email,
                       order_id=orders.new_order_id(), token=gateway.new_token(),
                       lines=[PurchaseLine("4", 1, gateway.product_get(product_id="4").price)],
                       address={"name": "Alice Liddell", "street": "Hauptstraße 1", "postcode": "10115",
                                "city": "Berlin", "country": "DE"})
    ann = warehouse_staff(django_user_model.objects.create_user("ann", password="pw", is_staff=True))
    return {"alice": alice, "ann": ann}


SHOPPER_STARTS = ["/", "/search/?q=model", "/search/?q=acme&sort=price", "/cart/", "/products/3/"]


@pytest.mark.parametrize("who", [None, "alice", "ann"])
def test_every_link_leads_to_a_page_that_exists_and_every_anchor_to_its_id(shop, who, settings):
    settings.STAFF_MFA_REQUIRED = False  # ann signs in with force_login: the second factor is tested elsewhere
    client = Client()
    starts = list(SHOPPER_STARTS)
    if who:
        client.force_login(shop[who])
        client.post("/cart/add/", {"product_id": "4", "quantity": 1})  # a cart with a line: its links too
        starts += ["/account/", "/account/orders/", "/checkout/"]
    if who == "ann":
        starts += ["/staff/", "/staff/stock/?brand=3", "/staff/reorder/", "/staff/orders/", "/staff/products/4/stock/",
                   "/staff/receive/", "/staff/ledger/"]
    statuses, missing = walk(client, starts)
    broken = {url: status for url, (status, _location) in statuses.items() if status >= 400}
    assert broken == {}
    assert missing == []
    assert len(statuses) > 40  # it did walk the shop
    if who == "ann":  # and the staff pages, the order among them
        assert any(url.startswith(f"/staff/orders/{shop['alice'].customer_key_id}/") for url in statuses)
