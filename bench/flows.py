"""A signed-in staff session with its second factor on record, as a real staff sign-in leaves it
(tests/helpers.py `sign_in_staff` uses it)."""

import base64
import secrets
import time

from django.conf import settings


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
