"""The request a log line belongs to: its request ID and, while tracing is on, its trace ID.

Read by the logging configuration itself (settings.LOGGING), before Django's apps are loaded: this
module imports nothing of Django or OpenTelemetry.
"""
import contextvars
import logging

request_id = contextvars.ContextVar("request_id", default="-")

# While tracing is on (storefront/tracing.py): a function giving the current trace ID, or "-".
trace_id = None


class RequestContextFilter(logging.Filter):
    """Adds `request_id` and `trace_id` to every record ("-" outside a request, or without tracing)."""

    def filter(self, record):
        # Django's own line about a request's answer (django.request) comes after the request's
        # middleware is done: its request carries the ID.
        record.request_id = getattr(getattr(record, "request", None), "request_id", None) or request_id.get()
        record.trace_id = trace_id() if trace_id is not None else "-"
        return True


HEALTH_PATHS = frozenset({"/healthz", "/readyz"})


class NotHealthChecks(logging.Filter):
    """Leaves out Django's line about each failing health check's answer."""

    def filter(self, record):
        return getattr(getattr(record, "request", None), "path", None) not in HEALTH_PATHS
