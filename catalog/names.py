"""Brand and category names (access patterns 1 and 2) from a short-lived cache.

Every page shows names; reading them on each request would double a browse page's cost.
They are cached for CATALOG_NAMES_TTL seconds (default 60), so a browse page is one Query
and the home page is none while the cache is warm.
"""
from django.conf import settings
from django.core.cache import cache
from django.core.cache.utils import make_template_fragment_key

from . import gateway
from .gateway import NotFound

BRANDS_KEY = "catalog:brands"
CATEGORIES_KEY = "catalog:categories"
# The header menus of base.html, rendered from these names and cached as long (so a renamed
# brand can show its old name in the menus for up to twice CATALOG_NAMES_TTL).
NAV_FRAGMENT = make_template_fragment_key("catalog_nav")


def _cached(key, load):
    value = cache.get(key)
    if value is None:
        value = load()
        cache.set(key, value, settings.CATALOG_NAMES_TTL)
    return value


def brands():
    """Every brand, sorted by name."""
    return _cached(BRANDS_KEY, gateway.brands_all)


def categories():
    """Every category, sorted by name."""
    return _cached(CATEGORIES_KEY, gateway.categories_all)


def brand(brand_id):
    gateway.check_id("Brand", brand_id)
    for b in brands():
        if b.brand_id == brand_id:
            return b
    raise NotFound("Brand", brand_id)


def category(category_id):
    gateway.check_id("Category", category_id)
    for c in categories():
        if c.category_id == category_id:
            return c
    raise NotFound("Category", category_id)


def brand_names():
    return {b.brand_id: b.name for b in brands()}


def category_names():
    return {c.category_id: c.name for c in categories()}


def forget():
    """Drop the cached names (after an import, say)."""
    cache.delete_many([BRANDS_KEY, CATEGORIES_KEY, NAV_FRAGMENT])
