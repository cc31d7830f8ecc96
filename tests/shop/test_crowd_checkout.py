"""The crowd contract over HTTP: when more shoppers press "Place order" at once than there
are units, every one of them ends on their order page or on the cart with a message saying the
product sold out or how many are left; nobody is told the product is busy."""
import re
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from bench.load import gunicorn_flags
from catalog import gateway
from tests.helpers import seed, small_catalog
from tests.shop.servers import TIMEOUT, AppServer, app_env, csrf, hidden, manage

pytestmark = [pytest.mark.dynamodb_local, pytest.mark.servers]

SHOPPERS = 24
UNITS = 14  # Acme Car Charger: 8 sales above the edge (relative), then exact from 6 down to 0
PASSWORD = "a-long-password-1"

# Accounts as sign-up leaves them (address confirmed), each signed in: its session cookie.
ACCOUNTS = """
from allauth.account.models import EmailAddress
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client

for i in range({shoppers}):
    user = get_user_model().objects.create_user(f"buyer{{i}}", email=f"buyer{{i}}@example.com", password="{password}")
    EmailAddress.objects.create(user=user, email=user.email, primary=True, verified=True)
    browser = Client()
    browser.force_login(user)
    print(settings.SESSION_COOKIE_NAME, browser.cookies[settings.SESSION_COOKIE_NAME].value)
"""


def test_more_shoppers_than_units_press_place_order_at_once(local_ddb, settings, shared_database, tmp_path):
    data = small_catalog()
    data["products"][6]["stockLevel"] = UNITS  # product 7
    seed(data)
    env = app_env(settings, shared_database)
    manage(env, "migrate", "--noinput", "-v", "0")
    accounts = ACCOUNTS.format(shoppers=SHOPPERS, password=PASSWORD)
    sessions = [line.split() for line in manage(env, "shell", "-v", "0", "-c", accounts).splitlines() if line.strip()]
    assert len(sessions) == SHOPPERS
    # As `make run` serves the shop: its workers and threads (fewer threads than shoppers: some wait).
    flags = gunicorn_flags()
    with AppServer(env, tmp_path / "app.log", workers=flags["workers"], threads=flags["threads"]) as server:

        def ready(i):
            """Shopper i signed in, with 1 or 2 chargers in the cart, on the checkout page."""
            browser = requests.Session()
            name, value = sessions[i]
            browser.cookies.set(name, value)
            html = browser.get(f"{server.url}/products/7/", timeout=TIMEOUT).text
            response = browser.post(f"{server.url}/cart/add/", timeout=TIMEOUT, allow_redirects=False, data={
                "csrfmiddlewaretoken": csrf(html), "product_id": "7", "quantity": str(1 + i % 2)})
            assert response.status_code == 302, response.text
            html = browser.get(f"{server.url}/checkout/", timeout=TIMEOUT).text
            assert "Acme Car Charger" in html, html
            form = {"csrfmiddlewaretoken": csrf(html), "order_id": hidden(html, "order_id"),
                    "token": hidden(html, "token"), "name": f"Buyer {i}", "street": "Hauptstraße 1",
                    "postcode": "10115", "city": "Berlin", "country": "DE"}
            return browser, form

        with ThreadPoolExecutor(max_workers=8) as pool:
            shoppers = list(pool.map(ready, range(SHOPPERS)))
        start = threading.Barrier(SHOPPERS)

        def place(i):
            browser, form = shoppers[i]
            start.wait()
            response = browser.post(f"{server.url}/checkout/", data=form, timeout=TIMEOUT)  # follows the redirect
            return response.status_code, response.url, response.text

        with ThreadPoolExecutor(max_workers=SHOPPERS) as pool:
            outcomes = list(pool.map(place, range(SHOPPERS)))

    ordered = 0
    for i, (status, url, html) in enumerate(outcomes):
        assert status == 200, (i, status, html[-2000:])
        assert "So many people are buying" not in html  # never "busy"
        if re.search(r"/account/orders/[^/]+/$", url):
            assert "Thank you! Your order" in html and "Acme Car Charger" in html
            ordered += 1 + i % 2
        else:
            assert url.endswith("/cart/"), (i, url)
            said = re.search(r"Acme Car Charger is sold out\.|Only 1 of Acme Car Charger left", html)
            assert said and "Nothing was ordered" in html, (i, html[-3000:])
    # Sold out, or one left that only shoppers who wanted two were still asking for; none sold twice.
    left = gateway.product_get(product_id="7", consistent=True).stock_level
    assert left in (0, 1) and ordered + left == UNITS
    sales = [h for h in gateway.stock_history(product_id="7", limit=100, consistent=True).items if h.reason == "sold"]
    assert -sum(h.delta for h in sales) == ordered
