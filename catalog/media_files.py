"""Uploaded pictures served by the app itself, when it keeps them as files (MEDIA_STORAGE=files) and
MEDIA_URL is one of its own paths, as under `make run`. Only names picture_store makes are answered
(no path is ever joined from what the request says; any other name under MEDIA_URL is a 404, and a
method but GET and HEAD a 405, as on every page), from storages["media"], as WebP,
cached a year (a name never gets other content: catalog/pictures.py) and never sniffed as another type.
Django's static() helper serves only with DEBUG on, and WhiteNoise only files there at start-up.
In production the pictures are in S3 (storefront/media.py)."""
import re
from urllib.parse import urlsplit

from django.conf import settings
from django.core.files.storage import storages
from django.http import FileResponse, Http404
from django.urls import get_script_prefix, re_path
from django.views.decorators.http import require_safe

from storefront.media import CACHE_CONTROL

NAME = re.compile(r"pictures/[A-Za-z0-9_-]{1,64}/[0-9a-f]{32}/[0-9]{1,4}x[0-9]{1,4}\.webp")


@require_safe
def picture_file(request, name):
    if not NAME.fullmatch(name):
        raise Http404("No such picture")
    try:
        file = storages["media"].open(name, "rb")
    except FileNotFoundError:
        raise Http404("No such picture") from None
    response = FileResponse(file, content_type="image/webp")
    response["Cache-Control"] = CACHE_CONTROL
    response["X-Content-Type-Options"] = "nosniff"
    return response


def urlpatterns():
    """The route of picture_file under MEDIA_URL, when the app serves the pictures; else none."""
    if settings.MEDIA_STORAGE != "files" or urlsplit(settings.MEDIA_URL).scheme:
        return []
    # Django puts the script prefix before a MEDIA_URL path; routes are matched after it. Every name
    # under it reaches the view (which answers only NAME): a PUT or DELETE there is a 405 like anywhere.
    media_path = settings.MEDIA_URL.removeprefix(get_script_prefix()).lstrip("/")
    return [re_path(rf"^{re.escape(media_path)}(?P<name>.+)$", picture_file, name="media_picture")]
