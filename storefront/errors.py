"""Catalog errors become friendly pages: 400 for bad input, 404 for unknown IDs, 409 for an
idempotency key reused for another request, 503 when DynamoDB (within the request's time
budget), the accounts database or the shared cache (Redis, CACHE_URL) cannot serve us. Never a
traceback. And the private pages' caching headers."""
import logging
import sys

from django.conf import settings
from django.db import DatabaseError
from django.http import HttpResponse, HttpResponseServerError
from django.shortcuts import render
from django.template import loader
from django.utils.cache import patch_cache_control

from catalog.gateway import (
    CatalogUnavailable,
    IdempotencyConflict,
    InvalidInput,
    NotFound,
    OutcomeUnknown,
    request_budget,
)

log = logging.getLogger(__name__)

# Seconds a shopper is asked to wait before trying again after a 503.
RETRY_AFTER = "5"


class CatalogErrorMiddleware:
    """Every request's DynamoDB calls share one time budget from here on (DYNAMODB_READ_BUDGET for
    a GET, DYNAMODB_WRITE_BUDGET for a POST); what the gateway raises becomes a page."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        with request_budget(request.method):
            return self.get_response(request)

    def process_exception(self, request, exception):
        if isinstance(exception, DatabaseError) or cache_unreachable(exception):
            return database_unavailable(request, exception)
        if isinstance(exception, CatalogUnavailable):
            log.warning("503 for %s: %s", request.path, exception)
            return unavailable(request, unknown=isinstance(exception, OutcomeUnknown))
        if isinstance(exception, NotFound):
            return render(request, "404.html", {"message": str(exception)}, status=404)
        if isinstance(exception, IdempotencyConflict):
            return render(request, "409.html", {"message": str(exception)}, status=409)
        if isinstance(exception, InvalidInput):
            return render(request, "400.html", {"message": str(exception)}, status=400)
        return None


def server_error(request):
    """handler500: the accounts database or the shared cache out of reach (even in the session or auth
    middleware, outside any view) is a 503 like DynamoDB's; anything else the plain 500 page."""
    exception = sys.exc_info()[1]
    if isinstance(exception, DatabaseError) or cache_unreachable(exception):
        return database_unavailable(request, exception)
    return HttpResponseServerError(loader.render_to_string("500.html", {"request": request}))


def database_unavailable(request, exception):
    """503, rendered without context processors: they would read the session from the same database, or
    names from the same cache. Redis' client connects again by itself at the next request once it is back."""
    log.warning("503 for %s: %s: %s", request.path, "cache" if cache_unreachable(exception) else "database",
                exception)
    response = HttpResponse(loader.render_to_string("503.html", {"request": request}), status=503)
    response["Retry-After"] = RETRY_AFTER
    return response


def cache_unreachable(exception: BaseException | None) -> bool:
    """A Redis error of the shared cache (CACHE_URL). redis is imported only by Django's RedisCache, when
    CACHE_URL is set (importing it also loads OpenTelemetry's SDK): never imported, none was raised."""
    module = sys.modules.get("redis.exceptions")
    return module is not None and isinstance(exception, module.RedisError)


def unavailable(request, *, unknown=False):
    """The 503 page, with Retry-After; `unknown`: a change was sent and its outcome is unknown."""
    response = render(request, "503.html", {"unknown": unknown}, status=503)
    response["Retry-After"] = RETRY_AFTER
    return response


# Views of these modules show one person's cart, checkout, orders, account or the back office.
PRIVATE_VIEW_MODULES = ("shop.", "staff.", "django.contrib.auth.", "allauth.")


class PrivatePagesMiddleware:
    """`Cache-Control: private, no-store` on the cart, checkout, account and staff pages (every
    view of the shop and staff apps, Django's and allauth's account views), errors included: no shared
    cache or browser history keeps them. Any other page rendered for a signed-in visitor (a catalog page
    with the sign-out form's CSRF token, the visitor's name) is `private`: no shared cache keeps it, even
    one that ignores `Vary: Cookie`."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if getattr(request, "private_page", False):
            patch_cache_control(response, private=True, no_store=True)
        elif _signed_in(request) and not _kept_private(response):
            patch_cache_control(response, private=True)
        return response

    def process_view(self, request, view_func, view_args, view_kwargs):
        module = getattr(getattr(view_func, "view_class", view_func), "__module__", "") or ""
        request.private_page = module.startswith(PRIVATE_VIEW_MODULES)
        return None


def _signed_in(request) -> bool:
    """Whether a user is signed in; without a session cookie nobody is, and the session is not read.
    With the accounts database out of reach, maybe: taken as yes."""
    if settings.SESSION_COOKIE_NAME not in request.COOKIES:
        return False
    user = getattr(request, "user", None)
    try:
        return bool(user is not None and user.is_authenticated)
    except DatabaseError:
        return True


def _kept_private(response) -> bool:
    directives = {d.strip().split("=")[0].lower() for d in response.get("Cache-Control", "").split(",")}
    return bool(directives & {"private", "no-store"})
