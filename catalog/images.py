"""Product pictures: the product's own (one staff uploaded, kept in the media storage in each size the
pages show: catalog/pictures.py; an https URL; or a file under static/), or a generated placeholder,
an SVG of its brand's initial on a colour of its category, made from its URL alone."""
import zlib
from functools import lru_cache

from django.templatetags.static import static
from django.urls import get_script_prefix, reverse

from catalog.gateway import fold
from catalog.pictures import is_stored, picture_url

COLOURS = [
    "#2f6f8f", "#8f2f4f", "#3f7f3f", "#7f5f1f", "#5f3f8f", "#1f6f6f",
    "#8f4f2f", "#4f4f7f", "#6f7f2f", "#7f2f7f", "#2f4f6f", "#5f5f5f",
]
SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 160 120" width="160" height="120">'
    '<rect width="160" height="120" fill="{colour}"/>'
    '<text x="80" y="78" font-family="sans-serif" font-size="56" font-weight="bold" fill="#ffffff" '
    'text-anchor="middle">{initial}</text></svg>'
)


def placeholder_svg(initial, colour):
    """The SVG for a placeholder URL's parts, or None if they are not ones this module makes."""
    if len(initial) != 1 or not initial.isascii() or not initial.isalnum() or not 0 <= colour < len(COLOURS):
        return None
    return SVG.format(colour=COLOURS[colour], initial=initial.upper())


@lru_cache(maxsize=8)
def _placeholder_base(script_prefix):
    return reverse("placeholder", args=["A", 0]).removesuffix("A-0.svg")


def placeholder_base():
    """The placeholders' URL up to the initial ("/img/placeholder/"): the same for every product."""
    return _placeholder_base(get_script_prefix())


def image_url(product, brand_names=None, base=None, size="page"):
    """The picture's URL in the box `size` ("card" or "page", catalog.pictures.SIZES) at 1x. `base`:
    placeholder_base(), when the caller makes many URLs at once."""
    image = getattr(product, "image", "")
    if is_stored(image):
        return picture_url(image, size)
    if image:
        return image if image.startswith("https://") else static(image)
    brand = (brand_names or {}).get(product.brand_id, product.brand_id)
    return placeholder_url(brand, product.category_id, base or placeholder_base())


def image_srcset(product, size="page"):
    """The picture at 2x for the img's srcset ("<url> 2x"), or "": only an uploaded one has it."""
    image = getattr(product, "image", "")
    return f"{picture_url(image, size, 2)} 2x" if is_stored(image) else ""


def placeholder_url(brand_name, category_id, base):
    """The placeholder of a product of this brand (its name) and category."""
    return f"{base}{_initial(brand_name)}-{_colour(category_id)}.svg"


@lru_cache(maxsize=1024)
def _initial(brand_name):
    """The first letter or digit of the brand's name, accents dropped ("Ärger" -> "A")."""
    return next((c for c in fold(brand_name) if c.isascii() and c.isalnum()), "p").upper()


@lru_cache(maxsize=1024)
def _colour(category_id):
    return zlib.crc32(category_id.encode()) % len(COLOURS)
