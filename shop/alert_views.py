"""Back-in-stock alerts: ask on a sold-out product page, confirm (guests), unsubscribe from
an email, cancel on the account page. Thin views over catalog/gateway/alerts/; the emails are sent
by run_stock_jobs (shop/stock_alerts.py), never here."""
from allauth.core import ratelimit
from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers

from catalog import gateway
from catalog.gateway import (
    FAILED,
    MAX_EMAIL,
    AlertRefused,
    InvalidInput,
    alert_ask,
    alert_cancel,
    alert_confirm,
    alert_get,
    keys,
)
from shop.accounts import mailbox_key
from storefront.errors import RETRY_AFTER

from .stock_alerts import CONFIRM_MAX_AGE, read_link_token

PARTIAL = "shop/partials/stock_alert.html"
TOO_MANY = ("You have asked for alerts too often in the last hour (from this connection or this account). "
            "Nothing was saved; please try again later.")


class AlertForm(forms.Form):
    email = forms.EmailField(max_length=MAX_EMAIL, error_messages={
        "required": "Enter your email address.", "invalid": "Enter a valid email address, like name@example.com.",
    })


def _answer(request, product, *, message="", error="", status=200, waiting=None):
    """HTMX: the alert box in place, with the message. Otherwise back to the product page, which shows it."""
    if request.htmx:  # the status line, and the waiting count out of band
        waiting = product.alerts_waiting if waiting is None else waiting
        context = {"product": product, "waiting": waiting, "message": message, "error": error, "oob": True}
        return render(request, PARTIAL + "#answer", context, status=status)
    if status >= 400:
        return render(request, "shop/alert_problem.html", {"product": product, "error": error}, status=status)
    messages.success(request, message)
    return redirect(reverse("product", args=[product.product_id]))


@require_POST
@vary_on_headers("HX-Request")
def notify(request, product_id):
    """POST /products/<product_id>/notify/ (`email`; ignored when signed in): ask for an email when the
    product is back. 404 unknown or hidden product, 400 bad email, 409 in stock or too many alerts, 429 asked too
    often (per client address, per account: STOCK_ALERT_ASKS_PER_*), nothing saved then; an email address
    entered too often (STOCK_ALERT_ASKS_PER_EMAIL) is answered as usual and nothing is saved or sent."""
    product = gateway.product_get(product_id=product_id, consistent=True)
    if not product.published:
        raise Http404("No such product")  # hidden by staff, as its page is
    if request.user.is_authenticated:
        email, customer_id = request.user.email, request.user.customer_key_id
        if not email:
            return _answer(request, product, status=400,
                           error="Your account has no email address yet: add one on your account page first.")
    else:
        form = AlertForm(request.POST)
        if not form.is_valid():
            return _answer(request, product, status=400, error=" ".join(form.errors["email"]))
        email, customer_id = form.cleaned_data["email"], None
    if not _within_limits(request):
        return _answer(request, product, status=429, error=TOO_MANY)
    if customer_id is None and not ratelimit.consume(request, action="stock_alert_email", key=mailbox_key(email)):
        # An address entered too often this hour: answered as any guest's ask, so nobody learns how often
        # someone entered it; nothing is saved and no email is sent.
        ahead = product.alerts_waiting
        return _answer(request, product, message=_guest_message(email, ahead), waiting=ahead)
    try:
        outcome = alert_ask(product_id=product_id, email=email, customer_id=customer_id, product=product)
    except AlertRefused as exc:
        return _answer(request, product, status=409, error=str(exc))
    ahead = outcome.waiting
    queue = _queue(ahead)
    if customer_id is None:
        # A guest hears the same whether or not the address asked before (nobody learns another's alerts).
        message = _guest_message(email, ahead)
    elif outcome.state == "already":
        message = "You already asked: we will email you when it is back." + queue
    else:
        message = f"Done: we will email {email} when it is back.{queue}"
    return _answer(request, product, message=message, waiting=ahead + (outcome.state == "waiting"))


def _queue(ahead):
    return f" {ahead} {'person' if ahead == 1 else 'people'} asked before you." if ahead else ""


def _guest_message(email, ahead):
    return (f"Almost done: we are sending a link to {email} (unless it is confirmed already). Open it to "
            f"confirm, and we will email you when it is back.{_queue(ahead)}")


def _within_limits(request):
    """Counts this ask against allauth's rate limits (settings STOCK_ALERT_ASKS_PER_IP and _PER_USER, in
    Django's default cache): per client address, guests and signed-in shoppers alike, and per account when
    signed in. False when one is used up. (The per email address limit is not told: see notify.)"""
    if not ratelimit.consume(request, action="stock_alert"):
        return False
    return not request.user.is_authenticated or ratelimit.consume(request, action="stock_alert_user",
                                                                  user=request.user)


def _linked_alert(token, *, max_age=None):
    found = read_link_token(token, max_age=max_age)
    if found is None:
        raise InvalidInput("This link is not valid (or is too old). Ask again on the product's page.")
    owner, product_id, alert_id = found
    gateway.check_id("Product", product_id)
    return owner, product_id, alert_id


@require_http_methods(["GET", "HEAD", "POST"])
def confirm(request, token):
    """The link of a guest's confirmation email: GET shows a button (mail scanners open links), POST confirms."""
    owner, product_id, alert_id = _linked_alert(token, max_age=CONFIRM_MAX_AGE)
    alert = alert_get(owner=owner, product_id=product_id, alert_id=alert_id)
    if alert is not None and alert.status == FAILED:  # its confirmation email was given up: gone
        alert = None
    done, refused = False, ""
    if alert is not None and request.method == "POST":
        try:
            alert = alert_confirm(owner=owner, product_id=product_id, alert_id=alert_id)
            done = True
        except AlertRefused as exc:  # the address has the most alerts it may have
            refused = str(exc)
    busy = done and alert is not None and alert.status == "pending"  # DynamoDB too busy to confirm it
    context = {"alert": alert, "done": done, "refused": refused, "token": token}
    response = render(request, "shop/alert_confirm.html", context,
                      status=404 if alert is None else 409 if refused else 503 if busy else 200)
    if busy:
        response["Retry-After"] = RETRY_AFTER  # as every 503 of the shop
    return response


@csrf_exempt  # RFC 8058: a mail provider's one-click POST has no cookie; the signed link is the authority
@require_http_methods(["GET", "HEAD", "POST"])
def unsubscribe(request, token):
    """An alert email's unsubscribe link: GET shows a button; POST (the button, or the mail
    program's one-click List-Unsubscribe-Post) cancels the alert. Idempotent."""
    owner, product_id, alert_id = _linked_alert(token)
    alert = alert_get(owner=owner, product_id=product_id, alert_id=alert_id)
    done = False
    if request.method == "POST":
        if alert is not None:
            alert_cancel(owner=owner, product_id=product_id, alert_id=alert_id)
        done = True
    return render(request, "shop/alert_unsubscribe.html", {"alert": alert, "done": done, "token": token})


@login_required
@require_POST
def cancel(request, product_id):
    """Cancel one of the signed-in shopper's alerts (the account page's button): only their own."""
    gateway.check_id("Product", product_id)
    cancelled = alert_cancel(owner=keys.alert_owner_customer(request.user.customer_key_id), product_id=product_id)
    if cancelled is None:
        return render(request, "400.html", {"message": "You have no alert for this product."}, status=404)
    messages.success(request, f"Your alert for {cancelled.product_name} is cancelled.")
    return redirect(reverse("account") + "#alerts")
