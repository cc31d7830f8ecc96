"""Shopper pages. Thin views: the gateway reads, the templates show; with an HX-Request
header a page answers with just the part that changes (a partial of the same template)."""
from django.shortcuts import render
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_headers

from storefront.http import optional_param, partial_template, query_string

from . import gateway, names


@require_GET
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


def _browse(request, *, owner, owner_kind, filters, filter_param, selected, page, labels):
    chosen = getattr(selected, f"{filter_param}_id", None)
    first_url = request.path + query_string(**{filter_param: chosen})
    context = {
        "filter_links": _filter_links(request, filters, filter_param, selected),
        "first_url": first_url,
        "next_url": (request.path + query_string(**{filter_param: chosen, "after": page.next_cursor}))
        if page.next_cursor
        else None,
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


@require_GET
@vary_on_headers("HX-Request")
def brand_detail(request, brand_id):
    """Pattern 6, or 7 with ?category=: a brand's products."""
    brand = names.brand(brand_id)
    category_id = optional_param(request, "category")
    selected = names.category(category_id) if category_id else None
    page = gateway.products_by_brand(brand_id=brand_id, category_id=category_id, after=optional_param(request, "after"))
    return _browse(
        request, owner=brand, owner_kind="brand", filters=names.categories(), filter_param="category",
        selected=selected, page=page, labels=names.category_names(),
    )


@require_GET
@vary_on_headers("HX-Request")
def category_detail(request, category_id):
    """Pattern 8, or 9 with ?brand=: a category's products."""
    category = names.category(category_id)
    brand_id = optional_param(request, "brand")
    selected = names.brand(brand_id) if brand_id else None
    page = gateway.products_by_category(
        category_id=category_id, brand_id=brand_id, after=optional_param(request, "after")
    )
    return _browse(
        request, owner=category, owner_kind="category", filters=names.brands(), filter_param="brand",
        selected=selected, page=page, labels=names.brand_names(),
    )


@require_GET
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
