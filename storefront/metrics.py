"""Metrics of the site's requests, and `/metrics` to read every metric of the process.

`RequestMetricsMiddleware` (first in settings.MIDDLEWARE, so that its time covers every other
middleware) records two figures a request on prometheus_client, the least that answers "how many,
which page, which status, how slow" (README "Operating it"):
- `fromatoz_http_requests_total{view, method, status}`: answers by view (the URL pattern's name;
  `unresolved` for what no pattern matched: a 404, a static file, a redirect to the slash);
- `fromatoz_http_request_duration_seconds{view, method}`: their time, every middleware included;
and, only when a view raises what no other middleware turned into a page (a 500), one more:
- `fromatoz_http_exceptions_total{type}`.
It replaces django-prometheus' two middlewares, which record about a dozen metrics a request (by
method, transport, view, status, body sizes, two latency histograms) and were most of what metrics
cost a page (README "Operating it", what it costs).

`/metrics`: Prometheus' text format (prometheus_client's own exposition: every gunicorn worker's
figures added up in its multiprocess mode, see gunicorn.conf.py), for a scraper connected directly from
an address in METRICS_ALLOWED_CIDRS (default loopback) and for a request with
`Authorization: Bearer <METRICS_TOKEN>`; 403 for anyone else, and for a request through a proxy without
the token."""
import functools
import hmac
import ipaddress
import os
import time

from django.conf import settings
from django.http import HttpResponse, HttpResponseForbidden
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)

MIDDLEWARE = "storefront.metrics.RequestMetricsMiddleware"

# Seconds: pages take milliseconds, a stalled one the read budget (1.5 s), a checkout the write budget.
LATENCY_BUCKETS = (0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
# A method label outside these is `other`: a client's made-up methods must not make new series.
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
UNRESOLVED = "unresolved"

REQUESTS = Counter("fromatoz_http_requests", "Answers by view, method and status", ["view", "method", "status"])
DURATION = Histogram("fromatoz_http_request_duration_seconds", "Requests' time, every middleware included",
                     ["view", "method"], buckets=LATENCY_BUCKETS)
EXCEPTIONS = Counter("fromatoz_http_exceptions", "Exceptions of views that no middleware made a page of (500s)",
                     ["type"])



@functools.cache
def _child(metric, *values):
    """A metric's child for these label values, looked up once: prometheus_client's labels() takes a
    lock and checks the names on every call (views, methods and statuses are few)."""
    return metric.labels(*values)


class RequestMetricsMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        started = time.perf_counter()
        response = self.get_response(request)
        seconds = time.perf_counter() - started
        match = request.resolver_match
        view = (match.view_name or UNRESOLVED) if match is not None else UNRESOLVED
        method = request.method if request.method in METHODS else "other"
        _child(REQUESTS, view, method, str(response.status_code)).inc()
        _child(DURATION, view, method).observe(seconds)
        return response

    def process_exception(self, request, exception):
        # Called last (this middleware is the outermost): only what no other middleware answered.
        _child(EXCEPTIONS, type(exception).__name__).inc()


def allowed(request) -> bool:
    """The bearer METRICS_TOKEN, or a scraper connected directly from METRICS_ALLOWED_CIDRS: the TCP peer
    (REMOTE_ADDR) is judged, never X-Forwarded-For, and a request that came through a proxy (it carries
    X-Forwarded-For) needs the token: behind a proxy on the same host every client's peer is loopback.
    /readyz' details ask this too."""
    token = settings.METRICS_TOKEN
    if token:
        scheme, _, given = request.headers.get("Authorization", "").partition(" ")
        if scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), token.encode()):
            return True
    if "HTTP_X_FORWARDED_FOR" in request.META:
        return False
    try:
        address = ipaddress.ip_address(request.META.get("REMOTE_ADDR") or "")
    except ValueError:
        return False
    return any(address in network for network in settings.METRICS_ALLOWED_NETWORKS)


def registry():
    """What /metrics serves: every worker's files in PROMETHEUS_MULTIPROC_DIR added up (gunicorn),
    else this process' own metrics (`manage.py runserver`, the tests)."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        collected = CollectorRegistry()
        multiprocess.MultiProcessCollector(collected)
        return collected
    return REGISTRY


@never_cache
@require_safe
def metrics(request):
    if not allowed(request):
        return HttpResponseForbidden("Metrics are served to the addresses in METRICS_ALLOWED_CIDRS, or with "
                                     "Authorization: Bearer <METRICS_TOKEN>.\n", content_type="text/plain")
    return HttpResponse(generate_latest(registry()), content_type=CONTENT_TYPE_LATEST)
