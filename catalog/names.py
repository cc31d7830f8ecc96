"""Brand and category names (access patterns 1 and 2) from a short-lived cache.

Every page shows names; reading them on each request would double a browse page's cost.
They are cached for CATALOG_NAMES_TTL seconds (default 60), so a browse page is one Query
and the home page is none while the cache is warm.

Each process also keeps the names it last read from the cache, unpickled, with the cache
entry's stamp: a page asks the cache only for the small stamp (a brand page names things
five times; unpickling every brand with its category counts each time cost more than the
rest of the view). A cleared, expired or replaced entry has no or another stamp, so the
process reads (or loads) the names again: the cache stays the one source of truth.

While the shared cache (Redis, CACHE_URL) does not answer, pages still show names: the process keeps
what it holds for CATALOG_NAMES_TTL seconds, then loads them from DynamoDB again, and asks the cache
again after a few seconds.
"""
import secrets
import time

from django.conf import settings
from django.core.cache import cache

from storefront.errors import cache_unreachable

from . import gateway
from .gateway import NotFound

BRANDS_KEY = "catalog:brands"
CATEGORIES_KEY = "catalog:categories"

_held = {}  # key -> (stamp, value, derived): this process's copy of the cached value


# After the cache failed to answer, this process leaves it alone this many seconds: a Redis that does not
# answer costs one timeout (CACHE_TIMEOUT) every few seconds, not one on every name a page shows.
CACHE_RETRY_SECONDS = 5.0
_cache_down_until = 0.0


def _entry(key, load):
    global _cache_down_until
    if time.monotonic() >= _cache_down_until:
        try:
            return _from_cache(key, load)
        except Exception as exc:
            if not cache_unreachable(exc):
                raise
            _cache_down_until = time.monotonic() + CACHE_RETRY_SECONDS
    return _without_cache(key, load)


def _without_cache(key, load):
    """The names this process loaded itself, stamped ("local", when): a cache's stamp (a string) never
    matches one, so the names are read from the cache again once it answers."""
    held = _held.get(key)
    now = time.monotonic()
    if held is not None and isinstance(held[0], tuple) and now - held[0][1] < settings.CATALOG_NAMES_TTL:
        return held
    held = _held[key] = (("local", now), load(), {})
    return held


def _from_cache(key, load):
    stamp_key = f"{key}:stamp"
    stamp = cache.get(stamp_key)
    held = _held.get(key)
    if held is not None and stamp is not None and held[0] == stamp:
        return held
    # The value travels with its own stamp: a value and a stamp two processes wrote at once
    # cannot pair up.
    stamped = cache.get(key) if stamp is not None else None
    if stamped is not None and stamped[0] == stamp:
        value = stamped[1]
    else:
        value, stamp = load(), secrets.token_hex(8)
        cache.set_many({key: (stamp, value), stamp_key: stamp}, settings.CATALOG_NAMES_TTL)
    held = _held[key] = (stamp, value, {})
    return held


def _cached(key, load):
    return _entry(key, load)[1]


def _derived(key, load, name, make):
    """A value made from the cached one (an index by ID, say), made once per cache entry."""
    _stamp, value, derived = _entry(key, load)
    if name not in derived:
        derived[name] = make(value)
    return derived[name]


def brands():
    """Every brand, sorted by name."""
    return _cached(BRANDS_KEY, gateway.brands_all)


def categories():
    """Every category, sorted by name."""
    return _cached(CATEGORIES_KEY, gateway.categories_all)


def brand(brand_id):
    gateway.check_id("Brand", brand_id)
    found = _derived(BRANDS_KEY, gateway.brands_all, "by_id", lambda items: {b.brand_id: b for b in items})
    if brand_id not in found:
        raise NotFound("Brand", brand_id)
    return found[brand_id]


def category(category_id):
    gateway.check_id("Category", category_id)
    found = _derived(CATEGORIES_KEY, gateway.categories_all, "by_id", lambda items: {c.category_id: c for c in items})
    if category_id not in found:
        raise NotFound("Category", category_id)
    return found[category_id]


def brand_names():
    """{brand ID: name}; the same dict for every caller until the names change: do not change it."""
    return _derived(BRANDS_KEY, gateway.brands_all, "names", lambda items: {b.brand_id: b.name for b in items})


def category_names():
    """{category ID: name}; the same dict for every caller until the names change: do not change it."""
    return _derived(
        CATEGORIES_KEY, gateway.categories_all, "names", lambda items: {c.category_id: c.name for c in items}
    )


def forget():
    """Drop the cached names (after an import, say)."""
    global _cache_down_until
    cache.delete_many([BRANDS_KEY, CATEGORIES_KEY, f"{BRANDS_KEY}:stamp", f"{CATEGORIES_KEY}:stamp"])
    _held.clear()
    _cache_down_until = 0.0
