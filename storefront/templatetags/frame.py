"""{% site_part "assets" %}, {% site_part "footer" %}: the parts of every page's frame that are the
same for every visitor and every page (the style sheet, icon and scripts in the head; the footer's
links). Their markup is in the partials of those names in frame.html; each is rendered once per process
(and again if the script prefix, STATIC_URL or the static files' manifest changes), not on every
page: four `{% static %}` and three links a page. A tag, not a context processor, so the error
pages rendered without the request's context (500, 503) have them too. With DEBUG on, the part
is rendered anew each time, so template edits show at once."""
from functools import lru_cache

from django import template
from django.conf import settings
from django.contrib.staticfiles.storage import staticfiles_storage
from django.template.loader import render_to_string
from django.urls import get_script_prefix
from django.utils.safestring import SafeString

register = template.Library()
PARTS = ("assets", "footer")


def _render(part):
    if part not in PARTS:
        raise template.TemplateSyntaxError(f"site_part: no part {part!r}; there are {', '.join(PARTS)}")
    return SafeString(render_to_string(f"frame.html#{part}"))


@lru_cache(maxsize=32)
def _rendered(part, script_prefix, static_url, manifest):
    return _render(part)


@register.simple_tag
def site_part(part):
    if settings.DEBUG:
        return _render(part)
    manifest = getattr(staticfiles_storage, "manifest_hash", None)
    return _rendered(part, get_script_prefix(), settings.STATIC_URL, manifest)
