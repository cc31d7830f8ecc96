"""The POST flows under load: a staff stock adjustment and a shopper's checkout.

Each wrk connection is one signed-in user with its own session (the cart lives in it) and its
own product, so the figures are those of many people each doing their own thing, not of one
product's contention (bench/contention.py measures that). The sessions are made here, in the
SQLite database the gunicorn workers share, before the load starts.
"""

import base64
import secrets
import string
import time

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client

from catalog import gateway

FLOWS = {
    # name: (first product ID of the flow's connections, staff?)
    "stock_post": (1, True),
    "checkout": (101, False),
}
NOTES = {
    "stock_post": (
        "staff: +1 with HTMX, a new idempotency key each, and the level the last answer showed "
        "(TransactWriteItems, Query; a GetItem more when that level is stale)"
    ),
    "checkout": (
        "shopper: add 1 to the cart (HTMX), hold at the checkout page (POST action=hold), then place the order; "
        "the three requests in turn"
    ),
}


def _csrf_secret():
    alphabet = string.ascii_letters + string.digits
    return "".join(secrets.choice(alphabet) for _ in range(32))


def give_second_factor(user):
    """Staff pages need a second factor (STAFF_MFA_REQUIRED): a bench staff user has an authenticator
    app on record, as real staff do."""
    from allauth.mfa.models import Authenticator

    if user.is_staff:
        secret = base64.b32encode(secrets.token_bytes(20)).decode()
        return Authenticator.objects.get_or_create(user=user, type=Authenticator.Type.TOTP,
                                                   defaults={"data": {"secret": secret}})[0]
    return None


def record_second_factor(client, user, app):
    """A staff session signed in with force_login, marked as allauth marks a sign-in with the app's code:
    staff pages ask for a factor used in the session (shop/mfa.py)."""
    from allauth.account.authentication import AUTHENTICATION_METHODS_SESSION_KEY
    from allauth.account.internal.flows.login import _AUTHENTICATION_METHODS_USER_SESSION_KEY

    session = client.session
    session[AUTHENTICATION_METHODS_SESSION_KEY] = [{"method": "mfa", "at": time.time(), "id": app.pk, "type": "totp"}]
    session[_AUTHENTICATION_METHODS_USER_SESSION_KEY] = str(user.pk)
    # A staff sign-in ends with the staff session's expiry set (shop/account_sessions.py); without it the
    # first page saves the session again, and concurrent first pages race on the session row.
    if user.is_staff:
        session.set_expiry(settings.STAFF_SESSION_SECONDS)
    session.save()


def prepare(flow, connections, path):
    """Writes the sessions file for `connections` connections of `flow`: a user each (staff for
    the stock page), signed in, and a product each with stock enough for any run."""
    call_command("migrate", verbosity=0, interactive=False)
    first, staff = FLOWS[flow]
    users = get_user_model().objects
    lines = []
    for n in range(connections):
        username = f"bench-{flow}-{n}"
        user = users.filter(username=username).first()
        if user is None:
            user = users.model(username=username, is_staff=staff)
            user.set_unusable_password()  # signed in below without one (hashing 32 would take seconds)
            user.save()
        app = give_second_factor(user)
        client = Client(HTTP_HOST="127.0.0.1")
        client.force_login(user)
        if app is not None:
            record_second_factor(client, user, app)
        csrf = _csrf_secret()
        cookie = f"sessionid={client.cookies['sessionid'].value}; csrftoken={csrf}"
        product_id = str(first + n)
        gateway.stock_increase(
            product_id=product_id, quantity=gateway.MAX_QUANTITY, token=gateway.new_token(),
            reason="received", note="bench: stock for the checkout load", who="bench",
        )
        lines.append(f"{cookie}\t{csrf}\t{product_id}\n")
    path.write_text("".join(lines))
    return path
