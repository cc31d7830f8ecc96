from django.apps import AppConfig


class ShopConfig(AppConfig):
    name = "shop"
    verbose_name = "Cart, checkout and orders"

    def ready(self):
        from allauth.account.signals import email_changed, email_confirmed

        from . import checks  # noqa: F401  (registers the system checks)

        email_changed.connect(_email_changed, dispatch_uid="shop.email_changed")
        email_confirmed.connect(_email_confirmed, dispatch_uid="shop.email_confirmed")


def _email_changed(sender, request, user, **kwargs):
    from . import accounts

    accounts.email_changed(user)


def _email_confirmed(sender, request, email_address, **kwargs):
    from . import accounts

    accounts.address_confirmed(email_address.user)
