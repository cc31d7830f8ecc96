"""Production settings: `check --deploy` is clean with the README's production variables,
DJANGO_HTTPS turns on every HTTPS setting, and every answer carries the security headers
(Content-Security-Policy without inline code, Permissions-Policy; private pages not cached)."""
import http.client
import json
import os
import re
import socket
import subprocess
import sys
import time

import pytest
from django.test import Client, override_settings

from bench.load import gunicorn_flags
from tests.helpers import REPO, warehouse_staff

pytestmark = pytest.mark.django_db

PRODUCTION = {
    "DJANGO_SECRET_KEY": "x7Kq2mVb9LpR4tYw8ZcN3hJf6GdS1aQe5UoI0vXnBkMlPyTrWsEuHgFjDiCa",
    "DJANGO_ALLOWED_HOSTS": "shop.example.com",
    "DJANGO_CSRF_TRUSTED_ORIGINS": "https://shop.example.com",
    "DJANGO_HTTPS": "1",
    "TRUSTED_PROXY_COUNT": "1",  # the TLS proxy in front
    "METRICS_TOKEN": "scrape-Jq4mZt8Rw2Xc6Vb1Nh7Lp3Ks9Fd5Ga0E",
    "DYNAMODB_ENDPOINT_URL": "",
    "AWS_REGION": "eu-central-1",
    "DYNAMODB_TABLE": "fromatoz",
}


def run(args, env_vars, **kwargs):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DYNAMODB_"))}
    env.update({"DJANGO_SETTINGS_MODULE": "storefront.settings", **env_vars})
    return subprocess.run(
        [sys.executable, *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=60, **kwargs
    )


def settings_under(env_vars, names):
    code = (
        "import django, json; django.setup(); from django.conf import settings; "
        f"print(json.dumps({{n: getattr(settings, n, None) for n in {names!r}}}))"
    )
    result = run(["-c", code], env_vars)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_check_deploy_is_clean_with_the_production_variables():
    result = run(["manage.py", "check", "--deploy", "--fail-level", "WARNING"], PRODUCTION)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout
    assert "WARNING" not in result.stdout + result.stderr


def test_check_deploy_fails_when_behind_a_proxy_every_client_would_look_like_the_proxy():
    result = run(["manage.py", "check", "--deploy"], {**PRODUCTION, "TRUSTED_PROXY_COUNT": "0"})
    assert result.returncode != 0 and "ERRORS:" in result.stderr  # an error: the release stops here
    assert "shop.E002" in result.stderr and "every client will look like the proxy" in result.stderr
    assert "HINT: Set TRUSTED_PROXY_COUNT" in result.stderr
    result = run(["manage.py", "check", "--deploy"], {**PRODUCTION, "DJANGO_HTTPS": "0", "TRUSTED_PROXY_COUNT": "0"})
    assert "shop.E002" not in result.stderr  # no proxy said to be in front


def test_check_deploy_fails_with_https_and_no_metrics_token():
    result = run(["manage.py", "check", "--deploy"], {**PRODUCTION, "METRICS_TOKEN": ""})
    assert result.returncode != 0 and "shop.E001" in result.stderr and "HINT: Set METRICS_TOKEN" in result.stderr
    result = run(["manage.py", "check", "--deploy"], {**PRODUCTION, "DJANGO_HTTPS": "0", "METRICS_TOKEN": ""})
    assert "shop.E001" not in result.stderr


@pytest.mark.parametrize(("variables", "check_id", "words"), [
    ({"DATABASE_URL": "postgres://shop:pw@db.internal:5432/shop"}, "shop.W002", "CACHE_URL is not set"),
    ({"STAFF_MFA_REQUIRED": "0"}, "shop.W003", "staff pages open with a password alone"),
    ({"METRICS_ALLOWED_CIDRS": "0.0.0.0/0"}, "shop.W004", "0.0.0.0/0"),
    ({"METRICS_ALLOWED_CIDRS": "10.0.0.0/8,203.0.113.0/24"}, "shop.W004", "203.0.113.0/24"),
    ({"METRICS_ALLOWED_CIDRS": "::/0"}, "shop.W004", "::/0"),
    ({"MFA_WEBAUTHN_ALLOW_INSECURE_ORIGIN": "1"}, "shop.W005", "passkeys are accepted over plain http"),
])
def test_check_deploy_warns_of_settings_that_weaken_the_shop(variables, check_id, words):
    result = run(["manage.py", "check", "--deploy"], {**PRODUCTION, **variables})
    assert check_id in result.stderr and words in result.stderr, result.stderr
    assert f"{check_id}) " in result.stderr and "HINT:" in result.stderr


def test_check_deploy_is_quiet_for_a_shared_cache_and_private_metrics_networks():
    result = run(["manage.py", "check", "--deploy", "--fail-level", "WARNING"], {
        **PRODUCTION, "DATABASE_URL": "postgres://shop:pw@db.internal:5432/shop",
        "CACHE_URL": "redis://cache.internal:6379/0",
        "METRICS_ALLOWED_CIDRS": "127.0.0.0/8,::1/128,10.1.0.0/16,172.16.0.0/12,192.168.1.0/24,fd00::/8"})
    assert result.returncode == 0, result.stdout + result.stderr


def test_check_deploy_warns_without_https():
    result = run(["manage.py", "check", "--deploy"], {**PRODUCTION, "DJANGO_HTTPS": "0"})
    assert "security.W004" in result.stderr and "security.W008" in result.stderr


HTTPS_SETTINGS = ["SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE", "SECURE_SSL_REDIRECT", "SECURE_HSTS_SECONDS",
                  "SECURE_PROXY_SSL_HEADER", "SECURE_HSTS_INCLUDE_SUBDOMAINS"]


def test_django_https_turns_on_every_https_setting_at_once():
    on = settings_under(PRODUCTION, HTTPS_SETTINGS)
    assert on == {
        "SESSION_COOKIE_SECURE": True, "CSRF_COOKIE_SECURE": True, "SECURE_SSL_REDIRECT": True,
        "SECURE_HSTS_SECONDS": 31536000, "SECURE_PROXY_SSL_HEADER": ["HTTP_X_FORWARDED_PROTO", "https"],
        "SECURE_HSTS_INCLUDE_SUBDOMAINS": True,
    }
    assert settings_under({**PRODUCTION, "DJANGO_HSTS_SECONDS": "600"}, ["SECURE_HSTS_SECONDS"]) == {
        "SECURE_HSTS_SECONDS": 600
    }


def test_django_secure_cookies_is_the_cookie_part_alone():
    only_cookies = settings_under({**PRODUCTION, "DJANGO_HTTPS": "", "DJANGO_SECURE_COOKIES": "1"}, HTTPS_SETTINGS)
    assert only_cookies["SESSION_COOKIE_SECURE"] and only_cookies["CSRF_COOKIE_SECURE"]
    assert not only_cookies["SECURE_SSL_REDIRECT"] and not only_cookies["SECURE_HSTS_SECONDS"]
    assert only_cookies["SECURE_PROXY_SSL_HEADER"] is None


@pytest.mark.parametrize("value", ["²", "①", "1e3", "٣", "abc", "-5", "0"])
def test_an_unreadable_page_size_stops_the_site_with_a_clear_message(value):
    result = run(["manage.py", "check"], {**PRODUCTION, "CATALOG_PAGE_SIZE": value})
    assert result.returncode != 0
    assert "CATALOG_PAGE_SIZE must be" in result.stderr and "Traceback" in result.stderr  # ImproperlyConfigured


def test_an_unreadable_budget_stops_the_site_with_a_clear_message():
    result = run(["manage.py", "check"], {**PRODUCTION, "DYNAMODB_READ_BUDGET": "nan"})
    assert result.returncode != 0 and "DYNAMODB_READ_BUDGET must be a number" in result.stderr


@override_settings(SECURE_SSL_REDIRECT=True, SECURE_PROXY_SSL_HEADER=("HTTP_X_FORWARDED_PROTO", "https"),
                   SECURE_HSTS_SECONDS=31536000)
def test_behind_the_proxy_http_is_redirected_and_https_gets_hsts(ddb):
    client = Client()
    plain = client.get("/cart/")
    assert plain.status_code == 301 and plain["Location"].startswith("https://")
    secure = client.get("/cart/", headers={"X-Forwarded-Proto": "https"})
    assert secure.status_code == 200 and secure["Strict-Transport-Security"].startswith("max-age=31536000")


# --- headers of every answer ----------------------------------------------------------------

def test_every_page_has_a_strict_content_security_policy_and_a_permissions_policy(catalog, client):
    for url in ("/", "/brands/3/", "/products/1/", "/cart/", "/accounts/login/", "/no-such-page/"):
        response = client.get(url)
        policy = response["Content-Security-Policy"]
        assert "default-src 'self'" in policy and "script-src 'self'" in policy and "style-src 'self'" in policy
        assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
        assert "camera=()" in response["Permissions-Policy"] and "geolocation=()" in response["Permissions-Policy"]


def test_templates_have_no_inline_scripts_or_styles():
    for path in (REPO / "templates").rglob("*.html"):
        html = path.read_text()
        assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html), path
        assert "<style" not in html and not re.search(r"\sstyle=", html), path
        assert not re.search(r"\son[a-z]+=", html), path  # no onclick= and the like
    assert '"includeIndicatorStyles":false' in (REPO / "templates" / "frame.html").read_text()


@pytest.mark.parametrize(
    "url", ["/cart/", "/checkout/", "/account/orders/", "/accounts/login/", "/accounts/signup/", "/staff/stock/"]
)
def test_cart_checkout_account_and_staff_pages_are_private_and_not_stored(catalog, client, url, django_user_model):
    for who in (None, "alice"):
        if who:
            client.force_login(warehouse_staff(django_user_model.objects.create_user(
                username=who, password="pw", is_staff=True)))
        cache_control = client.get(url)["Cache-Control"]
        assert "private" in cache_control and "no-store" in cache_control, (url, who)


def test_catalog_pages_are_not_marked_private(catalog, client):
    for url in ("/", "/brands/3/", "/products/1/"):
        assert "no-store" not in client.get(url).get("Cache-Control", "")


# --- gunicorn, as the README deploys it -------------------------------------------------------

def test_gunicorn_does_not_name_itself_in_the_server_header(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DYNAMODB_"))}
    env.update(PRODUCTION, DJANGO_SETTINGS_MODULE="storefront.settings", DJANGO_HTTPS="0",
               DJANGO_ALLOWED_HOSTS="127.0.0.1", DYNAMODB_ENDPOINT_URL="http://127.0.0.1:9",
               DJANGO_SQLITE_PATH=str(tmp_path / "db.sqlite3"))
    server = subprocess.Popen(
        [str(REPO / ".venv" / "bin" / "gunicorn"), "storefront.wsgi:application", "--bind", f"127.0.0.1:{port}",
         "--worker-class", gunicorn_flags()["worker_class"], "--workers", "1", "--threads", "2"],
        cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            try:
                connection.request("GET", "/staff/")  # a redirect to the sign-in page: no template, no DynamoDB
                response = connection.getresponse()
            except OSError:
                assert time.monotonic() < deadline, "gunicorn did not start"
                time.sleep(0.2)
                continue
            finally:
                connection.close()
            break
        assert response.status == 302
        assert "gunicorn" not in (response.headers.get("Server") or "").lower()
        assert response.headers.get("Server") == "Fromatoz"
    finally:
        server.terminate()
        server.wait(timeout=10)
