"""The parts of a product list page (brand, category, search, "Load more") that repeat: the product
cards, the filter chips and the sort links. Their markup is in catalog/list_parts.html's partials.

A page has up to 24 cards (many more with ?pages=N) and a category page a chip per brand: rendered
in the page's template, they were most of a list page's template time. Each is rendered once per
process for the values it shows and kept (catalog/memo.py, which adds the script prefix and URL conf
to every key): a card's key holds its name, label, price, stock band (with the threshold that labels
it), picture and product ID, so a change to any of them is a new key and a card never shows anything
but what the product's item says now. The chips are kept per page and sort order while the names they
are made from (filters, counts) are the same objects.
"""
from django.conf import settings
from django.template.loader import render_to_string
from django.utils.safestring import SafeString

from catalog.availability import shopper_state
from catalog.images import image_srcset, image_url, placeholder_base, placeholder_url

from .memo import Memo, here

TEMPLATE = "catalog/list_parts.html"


def product_cards(products, *, label_of, labels, group_starts=(), brand_names=None, autofocus_first=False):
    """The cards of a page, in order, as one safe string: each card preceded by the heading of
    the group it begins (if any). `label_of(product)` is the key of its label in `labels` (a
    category's ID on a brand page). An empty list gives an empty (false) string."""
    base, brand_names = placeholder_base(), brand_names or {}
    low_stock, where = settings.LOW_STOCK_THRESHOLD, here()
    parts = []
    for i, product in enumerate(products):
        key = label_of(product)
        picture = (
            image_url(product, brand_names, base, size="card") if product.image
            else placeholder_url(brand_names.get(product.brand_id, product.brand_id), product.category_id, base)
        )
        card = {
            "product_id": product.product_id, "name": product.name, "label": labels.get(key, key),
            "price": product.price, "stock_band": product.stock_band, "picture": picture,
            "srcset": image_srcset(product, "card") if product.image else "",
            "heading": product.product_id in group_starts, "autofocus": autofocus_first and i == 0,
        }
        # the low-stock threshold is in the key too: the badge's label reads it
        parts.append(_cards.get((tuple(card.values()), low_stock), (), lambda card=card: _card(card), where))
    return SafeString("\n".join(parts))


def _card(card):
    band = card["stock_band"]
    # the band's label is the level's (availability.stock_band)
    return render_to_string(f"{TEMPLATE}#card", {**card, "badge": None if band is None else shopper_state(band)})


_cards = Memo(8192)  # about 1.8 kB a card with its key: up to 15 MB


def filter_chips(key, sources, make_chips):
    """The filter chips' `<li>`s of a page (`key`: what they depend on besides `sources`, the names
    they are made from); `make_chips()` gives (key, name, count, url, current) for each."""
    return _chips.get(key, sources, lambda: _render("filter-chips", chips=make_chips()))


def sort_links(links):
    """`links`: (key, name, url, current) for each sort order, a tuple. One string of `<li>`s."""
    return _sorts.get(links, (), lambda: _render("sort-links", links=links))


def _render(part, **context):
    return SafeString(render_to_string(f"{TEMPLATE}#{part}", context).strip())


_chips = Memo(512)  # a category page of 50 brands has about 15 kB of chips
_sorts = Memo(1024)  # about 4 sorts x (filters + 1) per brand or category
