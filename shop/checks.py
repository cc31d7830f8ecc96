"""System checks of the accounts' settings (`manage.py check --deploy`)."""
from django.conf import settings
from django.core.checks import Tags, Warning, register


@register(Tags.security, deploy=True)
def client_address_behind_proxy(app_configs, **kwargs):
    """DJANGO_HTTPS says a TLS proxy is in front; with TRUSTED_PROXY_COUNT 0 the client address is the
    proxy's, so the per-address sign-in limits would count every shopper together."""
    if getattr(settings, "HTTPS", False) and not settings.TRUSTED_PROXY_COUNT:
        return [Warning(
            "DJANGO_HTTPS is on (a proxy terminates TLS) but TRUSTED_PROXY_COUNT is 0: every client will look "
            "like the proxy, and the per-address sign-in limits will count all shoppers as one.",
            hint="Set TRUSTED_PROXY_COUNT to the number of proxies of yours in front of the app servers "
                 "(1 for one load balancer).",
            id="shop.W001",
        )]
    return []
