"""The CONTENT_SECURITY_POLICY (django-csp 4) and PERMISSIONS_POLICY (django-permissions-policy)
settings: the headers of every answer."""
import re

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


def content_security_policy(image_hosts, media_origin=None):
    """No inline scripts or styles anywhere (htmx's own indicator styles are off, includeIndicatorStyles
    in frame.html's htmx-config, and live in site.css); pictures from the shop, from https `image_hosts`
    and from `media_origin`, where uploaded pictures are kept when it is not the shop (storefront/media.py)."""
    return {
        "DIRECTIVES": {
            "default-src": ["'self'"],
            "script-src": ["'self'"],
            "style-src": ["'self'"],
            "img-src": ["'self'", "data:", *(f"https://{host}" for host in image_hosts),
                        *([media_origin] if media_origin else [])],
            "connect-src": ["'self'"],
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
