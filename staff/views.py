"""Staff pages: stock levels and stock adjustments. Signed-in staff only (Django's auth on
SQLite); an adjustment records the staff user's username as "who". With HTMX a stock
adjustment answers with just the part that changes (a partial of the same template)."""
from functools import wraps

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_safe
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseClientRedirect

from catalog import gateway, names
from catalog.gateway import (
    IdempotencyConflict,
    InsufficientStock,
    InvalidInput,
    NotFound,
    OrderStatusRefused,
    OutcomeUnknown,
    StockMoved,
    alert_counts,
    holds_all,
    holds_enabled,
    holds_released,
    receiving,
)
from shop import accounts
from shop.mfa import needs_second_factor
from storefront.errors import RETRY_AFTER
from storefront.http import optional_param, partial_template, query_string, wants_partial

from .downloads import ADJUSTMENT_HEADER, BUYER_HEADER, adjustment_row, buyer_row, csv_response
from .forms import (
    INCREASE,
    FindOrderForm,
    FindProductForm,
    HistoryFilterForm,
    LedgerForm,
    OrderActionForm,
    ReceiveForm,
    ReorderFilterForm,
    ReorderPointForm,
    StockAdjustmentForm,
    StockBucketsForm,
    StockListForm,
    StocktakeForm,
)


def staff_required(view):
    """Anonymous visitors go to the login page (with ?next=); signed-in accounts that are not
    staff get a 403, not another trip to the login page. A staff session that has not used a second
    factor is sent to use it (or to set one up), back to this page after (STAFF_MFA_REQUIRED)."""

    @login_required
    @wraps(view)
    def staff_only(request, *args, **kwargs):
        if not request.user.is_staff:
            raise PermissionDenied("This page is for staff only.")
        next_path = (request.htmx.current_url_abs_path if request.htmx else None) or request.get_full_path()
        factor = needs_second_factor(request, next_path)
        if factor is not None:
            # No staff page or staff POST before this session used a second factor (shop/mfa.py).
            if factor == reverse("mfa_index"):
                messages.warning(request, "Staff pages need a second factor: set up an authenticator app or a "
                                          "passkey, then open the staff pages again.")
            else:
                messages.warning(request, "Staff pages need your second factor in this session: enter your "
                                          "authenticator app's code or use your passkey.")
            if request.htmx:
                return HttpResponseClientRedirect(factor)
            return redirect(factor)
        return view(request, *args, **kwargs)

    @wraps(view)
    def signed_in(request, *args, **kwargs):
        if request.htmx and not request.user.is_authenticated:
            # The session ended: open the login page as a page, not in the place of a form.
            login = redirect_to_login(request.htmx.current_url_abs_path or request.get_full_path())
            return HttpResponseClientRedirect(login["Location"])
        return staff_only(request, *args, **kwargs)

    return signed_in


def shard_budget(view):
    """A staff list merged from many shards (open orders: a Query of each of 65 partitions a page; the
    ledger: 64 a day; who bought a product) may take DYNAMODB_WRITE_BUDGET: staff wait a moment rather
    than get a 503; a shopper's page keeps the read budget."""
    @wraps(view)
    def within(request, *args, **kwargs):
        with gateway.request_budget(seconds=settings.DYNAMODB_WRITE_BUDGET):
            return view(request, *args, **kwargs)

    return within


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
            reference=data["reference"], note=data["note"], who=request.user.get_username(),
            expected_level=data["seen_level"], expected_reorder_point=data["seen_reorder_point"],
        )
    except InsufficientStock as exc:
        form.add_error(
            "quantity", f"Only {exc.available} in stock: cannot remove {exc.requested}. Nothing was changed."
        )
        return _stock_page(request, product_id, form=form, status=409, level=exc.available,
                           seen_reorder_point=data["seen_reorder_point"])
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
        # A replay's level is the first answer's; read the level of now instead.
        level=None if change.replayed else change.level, seen_reorder_point=data["seen_reorder_point"],
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
    """DynamoDB did not confirm the adjustment: it may have been applied (now or when DynamoDB
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


def _stock_page(request, product_id, *, form, status=200, level=None, seen_reorder_point=None, confirmation=None,
                count_form=None, moves=None, reorder_form=None, buckets_form=None):
    """The whole page (GetItem + Query); with HTMX after a POST the level, forms and history
    (the Query, and the GetItem unless the write told the level); with HTMX and ?after= the next
    history rows (the Query). ?reason= shows the changes of one reason (a Query of the ByReason
    index instead)."""
    after = optional_param(request, "after")
    history_filter = HistoryFilterForm(request.GET if request.method == "GET" and "reason" in request.GET else None)
    reason = None
    if history_filter.is_bound:
        if history_filter.is_valid():
            reason = history_filter.cleaned_data["reason"] or None
        else:
            status = 400
    partial = None
    if wants_partial(request):
        partial = "stock" if request.method == "POST" else ("history-page" if after else None)
    context = {"product_id": product_id, "form": form, "confirmation": confirmation, "after": after,
               "history_filter": history_filter, "reason": reason, "moves": moves, "count_form": count_form}
    if partial is None or (partial == "stock" and level is None):
        product = gateway.product_get(product_id=product_id, consistent=True)
        level, reorder_point = product.stock_level, product.reorder_point
        context.update(
            product=product,
            brand_name=names.brand_names().get(product.brand_id, product.brand_id),
            category_name=names.category_names().get(product.category_id, product.category_id),
            reorder_form=reorder_form or ReorderPointForm(initial={"reorder_point": product.reorder_point}),
            alerts_waiting=product.alerts_waiting,  # back-in-stock alerts (issue 36), on the product item
            buckets_form=buckets_form or StockBucketsForm(initial={"stock_buckets": product.stock_buckets}),
        )
        if holds_enabled():  # timed holds (issue 36): held now and released lately, a Query each
            context.update(holds_now=holds_all(product_id=product_id),
                           holds_released=holds_released(product_id=product_id))
    else:
        reorder_point = seen_reorder_point  # the write told the level; the form's hint for the next write
    if partial != "history-page" and count_form is None:
        held = None  # timed holds: what a count is made against, beside the level
        if holds_enabled():
            holds = context["holds_now"] if "holds_now" in context else holds_all(product_id=product_id)
            held = sum(hold.quantity for hold in holds)
        context["count_form"] = StocktakeForm.fresh(level=level, reorder_point=reorder_point, held=held)
    context["reorder_point"] = reorder_point
    history = gateway.stock_history(product_id=product_id, reason=reason, after=after, consistent=reason is None)
    context.update(
        level=level,
        history=history,
        history_next_url=(request.path + query_string(reason=reason, after=history.next_cursor))
        if history.next_cursor else None,
        csv_url=reverse("staff_product_history_csv", args=[product_id]) + query_string(reason=reason),
    )
    return render(request, partial_template(request, "staff/product_stock.html", partial), context, status=status)


@staff_required
@require_http_methods(["POST"])
@vary_on_headers("HX-Request")
def product_stocktake(request, product_id):
    """Set the stock to what was counted: a `counted` change of the difference, only if the stock
    is still the level the form showed. If it moved (a sale meanwhile), nothing is written and
    the form comes back with the level now and the moves since, to confirm."""
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
        held = data["seen_held"] if exc.held is None else exc.held
        again = StocktakeForm(
            data={**StocktakeForm.state(level=exc.level, reorder_point=data["seen_reorder_point"],
                                        token=data["token"], held=held),
                  "counted": data["counted"], "note": data["note"]},
        )
        again.is_valid()
        if exc.level == data["seen_level"] and exc.held is not None:  # only the units held moved
            again.add_error(None, (
                f"Shoppers paying now hold {exc.held} units of it, not {data['seen_held']} as when you started "
                f"counting (held units are on the shelf, out of the stock). Nothing was changed. Check the shelf; "
                f"save again to count {data['counted']} against {exc.level} in stock and {exc.held} held."
            ))
        else:
            again.add_error(None, (
                f"The stock changed while you counted: it is now {exc.level}, not {data['seen_level']}. Nothing was "
                f"changed. Check the moves below; save again to set the stock to {data['counted']} from {exc.level}."
            ))
        return _stock_page(request, product_id, form=StockAdjustmentForm.fresh(), count_form=again, moves=moves,
                           status=409)
    delta = change.adjustment.delta
    confirmation = f"Counted {data['counted']} ({delta:+d}): stock is now {change.level}."
    if change.replayed:
        confirmation = f"This count was saved already: stock was set to {change.level}."
    return _saved(request, product_id, confirmation)


@staff_required
@require_http_methods(["POST"])
@vary_on_headers("HX-Request")
def product_reorder_point(request, product_id):
    """Set a product's reorder point (empty: the default), which puts it on or off the reorder list."""
    form = ReorderPointForm(request.POST)
    if not form.is_valid():
        return _stock_page(request, product_id, form=StockAdjustmentForm.fresh(), reorder_form=form, status=400)
    product = gateway.product_set_reorder_point(product_id=product_id, reorder_point=form.cleaned_data["reorder_point"])
    confirmation = f"Reorder point set to {product.effective_reorder_point}" + (
        " (the default)." if product.reorder_point is None else ".")
    return _saved(request, product_id, confirmation)


def _saved(request, product_id, confirmation):
    """After a stock page form was saved: back to the page with `confirmation` (with HTMX, the stock part)."""
    if not request.htmx:
        messages.success(request, confirmation)
        return redirect("staff_product_stock", product_id=product_id)
    return _stock_page(request, product_id, form=StockAdjustmentForm.fresh(), confirmation=confirmation)


@staff_required
@require_http_methods(["POST"])
@vary_on_headers("HX-Request")
def product_stock_buckets(request, product_id):
    """Set how many stock buckets a product's stock is spread over (1: one item; more for a product
    sold by a crowd at once). The total stays as it is."""
    form = StockBucketsForm(request.POST)
    if not form.is_valid():
        return _stock_page(request, product_id, form=StockAdjustmentForm.fresh(), buckets_form=form, status=400)
    product = gateway.stock_set_buckets(product_id=product_id, buckets=form.cleaned_data["stock_buckets"])
    confirmation = f"Stock buckets set to {product.stock_buckets}; stock is still {product.stock_level}."
    return _saved(request, product_id, confirmation)


@staff_required
@shard_budget
@require_safe
def product_history_csv(request, product_id):
    """A product's stock history (?reason= one reason) as CSV, newest first."""
    history_filter = HistoryFilterForm(request.GET)
    if not history_filter.is_valid():
        return HttpResponseBadRequest("Unknown reason.", content_type="text/plain")
    reason = history_filter.cleaned_data["reason"] or None
    gateway.product_get(product_id=product_id)  # an unknown product is a 404, not an empty file
    rows = (adjustment_row(a) for a in gateway.stock_history_all(product_id=product_id, reason=reason))
    return csv_response(f"stock-{product_id}{'-' + reason if reason else ''}.csv", ADJUSTMENT_HEADER, rows)


@staff_required
@shard_budget
@require_safe
@vary_on_headers("HX-Request")
def product_buyers(request, product_id):
    """Who bought a product (issue 33, for a recall): its orders and customers, newest first, a page
    at a time (one GetItem of the product, then one Query of each Buyers shard not yet done);
    ?format=csv downloads all of them, streamed."""
    output = optional_param(request, "format")
    if output not in (None, "csv"):
        return HttpResponseBadRequest("Unknown format: use format=csv, or none for the page.",
                                      content_type="text/plain")
    product = gateway.product_get(product_id=product_id)  # an unknown product is a 404
    if output == "csv":
        rows = (buyer_row(sale) for sale in gateway.product_buyers_all(product_id=product_id))
        return csv_response(f"buyers-{product_id}.csv", BUYER_HEADER, rows)
    after = optional_param(request, "after")
    page = gateway.product_buyers(product_id=product_id, after=after)
    context = {
        "product": product, "product_id": product_id, "sales": accounts.with_customer_names(page.items),
        "after": after, "csv_url": request.path + query_string(format="csv"),
        "next_url": (request.path + query_string(after=page.next_cursor)) if page.next_cursor else None,
    }
    template = partial_template(request, "staff/buyers.html", "rows" if after else None)
    return render(request, template, context)


@staff_required
@shard_budget
@require_safe
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


@staff_required
@require_safe
@vary_on_headers("HX-Request")
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
        # Back-in-stock alerts waiting per product of the page (issue 36): one BatchGetItem.
        "alerts_waiting": alert_counts(product_ids=[product.product_id for product in page.items]),
        "brand_names": names.brand_names(), "category_names": names.category_names(),
        "first_url": request.path + query_string(brand=brand_id, category=category_id),
        "next_url": (request.path + query_string(brand=brand_id, category=category_id, after=page.next_cursor))
        if page.next_cursor else None,
    }
    template = partial_template(request, "staff/reorder.html", "rows" if after else None)
    return render(request, template, context)


@staff_required
@shard_budget
@require_safe
@vary_on_headers("HX-Request")
def order_list(request):
    """Open (placed) orders, oldest first: one Query a page of the sparse OpenOrders index, each row
    naming its customer (orders carry the name; for older ones one query of the accounts).
    ?number= opens an order by its number (or its internal ID, as a stock change names it)."""
    find = FindOrderForm(request.GET if "number" in request.GET else None)
    status = 200
    if find.is_bound:
        status = 400
        if find.is_valid():
            try:
                order = _find_order(find.cleaned_data["number"])
            except NotFound:
                find.add_error("number", f"No order has the number {find.cleaned_data['number']}.")
                status = 404
            else:
                return redirect("staff_order", customer_id=order.customer_id, order_id=order.order_id)
    after = optional_param(request, "after")
    page = gateway.orders_open(after=after)
    context = {
        "find": find, "orders": accounts.with_customer_names(page.items), "after": after,
        "next_url": (request.path + query_string(after=page.next_cursor)) if page.next_cursor else None,
    }
    template = partial_template(request, "staff/orders.html", "rows" if after else None)
    return render(request, template, context, status=status)


def _find_order(reference):
    if gateway.order_number_clean(reference):
        return gateway.order_get_by_number(number=reference)
    return gateway.order_get_by_id(order_id=reference)


@staff_required
@require_http_methods(["GET", "HEAD", "POST"])
def order_detail(request, customer_id, order_id):
    """One order (one Query of its customer's partition); POST action=ship or cancel."""
    status = 200
    if request.method == "POST":
        form = OrderActionForm(request.POST)
        if not form.is_valid():
            messages.error(request, "Choose ship or cancel.")
            status = 400
        else:
            try:
                if form.cleaned_data["action"] == "ship":
                    order = gateway.order_ship(customer_id=customer_id, order_id=order_id)
                    messages.success(request, f"Order {order.reference} is marked shipped.")
                else:
                    order = gateway.order_cancel(
                        customer_id=customer_id, order_id=order_id, who=request.user.get_username()
                    )
                    messages.success(request, f"Order {order.reference} is cancelled; its stock is back.")
                return redirect("staff_order", customer_id=customer_id, order_id=order_id)
            except OrderStatusRefused as exc:
                messages.error(request, str(exc))
                status = 409
    order = gateway.order_get(customer_id=customer_id, order_id=order_id)
    (order,) = accounts.with_customer_names([order])
    return render(request, "staff/order_detail.html", {"order": order}, status=status)


# --- receiving a shipment (CSV) --------------------------------------------------------------

RECEIVE_SESSION_KEY = "staff_receive"
RECEIVE_CHUNK = 200  # lines a request: a few seconds at most, far within gunicorn's timeout


@staff_required
@require_http_methods(["GET", "HEAD", "POST"])
@vary_on_headers("HX-Request")
def receive(request):
    """Upload a CSV (product_id,quantity,reference): checked whole first (every problem by line,
    nothing written if there is one); then received in chunks of RECEIVE_CHUNK lines, one request
    each (HTMX asks for the next chunk until the summary; without JavaScript a Continue button
    does). The file is kept in the session until done; each line's idempotency key is the file's
    hash and its line number, so uploading it again applies nothing twice."""
    if request.method != "POST":
        return render(request, "staff/receive.html", {"form": ReceiveForm(), "job": _receive_job(request)})
    form = ReceiveForm(request.POST, request.FILES)
    if not form.is_valid():
        return render(request, "staff/receive.html", {"form": form}, status=400)
    upload = form.cleaned_data["file"]
    if upload.size > receiving.MAX_FILE_BYTES:
        form.add_error("file", f"The file is larger than {receiving.MAX_FILE_BYTES // (1024 * 1024)} MB.")
        return render(request, "staff/receive.html", {"form": form}, status=400)
    content = upload.read()
    try:
        receipt = receiving.validate(content)
    except receiving.ReceiptInvalid as exc:
        return render(request, "staff/receive.html", {"form": ReceiveForm(), "problems": exc.problems}, status=400)
    request.session[RECEIVE_SESSION_KEY] = {
        "name": upload.name, "content": content.decode("utf-8-sig"), "digest": receipt.digest,
        "total": len(receipt.lines), "done": 0, "applied": 0, "replayed": 0, "units": 0,
    }
    return _receive_step(request)


@staff_required
@require_http_methods(["POST"])
@vary_on_headers("HX-Request")
def receive_continue(request):
    return _receive_step(request)


def _receive_job(request):
    return request.session.get(RECEIVE_SESSION_KEY)


def _receive_step(request):
    """Receive the next chunk of the session's file and show the progress (or the summary)."""
    job = _receive_job(request)
    if job is None:
        messages.error(request, "There is no file being received; upload it (again: nothing is applied twice).")
        return redirect("staff_receive")
    if job["done"] < job["total"]:
        receipt = receiving.parse(job["content"].encode())
        step = receiving.receive_lines(
            receipt, who=request.user.get_username(), start=job["done"], count=RECEIVE_CHUNK
        )
        job.update(done=job["done"] + step.done, applied=job["applied"] + step.applied,
                   replayed=job["replayed"] + step.replayed, units=job["units"] + step.units)
        request.session[RECEIVE_SESSION_KEY] = job
    finished = job["done"] >= job["total"]
    if finished:
        del request.session[RECEIVE_SESSION_KEY]
    context = {"form": ReceiveForm(), "job": job, "finished": finished,
               "percent": int(100 * job["done"] / job["total"]) if job["total"] else 100}
    return render(request, partial_template(request, "staff/receive.html", "progress"), context)
