"""Catalog errors become friendly pages: 400 for bad input, 404 for unknown IDs,
503 when DynamoDB cannot serve us. Never a traceback."""
import logging

from django.shortcuts import render

from catalog.gateway import CatalogUnavailable, InvalidInput, NotFound

log = logging.getLogger(__name__)


class CatalogErrorMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
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
