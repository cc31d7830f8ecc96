"""allauth's second-factor forms (sign-in and re-authentication; settings MFA_FORMS), with an authenticator
app's code taken once (RFC 6238, 5.2).

allauth marks a used code in Django's cache for one 30 s step, while a code is taken for three steps
(MFA_TOTP_TOLERANCE = 1: 90 s), and the mark lives in one server's cache. Here the time step of the last
code taken is kept in the authenticator's row (`Authenticator.data["last_step"]`), and a code is taken only
if its step is later: the same code, or an earlier one, is refused on every server for as long as it is
valid. The row is updated with a conditional UPDATE, so of two servers taking one code at once, one wins."""
from __future__ import annotations

import time

from allauth.core import context
from allauth.mfa import app_settings
from allauth.mfa.adapter import get_adapter
from allauth.mfa.base import forms as allauth_forms
from allauth.mfa.base.internal.flows import check_rate_limit
from allauth.mfa.models import Authenticator
from allauth.mfa.totp import forms as allauth_totp_forms
from allauth.mfa.totp.internal.auth import format_hotp_value, hotp_value
from allauth.mfa.utils import decrypt
from django.db.models import Q
from django.utils.crypto import constant_time_compare

LAST_STEP = "last_step"
ACTIVATION_STEP = "shop_totp_activation_step"  # on the request, from the set-up form to the new authenticator


def code_step(secret: str, code: str, now: float | None = None) -> int | None:
    """The time step (RFC 6238 counter) among those taken now whose code `code` is, else None."""
    current = int(time.time() if now is None else now) // app_settings.TOTP_PERIOD
    code = "".join(code.split())
    for step in range(current - app_settings.TOTP_TOLERANCE, current + app_settings.TOTP_TOLERANCE + 1):
        if constant_time_compare(code, format_hotp_value(hotp_value(secret, step))):
            return step
    return None


def take_totp_code(authenticator: Authenticator, code: str) -> bool:
    """Take `code` for the authenticator app `authenticator` if it is one of its codes of now, of a later step
    than the last one taken. One UPDATE whose condition is on the stored step: true for one caller only."""
    step = code_step(decrypt(authenticator.data["secret"]), code)
    if step is None:
        return False
    later = Q(**{f"data__{LAST_STEP}__isnull": True}) | Q(**{f"data__{LAST_STEP}__lt": step})
    data = {**authenticator.data, LAST_STEP: step}
    taken = Authenticator.objects.filter(later, pk=authenticator.pk).update(data=data)
    if taken:
        authenticator.data = data
    return bool(taken)


class OnceMixin:
    """allauth's check of the code, with an authenticator app's code taken once (a recovery code is marked
    used by allauth itself, under a row lock):
    - a code of a step already taken is refused before allauth's check, and counts as a wrong code
      (allauth's check, which takes it while its own 30 s mark lasts no longer, would clear the count);
    - else the step is kept with a conditional UPDATE (`take_totp_code`): of two servers, one wins."""

    def clean_code(self) -> str:
        app = Authenticator.objects.filter(user=self.user, type=Authenticator.Type.TOTP).first()
        if app is not None and _spent(app, self.cleaned_data.get("code", "")):
            self._refuse(app)
        code = super().clean_code()
        authenticator = self.authenticator
        bypass = app_settings.TOTP_INSECURE_BYPASS_CODE  # allauth's test code (DEBUG only): not a real code
        if authenticator.type == Authenticator.Type.TOTP and not (bypass and code == bypass):
            if not take_totp_code(authenticator, code):
                self._refuse(authenticator)
        return code

    def _refuse(self, authenticator: Authenticator) -> None:
        check_rate_limit(self.user)  # one more wrong code (raises once there are too many)
        self._emit_authentication_failed(authenticator)
        raise get_adapter().validation_error("incorrect_code")


def _spent(app: Authenticator, code: str) -> bool:
    """`code` is one of the app's codes of now, of a step at or before the last one taken."""
    step = code_step(decrypt(app.data["secret"]), code)
    last = app.data.get(LAST_STEP)
    return step is not None and last is not None and step <= last


class AuthenticateForm(OnceMixin, allauth_forms.AuthenticateForm):
    pass


class ReauthenticateForm(OnceMixin, allauth_forms.ReauthenticateForm):
    pass


class ActivateTOTPForm(allauth_totp_forms.ActivateTOTPForm):
    """The code that sets the app up is taken as well: its step is kept with the new authenticator
    (`keep_activation_step`, once allauth has created it)."""

    def clean_code(self) -> str:
        code = super().clean_code()
        setattr(context.request, ACTIVATION_STEP, code_step(self.secret, code))
        return code


def keep_activation_step(request, authenticator: Authenticator) -> None:
    step = getattr(request, ACTIVATION_STEP, None)
    if step is not None and authenticator.type == Authenticator.Type.TOTP:
        Authenticator.objects.filter(pk=authenticator.pk).update(data={**authenticator.data, LAST_STEP: step})
