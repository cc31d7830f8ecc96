"""The product cards of a list page (brand, category, search, "Load more"), built in one place.

A page has up to 24 cards (many more with ?pages=N); rendering each with an `{% include %}` and its
own `{% url %}`, picture lookup and filters was most of a list page's template time, and a
template loop over prebuilt cards still cost a variable lookup, a condition and a conditional
escape per card. Here the whole list is one string: each card one `str.format` of the markup
below, with every value passed through `html.escape` (what Django's `escape` and the template's
autoescape do: `& < > " '`), the product link reversed once a page. The markup is the card's
whole HTML: change it here.

Each card's HTML is also kept per process for the values it shows (catalog/memo.py, at most 8,192
cards, about 1.8 kB each with its key: up to 15 MB): a card shown before with the same
name, label, price, stock band, picture and link is not escaped and formatted again. A change to
any of those values is a new key, so a card never shows anything but what the product's item
says now.
"""
from html import escape
from urllib.parse import quote

from django.conf import settings
from django.utils.http import RFC3986_SUBDELIMS
from django.utils.safestring import SafeString

from catalog.availability import stock_class, stock_label
from catalog.images import image_url, placeholder_base, placeholder_url
from catalog.memo import Memo, here
from catalog.templatetags.catalog_tags import cached_url, money

CARD = """<li class="card">
  <img class="card-image" src="{}" width="160" height="120" loading="lazy" alt="">
  <a class="card-link" href="{}"{}>
    <span class="card-title">{}</span>
  </a>
  <p class="card-meta">{}</p>
  <p class="card-foot">
    <span class="price">{}</span>
    {}
  </p>
</li>"""
BADGE = '<span class="badge {}">{}</span>'
HEADING = '<li class="group-heading"><h3>{}</h3></li>'
_SAFE_IN_PATH = RFC3986_SUBDELIMS + "~:@"
_ID = "\x01"


def product_cards(products, *, label_of, labels, group_starts=(), brand_names=None, autofocus_first=False):
    """The cards of a page, in order, as one safe string: each card preceded by the heading of
    the group it begins (if any). `label_of(product)` is the key of its label in `labels` (a
    category's ID on a brand page). An empty list gives an empty (false) string."""
    before, after = str(cached_url("product", _ID)).split(quote(_ID), 1)  # one reverse() for every card
    base, parts, brand_names = placeholder_base(), [], brand_names or {}
    low_stock, where = settings.LOW_STOCK_THRESHOLD, here()
    for i, product in enumerate(products):
        key = label_of(product)
        label = labels.get(key, key)
        if product.product_id in group_starts:
            parts.append(HEADING.format(escape(str(label))))
        values = (
            product.product_id, product.name, label, product.price, product.stock_band,
            image_url(product, brand_names, base) if product.image else None,
            brand_names.get(product.brand_id, product.brand_id), product.category_id,
            before, after, base, autofocus_first and i == 0,
        )
        # the low-stock threshold is in the key too: stock_label reads it
        parts.append(_cards.get((values, low_stock), (), lambda values=values: _card(*values), where))
    return SafeString("\n".join(parts))


_cards = Memo(8192)


def _card(product_id, name, label, price, stock_band, picture, brand_name, category_id, before, after, base,
          autofocus):
    """One card's HTML from every value it shows, each escaped: picture (the product's own, or
    None for its brand's and category's placeholder), link (with autofocus on the first card
    "Load more" added), name, label (its category or brand), price and stock badge."""
    badge = ""
    if stock_band is not None:  # the band's label is the level's (availability.stock_band)
        badge = BADGE.format(escape(stock_class(stock_band)), escape(stock_label(stock_band)))
    return CARD.format(
        escape(picture if picture is not None else placeholder_url(brand_name, category_id, base)),
        escape(f"{before}{quote(str(product_id), safe=_SAFE_IN_PATH)}{after}"),
        " autofocus" if autofocus else "", escape(str(name)), escape(str(label)), escape(money(price)), badge,
    )
