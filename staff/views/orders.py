"""Staff order pages: open orders (find one by its number), one order (ship or cancel it), and who
bought a product (for a recall)."""
from django.contrib import messages
from django.http import HttpResponseBadRequest
from django.shortcuts import redirect, render

from catalog import gateway
from catalog.gateway import InvalidInput, NotFound, OrderStatusRefused
from common.numbers import euro
from payments import fulfilment
from payments.stripe_api import PaymentRefused
from shop import accounts
from storefront.http import optional_param, partial_template, query_string

from ..decorators import READ, READ_AND_POST, staff_view
from ..downloads import BUYER_HEADER, buyer_row, csv_response
from ..forms import FindOrderForm, OrderActionForm


@staff_view(READ, shards=True)
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
        "lapsing": fulfilment.lapsing(page.items),
        "next_url": (request.path + query_string(after=page.next_cursor)) if page.next_cursor else None,
    }
    template = partial_template(request, "staff/orders.html", "rows" if after else None)
    return render(request, template, context, status=status)


def _find_order(reference):
    if gateway.order_number_clean(reference):
        return gateway.order_get_by_number(number=reference)
    return gateway.order_get_by_id(order_id=reference)


@staff_view(READ_AND_POST, htmx=False)
def order_detail(request, customer_id, order_id):
    """One order (one Query of its customer's partition) with its payment; POST action=ship (captures first),
    cancel (voids or refunds, puts the stock back) or refund (optional `amount`, default the rest)."""
    status = 200
    if request.method == "POST":
        form = OrderActionForm(request.POST)
        if not form.is_valid():
            messages.error(request, " ".join(e for errors in form.errors.values() for e in errors)
                           if "amount" in form.errors else "Choose ship, cancel or refund.")
            status = 400
        else:
            try:
                _act(request, gateway.order_get(customer_id=customer_id, order_id=order_id), form.cleaned_data)
                return redirect("staff_order", customer_id=customer_id, order_id=order_id)
            except (OrderStatusRefused, PaymentRefused) as exc:
                messages.error(request, f"{exc} Nothing was changed." if isinstance(exc, PaymentRefused) else str(exc))
                status = 409
            except InvalidInput as exc:
                messages.error(request, str(exc))
                status = 400
    order = gateway.order_get(customer_id=customer_id, order_id=order_id)
    (order,) = accounts.with_customer_names([order])
    return render(request, "staff/order_detail.html", {"order": order}, status=status)


def _act(request, order, data):
    action = data["action"]
    if action == "ship":
        order = fulfilment.ship(order)
        messages.success(request, f"Order {order.reference} is marked shipped"
                         + (" and its payment captured." if order.payment else "."))
    elif action == "cancel":
        order = fulfilment.cancel(order, who=request.user.get_username())
        messages.success(request, f"Order {order.reference} is cancelled; its stock is back"
                         + ("; its payment voided or refunded." if order.payment else "."))
    else:
        refunded = fulfilment.refund(order, data["amount"])
        messages.success(request, f"{euro(refunded)} of order {order.reference} is refunded.")


@staff_view(READ, shards=True)
def product_buyers(request, product_id):
    """Who bought a product (for a recall): its orders and customers, newest first, a page at a
    time (one GetItem of the product, then one Query of each Buyers shard not yet done);
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
