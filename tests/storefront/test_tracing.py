"""Traces (OpenTelemetry, the SDK's in-memory exporter): a product page is one trace whose request
span holds a child span for its DynamoDB request (botocore's instrumentation) and, for a signed-in
shopper, the accounts database's; the trace ID is
in the request's log line. With no OTLP endpoint (or OTEL_SDK_DISABLED) nothing of OpenTelemetry loads."""
import json

import pytest
from django.test import Client
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

from storefront import tracing
from tests.storefront.test_deploy import PRODUCTION, run
from tests.storefront.test_requestlog import Console, lines

pytestmark = pytest.mark.django_db


@pytest.fixture
def spans():
    exporter = InMemorySpanExporter()
    tracing.start(exporter=exporter)
    try:
        yield exporter
    finally:
        tracing.stop()


def product_page_trace(spans, client=None):
    """The spans of one product page: (request span, its DynamoDB children, its database children)."""
    spans.clear()
    assert (client or Client()).get("/products/1/").status_code == 200
    finished = spans.get_finished_spans()
    [request] = [s for s in finished if s.kind == SpanKind.SERVER]
    assert request.name == "GET products/<str:product_id>/" and request.attributes["http.status_code"] == 200
    children = [s for s in finished if s.parent is not None and s.parent.span_id == request.context.span_id]
    assert all(s.context.trace_id == request.context.trace_id for s in finished)
    dynamodb = [s for s in children if s.name.startswith("DynamoDB.")]
    database = [s for s in children if "db.statement" in s.attributes]
    return request, dynamodb, database


def test_a_product_page_trace_holds_its_dynamodb_span(catalog, spans):
    request, dynamodb, database = product_page_trace(spans)
    assert "DynamoDB.GetItem" in [s.name for s in dynamodb]  # botocore's instrumentation
    get_item = next(s for s in dynamodb if s.name == "DynamoDB.GetItem")
    assert get_item.kind == SpanKind.CLIENT and get_item.attributes["rpc.service"] == "DynamoDB"
    assert database == []  # an anonymous shopper without a session: no database query


def test_the_accounts_database_has_its_span_and_the_trace_id_is_logged(catalog, spans, django_user_model):
    client = Client()
    client.force_login(django_user_model.objects.create_user("alice", password="a-long-password-1"))
    console = Console()
    try:
        request, dynamodb, database = product_page_trace(spans, client)
        logged = lines(console, "storefront.requests")
    finally:
        console.handler.setStream(console.stream)
    assert any(s.attributes["db.statement"].startswith("SELECT") and s.attributes["db.system"] == "sqlite"
               for s in database)
    assert logged[-1]["trace_id"] == format(request.context.trace_id, "032x")


LOADED = ("import sys, django; django.setup(); from django.test import Client; Client().get('/healthz'); "
          "print(sorted({m.split('.')[1] for m in sys.modules if m.startswith('opentelemetry.')}))")


@pytest.mark.parametrize("variables, loaded", [
    ({}, False),
    ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9", "OTEL_SDK_DISABLED": "true"}, False),
    ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"}, True),
])
def test_tracing_off_imports_nothing_of_opentelemetry(variables, loaded):
    result = run(["-c", LOADED], {**PRODUCTION, "DJANGO_ALLOWED_HOSTS": "testserver", "DJANGO_HTTPS": "0",
                                  **variables})
    assert result.returncode == 0, result.stderr
    modules = json.loads(result.stdout.strip().splitlines()[-1].replace("'", '"'))
    assert bool(modules) == loaded, modules
    if loaded:
        assert {"sdk", "instrumentation"} <= set(modules)
