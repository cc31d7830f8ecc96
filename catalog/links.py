"""The filter chips and sort links of a list page, built in one place (like catalog/cards.py).

A category page has a chip per brand (fifty in the bench catalog): in the template each chip was
six variable lookups, escapes and a condition, the largest part of a list page's template time.
Here each link is one `str.format` of the markup below with every value passed through
`html.escape` (what Django's `escape` and the template's autoescape do), and the list is one safe
string the template places. Every link is a real link (no-JS fallback) that htmx enhances.
"""
from html import escape

from django.utils.safestring import SafeString

from .memo import Memo

CHIP = (
    '<li><a id="filter-{}" class="chip" href="{}" hx-get="{}" hx-target="#browse" hx-swap="outerHTML" '
    'hx-push-url="true" hx-indicator="#browse-indicator"{}>{} ({})</a></li>'
)
SORT = (
    '<li><a id="sort-{}" class="sort" href="{}" hx-get="{}" hx-target="#browse" hx-swap="outerHTML" '
    'hx-push-url="true" hx-indicator="#browse-indicator"{}>{}</a></li>'
)
CURRENT = ' aria-current="true"'


def filter_chips(chips):
    """`chips`: (key, name, count, url, current) for "All" and each filter value. One string of
    `<li>`s, empty (false) when there are none."""
    return SafeString("\n".join(
        CHIP.format(escape(key), url := escape(href), url, CURRENT if current else "", escape(str(name)), count)
        for key, name, count, href, current in chips
    ))


def sort_links(links):
    """`links`: (key, name, url, current) for each sort order. One string of `<li>`s."""
    return SafeString("\n".join(
        SORT.format(escape(key), url := escape(href), url, CURRENT if current else "", escape(str(name)))
        for key, name, href, current in links
    ))


# A page's chips depend on its path, the chosen filter and the sort order, all checked
# against the names before the chips are made: about 4 sorts x (filters + 1) per brand or category.
chips_memo = Memo(512)  # a category page of 50 brands has about 15 kB of chips


_sorts = Memo(1024)


def sort_links_for(links):
    """sort_links for a tuple of links, made once per process for each (the links hold every value
    shown)."""
    return _sorts.get(links, (), lambda: sort_links(links))
