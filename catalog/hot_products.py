"""A hot product's reads for shoppers' pages, kept a second.

A product whose stock is spread over buckets (gateway/stock/buckets.py: the few products a crowd buys) costs
one GetItem and one BatchGetItem of its K buckets a read. Read on every product page, add to cart, cart
and checkout page, those reads, not its writes, would cap its sales (`make capacity`). So for shoppers
the spread product, as read with its buckets, is kept in Django's cache `hot_products`
(`HOT_PRODUCT_CACHE_SECONDS`, default 1; each server process its own copy unless CACHES names a shared
cache): a process reads it about once a second however many buy it. What a shopper sees of it is then up
to a second old; nothing is decided on it: the checkout reads the product again, consistently, and its
writes are conditional on price, reorder point and level (orders.order_place). A product on one item (K = 1,
or gathered) is not kept: its pages read it with one GetItem each time; staff pages always read exactly.
"""
from django.core.cache import caches

from . import gateway
from .gateway import units_held

CACHE = "hot_products"


def _key(product_id):
    return f"product:{product_id}"


def _keep(cache, products):
    spread = {_key(p.product_id): p for p in products if p.spread}
    if spread:
        cache.set_many(spread)


def product_for_shopper(product_id):
    """The product (gateway.product_get), a spread one from the cache while it is there."""
    cache = caches[CACHE]
    product = cache.get(_key(gateway.check_id("Product", product_id)))
    if product is None:
        product = gateway.product_get(product_id=product_id)
        _keep(cache, [product])
    return product


def products_for_shopper(product_ids):
    """{product_id: Product} (gateway.products_get_many), the spread ones from the cache while they are there:
    one BatchGetItem of the others (none when all are kept), one more for the buckets of any spread among them."""
    cache = caches[CACHE]
    ids = list(dict.fromkeys(gateway.check_id("Product", pid) for pid in product_ids))
    kept = cache.get_many([_key(pid) for pid in ids])
    found = {pid: kept[_key(pid)] for pid in ids if _key(pid) in kept}
    missing = [pid for pid in ids if pid not in found]
    if missing:
        fresh = gateway.products_get_many(product_ids=missing)
        _keep(cache, fresh.values())
        found.update(fresh)
    return found


def units_held_for_shopper(product_id):
    """Units of a sold-out product held by shoppers paying now (gateway.units_held: a Query of each of its
    hold partitions, reading every hold item), kept a second: the sold-out page of a drop is what its crowd
    reloads, and the figure is only information (nothing is decided on it)."""
    cache = caches[CACHE]
    key = f"held:{gateway.check_id('Product', product_id)}"
    held = cache.get(key)
    if held is None:
        held = units_held(product_id=product_id, consistent=False)
        cache.set(key, held)
    return held
