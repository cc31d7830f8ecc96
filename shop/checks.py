"""System checks of the accounts' and operators' settings (`manage.py check --deploy`)."""
import ipaddress

from django.conf import settings
from django.core.checks import Error, Tags, Warning, register

# What /metrics may be opened to without a token: loopback and private networks (RFC 1918, IPv6 ULA).
PRIVATE_NETWORKS = [ipaddress.ip_network(n) for n in (
    "127.0.0.0/8", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "::1/128", "fc00::/7")]


@register(Tags.security, deploy=True)
def client_address_behind_proxy(app_configs, **kwargs):
    """DJANGO_HTTPS says a TLS proxy is in front; with TRUSTED_PROXY_COUNT 0 the client address is the
    proxy's, so every per-address limit (sign-in, sign-up, reset, alerts) would count every shopper together
    and a proxy on the same host would open /metrics to anyone: an error, not a warning."""
    if getattr(settings, "HTTPS", False) and not settings.TRUSTED_PROXY_COUNT:
        return [Error(
            "DJANGO_HTTPS is on (a proxy terminates TLS) but TRUSTED_PROXY_COUNT is 0: every client will look "
            "like the proxy, and the per-address limits (sign-in, sign-up, password reset, alerts) will count "
            "all shoppers as one.",
            hint="Set TRUSTED_PROXY_COUNT to the number of proxies of yours in front of the app servers "
                 "(1 for one load balancer).",
            id="shop.E002",
        )]
    return []


@register(Tags.security, deploy=True)
def metrics_token_with_https(app_configs, **kwargs):
    if getattr(settings, "HTTPS", False) and not settings.METRICS_TOKEN:
        return [Error(
            "DJANGO_HTTPS is on but METRICS_TOKEN is not set: /metrics is guarded by client addresses alone.",
            hint="Set METRICS_TOKEN to a long random secret and give it to the scraper (Authorization: Bearer); "
                 "scrape over the private network, since /metrics is answered on plain HTTP.",
            id="shop.E001",
        )]
    return []


@register(Tags.caches, deploy=True)
def shared_cache_for_several_servers(app_configs, **kwargs):
    engine = settings.DATABASES["default"].get("ENGINE", "")
    if "postgresql" in engine and not getattr(settings, "CACHE_URL", None):
        return [Warning(
            "DATABASE_URL is PostgreSQL (several app servers) but CACHE_URL is not set: every process counts "
            "the sign-in and other limits on its own, and a used second-factor code is remembered by one "
            "process only.",
            hint="Set CACHE_URL to a Redis every app server shares (redis://host:6379/0).",
            id="shop.W002",
        )]
    return []


@register(Tags.security, deploy=True)
def staff_second_factor(app_configs, **kwargs):
    if not settings.STAFF_MFA_REQUIRED:
        return [Warning(
            "STAFF_MFA_REQUIRED is off: staff pages open with a password alone.",
            hint="Unset STAFF_MFA_REQUIRED (on by default) once every staff member has an authenticator or passkey.",
            id="shop.W003",
        )]
    return []


@register(Tags.security, deploy=True)
def metrics_networks(app_configs, **kwargs):
    wide = [str(network) for network in settings.METRICS_ALLOWED_NETWORKS if not _private(network)]
    if wide:
        return [Warning(
            f"METRICS_ALLOWED_CIDRS opens /metrics to networks beyond loopback and private ones: {', '.join(wide)}.",
            hint="List only the scrapers' private networks, or use METRICS_TOKEN from elsewhere.",
            id="shop.W004",
        )]
    return []


@register(Tags.security, deploy=True)
def webauthn_insecure_origin(app_configs, **kwargs):
    if getattr(settings, "MFA_WEBAUTHN_ALLOW_INSECURE_ORIGIN", False):
        return [Warning(
            "MFA_WEBAUTHN_ALLOW_INSECURE_ORIGIN is on: passkeys are accepted over plain http.",
            hint="Unset MFA_WEBAUTHN_ALLOW_INSECURE_ORIGIN (and DJANGO_DEBUG, its default) in production.",
            id="shop.W005",
        )]
    return []


def _private(network: ipaddress.IPv4Network | ipaddress.IPv6Network) -> bool:
    return any(network.version == private.version and network.subnet_of(private) for private in PRIVATE_NETWORKS)
