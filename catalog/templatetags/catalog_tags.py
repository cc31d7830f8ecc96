"""Template filters and tags of the catalog's pages: money, attribute names, fast product links."""
from functools import lru_cache
from urllib.parse import quote

from django import template
from django.urls import get_script_prefix, get_urlconf, reverse
from django.utils.http import RFC3986_SUBDELIMS

from catalog.images import image_srcset, image_url
from common.numbers import euro

register = template.Library()


@register.filter
def money(value):
    """€1,299.00"""
    return "" if value is None or value == "" else euro(value)


# The last word of an attribute name that is a unit, and how a reader writes it.
UNITS = {
    "mah": "mAh", "wh": "Wh", "kwh": "kWh", "w": "W", "kw": "kW", "v": "V", "hz": "Hz", "ghz": "GHz",
    "mb": "MB", "gb": "GB", "tb": "TB", "mm": "mm", "cm": "cm", "m": "m", "km": "km", "kmh": "km/h",
    "in": "in", "g": "g", "kg": "kg", "l": "L", "ml": "ml", "h": "h", "hp": "hp", "days": "days", "mp": "MP",
}
# Words that are abbreviations, written in capitals.
ACRONYMS = {"5g": "5G", "4g": "4G", "anc": "ANC", "gps": "GPS", "cpu": "CPU", "gpu": "GPU", "ram": "RAM",
            "usb": "USB", "nfc": "NFC", "hdr": "HDR", "led": "LED", "oled": "OLED", "lcd": "LCD"}


@register.filter
@lru_cache(maxsize=4096)  # a catalog has few attribute names; a product page shows a dozen
def attribute_name(name):
    """battery_mah -> Battery (mAh), ram_gb -> RAM (GB), top_speed_kmh -> Top speed (km/h), 5g -> 5G"""
    words = [w for w in str(name).strip().lower().replace("-", "_").split("_") if w]
    if not words:
        return ""
    if len(words) == 1 and words[0] in UNITS:
        return UNITS[words[0]]  # kw -> kW
    unit = UNITS.get(words[-1]) if len(words) > 1 else None
    if unit:
        words = words[:-1]
    words = [ACRONYMS.get(w, w) for w in words]
    label = " ".join(words)
    label = label if label[:1].isupper() else label[:1].upper() + label[1:]
    return f"{label} ({unit})" if unit else label


@register.filter
def attribute_value(value):
    if value is True:
        return "Yes"
    if value is False:
        return "No"
    return value


@register.filter
def lookup(mapping, key):
    """{{ names|lookup:product.brand_id }}"""
    try:
        return mapping.get(key, key)
    except AttributeError:
        return key


_MARK = "\x00"


@lru_cache(maxsize=64)
def _around_id(name, script_prefix, urlconf):
    """The URL of a one-ID page split around the ID: reversed once, reused for every link."""
    before, _, after = reverse(name, urlconf=urlconf, args=[_MARK]).partition(quote(_MARK))
    return before, after


@lru_cache(maxsize=64)
def _reversed(name, script_prefix, urlconf):
    return reverse(name, urlconf=urlconf)


_NO_ID = object()  # not None: a missing ID still gives the ".../None/" link {% url %} would, not an error


@register.simple_tag
def cached_url(name, object_id=_NO_ID):
    """{% cached_url 'brand' b.brand_id %}, {% cached_url 'home' %}: what {% url %} gives, without a
    full reverse() per link (a page has a hundred: the menus, tiles and product cards, and every
    page the header's and footer's). Reversed once per process and script prefix."""
    if object_id is _NO_ID:
        return _reversed(name, get_script_prefix(), get_urlconf())
    before, after = _around_id(name, get_script_prefix(), get_urlconf())
    return f"{before}{quote(str(object_id), safe=RFC3986_SUBDELIMS + '~:@')}{after}"


@register.simple_tag
def product_image_url(product, brand_names=None, size="page"):
    """The product's picture: one staff uploaded (in the box `size`, "page" or "card", at 1x), its
    https URL, its file under static/, or a generated placeholder (catalog.images)."""
    return image_url(product, brand_names, size=size)


@register.simple_tag
def product_image_srcset(product, size="page"):
    """The srcset of an uploaded picture ("<its 2x URL> 2x"), else "" (catalog.images)."""
    return image_srcset(product, size)
