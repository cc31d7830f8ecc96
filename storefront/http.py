"""HTTP helpers shared by every app's views: query parameters, HTMX partial choice, the methods pages take."""
import logging
from functools import lru_cache, wraps
from urllib.parse import quote_plus

from django.conf import settings
from django.http import HttpResponseNotAllowed
from django.middleware.csrf import rotate_token

from catalog.gateway import InvalidInput
from common.numbers import Unreadable, parse_whole

log = logging.getLogger(__name__)


def client_ip(request):
    """The client's address: REMOTE_ADDR, or behind TRUSTED_PROXY_COUNT proxies of ours the address the
    outermost of them saw (allauth's per-address rate limits ask this)."""
    count = settings.TRUSTED_PROXY_COUNT
    if count:
        hops = [h.strip() for h in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if h.strip()]
        if len(hops) >= count:
            return hops[-count]
    elif "HTTP_X_FORWARDED_FOR" in request.META:
        _warn_proxy_not_trusted(request.META.get("REMOTE_ADDR"))
    return request.META.get("REMOTE_ADDR")


_proxy_warned = False


def _warn_proxy_not_trusted(address: str | None) -> None:
    """Once per process: a proxy sends X-Forwarded-For but TRUSTED_PROXY_COUNT is 0."""
    global _proxy_warned
    if _proxy_warned:
        return
    _proxy_warned = True
    log.warning(
        "A request came with X-Forwarded-For but TRUSTED_PROXY_COUNT is 0: every client looks like the proxy "
        "(%s), and the per-address limits (sign-in, sign-up, password reset, alerts) apply to all clients "
        "together. Set TRUSTED_PROXY_COUNT to the number of proxies of yours in front of the app servers.",
        address)


def optional_param(request, name):
    """A GET parameter, or None when it is missing or empty."""
    value = request.GET.get(name, "")
    return value or None


def number_param(request, name, *, minimum, maximum):
    """A whole-number GET parameter in [minimum, maximum], None when missing; anything else is bad input."""
    value = optional_param(request, name)
    if value is None:
        return None
    try:
        return parse_whole(value, minimum=minimum, maximum=maximum)
    except Unreadable:
        raise InvalidInput(f"{name} must be a whole number from {minimum} to {maximum}.") from None


def query_string(**params):
    """The query string of the non-empty parameters, "?category=3&after=...": what
    QueryDict.urlencode gives (urlencode's quoting), with each pair quoted once a process: a browse
    page makes one per filter chip and sort link, from the same few IDs and sort orders."""
    pairs = [_pair(key, str(value)) for key, value in params.items() if value]
    return "?" + "&".join(pairs) if pairs else ""


@lru_cache(maxsize=4096)
def _pair(key, value):
    return f"{quote_plus(key)}={quote_plus(value)}"


def wants_partial(request):
    """An HTMX request that swaps part of the page (not a history restore, which wants it all)."""
    return bool(request.htmx) and not request.htmx.history_restore_request


def partial_template(request, name, part):
    """`name#part` (a {% partialdef %} of the page's template) for an HTMX swap, else the page."""
    return f"{name}#{part}" if part and wants_partial(request) else name


def csrf_cookie_for_new_visitors(view):
    """Django's @ensure_csrf_cookie for a page that posts nothing, paid only on a visitor's first
    page: a visitor who has the CSRF cookie already gets no token made (masking one draws 32 random
    characters), one who has none gets the cookie. Without it, a new visitor who
    opened several products from a list in new tabs would have each tab set its own secret, and
    adding to the cart from all but the last tab would be refused.

    The cookie comes from `rotate_token`, Django's public call for a new secret (what `get_token`
    does for a visitor without one), without the masked token `get_token` would also make for a
    form this page does not have."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if "CSRF_COOKIE" not in request.META:  # CsrfViewMiddleware puts a valid cookie's secret there
            rotate_token(request)
        return view(request, *args, **kwargs)

    return wrapper


# What the site's pages take: allauth's form views (Django's ProcessFormView) would otherwise
# process a PUT as a POST. Webhooks, where they come, are POSTs.
PAGE_METHODS = ("GET", "HEAD", "POST", "OPTIONS")


class PageMethodsMiddleware:
    """Any other method (PUT, DELETE, PATCH, ...) is a 405 for every URL, before its view runs (once
    the URL is resolved: the request metrics name the view)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_view(self, request, view_func, view_args, view_kwargs):
        if request.method not in PAGE_METHODS:
            return HttpResponseNotAllowed(PAGE_METHODS)
        return None
