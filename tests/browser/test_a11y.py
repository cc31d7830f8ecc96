"""Every page type, on a phone and on a laptop, in a real browser: axe-core finds no WCAG 2.2 A/AA
violation and nothing is wider than the window.

PAGES is the one list of page types: a new page is one more line.
"""
from dataclasses import dataclass

import pytest
from django.test import Client

from catalog import gateway
from catalog.gateway import CatalogUnavailable
from tests.helpers import CATALOG_EDITORS, WAREHOUSE, axe_violations, join, page_overflow, seed
from tests.shop.test_views import checkout_form

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

VIEWPORTS = [{"width": 390, "height": 844}, {"width": 1280, "height": 800}]


@dataclass(frozen=True)
class Visit:
    path: str  # "{order_id}" is the order `order=True` placed (by alice, "{customer_id}")
    user: str | None = None  # "alice" (a shopper) or "ann" (staff), signed in
    cart: bool = False  # two products in the cart
    order: bool = False  # one order placed
    status: int = 200
    unavailable: bool = False  # DynamoDB out of reach


PAGES = {
    "home": Visit("/"),
    "brand": Visit("/brands/3/"),
    "brand-filtered": Visit("/brands/3/?category=1"),
    "category": Visit("/categories/1/"),
    "category-filtered": Visit("/categories/1/?brand=3"),
    "sorted": Visit("/brands/3/?sort=price"),
    "more-pages": Visit("/brands/3/?pages=2"),
    "search": Visit("/search/?q=model"),
    "search-hint": Visit("/search/?q=m"),
    "product": Visit("/products/1/"),
    "product-sold-out": Visit("/products/3/"),
    "cart-empty": Visit("/cart/"),
    "cart": Visit("/cart/", cart=True),
    "checkout": Visit("/checkout/", user="alice", cart=True),
    "sign-up": Visit("/accounts/signup/"),
    "sign-up-errors": Visit("/accounts/signup/?next=/"),  # see test_sign_up_errors below for the POST
    "sign-in": Visit("/accounts/login/"),
    "password-reset": Visit("/accounts/password/reset/"),
    "sign-in-code": Visit("/accounts/login/code/"),
    "password-change": Visit("/accounts/password/change/", user="alice"),
    "email": Visit("/accounts/email/", user="alice"),
    "reauthenticate": Visit("/accounts/reauthenticate/", user="alice"),
    "two-factor": Visit("/accounts/2fa/", user="alice"),
    "sign-out": Visit("/accounts/logout/", user="alice"),
    "account": Visit("/account/", user="alice"),
    "orders": Visit("/account/orders/", user="alice", order=True),
    "order": Visit("/account/orders/{order_id}/", user="alice", order=True),
    "contact": Visit("/contact/"),
    "terms": Visit("/terms/"),
    "returns": Visit("/returns/"),
    "staff-list": Visit("/staff/stock/?brand=3", user="ann"),
    "staff-product": Visit("/staff/products/1/stock/", user="ann"),
    "staff-history-by-reason": Visit("/staff/products/1/stock/?reason=damaged", user="ann"),
    "staff-reorder": Visit("/staff/reorder/", user="ann"),
    "staff-orders": Visit("/staff/orders/", user="ann", order=True),
    "staff-order": Visit("/staff/orders/{customer_id}/{order_id}/", user="ann", order=True),
    "staff-receive": Visit("/staff/receive/", user="ann"),
    "staff-ledger": Visit("/staff/ledger/", user="ann"),
    "catalog-list": Visit("/staff/catalog/?brand=3", user="ann"),
    "catalog-product": Visit("/staff/catalog/products/1/", user="ann"),
    "catalog-new": Visit("/staff/catalog/products/new/", user="ann"),
    "catalog-brands": Visit("/staff/catalog/brands/", user="ann"),
    "catalog-import": Visit("/staff/catalog/import/", user="ann"),
    "catalog-prices": Visit("/staff/catalog/prices/", user="ann"),
    "not-found": Visit("/products/nope/", status=404),
    "bad-request": Visit("/brands/3/?after=forged", status=400),
    "forbidden": Visit("/staff/stock/", user="alice", status=403),
    "unavailable": Visit("/brands/3/", status=503, unavailable=True),
}


@pytest.fixture
def site(ddb, live_server, django_user_model):
    seed()
    gateway.stock_decrease(product_id="1", quantity=2, token=gateway.new_token(), reason="damaged", who="cy")
    django_user_model.objects.create_user("alice", password="a-long-password-1")
    join(django_user_model.objects.create_user("ann", password="pw-ann-staff", is_staff=True), WAREHOUSE,
         CATALOG_EDITORS)
    return live_server.url


def prepare(visit, django_user_model, monkeypatch):
    """Sign in, fill the cart, place an order as the visit needs; returns (path, session cookie)."""
    client = Client()
    if visit.user:
        client.force_login(django_user_model.objects.get(username=visit.user))
    path = visit.path
    if visit.order:  # alice orders (the page may be staff's)
        alice = django_user_model.objects.get(username="alice")
        buyer = Client()
        buyer.force_login(alice)
        buyer.post("/cart/add/", {"product_id": "1", "quantity": 2})
        buyer.post("/cart/add/", {"product_id": "4", "quantity": 1})
        placed = buyer.post("/checkout/", checkout_form(buyer))
        order_id = placed["Location"].rstrip("/").rsplit("/", 1)[1]
        path = path.format(order_id=order_id, customer_id=alice.customer_key_id)
        if visit.user == "alice":
            client = buyer
    if visit.cart:
        client.post("/cart/add/", {"product_id": "1", "quantity": 2})
        client.post("/cart/add/", {"product_id": "4", "quantity": 1})
        if visit.order:
            client.post("/cart/add/", {"product_id": "2", "quantity": 1})
    if visit.unavailable:
        def down(**kwargs):
            raise CatalogUnavailable("DynamoDB did not answer")

        monkeypatch.setattr(gateway, "products_by_brand", down)
    return path, client.cookies.get("sessionid")


@pytest.mark.parametrize("name", PAGES)
def test_every_page_fits_a_phone_and_passes_axe(name, site, chromium, axe_script, django_user_model, monkeypatch):
    visit = PAGES[name]
    path, session = prepare(visit, django_user_model, monkeypatch)
    context = chromium.new_context(viewport=VIEWPORTS[0], bypass_csp=True)  # to inject axe-core
    if session:
        context.add_cookies([{"name": "sessionid", "value": session.value, "url": site}])
    page = context.new_page()
    page.set_default_timeout(10_000)
    try:
        response = page.goto(site + path)
        assert response.status == visit.status
        problems = []
        for viewport in VIEWPORTS:
            page.set_viewport_size(viewport)
            size = f"{viewport['width']}x{viewport['height']}"
            if overflow := page_overflow(page):
                problems.append(f"{size}: {overflow}px wider than the window")
            problems += [f"{size}: {v}" for v in axe_violations(page, axe_script)]
        assert not problems, "\n".join(problems)
    finally:
        context.close()
