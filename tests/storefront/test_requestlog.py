"""Logs an operator can search: one JSON line per request (method, path, status, duration, DynamoDB
requests and time, user, request ID from X-Request-ID or made, and returned in the answer), errors
with their traceback, none for health checks; LOG_FORMAT chooses json or text."""
import io
import json
import logging
import re

import pytest
from django.test import Client

from catalog.gateway.dynamo.testing import count_requests
from storefront.logcontext import RequestContextFilter
from tests.storefront.test_deploy import PRODUCTION, run

pytestmark = pytest.mark.django_db


class Console:
    """What the site's configured log handler (settings.LOGGING: its formatter and filters) writes."""

    def __init__(self):
        [self.handler] = [h for h in logging.getLogger().handlers
                          if any(isinstance(f, RequestContextFilter) for f in h.filters)]  # not pytest's own
        self.buffer = io.StringIO()
        self.stream = self.handler.setStream(self.buffer)

    def readouterr(self):  # the lines since the last call
        written, self.buffer = self.buffer.getvalue(), io.StringIO()
        self.handler.setStream(self.buffer)
        return written


@pytest.fixture
def console():
    console = Console()
    yield console
    console.handler.setStream(console.stream)


def lines(console, logger=None):
    """The JSON log lines written since the last call, each parsed; only `logger`'s if given."""
    parsed = [json.loads(line) for line in console.readouterr().splitlines() if line.startswith("{")]
    return [entry for entry in parsed if logger is None or entry["logger"] == logger]


def test_a_request_logs_one_json_line_with_the_request_id_it_was_given(catalog, console):
    lines(console)
    with count_requests() as requests:
        response = Client().get("/products/1/", headers={"X-Request-ID": "lb-7f3a9c-0001"})
    assert response.status_code == 200 and response["X-Request-ID"] == "lb-7f3a9c-0001"
    [line] = lines(console, "storefront.requests")
    assert line["request_id"] == "lb-7f3a9c-0001"
    assert (line["method"], line["path"], line["status"], line["level"]) == ("GET", "/products/1/", 200, "INFO")
    assert line["dynamodb_requests"] == requests.total >= 1
    assert 0 < line["dynamodb_ms"] <= line["duration_ms"]
    assert line["user_id"] == "anonymous"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+\+00:00", line["time"])  # ISO 8601, UTC


def test_the_signed_in_users_id_is_logged(catalog, console, django_user_model):
    user = django_user_model.objects.create_user("alice", password="a-long-password-1")
    client = Client()
    client.force_login(user)
    lines(console)
    client.get("/cart/")
    [line] = lines(console, "storefront.requests")
    assert line["user_id"] == user.pk and line["path"] == "/cart/"


@pytest.mark.parametrize("given", ["", "has space", "x" * 129, 'quote"d', "new\\nline", "<script>"])
def test_a_missing_or_unsafe_request_id_is_replaced_by_a_new_one(catalog, console, given):
    lines(console)
    response = Client().get("/products/1/", headers={"X-Request-ID": given} if given else {})
    made = response["X-Request-ID"]
    assert re.fullmatch(r"[0-9a-f]{32}", made)
    assert lines(console, "storefront.requests")[0]["request_id"] == made


def test_every_line_of_a_request_carries_its_id_and_a_503_is_a_warning(ddb, settings, console):
    settings.DYNAMODB_TABLE = "no-such-table"
    lines(console)
    response = Client().get("/products/1/", headers={"X-Request-ID": "req-503"})
    assert response.status_code == 503
    logged = lines(console)
    loggers = {"catalog.gateway.dynamo.boundary", "storefront.requests", "django.request"}
    assert {line["logger"] for line in logged} >= loggers
    assert all(line["request_id"] == "req-503" for line in logged)
    [line] = [line for line in logged if line["logger"] == "storefront.requests"]
    assert line["level"] == "WARNING" and line["status"] == 503


def test_an_error_is_logged_with_its_traceback_and_request_id(catalog, console, monkeypatch):
    from catalog import views

    def broken(**kwargs):
        raise RuntimeError("the product page broke")

    monkeypatch.setattr(views.gateway, "product_get", broken)
    lines(console)
    response = Client(raise_request_exception=False).get("/products/1/", headers={"X-Request-ID": "req-500"})
    assert response.status_code == 500
    [error] = [line for line in lines(console, "django.request") if line["level"] == "ERROR"]
    assert error["request_id"] == "req-500"
    assert "Traceback" in error["exc_info"] and "RuntimeError: the product page broke" in error["exc_info"]


def test_health_checks_and_scrapes_write_no_request_line(ddb, console):
    lines(console)
    for url in ("/healthz", "/readyz", "/readyz", "/metrics"):
        assert Client().get(url).status_code == 200
    assert lines(console, "storefront.requests") == []
    assert Client(REMOTE_ADDR="203.0.113.9").get("/metrics").status_code == 403  # a refused scrape is logged
    assert [line["status"] for line in lines(console, "storefront.requests")] == [403]


def test_log_format_text_and_a_wrong_value():
    code = ("import django, logging; django.setup(); "
            "logging.getLogger('storefront.requests').warning('hello %s', 'there')")
    text = run(["-c", code], {**PRODUCTION, "LOG_FORMAT": "text"})
    assert text.returncode == 0, text.stderr
    assert re.search(r"WARNING storefront\.requests \[-\] hello there", text.stderr)
    assert not text.stderr.lstrip().startswith("{")
    default = run(["-c", code], PRODUCTION)
    assert json.loads(default.stderr.strip().splitlines()[-1])["message"] == "hello there"
    wrong = run(["manage.py", "check"], {**PRODUCTION, "LOG_FORMAT": "xml"})
    assert wrong.returncode != 0 and "LOG_FORMAT must be json or text" in wrong.stderr
