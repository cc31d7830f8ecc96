"""Shopper pages. Thin views: the gateway reads, the templates show; with an HX-Request
header a page answers with just the part that changes (a partial of the same template)."""
from django.conf import settings
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe
from django.views.decorators.vary import vary_on_headers

from storefront.http import (
    csrf_cookie_for_new_visitors,
    number_param,
    optional_param,
    partial_template,
    query_string,
    wants_partial,
)

from . import cards, gateway, hot_products, images, names, product_page
from .gateway import holds_enabled


@require_safe
@csrf_cookie_for_new_visitors
def home(request):
    return render(request, "catalog/home.html", {"brands": names.brands(), "categories": names.categories()})


SORT_CHOICES = (
    (None, "Featured"),  # the seed's order: a brand's products by category, a category's by brand
    ("name", "Name A–Z"),
    ("price", "Price low to high"),
    ("-price", "Price high to low"),
)


def _filter_links(request, filters, filter_param, selected, counts, total, sort):
    """"All" plus one chip per filter value that has products, each ending with its count (keeping
    the sort order). Made once per process for each page and sort order while the names (filters,
    counts) are the same objects (cards.filter_chips)."""
    chosen = getattr(selected, f"{filter_param}_id", None)

    def chips():
        yield ("all", "All", total, request.path + query_string(sort=sort), chosen is None)
        for f in filters:
            value = getattr(f, f"{filter_param}_id")
            if counts.get(value):  # no chip leads to an empty list
                yield (
                    f"{filter_param}-{value}", f.name, int(counts[value]),
                    request.path + query_string(**{filter_param: value, "sort": sort}), value == chosen,
                )

    return cards.filter_chips((request.path, filter_param, chosen, sort, total), (filters, counts), chips)


def _sort_links(request, params, sort, choices=SORT_CHOICES):
    return cards.sort_links(tuple(
        (value or "featured", name, request.path + query_string(**params, sort=value), value == sort)
        for value, name in choices
    ))


def _products(n):
    return f"{n} product{'' if n == 1 else 's'}"


def _count_label(count, page, after):
    """ "12 products", "1 product"; for a search of several words whose matches were not all
    read, "More than 24 products" (nothing on a later page)."""
    if count is not None:
        return _products(count)
    if after:
        return None
    return f"More than {_products(len(page.items))}" if page.next_cursor else _products(len(page.items))


# ?pages=N shows the first N pages at once (one Query of N pages): the URL "Load more" puts in the
# address bar, so Back and a reload show every product loaded so far.
MAX_PAGES = 20


def _pages(request):
    """Which part of a list is asked for: (after, limit, pages, number). ?after=<cursor>&page=<k> is
    page k alone (what "Load more" fetches); ?pages=N the first N pages (limit N pages)."""
    after = optional_param(request, "after")
    if after:
        return after, None, None, number_param(request, "page", minimum=2, maximum=10_000)
    pages = number_param(request, "pages", minimum=1, maximum=MAX_PAGES)
    return None, (pages * settings.CATALOG_PAGE_SIZE if pages else None), pages, None


def _view_label(pages, number, fragment):
    """What the title adds: "page 3" (a page alone), "pages 1–3" (all loaded so far)."""
    if number and fragment:
        return f"pages 1–{number}"  # "Load more" appended page `number` to what was there
    if number:
        return f"page {number}"
    return f"pages 1–{pages}" if pages and pages > 1 else ""


def _list_page(request, context, params, sort, page, more=None, pages=None, number=None):
    """What every product list page shares: sort links, first and next page links (and the URL
    "Load more" puts in the address bar), the title's page label, the partial."""
    after = optional_param(request, "after")
    fragment = wants_partial(request)
    shown = pages or number or 1  # pages shown: the last one's number
    context["count_label"] = _count_label(context.pop("count"), page, after)
    paged = context.pop("paged", True)  # whether ?pages=N serves this list
    label_of = (lambda p: p.category_id) if context["owner_kind"] == "brand" else (lambda p: p.brand_id)
    context.update(
        {
            "sort_links": _sort_links(request, params, sort, context.pop("sort_choices", SORT_CHOICES)),
            "sort": sort,
            "first_url": request.path + query_string(**params, sort=sort),
            "next_url": (
                request.path
                + query_string(**params, sort=sort, **(more or {}), after=page.next_cursor, page=shown + 1)
            )
            if page.next_cursor
            else None,
            "more_url": request.path + query_string(**params, sort=sort, pages=shown + 1)
            if paged and page.next_cursor and shown < MAX_PAGES
            else None,
            "view": _view_label(pages, number, fragment),
            "fragment": fragment,
            "page": page,
            "after": after,
            "cards": cards.product_cards(
                page.items, label_of=label_of, labels=context.pop("labels"), group_starts=context.pop("group_starts"),
                brand_names=names.brand_names(), autofocus_first=bool(after),
            ),
        }
    )
    # "Load more" appends one page; a filter or a sort order replaces the filters and the list.
    template = partial_template(request, "catalog/product_list.html", "page" if after else "browse")
    return render(request, template, context)


def _group_starts(request, page, group_of):
    """The products that begin a group (a new category on a brand page, a new brand on a category
    page) in the seed's order; the "Load more" link carries the last group, so a group that
    goes on across pages is not named again."""
    starts, previous = set(), optional_param(request, "group")
    for product in page.items:
        group = group_of(product)
        if group != previous:
            starts.add(product.product_id)
        previous = group
    return starts, previous


def _browse(request, *, owner, owner_kind, selected, page, sort, paging):
    """A brand's page (its categories as filters) or a category's (its brands); `paging`: (pages, number)."""
    if owner_kind == "brand":
        filters, filter_param, labels = names.categories(), "category", names.category_names()
        counts = owner.category_counts
    else:
        filters, filter_param, labels = names.brands(), "brand", names.brand_names()
        counts = owner.brand_counts
    chosen = getattr(selected, f"{filter_param}_id", None)
    total = owner.product_count
    grouped = sort is None and chosen is None
    group_of = (lambda p: p.category_id) if owner_kind == "brand" else (lambda p: p.brand_id)
    starts, last_group = _group_starts(request, page, group_of) if grouped else (set(), None)
    context = {
        "filter_links": _filter_links(request, filters, filter_param, selected, counts, total, sort),
        "owner": owner,
        "owner_kind": owner_kind,
        "filter_param": filter_param,
        "selected": selected,
        "labels": labels,
        "count": counts.get(chosen, 0) if chosen else total,
        "group_starts": starts,
    }
    pages, number = paging
    return _list_page(
        request, context, {filter_param: chosen}, sort, page, more={"group": last_group}, pages=pages, number=number
    )


@require_safe
@vary_on_headers("HX-Request")
@csrf_cookie_for_new_visitors
def brand_detail(request, brand_id):
    """Pattern 6, or 7 with ?category=: a brand's products; ?sort= orders them."""
    brand = names.brand(brand_id)
    category_id = optional_param(request, "category")
    selected = names.category(category_id) if category_id else None
    sort = optional_param(request, "sort")
    after, limit, pages, number = _pages(request)
    page = gateway.products_by_brand(brand_id=brand_id, category_id=category_id, sort=sort, after=after, limit=limit)
    return _browse(request, owner=brand, owner_kind="brand", selected=selected, page=page, sort=sort,
                   paging=(pages, number))


@require_safe
@vary_on_headers("HX-Request")
@csrf_cookie_for_new_visitors
def category_detail(request, category_id):
    """Pattern 8, or 9 with ?brand=: a category's products; ?sort= orders them."""
    category = names.category(category_id)
    brand_id = optional_param(request, "brand")
    selected = names.brand(brand_id) if brand_id else None
    sort = optional_param(request, "sort")
    after, limit, pages, number = _pages(request)
    page = gateway.products_by_category(
        category_id=category_id, brand_id=brand_id, sort=sort, after=after, limit=limit
    )
    return _browse(request, owner=category, owner_kind="category", selected=selected, page=page, sort=sort,
                   paging=(pages, number))


@require_safe
@vary_on_headers("HX-Request")
@csrf_cookie_for_new_visitors
def search(request):
    """Products by name: /search/?q=...; one Query for a one-word search. A query too short to
    search shows a hint and reads nothing."""
    query = (request.GET.get("q") or "")[: gateway.MAX_QUERY].strip()
    sort = optional_param(request, "sort")
    after, _limit, _pages_shown, number = _pages(request)
    _words, term = gateway.search_words(query)
    if term is None:
        gateway.check_sort(sort)
        page = gateway.Page(items=[])
    else:
        page = gateway.products_search(query=query, sort=sort, after=after)
    context = {
        "owner": {"name": f"Search: {query}" if query else "Search"},
        "owner_kind": "search",
        "query": query,
        "hint": term is None,
        "min_term": gateway.MIN_TERM,
        "filter_links": "",
        "labels": names.brand_names(),
        "count": page.total,
        "group_starts": set(),
        "sort_choices": [(None, "Name A–Z"), ("price", "Price low to high"), ("-price", "Price high to low")],
        # A search page fills itself from several Queries (other words checked), so it has no ?pages=N:
        # "Load more" appends without changing the address.
        "paged": False,
    }
    return _list_page(request, context, {"q": query or None}, sort, page, number=number)


@require_safe
def product_detail(request, product_id):
    """Pattern 3: one product, its stock read fresh (a product spread over stock buckets: up to a second
    old, hot_products)."""
    product = hot_products.product_for_shopper(product_id)
    if not product.published and not request.user.is_staff:
        raise Http404("No such product")  # hidden by staff: shoppers see no page; staff see it with a banner
    brand_name = names.brand_names().get(product.brand_id, product.brand_id)
    category_name = names.category_names().get(product.category_id, product.category_id)
    return render(
        request,
        "catalog/product_detail.html",
        {
            "product": product,
            "parts": product_page.product_parts(product, brand_name=brand_name, category_name=category_name),
            # Sold out: "Email me when it's back" says how many wait (the product item counts them).
            "alert_waiting": None if product.in_stock else product.alerts_waiting,
            # Sold out while shoppers hold units (timed holds): say so (a Query of each hold partition,
            # only then, and at most once a second a process: hot_products).
            "units_held": hot_products.units_held_for_shopper(product_id)
            if not product.in_stock and holds_enabled() else 0,
        },
    )


@require_safe
def placeholder(request, initial, colour):
    """A product's picture when it has none: its brand's initial on its category's colour.
    Made from the URL alone (no lookup), so browsers and proxies cache it for a day."""
    svg = images.placeholder_svg(initial, colour)
    if svg is None:
        raise Http404("No such placeholder")
    response = HttpResponse(svg, content_type="image/svg+xml")
    response["Cache-Control"] = "public, max-age=86400"
    return response
