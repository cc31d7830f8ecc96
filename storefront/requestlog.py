"""One log line per request (logger `storefront.requests`): method, path, status, duration, the
DynamoDB requests and their time, the user (or anonymous), and the request ID, which comes from the
`X-Request-ID` header when it is a sane one (a load balancer's or proxy's) or is made here, and goes
back in the answer's `X-Request-ID`. Health checks and metrics scrapes are left out (a load balancer
asks every few seconds)."""
import logging
import re
import time
import uuid

from django.conf import settings
from django.db import DatabaseError

from catalog.gateway import tallying

from . import logcontext

log = logging.getLogger("storefront.requests")

HEADER = "X-Request-ID"
# A given ID is kept when it is 1 to 128 of these characters (a UUID, a load balancer's hex or
# "Root=1-..." trace ID); anything else (too long, spaces, quotes, control characters) is replaced.
VALID_ID = re.compile(r"[A-Za-z0-9._:;=+/@-]{1,128}")
def quiet(path, status):
    """No line for a health check (/readyz logs its own changes: storefront/health.py) or a served
    metrics scrape; a refused scrape is logged."""
    return path in logcontext.HEALTH_PATHS or (path == "/metrics" and status == 200)


def request_id_of(request):
    """The request's ID: its valid X-Request-ID, else a new one (32 hex digits)."""
    given = request.headers.get(HEADER, "")
    return given if VALID_ID.fullmatch(given) else uuid.uuid4().hex


def user_id(request):
    """The signed-in user's ID, or None: the user is looked up only for a request with a session
    cookie (one without has no user to find, and costs no database read)."""
    if settings.SESSION_COOKIE_NAME not in request.COOKIES:
        return None
    user = getattr(request, "user", None)
    try:
        return user.pk if user is not None and user.is_authenticated else None
    except DatabaseError:  # the database is out of reach: the answer (a 503) says so already
        return None


class RequestLogMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        started = time.perf_counter()
        request.request_id = request_id = request_id_of(request)
        token = logcontext.request_id.set(request_id)
        try:
            with tallying() as dynamodb:
                response = self.get_response(request)
            response[HEADER] = request_id
            if not quiet(request.path, response.status_code):
                self.write(request, response, started, dynamodb)
            return response
        finally:
            logcontext.request_id.reset(token)

    def write(self, request, response, started, dynamodb):
        duration_ms = (time.perf_counter() - started) * 1000
        dynamodb_ms = dynamodb.seconds * 1000
        uid = user_id(request)
        status = response.status_code
        log.log(
            logging.WARNING if status >= 500 else logging.INFO,
            "%s %s %s %.1f ms, DynamoDB %d requests %.1f ms, user %s",
            request.method, request.path, status, duration_ms, dynamodb.requests, dynamodb_ms,
            uid if uid is not None else "anonymous",
            extra={
                "method": request.method, "path": request.path, "status": status,
                "duration_ms": round(duration_ms, 2), "dynamodb_requests": dynamodb.requests,
                "dynamodb_ms": round(dynamodb_ms, 2), "user_id": uid if uid is not None else "anonymous",
            },
        )
