"""Every URL of the site takes GET, HEAD, POST and OPTIONS only: a PUT or DELETE is a 405 before any
view runs (allauth's form views would process a PUT as a POST). And a page rendered for a signed-in
visitor is never kept by a shared cache."""
import re

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

from tests.helpers import warehouse_staff

pytestmark = pytest.mark.django_db

_PARAMETER = re.compile(r"<(?:\w+:)?\w+>|\(\?P<\w+>[^)]*\)")


def _paths(patterns, prefix=""):
    for pattern in patterns:
        route = prefix + str(pattern.pattern).lstrip("^").rstrip("$")
        if isinstance(pattern, URLResolver):
            yield from _paths(pattern.url_patterns, route)
        elif isinstance(pattern, URLPattern):
            yield "/" + _PARAMETER.sub("1", route)


EVERY_PATH = sorted(set(_paths(get_resolver().url_patterns))) + ["/static/css/site.css"]


def test_every_url_pattern_is_listed():
    assert "/staff/orders/1/1/" in EVERY_PATH and "/accounts/2fa/totp/deactivate/" in EVERY_PATH
    assert "/accounts/password/reset/key/1-1/" in EVERY_PATH and len(EVERY_PATH) > 60


@pytest.mark.parametrize("method", ["put", "delete", "patch"])
def test_no_url_processes_a_put_or_delete(catalog, client, django_user_model, method):
    client.force_login(warehouse_staff(django_user_model.objects.create_user(
        "ann", password="pw-ann-staff", is_staff=True)))
    processed = {}
    for path in EVERY_PATH:
        response = getattr(client, method)(path, "action=ship", content_type="application/x-www-form-urlencoded")
        if response.status_code != 405:
            processed[path] = response.status_code
    assert processed == {}


def test_put_is_answered_with_the_methods_a_page_takes(client):
    response = client.put("/accounts/login/")
    assert response.status_code == 405
    assert response["Allow"] == "GET, HEAD, POST, OPTIONS"


def test_a_page_for_a_signed_in_shopper_is_private_and_for_a_visitor_it_is_not(catalog, client, django_user_model):
    visitor = client.get("/brands/1/")
    assert visitor.status_code == 200
    assert "private" not in visitor.get("Cache-Control", "")
    client.force_login(django_user_model.objects.create_user("alice", password="pw-alice"))
    shopper = client.get("/brands/1/")
    assert shopper.status_code == 200
    assert "private" in shopper["Cache-Control"]
    assert "private" in client.get("/").get("Cache-Control", "")


def test_private_pages_keep_no_store(client, django_user_model):
    client.force_login(django_user_model.objects.create_user("alice", password="pw-alice"))
    cache_control = client.get("/account/")["Cache-Control"]
    assert "private" in cache_control and "no-store" in cache_control
