"""Sessions and second factors.

- Adding or removing a factor signs the account out everywhere else: a session signed in before (with
  the password alone, perhaps a thief's) must not inherit the factor. The account's `session_epoch` goes
  up, which changes its session auth hash (shop/models.py), and Django's check of that hash at every
  request ends the other sessions. The session that made the change is kept (its hash is brought up to
  date) and, having just proved the factor (a code from the app, or the passkey), counts as having used it.
- Staff sessions are short (STAFF_SESSION_SECONDS): that is the session's expiry from the staff sign-in
  on (set on the way out of the request, after allauth's sign-in form has set the usual one), and a staff
  session older than that since its sign-in is ended at its next request, however active it has been,
  also one from before the limit existed."""
from __future__ import annotations

import time

from django.conf import settings
from django.contrib.auth import logout, update_session_auth_hash
from django.http import HttpRequest

SIGNED_IN_AT = "shop_signed_in_at"


def on_user_logged_in(sender, request: HttpRequest, user, **kwargs) -> None:
    if request is None or not hasattr(request, "session"):
        return
    request.session[SIGNED_IN_AT] = time.time()


def _is_own(request: HttpRequest | None, user) -> bool:
    return request is not None and getattr(request, "user", None) is not None and request.user.pk == user.pk


def on_authenticator_changed(sender, request: HttpRequest, user, authenticator, **kwargs) -> None:
    user.end_other_sessions()
    if _is_own(request, user):
        if request.user is not user:
            request.user.refresh_from_db(fields=["session_epoch"])
        update_session_auth_hash(request, request.user)


def on_authenticator_removed(sender, request: HttpRequest, user, authenticator, **kwargs) -> None:
    """Also forget this session's use of a factor that is gone (allauth's records name it by ID; the
    instance it sends has lost its ID in the deletion): it no longer counts as one used."""
    from allauth.account.authentication import AUTHENTICATION_METHODS_SESSION_KEY
    from allauth.mfa.models import Authenticator

    on_authenticator_changed(sender, request, user, authenticator)
    records = request.session.get(AUTHENTICATION_METHODS_SESSION_KEY) if _is_own(request, user) else None
    if isinstance(records, list):
        kept = set(Authenticator.objects.filter(user=user).values_list("pk", flat=True))
        request.session[AUTHENTICATION_METHODS_SESSION_KEY] = [
            r for r in records if r.get("method") != "mfa" or r.get("id") in kept]


def on_authenticator_added(sender, request: HttpRequest, user, authenticator, **kwargs) -> None:
    from allauth.account.internal.flows.login import record_authentication

    from .mfa import FACTORS
    from .mfa_forms import keep_activation_step

    on_authenticator_changed(sender, request, user, authenticator)
    keep_activation_step(request, authenticator)
    if authenticator.type in FACTORS and _is_own(request, user):
        # allauth's own record, as when the factor is used: adding it took a code from the app, or the
        # passkey, after the password again (allauth's re-authentication for MFA changes).
        record_authentication(request, request.user, "mfa", id=authenticator.pk, type=authenticator.type,
                              reauthenticated=True)


def _signed_in_at(request: HttpRequest) -> float | None:
    from allauth.account.authentication import get_authentication_records

    at = request.session.get(SIGNED_IN_AT)
    if at is None:  # a session from before SIGNED_IN_AT: allauth's first record of it, if any
        records = get_authentication_records(request, request.user)
        at = records[0].get("at") if records else None
    return at if isinstance(at, (int, float)) else None


def _is_staff(request: HttpRequest) -> bool:
    return request.user.is_authenticated and request.user.is_staff


class StaffSessionMiddleware:
    """Ends a staff session older than STAFF_SESSION_SECONDS (or one whose sign-in time is unknown), and
    gives a staff session that expiry."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest):
        if settings.SESSION_COOKIE_NAME in request.COOKIES and _is_staff(request):
            at = _signed_in_at(request)
            if at is None or time.time() - at > settings.STAFF_SESSION_SECONDS:
                logout(request)
        response = self.get_response(request)
        # Only a session the request has read already (a sign-in, any signed-in page): reading it here
        # would add "Vary: Cookie" to pages that never looked at it.
        if request.session.accessed and "_auth_user_id" in request.session and _is_staff(request):
            if request.session.get_expiry_age() != settings.STAFF_SESSION_SECONDS:
                request.session.set_expiry(settings.STAFF_SESSION_SECONDS)
        return response
