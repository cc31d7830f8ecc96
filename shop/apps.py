from django.apps import AppConfig


class ShopConfig(AppConfig):
    name = "shop"
    verbose_name = "Cart, checkout and orders"

    def ready(self):
        from allauth.account.signals import email_changed, email_confirmed
        from allauth.mfa.signals import authenticator_added, authenticator_removed
        from django.contrib.auth.signals import user_logged_in

        from . import (
            account_sessions,
            checks,  # noqa: F401  (registers the system checks)
        )

        email_changed.connect(_email_changed, dispatch_uid="shop.email_changed")
        user_logged_in.connect(account_sessions.on_user_logged_in, dispatch_uid="shop.session_signed_in")
        authenticator_added.connect(account_sessions.on_authenticator_added, dispatch_uid="shop.factor_added")
        authenticator_removed.connect(account_sessions.on_authenticator_removed, dispatch_uid="shop.factor_removed")
        email_confirmed.connect(_email_confirmed, dispatch_uid="shop.email_confirmed")


def _email_changed(sender, request, user, **kwargs):
    from . import accounts

    accounts.email_changed(user)


def _email_confirmed(sender, request, email_address, **kwargs):
    from . import accounts

    accounts.address_confirmed(email_address.user)
