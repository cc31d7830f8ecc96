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


STRIPE_API = "https://api.stripe.com"
STRIPE_JS = "https://js.stripe.com"
# What Stripe's integration security guide asks of a CSP for Stripe.js and its 3-D Secure step on Stripe itself:
# its script and frames from js.stripe.com and its subdomains, the bank's 3-D Secure page through hooks.stripe.com,
# and its requests to api.stripe.com.
STRIPE_JS_EXTRA = ("https://*.js.stripe.com",)
STRIPE_FRAME_EXTRA = ("https://hooks.stripe.com",)
PAYMENT_DIRECTIVES = ("script-src", "frame-src", "connect-src")


def _origin(url):
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ImproperlyConfigured(f"{url!r} is not an http(s) address (STRIPE_JS_URL, STRIPE_API_BASE)")
    return f"{parts.scheme}://{parts.netloc.lower()}"


def payment_origins(payments, js_url, api_base):
    """The origins Stripe.js needs, by directive (script-src, frame-src, connect-src), while card payments are on
    (`payments`, SHOP_PAYMENTS); none when they are off. Stripe itself (no STRIPE_API_BASE): what Stripe documents
    for Stripe.js and 3-D Secure. Another Stripe (STRIPE_API_BASE: localstripe): its origin (and STRIPE_JS_URL's)
    only, for all three."""
    if payments != "stripe":
        return {}
    js = _origin(js_url)
    if not api_base:
        scripts = (js, *STRIPE_JS_EXTRA) if js == STRIPE_JS else (js,)
        return {"script-src": scripts, "frame-src": (*scripts, *STRIPE_FRAME_EXTRA), "connect-src": (STRIPE_API,)}
    origins = tuple(dict.fromkeys((js, _origin(api_base))))
    return dict.fromkeys(PAYMENT_DIRECTIVES, origins)


def content_security_policy(image_hosts, media_origin=None, payment_origins=None):
    """No inline scripts or styles anywhere (htmx's own indicator styles are off, includeIndicatorStyles
    in frame.html's htmx-config, and live in site.css); pictures from the shop, from https `image_hosts`
    and from `media_origin`, where uploaded pictures are kept when it is not the shop (storefront/media.py);
    Stripe.js's script, frames and requests from `payment_origins` (card payments on: payment_origins()'s
    origins by directive) and nowhere else."""
    payment_origins = payment_origins or {}
    payment = {name: list(payment_origins.get(name, ())) for name in PAYMENT_DIRECTIVES}
    return {
        "DIRECTIVES": {
            "default-src": ["'self'"],
            "script-src": ["'self'", *payment["script-src"]],
            "style-src": ["'self'"],
            "img-src": ["'self'", "data:", *(f"https://{host}" for host in image_hosts),
                        *([media_origin] if media_origin else [])],
            "connect-src": ["'self'", *payment["connect-src"]],
            **({"frame-src": ["'self'", *payment["frame-src"]]} if payment["frame-src"] else {}),
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
