"""Traces with OpenTelemetry while settings.TRACING is on (an OTLP endpoint is set): a span per request
(OpenTelemetry's Django instrumentation), a child span per DynamoDB request (botocore's instrumentation)
and one per query of the accounts database
(`DatabaseSpansMiddleware`, through Django's execute_wrapper). The trace ID goes into every log line
(storefront/logcontext.py).

Tracing off costs nothing: this module imports no OpenTelemetry code until `start`, and
`DatabaseSpansMiddleware` takes itself out of the middleware chain (MiddlewareNotUsed).
"""
from django.conf import settings
from django.core.exceptions import MiddlewareNotUsed
from django.db import connections

from . import logcontext

_tracer = None  # while tracing is on
_stop = []  # what `stop` undoes


def start(*, exporter=None):
    """Tracing on, in this process. `exporter` None: spans go to OTLP over HTTP, batched, as the
    standard OTEL_* variables say (endpoint, headers, sampler); a test passes the SDK's
    InMemorySpanExporter (each span handed over as it ends)."""
    global _tracer
    from opentelemetry import trace
    from opentelemetry.instrumentation.botocore import BotocoreInstrumentor
    from opentelemetry.instrumentation.django import DjangoInstrumentor
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor

    provider = TracerProvider(resource=Resource.create({"service.name": settings.TRACING_SERVICE_NAME}))
    if exporter is None:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
        trace.set_tracer_provider(provider)
    else:
        provider.add_span_processor(SimpleSpanProcessor(exporter))
    # Its middleware goes first in settings.MIDDLEWARE: started before the WSGI handler loads them.
    DjangoInstrumentor().instrument(tracer_provider=provider, excluded_urls=settings.TRACING_EXCLUDED_URLS)
    BotocoreInstrumentor().instrument(tracer_provider=provider)
    _tracer = provider.get_tracer("fromatoz")

    def current_trace_id():
        context = trace.get_current_span().get_span_context()
        return format(context.trace_id, "032x") if context.is_valid else "-"

    logcontext.trace_id = current_trace_id
    _stop[:] = [DjangoInstrumentor().uninstrument, BotocoreInstrumentor().uninstrument, provider.shutdown]
    return provider


def stop():
    """Tracing off again (the tests)."""
    global _tracer
    _tracer = logcontext.trace_id = None
    for undo in _stop:
        undo()
    _stop.clear()


class DatabaseSpansMiddleware:
    """A span for each query of the accounts database made while a request is served (sessions,
    users, the sign-in lockout), while tracing is on; none otherwise."""

    def __init__(self, get_response):
        if _tracer is None:
            raise MiddlewareNotUsed
        self.get_response = get_response

    def __call__(self, request):
        with connections["default"].execute_wrapper(_query_span):
            return self.get_response(request)


def _query_span(execute, sql, params, many, context):
    connection = context["connection"]
    from opentelemetry.trace import SpanKind

    with _tracer.start_as_current_span(
        (sql.split(None, 1) or ["query"])[0].upper(), kind=SpanKind.CLIENT,
        attributes={"db.system": connection.vendor, "db.name": str(connection.settings_dict["NAME"]),
                    "db.statement": sql},
    ):
        return execute(sql, params, many, context)
