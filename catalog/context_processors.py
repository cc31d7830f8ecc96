from django.template.loader import render_to_string

from . import names
from .gateway import CatalogUnavailable
from .memo import Memo

_menus_memo = Memo(16)


def _render_menus(brands, categories):
    return render_to_string("frame.html#menus", {"nav_brands": brands, "nav_categories": categories})


def _menus():
    """The header's brand and category menus (markup: frame.html's `menus` partial), rendered once per
    process for each list of names the cache holds (the same objects until they are read anew); read
    only if a template shows them."""
    try:
        brands, categories = names.brands(), names.categories()
        return _menus_memo.get("menus", (brands, categories), lambda: _render_menus(brands, categories))
    except CatalogUnavailable:
        return _render_menus([], [])  # the page itself says what is wrong; the header just shows no names


def navigation(request):
    # The header's search box is empty unless the page is a search (the view's own `query` wins):
    # a name missing from the context costs a failed lookup on every page.
    return {"nav_menus": _menus, "query": ""}
