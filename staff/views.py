"""Staff pages: stock levels and stock adjustments. Signed-in staff only (Django's auth on
SQLite); an adjustment records the staff user's username as "who". With HTMX a stock
adjustment answers with just the part that changes (a partial of the same template)."""
from functools import wraps

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_safe
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseClientRedirect

from catalog import gateway, names
from catalog.gateway import InsufficientStock, InvalidInput, NotFound
from storefront.http import optional_param, partial_template, query_string, wants_partial

from .forms import INCREASE, FindProductForm, StockAdjustmentForm, StockListForm


def staff_required(view):
    """Anonymous visitors go to the login page (with ?next=); signed-in accounts that are not
    staff get a 403, not another trip to the login page."""

    @login_required
    @wraps(view)
    def staff_only(request, *args, **kwargs):
        if not request.user.is_staff:
            raise PermissionDenied("This page is for staff only.")
        return view(request, *args, **kwargs)

    @wraps(view)
    def signed_in(request, *args, **kwargs):
        if request.htmx and not request.user.is_authenticated:
            # The session ended: open the login page as a page, not in the place of a form.
            login = redirect_to_login(request.htmx.current_url_abs_path or request.get_full_path())
            return HttpResponseClientRedirect(login["Location"])
        return staff_only(request, *args, **kwargs)

    return signed_in


@staff_required
@require_safe
def home(request):
    return redirect("staff_stock")


@staff_required
@require_safe
@vary_on_headers("HX-Request")
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


@staff_required
@require_http_methods(["GET", "HEAD", "POST"])
@vary_on_headers("HX-Request")
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
            who=request.user.get_username(), expected_level=data["seen_level"],
        )
    except InsufficientStock as exc:
        form.add_error(
            "quantity", f"Only {exc.available} in stock: cannot remove {exc.requested}. Nothing was changed."
        )
        return _stock_page(request, product_id, form=form, status=409, level=exc.available)
    except InvalidInput as exc:
        form.add_error(None, str(exc))
        return _stock_page(request, product_id, form=form, status=400)
    # A replayed token (double click, resubmission) answers as the first time.
    delta = change.adjustment.delta
    confirmation = f"{'Received' if delta > 0 else 'Removed'} {abs(delta)}: stock is now {change.level}."
    if not request.htmx:
        messages.success(request, confirmation)
        return redirect("staff_product_stock", product_id=product_id)
    return _stock_page(
        request, product_id, form=StockAdjustmentForm.fresh(), confirmation=confirmation,
        # A replay's level is the first answer's; read the level of now instead.
        level=None if change.replayed else change.level,
    )


def _resubmittable(form):
    """A form with errors keeps its token (nothing was written with it), unless the token was
    what was wrong."""
    if "token" in form.errors:
        form.data = form.data.copy()
        form.data["token"] = gateway.new_token()
    return form


def _stock_page(request, product_id, *, form, status=200, level=None, confirmation=None):
    """The whole page (GetItem + Query); with HTMX after a POST the level, form and history
    (the Query, and the GetItem unless the write told the level); with HTMX and ?after= the
    next history rows (the Query)."""
    after = optional_param(request, "after")
    partial = None
    if wants_partial(request):
        partial = "stock" if request.method == "POST" else ("history-page" if after else None)
    context = {"product_id": product_id, "form": form, "confirmation": confirmation, "after": after}
    if partial is None or (partial == "stock" and level is None):
        product = gateway.product_get(product_id=product_id, consistent=True)
        level = product.stock_level
        context.update(
            product=product,
            brand_name=names.brand_names().get(product.brand_id, product.brand_id),
            category_name=names.category_names().get(product.category_id, product.category_id),
        )
    history = gateway.stock_history(product_id=product_id, after=after, consistent=True)
    context.update(
        level=level,
        history=history,
        history_next_url=(request.path + query_string(after=history.next_cursor)) if history.next_cursor else None,
    )
    return render(request, partial_template(request, "staff/product_stock.html", partial), context, status=status)
