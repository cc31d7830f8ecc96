"""Creating and changing accounts: the user row (shared database) and the customer item in DynamoDB
(CUSTOMER#<uuid>/METADATA: name and email). The item is first written when the account's address is
confirmed (never at sign-up: a sign-up with a taken address must cost the same), then changes with the
row, or neither does."""
import dataclasses
import logging
import uuid

from django.contrib.auth import get_user_model
from django.core.mail import send_mail
from django.db import transaction
from django.template.loader import render_to_string

from catalog import gateway

log = logging.getLogger(__name__)


def mailbox_key(email: str) -> str:
    """The inbox an address reaches, for the per-address limit: lower-cased, without a `+tag` in its local
    part (victim+1@example.com and victim@example.com land in one inbox at most providers). Dots are kept:
    only some providers ignore them."""
    local, _, domain = email.strip().lower().rpartition("@")
    return f"{local.split('+', 1)[0] or local}@{domain}"


def put_customer_item(user):
    """The customer item mirrors the account's name and email (order pages and staff read it there)."""
    gateway.customer_put(customer_id=str(user.customer_id), name=user.display_name, email=user.email)


def save_name(form):
    """The account page's name: the row and the customer item together (inside one database
    transaction: if DynamoDB refuses, the row is rolled back and the page says the shop is unavailable)."""
    with transaction.atomic():
        user = form.save()
        put_customer_item(user)
    return user


def address_confirmed(user):
    """An address of the account is confirmed (allauth's email_confirmed: at sign-up, or an email change):
    the customer item gets the account's name and email (one UpdateItem, the same however often)."""
    _heal_later_if_unavailable(user, "an address confirmation")


def email_changed(user):
    """A confirmed email change (allauth has saved it on the user): the customer item follows."""
    _heal_later_if_unavailable(user, "an email change")


def _heal_later_if_unavailable(user, after: str) -> None:
    """put_customer_item; if DynamoDB is out of reach now, the next order writes the item afresh
    (gateway.order_place), so the account goes on without it."""
    try:
        put_customer_item(user)
    except gateway.CatalogUnavailable:
        log.warning("Customer item of %s not written after %s; the next order writes it", user.customer_id, after)


def remember_address(user, address):
    """The address used last fills in the next checkout."""
    if user.last_address != address:
        user.last_address = address
        get_user_model()._default_manager.filter(pk=user.pk).update(last_address=address)


def send_order_confirmation(user, order):
    """Email the order (number, lines, total, address), once per order: the claim is one conditional
    write on the order item, so a replay on any server sends nothing. A failure is logged; the order
    stands either way."""
    if not user.email:
        return False
    try:
        if not gateway.order_confirmation_claim(customer_id=str(user.customer_id), order_id=order.order_id):
            return False
        context = {"user": user, "order": order}
        send_mail(
            subject=f"Your Fromatoz order {order.reference}",
            message=render_to_string("shop/email/order_confirmation.txt", context),
            from_email=None,
            recipient_list=[user.email],
        )
    except Exception:
        log.exception("Order %s is placed, but its confirmation email was not sent", order.order_id)
        return False
    return True


def with_customer_names(orders):
    """The orders, each naming its customer: an order item that carries the name and email the account
    had when it was placed keeps them; for the others (items written without them) one query of the
    accounts fills them in, whatever the number of orders. A customer whose account is gone keeps ""
    (the page says so)."""
    missing = {order.customer_id for order in orders if not order.customer_name}
    if not missing:
        return list(orders)
    accounts = get_user_model()._default_manager.filter(customer_id__in=_uuids(missing))
    found = {str(user.customer_id): (user.display_name, user.email) for user in accounts}
    named = []
    for order in orders:
        if not order.customer_name and order.customer_id in found:
            name, email = found[order.customer_id]
            order = dataclasses.replace(order, customer_name=name, customer_email=email)
        named.append(order)
    return named


def _uuids(customer_ids):
    """The customer IDs that are UUIDs (a database from before customer IDs keyed orders on row numbers)."""
    out = []
    for customer_id in customer_ids:
        try:
            out.append(uuid.UUID(customer_id))
        except ValueError:
            continue
    return out
