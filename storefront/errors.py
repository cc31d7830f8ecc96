"""Catalog errors become friendly pages: 400 for bad input, 404 for unknown IDs,
503 when DynamoDB or the accounts database cannot serve us. Never a traceback."""
import logging
import sys

from django.db import DatabaseError
from django.http import HttpResponse, HttpResponseServerError
from django.shortcuts import render
from django.template import loader

from catalog.gateway import CatalogUnavailable, InvalidInput, NotFound

log = logging.getLogger(__name__)


class CatalogErrorMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if isinstance(exception, DatabaseError):
            return database_unavailable(request, exception)
        if isinstance(exception, CatalogUnavailable):
            log.warning("503 for %s: %s", request.path, exception)
            response = render(request, "503.html", {"message": str(exception)}, status=503)
            response["Retry-After"] = "5"
            return response
        if isinstance(exception, NotFound):
            return render(request, "404.html", {"message": str(exception)}, status=404)
        if isinstance(exception, InvalidInput):
            return render(request, "400.html", {"message": str(exception)}, status=400)
        return None


def server_error(request):
    """handler500: the accounts database out of reach (even in the session or auth middleware, outside
    any view) is a 503 like DynamoDB's; anything else the plain 500 page."""
    exception = sys.exc_info()[1]
    if isinstance(exception, DatabaseError):
        return database_unavailable(request, exception)
    return HttpResponseServerError(loader.render_to_string("500.html", {"request": request}))


def database_unavailable(request, exception):
    """503, rendered without context processors: they would read the session from the same database."""
    log.warning("503 for %s: database: %s", request.path, exception)
    response = HttpResponse(loader.render_to_string("503.html", {"request": request}), status=503)
    response["Retry-After"] = "5"
    return response
