"""Cart, checkout and the customer's orders. Thin views: the session holds the cart, the
gateway reads products and places orders in DynamoDB."""
import dataclasses
from datetime import UTC, datetime

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST, require_safe
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseClientRedirect

from catalog import gateway, hot_products
from catalog.gateway import (
    CatalogUnavailable,
    InvalidInput,
    OrderRejected,
    OutcomeUnknown,
    StockBusy,
    alerts_of_owner,
    holds_enabled,
    holds_release,
    holds_take,
    keys,
)
from storefront.errors import RETRY_AFTER
from storefront.http import partial_template

from . import accounts, paid, rules
from . import checkout as checkouts
from .cart import Cart
from .forms import AccountForm, CheckoutForm, ProductForm, QuantityForm
from .messages import line_problem_text
from .mfa import has_second_factor


def _form_error(form):
    return " ".join(str(e) for errors in form.errors.values() for e in errors)


def _theirs(session, products):
    """{product_id: Product} as this shopper may buy them: units they hold (timed holds) are
    theirs, beside the level others see."""
    own = checkouts.own_units(session)
    return {pid: dataclasses.replace(p, stock_level=p.stock_level + own[pid])
            if pid in own and p.stock_level is not None else p for pid, p in products.items()}


def _cart_context(cart):
    # A product spread over stock buckets up to a second old (catalog.hot_products): the checkout decides.
    products = hot_products.products_for_shopper(list(cart.lines)) if len(cart) else {}
    products = _theirs(cart.session, products)
    lines = rules.cart_lines(cart.order_lines(), products)
    cart.saw(products)
    return {
        "lines": lines,
        "total": rules.cart_total(lines),
        "can_checkout": rules.can_check_out(lines),
        "cart_count": cart.count,
        "max_line_quantity": rules.MAX_LINE_QUANTITY,
    }


@require_safe
@vary_on_headers("HX-Request")
def cart_view(request):
    """The cart, with prices and stock read fresh (one BatchGetItem; a spread product: hot_products)."""
    cart = Cart(request.session)
    return render(request, partial_template(request, "shop/cart.html", "cart"), _cart_context(cart))


@require_POST
def cart_add(request):
    form = QuantityForm(request.POST)
    cart = Cart(request.session)
    if not form.is_valid():
        if not request.htmx:
            raise InvalidInput(_form_error(form))
        return _added(request, None, error=_form_error(form), status=400)
    product = hot_products.product_for_shopper(form.cleaned_data["product_id"])
    product = _theirs(request.session, {product.product_id: product})[product.product_id]
    added = rules.addition(
        product=product, quantity=form.cleaned_data["quantity"], in_cart=cart.quantity(product.product_id),
        lines_in_cart=len(cart),
    )
    if added.error:
        return _added(request, product, error=added.error, status=409)
    cart.add(product, added.quantity)
    return _added(request, product, message=added.message)


def _added(request, product, *, message=None, error=None, status=200):
    """HTMX: the status line and the header badge, in place. Otherwise: back to the product."""
    if request.htmx:
        return render(
            request,
            "shop/partials/cart_added.html",
            {"message": message, "error": error, "cart_count": Cart(request.session).count},
            status=status,
        )
    if error:
        messages.error(request, error)
    else:
        messages.success(request, message)
    if product is not None and not product.published:  # hidden: its page is a 404 for shoppers
        return redirect(reverse("cart"))
    return redirect(reverse("product", args=[product.product_id]))


@require_POST
def cart_update(request):
    form = QuantityForm(request.POST)
    cart = Cart(request.session)
    if form.is_valid():
        cart.set_quantity(form.cleaned_data["product_id"], form.cleaned_data["quantity"])
        _release(request, [form.cleaned_data["product_id"]])  # the next checkout holds the new quantity
    return _cart_changed(request, cart, None if form.is_valid() else _form_error(form))


@require_POST
def cart_remove(request):
    form = ProductForm(request.POST)
    cart = Cart(request.session)
    if form.is_valid():
        cart.remove(form.cleaned_data["product_id"])
        _release(request, [form.cleaned_data["product_id"]])
    return _cart_changed(request, cart, None if form.is_valid() else _form_error(form))


def _release(request, product_ids=None):
    """Give back at once the units this session holds of these products (all: None): a line removed
    or changed, a cancelled checkout. Nothing to read when the session holds none of them."""
    remembered = request.session.get(checkouts.HOLDS_KEY) or {}
    wanted = [pid for pid in (remembered if product_ids is None else product_ids) if pid in remembered]
    if wanted and request.user.is_authenticated:
        holds_release(customer_id=request.user.customer_key_id, product_ids=wanted)
    checkouts.forget_holds(request.session, wanted)


def _cart_changed(request, cart, error):
    if request.htmx:
        context = _cart_context(cart)
        context["error"] = error
        template = partial_template(request, "shop/cart.html", "cart")
        return render(request, template, context, status=400 if error else 200)
    if error:
        messages.error(request, error)
    return redirect("cart")


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def checkout(request):
    """GET and HEAD show the checkout and write nothing; POST with `action=hold` holds (or renews the hold
    of) the cart's units and shows it again; any other POST places the order."""
    cart = Cart(request.session)
    if request.method == "POST":
        if "action" in request.POST:
            return _hold_page(request, cart)
        return _place_order(request, cart)
    return _checkout_page(request, cart)


def _checkout_page(request: HttpRequest, cart: Cart, *, hold: bool = False, form=None, status: int = 200,
                   payment: dict | None = None) -> HttpResponse:
    """The checkout: the cart, what this session holds (as remembered: nothing read), the hold's button, the
    address form (`form`: as the shopper typed it) and, with card payments on, the card (`payment`: the
    3-D Secure step to finish); with `hold`, the cart's units held first. An HTMX hold gets only its part."""
    if not len(cart):
        messages.info(request, "Your cart is empty.")
        return _to_cart(request)
    context = _cart_context(cart)
    if not context["can_checkout"]:
        messages.error(request, "Some products in your cart can’t be bought as they are; see below.")
        return _to_cart(request)
    if holds_enabled():
        cooling = _hold_cart(request, cart) if hold else []
        if cooling is None:
            return _to_cart(request)
        context.update(holds_on=True, cooling=cooling, all_cooling=len(cooling) == len(cart))
        first = checkouts.first_held(request.session, list(cart.lines))  # the first to end
        if first is not None:
            context["held_until"], context["hold_final"] = first
    address = request.user.last_address or {"name": request.user.name}
    context["form"] = form or CheckoutForm(initial={**checkouts.issue(request.session), **address})
    context.update(paid.page_context(context["total"], payment))
    return render(request, partial_template(request, "shop/checkout.html", "hold" if hold else None), context,
                  status=status)


def _to_cart(request: HttpRequest) -> HttpResponse:
    """To the cart, where the messages are shown (HTMX: the whole page goes there)."""
    if request.htmx:
        return HttpResponseClientRedirect(reverse("cart"))
    return redirect("cart")


def _hold_page(request: HttpRequest, cart: Cart) -> HttpResponse:
    if request.POST["action"] != "hold":
        raise InvalidInput("Unknown checkout action: nothing was done.")
    return _checkout_page(request, cart, hold=True)


def _hold_cart(request: HttpRequest, cart: Cart) -> list[dict] | None:
    """Hold the cart's units (renewing the shopper's own hold). Products the shopper may not hold again yet
    (a cool-down) are left out: returns them ([{"name", "until"}]: said on the page; they can still be
    bought without a hold). None when nothing could be held, with the reasons as messages."""
    lines = cart.order_lines()
    try:
        _hold(request, lines)
    except OrderRejected as exc:
        cooling = [p for p in exc.problems if p.kind == p.COOLING]
        checkouts.forget_holds(request.session, [p.product_id for p in exc.problems if p.kind == p.ENDED])
        if len(cooling) < len(exc.problems):
            _tell(request, exc.problems)
            return None
        rest = [line for line in lines if line.product_id not in {p.product_id for p in cooling}]
        if rest and not _held_or_told(request, rest):
            return None
        return [{"name": p.name, "until": datetime.fromtimestamp(p.until, UTC)} for p in cooling]
    except StockBusy as exc:
        messages.error(request, str(exc))
        return None
    return []


def _hold(request: HttpRequest, lines: list) -> dict:
    """Hold these lines for the shopper and remember the holds in the session; raises OrderRejected."""
    held = holds_take(customer_id=request.user.customer_key_id, lines=lines)
    checkouts.held(request.session, held)
    return held


def _held_or_told(request: HttpRequest, lines: list) -> bool:
    """Hold the lines of the products not cooling down: True, or False with the reasons as messages."""
    try:
        _hold(request, lines)
    except OrderRejected as exc:
        _tell(request, exc.problems)
        return False
    except StockBusy as exc:
        messages.error(request, str(exc))
        return False
    return True


def _tell(request: HttpRequest, problems: list) -> None:
    for problem in problems:
        messages.error(request, line_problem_text(problem))
    messages.error(request, "Nothing is held for you. Please check your cart and try again.")


@login_required
@require_POST
def checkout_release(request):
    """Cancel the checkout: the units held for it go back at once."""
    _release(request)
    messages.info(request, "The units held for you are released; your cart is as it was.")
    return redirect("cart")


def _place_order(request, cart):
    """Place the cart's order with the checkout form's order ID and key: once, whatever is resubmitted."""
    form = CheckoutForm(request.POST)
    not_placed = _not_placeable(request, cart, form)
    if not_placed is not None:
        return not_placed
    if paid.enabled():
        return paid.pay(request, cart, form, page=_checkout_page)
    try:
        order = gateway.order_place(
            customer_id=request.user.customer_key_id,
            customer_name=request.user.display_name,
            customer_email=request.user.email or None,
            order_id=form.cleaned_data["order_id"],
            token=form.cleaned_data["token"],
            lines=cart.order_lines(),
            address=form.address(),
        )
    except OrderRejected as exc:
        checkouts.counted(checkouts.rejected_outcome(exc.problems))
        for problem in exc.problems:
            messages.error(request, line_problem_text(problem))
        messages.error(request, "Nothing was ordered. Please check your cart and try again.")
        return redirect("cart")
    except StockBusy as exc:
        checkouts.counted("busy")
        messages.error(request, str(exc))
        return redirect("cart")
    except OutcomeUnknown:
        checkouts.counted("unknown")
        # It may still go through: the cart, the order ID and the key stay, so placing it again
        # is safe (it answers the order placed, or places it once).
        response = render(request, "shop/checkout_unknown.html", {"form": form}, status=504)
        response["Retry-After"] = RETRY_AFTER
        return response
    return _placed(request, cart, form, order)


def _not_placeable(request, cart, form):
    """Why this checkout POST places nothing, as the answer to give (None: it may place the order): a
    form to fix, an order placed already (Back and resubmit), a cart ordered or emptied in another tab.
    A form that is not the one this session was given raises InvalidInput."""
    if not form.is_valid():
        if not form.hidden_fields_valid():
            raise InvalidInput("The checkout form was not valid; please go back to your cart and try again.")
        if cart.was_placed(form.cleaned_data["order_id"]):
            return redirect("order", order_id=form.cleaned_data["order_id"])
        if not len(cart):
            messages.info(request, "Your cart is empty.")
            return redirect("cart")
        # The address needs fixing: the same page again, with what was typed and what is wrong.
        context = _cart_context(cart)
        return render(request, "shop/checkout.html", {**context, "form": form,
                                                      **paid.page_context(context["total"], None)}, status=400)
    order_id, token = form.cleaned_data["order_id"], form.cleaned_data["token"]
    if cart.was_placed(order_id):  # Back and resubmit after the order went through
        return redirect("order", order_id=order_id)
    if not len(cart):  # a stale tab: this cart was ordered (or emptied) in another one
        messages.info(request, "Nothing was ordered from that page: the cart was already ordered or emptied in "
                      "another tab or window. Your orders are under Orders.")
        return redirect("cart")
    if not checkouts.is_issued(request.session, order_id=order_id, token=token):
        raise InvalidInput(
            "This checkout form is not the one we gave you for your cart (or it is out of date). "
            "Nothing was ordered; please go back to your cart and check out again."
        )
    return None


def _placed(request, cart, form, order):
    """After the order is placed: the cart and the checkout are done, the holds became the order, the
    address is remembered, the confirmation mailed (after the transaction; it never undoes it)."""
    return checkouts.placed(request, cart, form.address(), order)


@login_required
@require_safe
def order_list(request):
    page = gateway.orders_by_customer(customer_id=request.user.customer_key_id, after=request.GET.get("after") or None)
    return render(request, "shop/order_list.html", {"page": page})


@login_required
@require_safe
def order_detail(request, order_id):
    order = gateway.order_get(customer_id=request.user.customer_key_id, order_id=order_id)
    return render(request, "shop/order_detail.html", {"order": order})


def _alerts(user):
    """The shopper's back-in-stock alerts (one Query); None when DynamoDB cannot be reached: the
    account page (name, password, second factor: the accounts database) works without them."""
    try:
        return alerts_of_owner(owner=keys.alert_owner_customer(user.customer_key_id))
    except CatalogUnavailable:
        return None


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def account(request):
    """The name; the email address (allauth's email page), password and second factors have their own pages."""
    form = AccountForm(request.POST or None, instance=request.user)
    if request.method == "POST" and form.is_valid():
        accounts.save_name(form)
        messages.success(request, "Your details are saved.")
        return redirect("account")
    if form.is_bound and form.errors:
        request.user.refresh_from_db()  # the header shows what is saved, not what was refused
    status = 400 if form.is_bound and form.errors else 200
    context = {"form": form, "has_second_factor": has_second_factor(request.user), "alerts": _alerts(request.user)}
    return render(request, "shop/account.html", context, status=status)
