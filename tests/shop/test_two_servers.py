"""Two app servers (gunicorn processes on two ports) sharing one PostgreSQL and one DynamoDB Local
table: whichever server a request lands on, the shopper is the same person with the same cart."""
import os
import re
import subprocess
import sys
import time
import uuid
from contextlib import ExitStack

import psycopg
import pytest
import requests

from bench.load import gunicorn_flags
from catalog import gateway
from tests.helpers import REPO
from tools.dynamodb_local import free_port

pytestmark = [pytest.mark.dynamodb_local, pytest.mark.servers]
TIMEOUT = 30  # seconds for any one HTTP request (a loaded 2-core machine is slow, never stuck this long)


class AppServer:
    """gunicorn on a free loopback port; always stopped on the way out."""

    def __init__(self, env, log_path):
        self.env, self.log_path, self.port = env, log_path, free_port()
        self.url = f"http://127.0.0.1:{self.port}"

    def __enter__(self):
        self.log = open(self.log_path, "wb")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "storefront.wsgi:application", "--bind", f"127.0.0.1:{self.port}",
             "--worker-class", gunicorn_flags()["worker_class"], "--workers", "1", "--threads", "2"],
            cwd=REPO, env=self.env, stdout=self.log, stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"gunicorn exited: {self.log_path.read_text()[-2000:]}")
            try:
                requests.get(self.url + "/", timeout=TIMEOUT)
                return self
            except requests.RequestException:
                time.sleep(0.2)
        raise RuntimeError(f"gunicorn did not answer within 60 s: {self.log_path.read_text()[-2000:]}")

    def __exit__(self, *exc):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()
        return False


def csrf(html):
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)


def hidden(html, name):
    return re.search(rf'name="{name}" value="([^"]+)"', html).group(1)


@pytest.fixture
def shared_database(postgres_server):
    """A new PostgreSQL database, migrated with `manage.py migrate` as a release would."""
    name = f"shop_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(postgres_server.url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = postgres_server.url_for(name)
    yield url
    with psycopg.connect(postgres_server.url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_a_shopper_moves_between_two_app_servers(local_catalog, settings, shared_database, tmp_path):
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))},
        "DJANGO_SETTINGS_MODULE": "storefront.settings",
        "DJANGO_SECRET_KEY": "two-servers-one-secret",
        "DJANGO_DEBUG": "1",  # static files from the app folders (no collectstatic)
        "DATABASE_URL": shared_database,
        "DATABASE_CONN_MAX_AGE": "60",
        "DYNAMODB_ENDPOINT_URL": settings.DYNAMODB_ENDPOINT_URL,
        "DYNAMODB_TABLE": settings.DYNAMODB_TABLE,
        "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
    }
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=REPO, env=env, check=True,
                   timeout=120)
    with ExitStack() as stack:
        first = stack.enter_context(AppServer(env, tmp_path / "first.log"))
        second = stack.enter_context(AppServer(env, tmp_path / "second.log"))
        browser = requests.Session()  # one cookie jar: the same cookies go to both servers

        html = browser.get(first.url + "/accounts/signup/", timeout=TIMEOUT).text
        response = browser.post(first.url + "/accounts/signup/", timeout=TIMEOUT, allow_redirects=False, data={
            "csrfmiddlewaretoken": csrf(html), "username": "alice", "name": "Alice Liddell",
            "email": "alice@example.com", "password1": "a-long-password-1", "password2": "a-long-password-1"})
        assert response.status_code == 302, response.text
        # The address is confirmed with the code mailed to it (the console backend: the first server's log),
        # on the second server: the sign-up's progress is in the shared session.
        code = re.findall(r"^([A-Z0-9]{4}-[A-Z0-9]{4})$", first.log_path.read_text(), re.M)[-1]
        html = browser.get(second.url + "/accounts/confirm-email/", timeout=TIMEOUT).text
        response = browser.post(second.url + "/accounts/confirm-email/", timeout=TIMEOUT, allow_redirects=False,
                                data={"csrfmiddlewaretoken": csrf(html), "code": code})
        assert response.status_code == 302, response.text

        html = browser.get(second.url + "/products/4/", timeout=TIMEOUT).text
        assert "Signed in as alice" in html  # the session made on the first server
        response = browser.post(second.url + "/cart/add/", timeout=TIMEOUT, allow_redirects=False,
                                data={"csrfmiddlewaretoken": csrf(html), "product_id": "4", "quantity": "2"})
        assert response.status_code == 302

        html = browser.get(first.url + "/checkout/", timeout=TIMEOUT).text
        assert "Pixel 9" in html and "€1,798.00" in html  # the cart filled on the second server
        response = browser.post(first.url + "/checkout/", timeout=TIMEOUT, allow_redirects=False, data={
            "csrfmiddlewaretoken": csrf(html), "order_id": hidden(html, "order_id"), "token": hidden(html, "token"),
            "name": "Alice Liddell", "street": "Hauptstraße 1", "postcode": "10115", "city": "Berlin",
            "country": "DE"})
        assert response.status_code == 302, response.text
        order_id = response.headers["Location"].rstrip("/").rsplit("/", 1)[1]

        html = browser.get(second.url + "/account/orders/", timeout=TIMEOUT).text
        number = gateway.orders.order_number_for(order_id)  # the short number people read out (issue 37)
        assert f'Order number <strong class="order-number">{number}</strong>' in html and "2 × Pixel 9" in html
        html = browser.get(f"{second.url}/account/orders/{order_id}/", timeout=TIMEOUT).text
        assert "Hauptstraße 1" in html and "Germany" in html
        assert browser.get(second.url + "/cart/", timeout=TIMEOUT).text.count("Your cart is empty.") == 1
