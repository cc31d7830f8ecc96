"""The shop's django-allauth adapter: the hooks allauth offers for what this shop decides.

- Sign-up writes the user row only: the customer item in DynamoDB (CUSTOMER#<uuid>/METADATA) is
  written once the address is confirmed (shop/apps.py), so a sign-up with a new address does no more
  work than one with a taken address (which must not be told apart, even by its time).
- A username that is, or looks like, an email address is refused: email sign-in must find the owner
  of the address, never an account named after it.
- Every `next` is a local path or is ignored (allauth would accept other hosts of ALLOWED_HOSTS, and
  a bare word such as `home`, which Django's resolve_url takes for a view name).
- Every account mail (sign-up and sign-in codes, resets, notices) counts toward its inbox's hourly
  limit (ACCOUNT_MAILS_PER_MAILBOX), whatever `+tag` the address carries: past it the mail is not sent
  (and logged), and the page answers as usual. allauth's own limits count the address as typed.
- The client address for the rate limits: REMOTE_ADDR, or behind TRUSTED_PROXY_COUNT proxies the
  address the outermost of them saw."""
import logging

from allauth.account.adapter import DefaultAccountAdapter
from allauth.core import context, ratelimit
from django.core.exceptions import ValidationError
from django.utils.http import url_has_allowed_host_and_scheme

from shop.accounts import mailbox_key
from storefront.http import client_ip

log = logging.getLogger(__name__)

EMAIL_LIKE_USERNAME = "A username can’t be an email address (or contain @): choose a name without one."


def is_local_path(url, request):
    """`/account/orders/` yes; `//evil.example/`, `https://…`, `home`, `javascript:…` no."""
    if not url or not url.startswith("/") or url.startswith(("//", "/\\")):
        return False
    return url_has_allowed_host_and_scheme(url, allowed_hosts={request.get_host()}, require_https=False)


def _account(credentials):
    """The account a sign-in names: by email address first (as allauth's backend), else by username."""
    from allauth.account.utils import filter_users_by_email, filter_users_by_username

    email = credentials.get("email")
    if email:
        users = filter_users_by_email(email, prefer_verified=True)
        if users:
            return users[0]
    username = credentials.get("username")
    return filter_users_by_username(username).first() if username else None


class AccountAdapter(DefaultAccountAdapter):
    error_messages = {
        **DefaultAccountAdapter.error_messages,
        "too_many_login_attempts": (
            "Too many failed sign-ins for this account or from this address: password sign-in is paused for "
            "a few minutes. You can still sign in with a code sent to your email, or choose a new password."
        ),
    }

    def clean_username(self, username, shallow=False):
        if "@" in username or "＠" in username:
            raise ValidationError(EMAIL_LIKE_USERNAME, code="email_like_username")
        return super().clean_username(username, shallow=shallow)

    def save_user(self, request, user, form, commit=True):
        if not commit:
            return super().save_user(request, user, form, commit=False)
        user.name = form.cleaned_data.get("name", "")
        return super().save_user(request, user, form, commit=True)

    def pre_authenticate(self, request, **credentials):
        """allauth counts failed sign-ins per identifier typed; count them per account, whether named by
        username or by email, under the account's address (the key a password reset clears)."""
        account = _account(credentials)
        if account is not None and account.email:
            credentials = {"email": account.email}
        return super().pre_authenticate(request, **credentials)

    def is_safe_url(self, url):
        from allauth.core import context

        return is_local_path(url, context.request)

    def get_client_ip(self, request):
        return client_ip(request)

    def send_mail(self, template_prefix, email, context_data):
        request = context.request
        if request is not None and not ratelimit.consume(request, action="account_mail", key=mailbox_key(email)):
            log.warning("An account mail (%s) was not sent: its inbox had ACCOUNT_MAILS_PER_MAILBOX this hour",
                        template_prefix)
            return
        super().send_mail(template_prefix, email, context_data)
