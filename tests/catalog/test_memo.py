"""Kept markup (catalog/memo.py): made once while what it was made from stays the same, and kept per
script prefix and URL conf: a request under another prefix (a SCRIPT_NAME header) or host gets its own
links and cannot change what another visitor sees."""
import re

import pytest
from django.core.handlers.wsgi import get_script_name
from django.core.signals import request_started
from django.urls import set_script_prefix

from catalog.memo import Memo

pytestmark = pytest.mark.django_db

PAGES = ["/", "/brands/3/", "/categories/1/?brand=3", "/search/?q=model", "/products/1/", "/contact/"]



def test_the_memo_makes_a_value_once_while_its_sources_are_the_same_objects():
    memo, made = Memo(8), []
    counts = {"1": 2}

    def make():
        made.append(1)
        return f"Cars ({counts['1']})"

    assert memo.get("k", (counts,), make) == memo.get("k", (counts,), make) == "Cars (2)"
    assert len(made) == 1
    # The names read anew: equal values, but new objects; the value is made again from them.
    counts = {"1": 2}
    memo.get("k", (counts,), make)
    counts = {"1": 7}
    assert memo.get("k", (counts,), make) == "Cars (7)"
    assert len(made) == 3


def test_the_memo_holds_at_most_its_size_and_drops_the_oldest_first():
    memo, source = Memo(2), object()
    for key in "abc":
        memo.get(key, (source,), lambda key=key: key.upper())
    assert memo.get("c", (source,), lambda: "new c") == "C"  # still held
    assert memo.get("b", (source,), lambda: "new b") == "B"
    assert memo.get("a", (source,), lambda: "new a") == "new a"  # the oldest was dropped


@pytest.fixture
def script_prefix_per_request():
    """Each request's script prefix from its SCRIPT_NAME, as Django's WSGIHandler sets it (the
    test client does not)."""
    def set_prefix(sender, environ, **kwargs):
        set_script_prefix(get_script_name(environ))

    request_started.connect(set_prefix)
    yield
    request_started.disconnect(set_prefix)
    set_script_prefix("/")


def links(html):
    return sorted(set(re.findall(r'(?:href|src|action|hx-get)="([^"]*)"', html)))


@pytest.mark.parametrize("path", PAGES)
def test_a_request_under_another_script_prefix_or_host_cannot_change_another_visitors_page(
        catalog, client, script_prefix_per_request, path):
    before = links(client.get(path).content.decode())
    assert 'href="/brands/3/"' in " ".join(f'href="{link}"' for link in before)
    prefixed = client.get(path, SCRIPT_NAME="/evil").content.decode()
    assert 'href="/evil/brands/3/"' in prefixed and 'href="/brands/3/"' not in prefixed  # its own links
    client.get(path, HTTP_HOST="127.0.0.1")
    assert links(client.get(path).content.decode()) == before
