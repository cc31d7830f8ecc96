"""The bench's shoppers and staff: Django test clients on the bench's host, signed in (staff with a second
factor on record, as a real staff sign-in leaves it; tests/helpers.py `sign_in_staff` uses it), and the
checkout form's address and hidden fields."""

import base64
import re
import secrets
import time

from django.conf import settings
from django.test import Client

ADDRESS = {"name": "Bench Shopper", "street": "Hauptstraße 1", "postcode": "10115", "city": "Berlin", "country": "DE"}


def django_client(user=None, app=None):
    """A client on the host the bench serves on (the test client's "testserver" is not an allowed host),
    signed in as `user` if given (staff: with `app`, their second factor, used in the session)."""
    client = Client(HTTP_HOST="127.0.0.1")
    if user is not None:
        client.force_login(user)
    if app is not None:
        record_second_factor(client, user, app)
    return client


def hidden_field(html, name):
    """The value of a form's field `name` in a page (the CSRF token, the checkout's order_id and token)."""
    return re.search(rf'name="{name}" value="([^"]+)"', html).group(1)


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
