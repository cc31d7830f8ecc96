from django.conf import settings
from django.utils.functional import SimpleLazyObject

from . import names
from .gateway import CatalogUnavailable


def _or_empty(load):
    def inner():
        try:
            return load()
        except CatalogUnavailable:
            return []  # the page itself says what is wrong; the header just shows no menu

    return SimpleLazyObject(inner)


def navigation(request):
    """All brands and categories for the header menus, read only if a template uses them.
    The rendered menus are cached as long as the names are (base.html, names.NAV_FRAGMENT)."""
    return {
        "nav_brands": _or_empty(names.brands),
        "nav_categories": _or_empty(names.categories),
        "nav_cache_seconds": settings.CATALOG_NAMES_TTL,
    }
