"""What metrics cost a page (bench/observability.py) on a small catalog: metrics really on in one
client and off in the other, and the figures it promises written into results.json beside what an
earlier run left there."""
import json

import pytest
from prometheus_client import REGISTRY

from bench import observability
from catalog.gateway import client as dynamo

pytestmark = pytest.mark.dynamodb_local


def counted(view):
    labels = {"view": view, "method": "GET", "status": "200"}
    return REGISTRY.get_sample_value("fromatoz_http_requests_total", labels) or 0


def dynamodb_counted():
    return sum(sample.value for family in REGISTRY.collect() if family.name == "fromatoz_dynamodb_requests"
               for sample in family.samples if sample.name == "fromatoz_dynamodb_requests_total")


def test_metrics_are_on_in_one_client_and_off_in_the_other(settings, dynamodb_local_url):
    settings.DYNAMODB_ENDPOINT_URL = dynamodb_local_url
    settings.DYNAMODB_TABLE = "bench-observability-test"
    dynamo.reset_client()
    from catalog.gateway.table import table_delete, table_ensure

    table_ensure(settings.DYNAMODB_TABLE)
    try:
        both = observability.clients()
        before, before_ddb = counted("healthz"), dynamodb_counted()
        with observability.dynamodb_metrics_off():
            assert both["off"].get("/healthz").status_code == 200
            assert both["off"].get("/products/1/").status_code == 404  # one GetItem, not counted
        assert (counted("healthz"), dynamodb_counted()) == (before, before_ddb)
        assert both["on"].get("/healthz").status_code == 200
        assert both["on"].get("/products/1/").status_code == 404
        assert counted("healthz") == before + 1 and dynamodb_counted() == before_ddb + 1
    finally:
        table_delete(settings.DYNAMODB_TABLE)
        dynamo.reset_client()


def test_the_step_writes_each_pages_cost_into_results_json(settings, dynamodb_local_url, tmp_path):
    settings.DYNAMODB_ENDPOINT_URL = dynamodb_local_url
    dynamo.reset_client()
    (tmp_path / "results.json").write_text(json.dumps({"meta": {"quick": True}}))  # an earlier run's
    try:
        observability.run(60, rounds=2, renders=3, pages=["home", "brand", "product"], out=tmp_path,
                          table="bench-observability-step", log=lambda _: None)
    finally:
        dynamo.reset_client()

    results = json.loads((tmp_path / "results.json").read_text())
    assert results["meta"] == {"quick": True}
    figures = results["observability"]
    assert set(figures) == {"home", "brand", "product", "meta"}
    for page in ("home", "brand", "product"):
        f = figures[page]
        assert f["p50_ms_off"] > 0 and f["p50_ms_on"] > 0 and f["renders"] == 2 * 3
        assert abs(f["p50_cost_pct"] - (f["p50_ms_on"] / f["p50_ms_off"] - 1) * 100) < 0.5  # of the unrounded p50s
        assert -100 < f["cost_pct"] < 100 and -100 < f["cpu_cost_pct"] < 100
        assert f["estimated_cost_pct"] > 0
    assert figures["brand"]["dynamodb_requests"] == figures["product"]["dynamodb_requests"] == 1
    meta = figures["meta"]
    assert meta["products"] == 60 and meta["rounds"] == 2 and meta["tracing"] == "off"
    assert meta["parts_us"]["request_us"] > 0 and meta["parts_us"]["dynamodb_request_us"] > 0
    assert meta["worst_cost_pct"] == max(figures[p]["cost_pct"] for p in ("home", "brand", "product"))
