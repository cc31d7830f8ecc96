"""The product cards of a list page (brand, category, search, "Load more"), built in one place.

A page has up to 24 cards (many more with ?pages=N); rendering each with an `{% include %}` and its
own `{% url %}`, picture lookup and filters was most of a list page's template time, and a
template loop over prebuilt cards still cost a variable lookup, a condition and a conditional
escape per card. Here the whole list is one string: each card one `str.format` of the markup
below, with every value passed through `html.escape` (what Django's `escape` and the template's
autoescape do: `& < > " '`), the product link reversed once a page. The markup is the card's
whole HTML: change it here.
"""
from html import escape
from urllib.parse import quote

from django.utils.http import RFC3986_SUBDELIMS
from django.utils.safestring import SafeString

from catalog.images import image_url, placeholder_base
from catalog.templatetags.catalog_tags import money, shop_url
from shop.rules import stock_class, stock_label

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


def product_card(product, *, label, url, picture, autofocus=False):
    """One card's HTML: picture, link (with autofocus on the first card "Load more" added), name,
    label (its category or brand), price and stock badge; every value escaped."""
    level = product.stock_level
    badge = BADGE.format(escape(stock_class(level)), escape(stock_label(level))) if level is not None else ""
    return CARD.format(
        escape(picture), escape(url), " autofocus" if autofocus else "", escape(str(product.name)),
        escape(str(label)), escape(money(product.price)), badge,
    )


def product_cards(products, *, label_of, labels, group_starts=(), brand_names=None, autofocus_first=False):
    """The cards of a page, in order, as one safe string: each card preceded by the heading of
    the group it begins (if any). `label_of(product)` is the key of its label in `labels` (a
    category's ID on a brand page). An empty list gives an empty (false) string."""
    before, after = str(shop_url("product", _ID)).split(quote(_ID), 1)  # one reverse() for every card
    base, parts = placeholder_base(), []
    for i, product in enumerate(products):
        key = label_of(product)
        label = labels.get(key, key)
        if product.product_id in group_starts:
            parts.append(HEADING.format(escape(str(label))))
        url = f"{before}{quote(str(product.product_id), safe=_SAFE_IN_PATH)}{after}"
        parts.append(
            product_card(
                product, label=label, url=url, picture=image_url(product, brand_names, base),
                autofocus=autofocus_first and i == 0,
            )
        )
    return SafeString("\n".join(parts))
