"""The CACHES setting: Django's default cache (every limit and the brand and category names) in
Redis when CACHE_URL is set, else in each process' memory; `hot_products` always in memory."""
from django.core.exceptions import ImproperlyConfigured

LOCAL = "django.core.cache.backends.locmem.LocMemCache"


def caches(url, *, timeout, hot_product_seconds):
    """Redis at `url` (None: memory), answering within `timeout` seconds; hot products kept `hot_product_seconds`."""
    if not timeout > 0:
        raise ImproperlyConfigured("CACHE_TIMEOUT must be a number of seconds above 0")
    default = {"BACKEND": LOCAL}
    if url:
        default = {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": url,
                   "OPTIONS": {"socket_connect_timeout": timeout, "socket_timeout": timeout}}
    return {
        "default": default,
        "hot_products": {"BACKEND": LOCAL, "LOCATION": "hot-products", "TIMEOUT": hot_product_seconds},
    }
