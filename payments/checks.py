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
