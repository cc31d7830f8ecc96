"""Staff reports: the reorder list, and stock changes as CSV (a product's history, the ledger of
all products over a range of days)."""
from django.http import HttpResponseBadRequest
from django.shortcuts import render

from catalog import gateway, names
from catalog.gateway import alert_counts
from storefront.http import optional_param, partial_template, query_string

from ..decorators import READ, staff_view
from ..downloads import ADJUSTMENT_HEADER, adjustment_row, csv_response
from ..forms import HistoryFilterForm, LedgerForm, ReorderFilterForm


@staff_view(READ)
def reorder_list(request):
    """Products at or below their reorder point, sold-out first, optionally of a brand and/or a
    category: one Query a page of the sparse Reorder index."""
    listing = ReorderFilterForm(request.GET)
    after = optional_param(request, "after")
    if not listing.is_valid():
        return render(request, "staff/reorder.html", {"listing": listing, "page": None, "after": after}, status=400)
    brand_id, category_id = listing.cleaned_data["brand"] or None, listing.cleaned_data["category"] or None
    page = gateway.products_to_reorder(brand_id=brand_id, category_id=category_id, after=after)
    context = {
        "listing": listing, "page": page, "after": after,
        # Back-in-stock alerts waiting per product of the page: one BatchGetItem.
        "alerts_waiting": alert_counts(product_ids=[product.product_id for product in page.items]),
        "brand_names": names.brand_names(), "category_names": names.category_names(),
        "first_url": request.path + query_string(brand=brand_id, category=category_id),
        "next_url": (request.path + query_string(brand=brand_id, category=category_id, after=page.next_cursor))
        if page.next_cursor else None,
    }
    template = partial_template(request, "staff/reorder.html", "rows" if after else None)
    return render(request, template, context)


@staff_view(READ, shards=True, htmx=False)
def product_history_csv(request, product_id):
    """A product's stock history (?reason= one reason) as CSV, newest first."""
    history_filter = HistoryFilterForm(request.GET)
    if not history_filter.is_valid():
        return HttpResponseBadRequest("Unknown reason.", content_type="text/plain")
    reason = history_filter.cleaned_data["reason"] or None
    gateway.product_get(product_id=product_id)  # an unknown product is a 404, not an empty file
    rows = (adjustment_row(a) for a in gateway.stock_history_all(product_id=product_id, reason=reason))
    return csv_response(f"stock-{product_id}{'-' + reason if reason else ''}.csv", ADJUSTMENT_HEADER, rows)


@staff_view(READ, shards=True, htmx=False)
def ledger(request):
    """Every stock change of a range of days, across all products, as CSV (?start=&end=, UTC)."""
    form = LedgerForm(request.GET if "start" in request.GET or "end" in request.GET else None)
    if form.is_bound and form.is_valid():
        start, end = form.cleaned_data["start"], form.cleaned_data["end"]
        rows = (adjustment_row(a) for a in gateway.stock_ledger(start=start, end=end))
        return csv_response(f"stock-ledger-{start}-to-{end}.csv", ADJUSTMENT_HEADER, rows)
    return render(request, "staff/ledger.html", {"form": form if form.is_bound else LedgerForm.default(),
                                                 "max_days": gateway.MAX_LEDGER_DAYS},
                  status=400 if form.is_bound else 200)
