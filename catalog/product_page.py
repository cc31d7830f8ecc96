"""The product page's parts that show only the product's own values: the trail (brand › category ›
name), the heading with its picture, and the details (description, specifications). Their markup
is in catalog/product_detail.html's partials; each product's parts are rendered once per process
for the values they show (an LRU of 2,048 products) and placed in the page, which renders the rest
(price, stock, the add-to-cart form) on every request.

The key holds every value the parts show, so a renamed product, a new description, another
specification or a renamed brand gives new parts at once; so do the script prefix, STATIC_URL
and the media storage's URL (a product's own picture can be a static file or an uploaded one).
With DEBUG on the parts are rendered each time.
catalog/memo.py adds the script prefix and URL conf to every key.
"""
from django.conf import settings
from django.template.loader import render_to_string
from django.utils.safestring import SafeString

from .memo import Memo
from .pictures import media_url

TEMPLATE = "catalog/product_detail.html"
PARTS = ("trail", "heading", "details")


def product_parts(product, *, brand_name, category_name):
    """{"trail": ..., "heading": ..., "details": ...}, each safe HTML."""
    if settings.DEBUG:
        return _render(product, brand_name, category_name)
    # repr() keeps True apart from 1 (shown "Yes" and "1") and makes lists hashable.
    attributes = tuple((name, repr(value)) for name, value in product.attributes.items())
    key = (
        product.product_id, product.name, product.brand_id, product.category_id, product.image,
        product.description, attributes, brand_name, category_name, settings.STATIC_URL, media_url(),
    )
    return _held.get(key, (), lambda: _render(product, brand_name, category_name))


def _render(product, brand_name, category_name):
    context = {
        "product": product, "brand_name": brand_name, "category_name": category_name,
        "brand_names": {product.brand_id: brand_name},
    }
    return {part: SafeString(render_to_string(f"{TEMPLATE}#{part}", context)) for part in PARTS}


_held = Memo(2048)

