"""The staff upload pages refuse a request body larger than their file's cap (plus room for the form's other
fields) from its Content-Length, before Django reads or parses any of it (CSRF's check reads the form): a 413
with a clear message, nothing read, nothing changed."""
from django.http import HttpResponse
from django.urls import Resolver404, resolve

from catalog.pictures import MAX_BYTES as PICTURE_BYTES

from .catalog_csv import MAX_BYTES as CSV_BYTES

FORM_ROOM = 1024 * 1024  # the form's other fields and the multipart framing
LIMITS = {"staff_catalog_import": ("CSV file", CSV_BYTES), "staff_catalog_product": ("picture", PICTURE_BYTES),
          "staff_catalog_product_new": ("picture", PICTURE_BYTES)}


class UploadLimitMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.method == "POST":
            refusal = _too_large(request)
            if refusal is not None:
                return refusal
        return self.get_response(request)


def _too_large(request):
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return HttpResponse("The request's Content-Length is not a number.", status=400, content_type="text/plain")
    if length <= min(cap for _, cap in LIMITS.values()) + FORM_ROOM:
        return None  # small enough for every upload page: no URL lookup
    try:
        name = resolve(request.path_info).url_name
    except Resolver404:
        return None
    if name not in LIMITS:
        return None
    what, cap = LIMITS[name]
    if length <= cap + FORM_ROOM:
        return None
    return HttpResponse(f"The upload is too large: a {what} may be at most {cap // (1024 * 1024)} MB. "
                        "Nothing was saved.", status=413, content_type="text/plain; charset=utf-8")
