"""Second factors (allauth's MFA app): who has one, and who must have one before staff pages open."""
from allauth.mfa.models import Authenticator
from django.conf import settings

# Recovery codes back up a factor; alone they are not one.
FACTORS = (Authenticator.Type.TOTP, Authenticator.Type.WEBAUTHN)


def has_second_factor(user):
    return user.is_authenticated and Authenticator.objects.filter(user=user, type__in=FACTORS).exists()


def needs_second_factor(user):
    """A staff account without a second factor, while STAFF_MFA_REQUIRED is on (the default). An
    account that has one signed in with it: allauth asks for it at every sign-in (a passkey sign-in
    is one by itself)."""
    return bool(settings.STAFF_MFA_REQUIRED and user.is_staff and not has_second_factor(user))
