"""The CONTENT_SECURITY_POLICY (django-csp 4) and PERMISSIONS_POLICY (django-permissions-policy)
settings: the headers of every answer."""
import re
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured

HOST = re.compile(r"[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]{1,5})?", re.ASCII)

# No page of the shop uses any of these browser features.
UNUSED_FEATURES = (
    "accelerometer", "autoplay", "camera", "display-capture", "encrypted-media", "fullscreen", "geolocation",
    "gyroscope", "magnetometer", "microphone", "midi", "payment", "picture-in-picture",
    "screen-wake-lock", "usb", "xr-spatial-tracking",
)


def image_hosts(hosts):
    """PRODUCT_IMAGE_HOSTS, lower-cased; a name that is not a host (or host:port) is a configuration error."""
    hosts = [host.lower() for host in hosts]
    for host in hosts:
        if not HOST.fullmatch(host):
            raise ImproperlyConfigured(f"PRODUCT_IMAGE_HOSTS: {host!r} is not a host name (pictures.example.com)")
    return hosts


def payment_origins(payments, js_url, api_base):
    """The origins Stripe.js needs, exactly, while card payments are on (`payments`, SHOP_PAYMENTS): where it is
    loaded from (STRIPE_JS_URL: its script and its card frames) and the API it talks to (STRIPE_API_BASE, or
    Stripe's own); none when they are off."""
    if payments != "stripe":
        return ()
    origins = []
    for url in (js_url, api_base or "https://api.stripe.com"):
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ImproperlyConfigured(f"{url!r} is not an http(s) address (STRIPE_JS_URL, STRIPE_API_BASE)")
        origin = f"{parts.scheme}://{parts.netloc.lower()}"
        if origin not in origins:
            origins.append(origin)
    return tuple(origins)


def content_security_policy(image_hosts, media_origin=None, payment_origins=()):
    """No inline scripts or styles anywhere (htmx's own indicator styles are off, includeIndicatorStyles
    in frame.html's htmx-config, and live in site.css); pictures from the shop, from https `image_hosts`
    and from `media_origin`, where uploaded pictures are kept when it is not the shop (storefront/media.py);
    Stripe.js's script, frames and requests from `payment_origins` (card payments on) and nowhere else."""
    payment_origins = list(payment_origins)
    return {
        "DIRECTIVES": {
            "default-src": ["'self'"],
            "script-src": ["'self'", *payment_origins],
            "style-src": ["'self'"],
            "img-src": ["'self'", "data:", *(f"https://{host}" for host in image_hosts),
                        *([media_origin] if media_origin else [])],
            "connect-src": ["'self'", *payment_origins],
            **({"frame-src": ["'self'", *payment_origins]} if payment_origins else {}),
            "font-src": ["'self'"],
            "object-src": ["'none'"],
            "base-uri": ["'none'"],
            "form-action": ["'self'"],
            "frame-ancestors": ["'none'"],
        },
    }


def permissions_policy():
    """Every browser feature off, except passkeys, which the shop's own pages may ask the browser for."""
    policy = {feature: [] for feature in UNUSED_FEATURES}
    policy["publickey-credentials-get"] = ["self"]
    policy["publickey-credentials-create"] = ["self"]
    return policy
