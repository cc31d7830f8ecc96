"""Timed holds over HTTP: app servers as `make run` serves the shop, shoppers as browsers.
The checkout page's button (POST action=hold) holds the cart's units; others see only what they can still buy; the order
turns the hold into the sale; the release job gives back the units of a hold that ended."""
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from bench.load import gunicorn_flags
from catalog import gateway
from catalog.gateway.stock.reconcile import reconcile_product
from catalog.gateway.stock.releases import holds_all
from tests.helpers import level, seed, small_catalog
from tests.shop.servers import TIMEOUT, AppServer, app_env, csrf, hidden, manage
from tests.shop.test_crowd_checkout import ACCOUNTS, PASSWORD

pytestmark = [pytest.mark.dynamodb_local, pytest.mark.servers]

HELD = "We hold these units for you until"


def start(settings, shared_database, shoppers, *, level, seconds):
    data = small_catalog()
    data["products"][6]["stockLevel"] = level  # product 7, Acme Car Charger
    seed(data)
    settings.STOCK_HOLD_SECONDS = seconds
    env = app_env(settings, shared_database)
    manage(env, "migrate", "--noinput", "-v", "0")
    out = manage(env, "shell", "-v", "0", "-c", ACCOUNTS.format(shoppers=shoppers, password=PASSWORD))
    sessions = [line.split() for line in out.splitlines() if line.strip()]
    assert len(sessions) == shoppers
    return env, sessions


def browser_of(session):
    browser = requests.Session()
    browser.cookies.set(*session)
    return browser


def add_to_cart(server, browser, quantity=1):
    html = browser.get(f"{server.url}/products/7/", timeout=TIMEOUT).text
    response = browser.post(f"{server.url}/cart/add/", timeout=TIMEOUT, allow_redirects=False, data={
        "csrfmiddlewaretoken": csrf(html), "product_id": "7", "quantity": str(quantity)})
    assert response.status_code == 302, response.text


def two_with_the_charger(server, sessions):
    """Two shoppers, each with one charger in the cart."""
    ann, bob = browser_of(sessions[0]), browser_of(sessions[1])
    add_to_cart(server, ann)
    add_to_cart(server, bob)
    return ann, bob


def order_form(html, i):
    return {"csrfmiddlewaretoken": csrf(html), "order_id": hidden(html, "order_id"), "token": hidden(html, "token"),
            "name": f"Buyer {i}", "street": "Hauptstraße 1", "postcode": "10115", "city": "Berlin", "country": "DE"}


def hold(server, browser, token=None):
    """The checkout page's "Hold my units while I pay" (a plain form post, the page's CSRF token): its answer."""
    if token is None:
        token = csrf(browser.get(f"{server.url}/checkout/", timeout=TIMEOUT).text)
    return browser.post(f"{server.url}/checkout/", data={"csrfmiddlewaretoken": token, "action": "hold"},
                        timeout=TIMEOUT)


def place(server, browser, form):
    response = browser.post(f"{server.url}/checkout/", data=form, timeout=TIMEOUT)  # follows the redirect
    return response.url, response.text


def test_two_shoppers_and_the_last_unit(local_ddb, settings, shared_database, tmp_path):
    env, sessions = start(settings, shared_database, 2, level=1, seconds=3)
    with AppServer(env, tmp_path / "app.log") as server:
        ann, bob = two_with_the_charger(server, sessions)
        ann_page = ann.get(f"{server.url}/checkout/", timeout=TIMEOUT).text
        assert HELD not in ann_page and level("7") == 1  # opening the page holds nothing
        ann_page = hold(server, ann).text
        assert HELD in ann_page and 'aria-live="polite"' in ann_page and "<time datetime=" in ann_page
        # Bob sees the unit held: sold out for him, on the product page and at checkout.
        product_page = bob.get(f"{server.url}/products/7/", timeout=TIMEOUT).text
        assert "1 unit held by shoppers who are paying now" in product_page
        response = hold(server, bob)
        assert response.url.endswith("/cart/") and "can’t be bought as they are" in response.text
        assert "Sold out" in response.text
        # Ann lets her hold run out; the job (as `make run` runs it) gives the unit back.
        time.sleep(3.5)
        assert "holds released: 1 (1 unit)" in manage(env, "run_stock_jobs")
        assert level("7") == 1
        bob_page = hold(server, bob).text
        assert HELD in bob_page
        url, html = place(server, bob, order_form(bob_page, 1))
        assert re.search(r"/account/orders/[^/]+/$", url) and "Thank you! Your order" in html
        url, html = place(server, ann, order_form(ann_page, 0))  # too late: the unit is bob's
        assert url.endswith("/cart/") and "Nothing was ordered" in html
    assert level("7") == 0 and reconcile_product(product_id="7") is None


def test_a_crowd_of_32_asks_to_hold_10_units(local_ddb, settings, shared_database, tmp_path):
    shoppers, units = 32, 10
    env, sessions = start(settings, shared_database, shoppers, level=units, seconds=600)
    flags = gunicorn_flags()
    with AppServer(env, tmp_path / "app.log", workers=flags["workers"], threads=flags["threads"]) as server:
        browsers = [browser_of(s) for s in sessions]
        with ThreadPoolExecutor(max_workers=8) as pool:
            list(pool.map(lambda b: add_to_cart(server, b), browsers))
        with ThreadPoolExecutor(max_workers=8) as pool:
            tokens = list(pool.map(lambda b: csrf(b.get(f"{server.url}/checkout/", timeout=TIMEOUT).text), browsers))
        gate = threading.Barrier(shoppers)

        def open_checkout(i):
            gate.wait()
            response = hold(server, browsers[i], tokens[i])
            return response.url, response.text

        with ThreadPoolExecutor(max_workers=shoppers) as pool:
            pages = list(pool.map(open_checkout, range(shoppers)))
        held = [i for i, (url, html) in enumerate(pages) if HELD in html]
        assert len(held) == units, [url for url, _ in pages]
        for url, html in (pages[i] for i in range(shoppers) if i not in held):
            # Told at once (the cart read it sold out) or by the hold's refusal: sold out, nothing held.
            assert url.endswith("/cart/") and re.search(r"Acme Car Charger is sold out|Sold out", html), html[-2000:]
        assert level("7") == 0 and len(holds_all(product_id="7", consistent=True)) == units

        def buy(i):
            return place(server, browsers[i], order_form(pages[i][1], i))

        with ThreadPoolExecutor(max_workers=units) as pool:
            outcomes = list(pool.map(buy, held))
    assert all(re.search(r"/account/orders/[^/]+/$", url) for url, _html in outcomes), outcomes
    history = gateway.stock_history(product_id="7", limit=100, consistent=True).items
    assert -sum(h.delta for h in history if h.reason == "sold") == units
    assert level("7") == 0 and holds_all(product_id="7", consistent=True) == []
    assert reconcile_product(product_id="7") is None


def test_holds_off_the_checkout_holds_nothing(local_ddb, settings, shared_database, tmp_path):
    env, sessions = start(settings, shared_database, 2, level=1, seconds=0)
    with AppServer(env, tmp_path / "app.log") as server:
        ann, bob = two_with_the_charger(server, sessions)
        ann_page = hold(server, ann).text  # the button only shows the page
        bob_page = bob.get(f"{server.url}/checkout/", timeout=TIMEOUT).text
        assert HELD not in ann_page and HELD not in bob_page and level("7") == 1  # as today: both may pay
        url, _html = place(server, bob, order_form(bob_page, 1))
        assert re.search(r"/account/orders/[^/]+/$", url)
        url, html = place(server, ann, order_form(ann_page, 0))
        assert url.endswith("/cart/") and "Acme Car Charger is sold out" in html
    assert level("7") == 0 and holds_all(product_id="7", consistent=True) == []
