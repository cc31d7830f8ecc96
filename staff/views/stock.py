"""Staff stock pages: find a product, a brand's or a category's stock levels, and a product's stock
page (level, adjustment, stocktake, reorder point, stock buckets, history). An adjustment records
the staff user's username as "who". With HTMX a form answers with just the part that changes (a
partial of the same template)."""

from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import reverse

from catalog import gateway, names
from catalog.gateway import (
    IdempotencyConflict,
    InsufficientStock,
    InvalidInput,
    NotFound,
    OutcomeUnknown,
    StockMoved,
    holds_all,
    holds_enabled,
    holds_released,
)
from storefront.errors import RETRY_AFTER
from storefront.http import optional_param, partial_template, query_string, wants_partial

from ..access import may
from ..decorators import POST, READ, READ_AND_POST, staff_view
from ..forms import (
    INCREASE,
    FindProductForm,
    HistoryFilterForm,
    ReorderPointForm,
    StockAdjustmentForm,
    StockBucketsForm,
    StockListForm,
    StocktakeForm,
)
from ..models import CATALOG, WAREHOUSE


@staff_view(READ, htmx=False, permission=None)
def home(request):
    """The stock pages, or the catalog editor for staff who may use only that."""
    if not may(request.user, WAREHOUSE) and may(request.user, CATALOG):
        return redirect("staff_catalog")
    return redirect("staff_stock")


@staff_view(READ)
def stock_list(request):
    """Find a product by ID (?product=), or see a brand's or a category's products with their
    stock levels (?brand=, ?category=; one Query a page)."""
    find = FindProductForm(request.GET if "product" in request.GET else None)
    status = 200
    if find.is_bound:
        status = 400
        if find.is_valid():
            product_id = find.cleaned_data["product"]
            try:
                gateway.product_get(product_id=product_id)
            except NotFound as exc:
                find.add_error("product", f"{exc}.")
                status = 404
            else:
                return redirect("staff_product_stock", product_id=product_id)
    listing = StockListForm(request.GET if {"brand", "category"} & set(request.GET) else None)
    context = {"find": find, "listing": listing, "page": None, "after": optional_param(request, "after")}
    if listing.is_bound and not listing.is_valid():
        status = 400
    elif listing.is_bound:
        context.update(_stock_table(request, listing.cleaned_data, after=context["after"]))
    # "Load more" appends the next rows.
    template = partial_template(request, "staff/stock_list.html", "rows" if context["after"] else None)
    return render(request, template, context, status=status)


def _stock_table(request, choice, *, after):
    brand_id, category_id = choice["brand"] or None, choice["category"] or None
    if brand_id:
        page = gateway.products_by_brand(brand_id=brand_id, category_id=category_id, after=after)
    else:
        page = gateway.products_by_category(category_id=category_id, after=after)
    page = gateway.with_stock_levels(page)  # the lists carry the stock band; staff see the exact level
    brand_names, category_names = names.brand_names(), names.category_names()
    heading = " · ".join(n for n in (brand_names.get(brand_id), category_names.get(category_id)) if n)
    return {
        "page": page,
        "heading": heading,
        "brand_names": brand_names,
        "category_names": category_names,
        "first_url": request.path + query_string(brand=brand_id, category=category_id),
        "next_url": (request.path + query_string(brand=brand_id, category=category_id, after=page.next_cursor))
        if page.next_cursor
        else None,
    }


@staff_view(READ_AND_POST)
def product_stock(request, product_id):
    """A product's stock level (consistent GetItem), the adjustment form and its history (one
    Query). A POST adjusts the stock through the gateway, once per form token."""
    if request.method != "POST":  # GET or HEAD
        return _stock_page(request, product_id, form=StockAdjustmentForm.fresh())
    form = StockAdjustmentForm(request.POST)
    if not form.is_valid():
        return _stock_page(request, product_id, form=_resubmittable(form), status=400)
    data = form.cleaned_data
    write = gateway.stock_increase if data["action"] == INCREASE else gateway.stock_decrease
    try:
        change = write(
            product_id=product_id, quantity=data["quantity"], token=data["token"], reason=data["reason"],
            reference=data["reference"], note=data["note"], who=request.user.get_username(),
            expected_level=data["seen_level"], expected_reorder_point=data["seen_reorder_point"],
        )
    except InsufficientStock as exc:
        form.add_error(
            "quantity", f"Only {exc.available} in stock: cannot remove {exc.requested}. Nothing was changed."
        )
        return _stock_page(request, product_id, form=form, status=409,
                           told=(exc.available, data["seen_reorder_point"]))
    except InvalidInput as exc:
        form.add_error(None, str(exc))
        return _stock_page(request, product_id, form=form, status=400)
    except IdempotencyConflict as exc:
        # The key was used for another change: say which; a new key for a deliberate new change.
        form = _with_new_token(form)
        form.add_error(None, str(exc))
        return _stock_page(request, product_id, form=form, status=409)
    except OutcomeUnknown:
        return _outcome_unknown(request, product_id, form)
    # A replayed token (double click, resubmission) answers as the first time.
    delta = change.adjustment.delta
    confirmation = f"{'Received' if delta > 0 else 'Removed'} {abs(delta)}: stock is now {change.level}."
    if not request.htmx:
        messages.success(request, confirmation)
        return redirect("staff_product_stock", product_id=product_id)
    return _stock_page(
        request, product_id, form=StockAdjustmentForm.fresh(), confirmation=confirmation,
        # A replay's level is the first answer's: read the level instead.
        told=None if change.replayed else (change.level, data["seen_reorder_point"]),
    )


def _resubmittable(form):
    """A form with errors keeps its token (nothing was written with it), unless the token was
    what was wrong."""
    return _with_new_token(form) if "token" in form.errors else form


def _with_new_token(form):
    form.data = form.data.copy()
    form.data["token"] = gateway.new_token()
    return form


def _outcome_unknown(request, product_id, form):
    """DynamoDB did not confirm the adjustment: it may have been applied (already or when DynamoDB
    catches up). The page says so, with the same form and the same token (submitting it again
    applies it at most once) and a link to the product's history; nothing here reads DynamoDB.
    504 (no answer in time from upstream), which htmx swaps in place like a form error."""
    response = render(
        request,
        partial_template(request, "staff/outcome_unknown.html", "stock"),
        {"product_id": product_id, "form": form},
        status=504,
    )
    response["Retry-After"] = RETRY_AFTER
    return response


SHOWN = {"confirmation", "moves", "count_form", "reorder_form", "buckets_form"}


def _stock_page(request, product_id, *, form, status=200, told=None, **shown):
    """The whole page (GetItem + Query); with HTMX after a POST the level, forms and history
    (the Query, and the GetItem unless the write `told` the level: (level, reorder point)); with HTMX
    and ?after= the next history rows (the Query). ?reason= shows the changes of one reason (a Query
    of the ByReason index instead). `shown`: a `confirmation`, the stocktake's `moves`, and a refused
    `count_form`, `reorder_form` or `buckets_form` in the place of a fresh one."""
    if not SHOWN.issuperset(shown):
        raise TypeError(f"_stock_page() shows no {sorted(set(shown) - SHOWN)}")
    after = optional_param(request, "after")
    history_filter, reason, filter_ok = _history_filter(request)
    status = status if filter_ok else 400
    partial = None
    if wants_partial(request):
        partial = "stock" if request.method == "POST" else ("history-page" if after else None)
    count_form = shown.get("count_form")
    context = {"product_id": product_id, "form": form, "confirmation": shown.get("confirmation"), "after": after,
               "history_filter": history_filter, "reason": reason, "moves": shown.get("moves"),
               "count_form": count_form}
    if partial is None or (partial == "stock" and told is None):
        product = gateway.product_get(product_id=product_id, consistent=True)
        level, reorder_point = product.stock_level, product.reorder_point
        context.update(_product_context(product_id, product, reorder_form=shown.get("reorder_form"),
                                        buckets_form=shown.get("buckets_form")))
    else:  # the write told the level, and the form's reorder point is the hint for the next write
        level, reorder_point = told or (None, None)
    if partial != "history-page" and count_form is None:
        held = None  # timed holds: what a count is made against, beside the level
        if holds_enabled():
            holds = context["holds_now"] if "holds_now" in context else holds_all(product_id=product_id)
            held = sum(hold.quantity for hold in holds)
        context["count_form"] = StocktakeForm.fresh(level=level, reorder_point=reorder_point, held=held)
    context.update(level=level, reorder_point=reorder_point, **_history_context(request, product_id, reason, after))
    return render(request, partial_template(request, "staff/product_stock.html", partial), context, status=status)


def _history_filter(request):
    """The ?reason= filter of a product's history (on GET): (the form, the reason or None, whether it was valid)."""
    history_filter = HistoryFilterForm(request.GET if request.method == "GET" and "reason" in request.GET else None)
    if not history_filter.is_bound:
        return history_filter, None, True
    if not history_filter.is_valid():
        return history_filter, None, False
    return history_filter, history_filter.cleaned_data["reason"] or None, True


def _product_context(product_id, product, *, reorder_form, buckets_form):
    """What the whole stock page shows of the product beside its level: names, forms, alerts, holds."""
    context = {
        "product": product,
        "brand_name": names.brand_names().get(product.brand_id, product.brand_id),
        "category_name": names.category_names().get(product.category_id, product.category_id),
        "reorder_form": reorder_form or ReorderPointForm(initial={"reorder_point": product.reorder_point}),
        "alerts_waiting": product.alerts_waiting,  # back-in-stock alerts, on the product item
        "buckets_form": buckets_form or StockBucketsForm(initial={"stock_buckets": product.stock_buckets}),
    }
    if holds_enabled():  # timed holds: held and released lately, a Query each
        context.update(holds_now=holds_all(product_id=product_id),
                       holds_released=holds_released(product_id=product_id))
    return context


def _history_context(request, product_id, reason, after):
    """A page of the product's history (one Query; consistent unless of one reason) and its links."""
    history = gateway.stock_history(product_id=product_id, reason=reason, after=after, consistent=reason is None)
    return {
        "history": history,
        "history_next_url": (request.path + query_string(reason=reason, after=history.next_cursor))
        if history.next_cursor else None,
        "csv_url": reverse("staff_product_history_csv", args=[product_id]) + query_string(reason=reason),
    }


@staff_view(POST)
def product_stocktake(request, product_id):
    """Set the stock to what was counted: a `counted` change of the difference, only if the stock
    is still the level the form showed. If it moved (a sale meanwhile), nothing is written and
    the form comes back with the level and the moves since, to confirm."""
    form = StocktakeForm(request.POST)
    if not form.is_valid():
        return _stock_page(request, product_id, form=StockAdjustmentForm.fresh(), count_form=form, status=400)
    data = form.cleaned_data
    try:
        change = gateway.stock_count(
            product_id=product_id, counted=data["counted"], expected_level=data["seen_level"], token=data["token"],
            note=data["note"], who=request.user.get_username(), expected_reorder_point=data["seen_reorder_point"],
            expected_held=data["seen_held"],
        )
    except StockMoved as exc:
        moves = gateway.stock_moves_since(product_id=product_id, at=data["opened_at"]) if data["opened_at"] else []
        return _stock_page(request, product_id, form=StockAdjustmentForm.fresh(), count_form=_count_again(data, exc),
                           moves=moves, status=409)
    delta = change.adjustment.delta
    confirmation = f"Counted {data['counted']} ({delta:+d}): stock is now {change.level}."
    if change.replayed:
        confirmation = f"This count was saved already: stock was set to {change.level}."
    return _saved(request, product_id, confirmation)


def _count_again(data, moved):
    """The stocktake form again after the stock (or the units held) moved while counting, saying what moved."""
    held = data["seen_held"] if moved.held is None else moved.held
    again = StocktakeForm(
        data={**StocktakeForm.state(level=moved.level, reorder_point=data["seen_reorder_point"],
                                    token=data["token"], held=held),
              "counted": data["counted"], "note": data["note"]},
    )
    again.is_valid()
    if moved.level == data["seen_level"] and moved.held is not None:  # only the units held moved
        again.add_error(None, (
            f"Shoppers paying now hold {moved.held} units of it, not {data['seen_held']} as when you started "
            f"counting (held units are on the shelf, out of the stock). Nothing was changed. Check the shelf; "
            f"save again to count {data['counted']} against {moved.level} in stock and {moved.held} held."
        ))
    else:
        again.add_error(None, (
            f"The stock changed while you counted: it is now {moved.level}, not {data['seen_level']}. Nothing was "
            f"changed. Check the moves below; save again to set the stock to {data['counted']} from {moved.level}."
        ))
    return again


@staff_view(POST)
def product_reorder_point(request, product_id):
    """Set a product's reorder point (empty: the default), which puts it on or off the reorder list."""
    form = ReorderPointForm(request.POST)
    if not form.is_valid():
        return _stock_page(request, product_id, form=StockAdjustmentForm.fresh(), reorder_form=form, status=400)
    product = gateway.product_set_reorder_point(product_id=product_id, reorder_point=form.cleaned_data["reorder_point"])
    confirmation = f"Reorder point set to {product.effective_reorder_point}" + (
        " (the default)." if product.reorder_point is None else ".")
    return _saved(request, product_id, confirmation)


@staff_view(POST)
def product_stock_buckets(request, product_id):
    """Set how many stock buckets a product's stock is spread over (1: one item; more for a product
    sold by a crowd at once). The total stays as it is."""
    form = StockBucketsForm(request.POST)
    if not form.is_valid():
        return _stock_page(request, product_id, form=StockAdjustmentForm.fresh(), buckets_form=form, status=400)
    product = gateway.stock_set_buckets(product_id=product_id, buckets=form.cleaned_data["stock_buckets"])
    confirmation = f"Stock buckets set to {product.stock_buckets}; stock is still {product.stock_level}."
    return _saved(request, product_id, confirmation)


def _saved(request, product_id, confirmation):
    """After a stock page form was saved: back to the page with `confirmation` (with HTMX, the stock part)."""
    if not request.htmx:
        messages.success(request, confirmation)
        return redirect("staff_product_stock", product_id=product_id)
    return _stock_page(request, product_id, form=StockAdjustmentForm.fresh(), confirmation=confirmation)
