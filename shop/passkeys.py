"""Passkeys (allauth's WebAuthn forms, through MFA_FORMS): the credential a browser posts is checked
before allauth parses it. It must be a JSON object of at most MAX_CREDENTIAL_CHARACTERS characters,
nested at most MAX_CREDENTIAL_DEPTH deep, with the fields of a WebAuthn answer. Anything else (4,500
digits, an array nested thousands deep, a made-up credential) is a form error with a clear message,
which allauth's pages answer with 400; nothing is written. allauth's own checks (the challenge, the
signature, a known passkey) follow."""
import json
import re

from allauth.account.views import LoginView
from allauth.mfa.webauthn import forms as allauth_forms
from allauth.mfa.webauthn.views import LoginWebAuthnView
from django import forms
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from fido2.webauthn import AuthenticationResponse, RegistrationResponse

# A registration with an attestation certificate chain is a few kB; a sign-in answer is smaller.
MAX_CREDENTIAL_CHARACTERS = 32_768
# A WebAuthn answer nests 3 deep (credential, response, transports; extension results).
MAX_CREDENTIAL_DEPTH = 8

UNREADABLE = "The passkey’s answer could not be read. Please try again."
NOT_ADDED = "This passkey could not be added: its answer did not match this request. Please try again."
NOT_ACCEPTED = "This passkey was not accepted. Please try again, or use another way to sign in."

# What fido2 raises on parsing data that is not a WebAuthn answer (a missing key, a number where a
# string goes, bad base64 or CBOR).
MALFORMED = (KeyError, TypeError, ValueError, AttributeError, IndexError, OverflowError)

_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKETS = re.compile(r"[\[\]{}]")


def nesting_depth(text: str) -> int:
    """How deep the JSON text's arrays and objects nest, counted without parsing it."""
    depth = deepest = 0
    for bracket in _BRACKETS.findall(_STRINGS.sub("", text)):
        depth += 1 if bracket in "[{" else -1
        deepest = max(deepest, depth)
    return deepest


def read_credential(text: str) -> dict:
    """The credential JSON as a dict, or ValidationError (too long, too deep, not a JSON object)."""
    if len(text) > MAX_CREDENTIAL_CHARACTERS or nesting_depth(text) > MAX_CREDENTIAL_DEPTH:
        raise ValidationError(UNREADABLE, code="credential_unreadable")
    try:
        value = json.loads(text)
    except ValueError:  # not JSON, or a number of more digits than Python converts
        raise ValidationError(UNREADABLE, code="credential_unreadable") from None
    if not isinstance(value, dict):
        raise ValidationError(UNREADABLE, code="credential_unreadable")
    return value


class CredentialField(forms.CharField):
    """allauth's hidden `credential` (a JSONField there), read by read_credential."""

    widget = forms.HiddenInput

    def __init__(self, **kwargs):
        super().__init__(strip=False, **kwargs)

    def to_python(self, value):
        text = super().to_python(value)
        return read_credential(text) if text else None

    def bound_data(self, data, initial):
        return ""  # a refused answer is not sent back into the page


def check_registration(credential: dict) -> None:
    try:
        response = RegistrationResponse.from_dict(credential).response
        response.attestation_object.auth_data.credential_data.public_key  # noqa: B018 (parsed here)
        response.client_data.challenge  # noqa: B018
    except MALFORMED:
        raise ValidationError(UNREADABLE, code="credential_unreadable") from None


def check_authentication(credential: dict) -> None:
    try:
        parsed = AuthenticationResponse.from_dict(credential)
        parsed.response.client_data.challenge  # noqa: B018 (parsed here)
        parsed.response.authenticator_data.rp_id_hash  # noqa: B018
    except MALFORMED:
        raise ValidationError(UNREADABLE, code="credential_unreadable") from None


def _refused(error: ValidationError, message: str) -> ValidationError:
    """allauth's "Incorrect code." for a passkey answer it refused, said as a passkey's."""
    codes = {getattr(e, "code", None) for e in getattr(error, "error_list", [error])}
    return ValidationError(message, code="passkey_refused") if "incorrect_code" in codes else error


class _AddPasskey(forms.Form):
    credential = CredentialField()

    def clean(self):
        credential = self.cleaned_data.get("credential")
        if credential is None:
            self._show_credential_errors()
            return self.cleaned_data
        check_registration(credential)
        try:
            return super().clean()
        except ValidationError as error:
            raise _refused(error, NOT_ADDED) from None

    def _show_credential_errors(self) -> None:
        """The hidden field's errors, where the page shows them (the form's own errors)."""
        for message in self.errors.get("credential", []):
            self.add_error(None, message)


class AddPasskeyForm(_AddPasskey, allauth_forms.AddWebAuthnForm):
    pass


class SignupPasskeyForm(_AddPasskey, allauth_forms.SignupWebAuthnForm):
    pass


class _UsePasskey(forms.Form):
    credential = CredentialField()

    def clean_credential(self):
        credential = self.cleaned_data["credential"]
        check_authentication(credential)
        try:
            return super().clean_credential()
        except ValidationError as error:
            raise _refused(error, NOT_ACCEPTED) from None

    def clean(self):
        for message in self.errors.get("credential", []):
            self.add_error(None, message)
        return super().clean()


class AuthenticatePasskeyForm(_UsePasskey, allauth_forms.AuthenticateWebAuthnForm):
    pass


class ReauthenticatePasskeyForm(_UsePasskey, allauth_forms.ReauthenticateWebAuthnForm):
    pass


class LoginPasskeyForm(_UsePasskey, allauth_forms.LoginWebAuthnForm):
    pass


class PasskeyLoginView(LoginWebAuthnView):
    """allauth's passkey sign-in, whose refused answer is the sign-in page with the message and 400
    (allauth's redirects there, 302)."""

    def form_invalid(self, form) -> HttpResponse:
        super().form_invalid(form)  # allauth's: the credential's errors become messages on the next page
        return sign_in_page(self.request, status=400)


def sign_in_page(request: HttpRequest, *, status: int) -> HttpResponse:
    view = LoginView()
    view.setup(request)
    form = view.get_form_class()(request=request)
    return view.render_to_response(view.get_context_data(form=form), status=status)
