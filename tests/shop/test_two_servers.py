"""Two app servers (gunicorn processes on two ports) sharing one PostgreSQL and one DynamoDB Local
table: whichever server a request lands on, the shopper is the same person with the same cart."""
import re
from contextlib import ExitStack

import pytest
import requests

from catalog import gateway
from tests.helpers import totp_code
from tests.shop.servers import TIMEOUT, AppServer, app_env, csrf, hidden, manage

pytestmark = [pytest.mark.dynamodb_local, pytest.mark.servers]


def test_a_shopper_moves_between_two_app_servers(local_catalog, settings, shared_database, tmp_path):
    env = app_env(settings, shared_database)
    manage(env, "migrate", "--noinput", "-v", "0")
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
        number = gateway.order_number_for(order_id)  # the short number people read out
        assert f'Order number <strong class="order-number">{number}</strong>' in html and "2 × Pixel 9" in html
        html = browser.get(f"{second.url}/account/orders/{order_id}/", timeout=TIMEOUT).text
        assert "Hauptstraße 1" in html and "Germany" in html
        assert browser.get(second.url + "/cart/", timeout=TIMEOUT).text.count("Your cart is empty.") == 1


TOO_MANY = "Too many failed sign-ins for this account or from this address"
CREATE_ALICE = (
    "from allauth.account.models import EmailAddress; from shop.models import User; "
    "u = User.objects.create_user(username='alice', email='alice@example.com', password='a-long-password-1'); "
    "EmailAddress.objects.create(user=u, email='alice@example.com', verified=True, primary=True)"
)


def test_two_app_servers_on_one_redis_share_one_sign_in_limit(local_catalog, settings, shared_database,
                                                               redis_cache, tmp_path):
    """allauth's `login_failed` limit (5 failed sign-ins an account in 5 minutes): failures spread over
    both servers count as if they had all landed on one."""
    env = {**app_env(settings, shared_database), "CACHE_URL": redis_cache.url}
    manage(env, "migrate", "--noinput", "-v", "0")
    manage(env, "shell", "-c", CREATE_ALICE)
    with ExitStack() as stack:
        servers = [stack.enter_context(AppServer(env, tmp_path / f"{name}.log")) for name in ("first", "second")]

        def sign_in(server, password):
            browser = requests.Session()
            # One Host for both, as behind a load balancer: allauth's per-account key carries the site's host.
            browser.headers["Host"] = "localhost"
            html = browser.get(server.url + "/accounts/login/", timeout=TIMEOUT).text
            return browser.post(server.url + "/accounts/login/", timeout=TIMEOUT, allow_redirects=False, data={
                "csrfmiddlewaretoken": csrf(html), "login": "alice", "password": password})

        for attempt in range(5):  # 3 on the first server, 2 on the second
            response = sign_in(servers[attempt % 2], "wrong-password")
            assert response.status_code == 400 and TOO_MANY not in response.text
        paused = sign_in(servers[1], "a-long-password-1")  # the right password, on the server that saw 2
        assert paused.status_code == 400 and TOO_MANY in paused.text


SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
CREATE_ANN_WITH_APP = (
    "from allauth.account.models import EmailAddress; from allauth.mfa.totp.internal.auth import TOTP; "
    "from shop.models import User; "
    "u = User.objects.create_user(username='ann', email='ann@example.com', password='a-long-password-1'); "
    "EmailAddress.objects.create(user=u, email='ann@example.com', verified=True, primary=True); "
    f"TOTP.activate(u, {SECRET!r})"
)


def test_one_authenticator_code_signs_in_once_across_two_app_servers(local_catalog, settings, shared_database,
                                                                     redis_cache, tmp_path):
    """A code seen over someone's shoulder, typed on the other server (or another worker) after its owner
    signed in with it, is refused for its whole window: the step taken is kept in the shared database."""
    env = {**app_env(settings, shared_database), "CACHE_URL": redis_cache.url}
    manage(env, "migrate", "--noinput", "-v", "0")
    manage(env, "shell", "-c", CREATE_ANN_WITH_APP)
    with ExitStack() as stack:
        servers = [stack.enter_context(AppServer(env, tmp_path / f"{name}.log")) for name in ("first", "second")]

        def sign_in_with(server, code):
            browser = requests.Session()
            html = browser.get(server.url + "/accounts/login/", timeout=TIMEOUT).text
            response = browser.post(server.url + "/accounts/login/", timeout=TIMEOUT, allow_redirects=False, data={
                "csrfmiddlewaretoken": csrf(html), "login": "ann", "password": "a-long-password-1"})
            assert response.headers["Location"] == "/accounts/2fa/authenticate/"
            html = browser.get(server.url + "/accounts/2fa/authenticate/", timeout=TIMEOUT).text
            return browser.post(server.url + "/accounts/2fa/authenticate/", timeout=TIMEOUT, allow_redirects=False,
                                data={"csrfmiddlewaretoken": csrf(html), "code": code})

        code = totp_code(SECRET)
        assert sign_in_with(servers[0], code).status_code == 302  # the owner is in
        for server in (servers[1], servers[0], servers[1]):  # the other server, then another worker or process
            refused = sign_in_with(server, code)
            assert refused.status_code == 400 and "Incorrect code" in refused.text
