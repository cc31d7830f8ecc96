"""The product cards of a list page (brand, category, search, "Load more"), built in one place.

A page has up to 24 cards (many more with ?pages=N); rendering each with an `{% include %}` and its
own `{% url %}`, picture lookup and filters was most of a list page's template time. Here a card is
one `format_html` (every value escaped, as the template's autoescape does) with the product link
reversed once a page. The markup is the card's whole HTML: change it here.
"""
from dataclasses import dataclass
from urllib.parse import quote

from django.utils.html import format_html
from django.utils.http import RFC3986_SUBDELIMS
from django.utils.safestring import SafeString

from catalog.images import image_url
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
_SAFE_IN_PATH = RFC3986_SUBDELIMS + "~:@"
_ID = "\x01"


@dataclass(frozen=True)
class Card:
    heading: str | None  # the group this product begins (a category on a brand page), shown above it
    html: SafeString


def product_card(product, *, label, url, picture, autofocus=False):
    """One card: picture, link (with autofocus on the first card "Load more" added), name, label
    (its category or brand), price and stock badge; every value escaped."""
    level = product.stock_level
    badge = format_html(BADGE, stock_class(level), stock_label(level)) if level is not None else ""
    return format_html(
        CARD, picture, url, SafeString(" autofocus") if autofocus else "", product.name, label,
        money(product.price), badge,
    )


def product_cards(products, *, label_of, labels, group_starts=(), brand_names=None, autofocus_first=False):
    """The cards of a page, in order, each with the group heading it begins (if any).
    `label_of(product)` is the key of its label in `labels` (a category's ID on a brand page)."""
    before, after = str(shop_url("product", _ID)).split(quote(_ID), 1)  # one reverse() for every card
    cards = []
    for i, product in enumerate(products):
        key = label_of(product)
        label = labels.get(key, key)
        url = f"{before}{quote(str(product.product_id), safe=_SAFE_IN_PATH)}{after}"
        html = product_card(
            product, label=label, url=url, picture=image_url(product, brand_names),
            autofocus=autofocus_first and i == 0,
        )
        cards.append(Card(heading=label if product.product_id in group_starts else None, html=html))
    return cards
