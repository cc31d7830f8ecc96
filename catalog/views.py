"""Shopper pages. Thin views: the gateway reads, the templates show; with an HX-Request
header a page answers with just the part that changes (a partial of the same template)."""
from django.conf import settings
from django.shortcuts import render
from django.views.decorators.http import require_safe
from django.views.decorators.vary import vary_on_headers

from storefront.http import number_param, optional_param, partial_template, query_string, wants_partial

from . import gateway, names


@require_safe
def home(request):
    return render(request, "catalog/home.html", {"brands": names.brands(), "categories": names.categories()})


def _filter_links(request, filters, filter_param, selected):
    """"All" plus one link per filter value; each a real link, enhanced by HTMX."""
    chosen = getattr(selected, f"{filter_param}_id", None)
    links = [{"key": "all", "name": "All", "url": request.path, "current": chosen is None}]
    for f in filters:
        value = getattr(f, f"{filter_param}_id")
        links.append(
            {
                "key": f"{filter_param}-{value}",
                "name": f.name,
                "url": request.path + query_string(**{filter_param: value}),
                "current": value == chosen,
            }
        )
    return links


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


def _browse(request, *, owner, owner_kind, filters, filter_param, selected, page, pages, number, labels):
    chosen = getattr(selected, f"{filter_param}_id", None)
    first_url = request.path + query_string(**{filter_param: chosen})
    fragment = wants_partial(request)
    shown = pages or number or 1  # pages shown: the last one's number
    if number and fragment:
        view = f"pages 1–{number}"  # "Load more" appended page `number` to what was there
    elif number:
        view = f"page {number}"
    else:
        view = f"pages 1–{pages}" if pages and pages > 1 else ""
    context = {
        "filter_links": _filter_links(request, filters, filter_param, selected),
        "first_url": first_url,
        "next_url": (
            request.path + query_string(**{filter_param: chosen, "after": page.next_cursor, "page": shown + 1})
        )
        if page.next_cursor
        else None,
        # where "Load more" takes the address bar: every page loaded so far, in one URL
        "more_url": request.path + query_string(**{filter_param: chosen, "pages": shown + 1})
        if page.next_cursor and shown < MAX_PAGES
        else None,
        "view": view,
        "fragment": fragment,
        "owner": owner,
        "owner_kind": owner_kind,
        "filters": filters,
        "filter_param": filter_param,
        "selected": selected,
        "page": page,
        "labels": labels,
        "after": optional_param(request, "after"),
    }
    # "Load more" appends one page; a filter replaces the filters and the list.
    template = partial_template(request, "catalog/product_list.html", "page" if context["after"] else "browse")
    return render(request, template, context)


@require_safe
@vary_on_headers("HX-Request")
def brand_detail(request, brand_id):
    """Pattern 6, or 7 with ?category=: a brand's products."""
    brand = names.brand(brand_id)
    category_id = optional_param(request, "category")
    selected = names.category(category_id) if category_id else None
    after, limit, pages, number = _pages(request)
    page = gateway.products_by_brand(brand_id=brand_id, category_id=category_id, after=after, limit=limit)
    return _browse(
        request, owner=brand, owner_kind="brand", filters=names.categories(), filter_param="category",
        selected=selected, page=page, pages=pages, number=number, labels=names.category_names(),
    )


@require_safe
@vary_on_headers("HX-Request")
def category_detail(request, category_id):
    """Pattern 8, or 9 with ?brand=: a category's products."""
    category = names.category(category_id)
    brand_id = optional_param(request, "brand")
    selected = names.brand(brand_id) if brand_id else None
    after, limit, pages, number = _pages(request)
    page = gateway.products_by_category(category_id=category_id, brand_id=brand_id, after=after, limit=limit)
    return _browse(
        request, owner=category, owner_kind="category", filters=names.brands(), filter_param="brand",
        selected=selected, page=page, pages=pages, number=number, labels=names.brand_names(),
    )


@require_safe
def product_detail(request, product_id):
    """Pattern 3: one product, its stock read fresh."""
    product = gateway.product_get(product_id=product_id)
    return render(
        request,
        "catalog/product_detail.html",
        {
            "product": product,
            "brand_name": names.brand_names().get(product.brand_id, product.brand_id),
            "category_name": names.category_names().get(product.category_id, product.category_id),
        },
    )
