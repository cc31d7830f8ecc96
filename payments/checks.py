"""`manage.py check --deploy`: a shop that takes card payments needs its Stripe secrets."""
from django.conf import settings
from django.core.checks import Error, Tags, register


@register()
def payments_setting(app_configs, **kwargs):
    if settings.SHOP_PAYMENTS in ("stripe", "off"):
        return []
    return [Error(f"SHOP_PAYMENTS is {settings.SHOP_PAYMENTS!r}: it is `stripe` (the default) or `off`.",
                  id="payments.E002")]


@register(Tags.security, deploy=True)
def stripe_secrets(app_configs, **kwargs):
    if settings.DEBUG or settings.SHOP_PAYMENTS == "off":
        return []
    missing = [name for name in ("STRIPE_SECRET_KEY", "STRIPE_WEBHOOK_SECRET", "STRIPE_PUBLISHABLE_KEY")
               if not getattr(settings, name, "")]
    if not missing:
        return []
    return [Error(
        f"SHOP_PAYMENTS is `stripe` but {', '.join(missing)} {'is' if len(missing) == 1 else 'are'} not set: "
        "the checkout cannot take payments.",
        hint="Set them from Stripe's dashboard (API keys; the webhook endpoint's signing secret), or "
             "SHOP_PAYMENTS=off for a shop that takes no online payment.",
        id="payments.E001",
    )]


# Stripe's currencies that are not counted in hundredths (its "zero-decimal" and "three-decimal" lists): the shop
# counts every amount in two decimals (payments/money.py), so it cannot take them.
NOT_TWO_DECIMAL = frozenset((
    "BIF", "CLP", "DJF", "GNF", "JPY", "KMF", "KRW", "MGA", "PYG", "RWF", "UGX", "VND", "VUV", "XAF", "XOF", "XPF",
    "BHD", "JOD", "KWD", "OMR", "TND",
))


@register(Tags.security, deploy=True)
def shop_currency(app_configs, **kwargs):
    currency = settings.SHOP_CURRENCY
    if settings.SHOP_PAYMENTS == "off" or (len(currency) == 3 and currency.isalpha() and currency.isascii()
                                           and currency not in NOT_TWO_DECIMAL):
        return []
    return [Error(f"SHOP_CURRENCY is {currency!r}: the shop takes card payments in a currency of two decimals "
                  "(an ISO 4217 code such as EUR, USD, GBP).",
                  hint="Prices and payments are counted in hundredths (payments/money.py).", id="payments.E003")]
