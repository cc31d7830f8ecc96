"""Second factors (allauth's MFA app): who has one, whether this session used one, and where a staff
session without one is sent before staff pages open."""
from __future__ import annotations

import time
from collections.abc import Callable
from functools import wraps

from allauth.account import app_settings as account_settings
from allauth.account.adapter import get_adapter as get_account_adapter
from allauth.account.authentication import get_authentication_records
from allauth.mfa.models import Authenticator
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.http import urlencode

# Recovery codes back up a factor; alone they are not one.
FACTORS = (Authenticator.Type.TOTP, Authenticator.Type.WEBAUTHN)


def has_second_factor(user) -> bool:
    return user.is_authenticated and Authenticator.objects.filter(user=user, type__in=FACTORS).exists()


def _factor_records(request: HttpRequest) -> list[dict]:
    """allauth's record of each factor used in this session: an authenticator app's code, a recovery code
    or a passkey (at sign-in, at re-authentication, a passkey sign-in on its own, or a factor just added)."""
    return [r for r in get_authentication_records(request, request.user) if r.get("method") == "mfa"]


def used_second_factor(request: HttpRequest) -> bool:
    return bool(_factor_records(request))


def recently_reauthenticated_with_factor(request: HttpRequest) -> bool:
    """A factor typed again within allauth's re-authentication window (ACCOUNT_REAUTHENTICATION_TIMEOUT)."""
    recent = [r for r in _factor_records(request) if r.get("reauthenticated")]
    return bool(recent) and time.time() - recent[-1]["at"] < account_settings.REAUTHENTICATION_TIMEOUT


def factor_reauthentication_url(request: HttpRequest, next_path: str) -> str:
    """allauth's page that asks for the account's factor again (the app's code, or the passkey), then
    goes on to `next_path`."""
    methods = {m["id"]: m["url"] for m in get_account_adapter(request).get_reauthentication_methods(request.user)}
    has_app = Authenticator.objects.filter(user=request.user, type=Authenticator.Type.TOTP).exists()
    # the app's code when there is an app, else the passkey (recovery codes stand in for either)
    preferred = ["mfa_reauthenticate", "mfa_reauthenticate:webauthn"] if has_app else \
        ["mfa_reauthenticate:webauthn", "mfa_reauthenticate"]
    url = next((methods[m] for m in preferred if m in methods), reverse("mfa_reauthenticate"))
    return f"{url}?{urlencode({'next': next_path})}"


def needs_second_factor(request: HttpRequest, next_path: str) -> str | None:
    """Where a staff session must go before staff pages open (STAFF_MFA_REQUIRED on, the default): to set a
    factor up when the account has none, or to use it when this session has not (a session signed in
    with the password before the factor existed). None: the session may go on."""
    user = request.user
    if not (settings.STAFF_MFA_REQUIRED and user.is_staff) or used_second_factor(request):
        return None  # a factor removed since is no longer in the session (shop/account_sessions.py)
    if not has_second_factor(user):
        return reverse("mfa_index")
    return factor_reauthentication_url(request, next_path)


def factor_reauthentication_required(view: Callable) -> Callable:
    """A view (allauth's recovery-code pages, and those that add, change or remove a factor) that an
    account with a factor sees only after using that factor again in allauth's re-authentication window:
    the password again is not enough, or whoever knows it could read the codes that stand in for the
    factor, or put a factor of their own in its place. An account with no factor yet passes (allauth
    asks for the password as usual) so that it can set its first one up."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if (request.user.is_authenticated and has_second_factor(request.user)
                and not recently_reauthenticated_with_factor(request)):
            return redirect(factor_reauthentication_url(request, request.get_full_path()))
        return view(request, *args, **kwargs)

    return wrapper
