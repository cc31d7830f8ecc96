"""storefront.http: the query strings of filter, sort and "Load more" links; the client address."""
import logging

from django.http import QueryDict

from storefront import http
from storefront.http import client_ip, query_string


def reference(**params):
    query = QueryDict(mutable=True)
    for key, value in params.items():
        if value:
            query[key] = str(value)
    return f"?{query.urlencode()}" if query else ""


def test_a_link_keeps_its_parameters_quoted_as_django_quotes_them():
    awkward = {"q": "café & crème +50%/€", "category": "12", "sort": "-price", "after": "eyJ=a/b+c"}
    assert query_string(**awkward) == reference(**awkward)
    assert QueryDict(query_string(**awkward)[1:]).dict() == awkward
    assert query_string(category=7, sort="name") == "?category=7&sort=name"


def test_empty_parameters_are_left_out():
    assert query_string(category=None, sort="") == ""
    assert query_string(category="3", sort=None) == "?category=3"


# --- the client address ---------------------------------------------------------------------

WARNING = "every client looks like the proxy"


def test_x_forwarded_for_without_a_trusted_proxy_is_logged_once_per_process(caplog, monkeypatch, settings, rf):
    settings.TRUSTED_PROXY_COUNT = 0
    monkeypatch.setattr(http, "_proxy_warned", False, raising=False)  # a fresh process
    assert client_ip(rf.get("/", REMOTE_ADDR="10.0.0.5")) == "10.0.0.5"
    assert WARNING not in caplog.text  # no proxy header: nothing to say
    with caplog.at_level(logging.WARNING, logger="storefront.http"):
        for client in ("203.0.113.7", "203.0.113.8", "203.0.113.9"):
            assert client_ip(rf.get("/", REMOTE_ADDR="10.0.0.5", HTTP_X_FORWARDED_FOR=client)) == "10.0.0.5"
    warnings = [r for r in caplog.records if WARNING in r.getMessage()]
    assert len(warnings) == 1 and warnings[0].levelno == logging.WARNING
    assert "TRUSTED_PROXY_COUNT" in warnings[0].getMessage() and "10.0.0.5" in warnings[0].getMessage()


def test_a_trusted_proxy_logs_nothing(caplog, monkeypatch, settings, rf):
    settings.TRUSTED_PROXY_COUNT = 1
    monkeypatch.setattr(http, "_proxy_warned", False, raising=False)
    with caplog.at_level(logging.WARNING, logger="storefront.http"):
        assert client_ip(rf.get("/", REMOTE_ADDR="10.0.0.5", HTTP_X_FORWARDED_FOR="203.0.113.7")) == "203.0.113.7"
    assert WARNING not in caplog.text
