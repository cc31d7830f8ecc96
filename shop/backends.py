"""Sign-in with a username or an email address, and what django-axes counts failures against."""
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend


def _account(identifier):
    """The account a sign-in names: by username, else (with an @) by email, in any case."""
    if not identifier:
        return None
    users = get_user_model()._default_manager
    user = users.filter(username=identifier).first()
    if user is None and "@" in identifier:
        user = users.filter(email__iexact=identifier.strip()).first()
    return user


class UsernameOrEmailBackend(ModelBackend):
    def authenticate(self, request, username=None, password=None, **kwargs):
        if username is None:
            username = kwargs.get(get_user_model().USERNAME_FIELD)
        if username is None or password is None:
            return None
        user = _account(username)
        if user is None:
            get_user_model()().set_password(password)  # as slow as a real check: no account enumeration by timing
            return None
        if user.check_password(password) and self.user_can_authenticate(user):
            return user
        return None


def lockout_username(request, credentials):
    """django-axes: count failures per account, whether it was named by username or by email."""
    identifier = (credentials or {}).get("username") or request.POST.get("username", "")
    user = _account(identifier)
    return user.get_username() if user is not None else identifier.strip().lower()[:150]


def client_ip(request):
    """django-axes: the client's address (see TRUSTED_PROXY_COUNT in settings)."""
    count = settings.TRUSTED_PROXY_COUNT
    if count:
        hops = [h.strip() for h in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if h.strip()]
        if len(hops) >= count:
            return hops[-count]
    return request.META.get("REMOTE_ADDR")
