"""{% site_part "assets" %}, {% site_part "footer" %}: the parts of every page's frame that are the
same for every visitor and every page (the style sheet, icon and scripts in the head; the footer's
links, what prices include, the delivery note). Their markup is in the partials of those names in
frame.html; each is rendered once per process (and again if STATIC_URL, the static files' manifest,
SHOP_PRICES_INCLUDE_VAT or SHOP_DELIVERY_NOTE changes; catalog/memo.py adds the script prefix and URL
conf to every key), not on every
page: four `{% static %}` and three links a page. A tag, not a context processor, so the error
pages rendered without the request's context (500, 503) have them too. With DEBUG on, the part
is rendered anew each time, so template edits show at once. `{% visitor_links %}`: the header's
links for a visitor who is not signed in, kept per cart count and page address."""
from django import template
from django.conf import settings
from django.contrib.staticfiles.storage import staticfiles_storage
from django.template.loader import render_to_string
from django.utils.safestring import SafeString

from catalog.memo import Memo

register = template.Library()
PARTS = ("assets", "footer")


def _render(part):
    if part not in PARTS:
        raise template.TemplateSyntaxError(f"site_part: no part {part!r}; there are {', '.join(PARTS)}")
    context = {"prices_include_vat": settings.SHOP_PRICES_INCLUDE_VAT, "delivery_note": settings.SHOP_DELIVERY_NOTE}
    return SafeString(render_to_string(f"frame.html#{part}", context))


_parts = Memo(32)


def _render_visitor_links(cart_count, next_path):
    return SafeString(render_to_string("frame.html#visitor-links", {"cart_count": cart_count, "next_path": next_path}))


# Addresses longer than this (a crafted query string, say) are rendered, not kept: the LRU's memory stays
# near 2,048 × a few hundred bytes whatever the URLs asked for.
MAX_KEPT_PATH = 256


_visitor_links = Memo(2048)


@register.simple_tag(takes_context=True)
def visitor_links(context):
    """The header's cart badge, "Sign in" (back to this page) and "Create an account", for a visitor
    who is not signed in (base.html asks `user.is_authenticated` first; a signed-in user's links,
    with a name and a sign-out form, are rendered in place). They show nothing but the cart's count
    and the page's address, so they are kept per process for those, at most 2,048; with DEBUG on they
    are rendered each time."""
    request = context.get("request")
    next_path = request.get_full_path() if request is not None else ""
    cart_count = context.get("cart_count", 0)
    if settings.DEBUG or len(next_path) > MAX_KEPT_PATH:
        return _render_visitor_links(cart_count, next_path)
    return _visitor_links.get((cart_count, next_path), (), lambda: _render_visitor_links(cart_count, next_path))


@register.simple_tag
def site_part(part):
    if settings.DEBUG:
        return _render(part)
    manifest = getattr(staticfiles_storage, "manifest_hash", None)
    # the footer says what prices include and what delivery costs
    key = (part, settings.STATIC_URL, manifest, settings.SHOP_PRICES_INCLUDE_VAT, settings.SHOP_DELIVERY_NOTE)
    return _parts.get(key, (), lambda: _render(part))
