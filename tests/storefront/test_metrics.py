"""/metrics: Prometheus' text format, served to METRICS_ALLOWED_CIDRS or with the bearer token (403
for anyone else); it counts what an operator alerts on: checkouts placed and sold out, a throttled
DynamoDB request (a scripted DynamoDB answering ProvisionedThroughputExceededException), answers by
view and status."""
import ipaddress
import json
import re

import pytest
from django.test import Client
from prometheus_client.parser import text_string_to_metric_families

from catalog import gateway
from catalog.gateway import client as dynamo
from tests.scripted_dynamodb import THROTTLED, Scripted
from tests.shop.test_views import add, checkout_form
from tests.storefront.test_deploy import PRODUCTION, run

pytestmark = pytest.mark.django_db


def scrape(**headers):
    """Every sample of /metrics (asked from loopback): {(name, sorted labels): value}."""
    response = Client().get("/metrics", headers=headers)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain; version=")
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(response.content.decode())
        for sample in family.samples
    }


def value(samples, name, **labels):
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def changed(before, after, name, **labels):
    return value(after, name, **labels) - value(before, name, **labels)


# --- who may read them ------------------------------------------------------------------------

def test_metrics_are_refused_to_other_addresses_without_the_token(ddb, settings):
    settings.METRICS_TOKEN = "a-long-random-scrape-token"
    outside = Client(REMOTE_ADDR="203.0.113.9")
    refused = outside.get("/metrics")
    assert refused.status_code == 403 and b"METRICS_ALLOWED_CIDRS" in refused.content
    assert b"fromatoz_" not in refused.content
    assert outside.get("/metrics", headers={"Authorization": "Bearer wrong-token"}).status_code == 403
    assert outside.get("/metrics", headers={"Authorization": "Basic a-long-random-scrape-token"}).status_code == 403
    allowed = outside.get("/metrics", headers={"Authorization": "Bearer a-long-random-scrape-token"})
    assert allowed.status_code == 200 and b"fromatoz_http_requests_total" in allowed.content
    assert Client().get("/metrics").status_code == 200  # loopback, the default METRICS_ALLOWED_CIDRS


def test_without_a_token_set_no_bearer_gets_in(ddb, settings):
    settings.METRICS_TOKEN = ""
    outside = Client(REMOTE_ADDR="203.0.113.9")
    assert outside.get("/metrics", headers={"Authorization": "Bearer "}).status_code == 403


def test_allowed_networks_are_judged_by_the_tcp_peer(ddb, settings):
    settings.METRICS_ALLOWED_NETWORKS = [ipaddress.ip_network("10.1.0.0/16")]
    assert Client(REMOTE_ADDR="10.1.2.3").get("/metrics").status_code == 200
    assert Client(REMOTE_ADDR="10.2.0.1").get("/metrics").status_code == 403
    assert Client(REMOTE_ADDR="127.0.0.1").get("/metrics").status_code == 403  # loopback no longer listed


def test_a_forged_x_forwarded_for_does_not_open_the_metrics(ddb, settings):
    """The app server reachable directly while TRUSTED_PROXY_COUNT=1: the header names loopback, the
    peer is a stranger."""
    settings.TRUSTED_PROXY_COUNT = 1
    stranger = Client(REMOTE_ADDR="198.51.100.23")
    for forged in ("127.0.0.1", "10.0.0.1, 127.0.0.1", "::1"):
        assert stranger.get("/metrics", headers={"X-Forwarded-For": forged}).status_code == 403, forged
    settings.TRUSTED_PROXY_COUNT = 0
    assert stranger.get("/metrics", headers={"X-Forwarded-For": "127.0.0.1"}).status_code == 403


def test_through_a_proxy_on_the_same_host_the_metrics_need_the_token(ddb, settings):
    """Behind a proxy on the same host every client's peer is loopback: a request that came through a proxy
    (it carries X-Forwarded-For) is served with the token only."""
    settings.METRICS_TOKEN = "a-long-random-scrape-token"
    proxied = Client(REMOTE_ADDR="127.0.0.1")
    for count in (0, 1):
        settings.TRUSTED_PROXY_COUNT = count
        assert proxied.get("/metrics", headers={"X-Forwarded-For": "203.0.113.9"}).status_code == 403
        with_token = {"X-Forwarded-For": "203.0.113.9", "Authorization": "Bearer a-long-random-scrape-token"}
        assert proxied.get("/metrics", headers=with_token).status_code == 200
    assert proxied.get("/metrics").status_code == 200  # a scraper on the host itself, connected directly


@pytest.mark.parametrize("cidrs", ["10.0.0.0/33", "localhost", "10.0.0.1,,nope"])
def test_an_unreadable_cidr_list_stops_the_site_with_a_clear_message(cidrs):
    result = run(["manage.py", "check"], {**PRODUCTION, "METRICS_ALLOWED_CIDRS": cidrs})
    assert result.returncode != 0 and "METRICS_ALLOWED_CIDRS must be" in result.stderr


# --- what they count --------------------------------------------------------------------------

def test_a_placed_checkout_and_a_sold_out_one_are_counted(catalog, client, shopper):
    client.force_login(shopper)
    before = scrape()
    add(client, "4", 1)
    client.post("/checkout/", checkout_form(client), follow=True)
    after_placed = scrape()
    assert changed(before, after_placed, "fromatoz_checkouts_total", outcome="placed") == 1
    assert changed(before, after_placed, "fromatoz_checkouts_total", outcome="sold_out") == 0
    assert changed(before, after_placed, "fromatoz_dynamodb_requests_total",
                   operation="TransactWriteItems", outcome="ok") == 1

    add(client, "8", 1)  # the last Acme Roadster, which another buyer takes first
    form = checkout_form(client)
    gateway.stock_decrease(product_id="8", quantity=1, token="other-buyer", reason="sold")
    html = client.post("/checkout/", form, follow=True).content.decode()
    assert "Acme Roadster is sold out." in html
    after = scrape()
    assert changed(after_placed, after, "fromatoz_checkouts_total", outcome="sold_out") == 1
    assert changed(after_placed, after, "fromatoz_checkouts_total", outcome="placed") == 0
    assert changed(after_placed, after, "fromatoz_http_requests_total",
                   status="302", view="checkout", method="POST") == 1


def test_a_throttled_dynamodb_request_is_counted_with_its_retries_and_the_503(catalog, settings):
    throttling = Scripted([THROTTLED])
    try:
        settings.DYNAMODB_ENDPOINT_URL = throttling.url
        dynamo.reset_client()
        before = scrape()
        response = Client().get("/products/1/")
        after = scrape()
    finally:
        throttling.close()
    assert response.status_code == 503
    throttled = outcome_changes(before, after, "throttled")
    assert sum(throttled.values()) == 1, throttled  # the page's first read, throttled to the end
    [operation] = throttled
    assert changed(before, after, "fromatoz_dynamodb_retries_total", operation=operation) == \
        len(throttling.requests) - 1
    assert changed(before, after, "fromatoz_dynamodb_request_duration_seconds_count", operation=operation) == 1
    assert changed(before, after, "fromatoz_http_requests_total",
                   status="503", view="product", method="GET") == 1


def outcome_changes(before, after, outcome):
    """{operation: how many more calls ended in `outcome`}."""
    return {dict(labels)["operation"]: after[key] - before.get(key, 0.0) for key in after
            for name, labels in [key]
            if name == "fromatoz_dynamodb_requests_total" and dict(labels)["outcome"] == outcome
            and after[key] != before.get(key, 0.0)}


def test_a_refused_conditional_write_is_counted_as_a_conditional_check_failure(catalog):
    before = scrape()
    with pytest.raises(gateway.StockMoved):  # a stocktake started at 60, but there are 70: not written
        gateway.stock_count(product_id="1", counted=58, expected_level=60, token="count-1")
    refused = outcome_changes(before, scrape(), "conditional_check_failed")
    assert sum(refused.values()) == 1, refused


def test_answers_are_counted_by_view_method_and_status_with_their_time(catalog):
    before = scrape()
    assert Client().get("/products/1/").status_code == 200
    assert Client().get("/no-such-page/").status_code == 404
    after = scrape()
    assert changed(before, after, "fromatoz_http_requests_total", view="product", method="GET", status="200") == 1
    assert changed(before, after, "fromatoz_http_request_duration_seconds_count", view="product", method="GET") == 1
    assert changed(before, after, "fromatoz_http_request_duration_seconds_sum", view="product", method="GET") > 0
    # no URL pattern matched: one label for all of them, not one a path
    assert changed(before, after, "fromatoz_http_requests_total", view="unresolved", method="GET", status="404") == 1


def test_a_made_up_method_is_counted_as_other_not_as_a_new_series(ddb):
    before = scrape()
    assert Client().generic("BREW-COFFEE", "/healthz").status_code == 405
    after = scrape()
    assert changed(before, after, "fromatoz_http_requests_total", view="healthz", method="other", status="405") == 1
    assert not [key for key in after if ("method", "BREW-COFFEE") in key[1]]


def test_an_unhandled_exception_is_counted_by_type_and_a_handled_one_is_not(catalog, monkeypatch):
    from catalog import views

    def broken(**kwargs):
        raise RuntimeError("the product page broke")

    before = scrape()
    assert Client().get("/products/no-such-product/").status_code == 404  # the gateway's NotFound: a page
    monkeypatch.setattr(views.gateway, "product_get", broken)
    assert Client(raise_request_exception=False).get("/products/1/").status_code == 500
    after = scrape()
    assert changed(before, after, "fromatoz_http_exceptions_total", type="RuntimeError") == 1
    assert sum(after[key] - before.get(key, 0) for key in after if key[0] == "fromatoz_http_exceptions_total") == 1
    assert changed(before, after, "fromatoz_http_requests_total", view="product", method="GET", status="500") == 1


def test_every_dashboard_panel_queries_metrics_that_metrics_serves(ddb):
    from tests.helpers import REPO

    dashboard = json.loads((REPO / "docs" / "grafana-dashboard.json").read_text())
    queried = {name for panel in dashboard["panels"] for target in panel["targets"]
               for name in re.findall(r"([a-z_]+)\{", target["expr"])} - {"up"}  # Prometheus' own
    response = Client().get("/metrics")
    served = set()
    for family in text_string_to_metric_families(response.content.decode()):
        kind_suffixes = {"counter": ["_total"], "histogram": ["_bucket", "_count", "_sum"]}.get(family.type, [""])
        served |= {family.name + suffix for suffix in kind_suffixes}
    assert queried and queried <= served, queried - served
