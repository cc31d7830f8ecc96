"""Pictures staff upload for a product: the form field that checks one, the store that keeps it, and
the URLs of what was kept.

`PictureField` takes a JPEG, PNG or WebP of at most 10 MB that Pillow reads through to its last
pixel, and at most Pillow's MAX_IMAGE_PIXELS (a decompression bomb is refused before it is decoded);
the file's name and the type the browser claims are ignored. `picture_store` re-encodes the picture,
so nothing of the uploaded file (EXIF with its GPS position, XMP, comments, colour profiles) reaches
shoppers, in the four sizes the pages show: the list card (160x120) and the product page (480x360),
each at 1x and 2x, letterboxed to 4:3 (the pages' boxes are 4:3) on transparent WebP. They go through
Django's storage API, `storages["media"]`: files under var/media/ or an S3 bucket (storefront/media.py).
The product item's `image` keeps "media:pictures/<product ID>/<key>", the key a keyed hash of the
uploaded bytes (not guessable from the picture alone, never the file's name); the same picture
uploaded again is the same files.
"""
import io
from dataclasses import dataclass, field
from functools import lru_cache

from django import forms
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.core.files.storage import Storage, storages
from django.utils.crypto import salted_hmac
from PIL import Image, ImageCms, ImageOps, UnidentifiedImageError

from catalog.gateway import valid_id

MAX_BYTES = 10 * 1024 * 1024
# The Pillow decoders a file is offered to (no other is ever tried on an upload); a JPEG with a second
# picture, as many cameras and phones write, is read by the JPEG decoder as format "MPO".
FORMATS = ("JPEG", "PNG", "WEBP")
# The boxes the pages show a picture in (templates/catalog/list_parts.html's card, product_detail.html).
SIZES = {"card": (160, 120), "page": (480, 360)}
DENSITIES = (1, 2)
PREFIX = "media:"  # a stored picture's `image` value starts so; static paths and https URLs never do
FOLDER = "pictures"
WEBP_QUALITY = 82
# What a refused file is, by its first bytes, to say so (Pillow is never asked to read these).
OTHER_KINDS = (
    (b"GIF87a", "a GIF"), (b"GIF89a", "a GIF"), (b"BM", "a BMP"), (b"II*\x00", "a TIFF"), (b"MM\x00*", "a TIFF"),
    (b"%PDF", "a PDF"),
)
OTHER_BOXES = ((4, b"ftypheic", "a HEIC"), (4, b"ftypheix", "a HEIC"), (4, b"ftypmif1", "a HEIF"),
               (4, b"ftypavif", "an AVIF"))

MESSAGES = {
    "empty": "The file is empty: choose a JPEG, PNG or WebP picture.",
    "too_big": "The picture is {size} MB: at most 10 MB is taken.",
    "not_picture": "This file is not a JPEG, PNG or WebP picture{kind}.",
    "damaged": "The picture could not be read to its end: it is damaged or incomplete.",
    "too_many_pixels": "The picture has {pixels} million pixels: at most {limit} million are taken.",
}


class PictureField(forms.FileField):
    """A product picture: JPEG, PNG or WebP, at most 10 MB, a whole picture of at most Pillow's
    MAX_IMAGE_PIXELS. Its cleaned value is the uploaded file, for `picture_store`."""

    default_error_messages = {**forms.FileField.default_error_messages, **MESSAGES}

    def __init__(self, **kwargs):
        kwargs.setdefault("help_text", "JPEG, PNG or WebP, at most 10 MB.")
        super().__init__(**kwargs)

    def widget_attrs(self, widget):
        attrs = super().widget_attrs(widget)
        if isinstance(widget, forms.FileInput) and "accept" not in widget.attrs:
            attrs["accept"] = "image/jpeg,image/png,image/webp"
        return attrs

    def to_python(self, data):
        upload = super().to_python(data)
        if upload is None:
            return None
        try:
            _decoded(upload)
        except ValidationError as error:
            raise ValidationError(self.error_messages[error.code].format(**(error.params or {})),
                                  code=error.code) from None
        return upload


@dataclass(frozen=True)
class Picture:
    """A checked upload, not stored yet: `image` is the product item's value it will have once stored."""

    image: str
    clean: Image.Image = field(repr=False, compare=False)

    def store(self) -> str:
        """Its sizes stored in storages["media"]; returns `image`."""
        storage = storages["media"]
        for name, box in stored_names(self.image.removeprefix(PREFIX)):
            # The media storages overwrite (storefront/media.py): the same name is the same picture. One
            # that keeps the file there and saves under another name made a copy, dropped again.
            saved = storage.save(name, ContentFile(_encoded(self.clean, box)))
            if saved != name:
                storage.delete(saved)
        return self.image


def picture_checked(*, product_id: str, upload) -> Picture:
    """Checks `upload` as PictureField does (ValidationError if refused) and names it, storing nothing: a
    product is written with `.image` first, the files stored (`.store()`) only once that write succeeded."""
    if not valid_id(product_id):
        raise ValueError(f"not a product ID: {product_id!r}")
    data, image = _decoded(upload)
    key = salted_hmac("catalog.pictures", data, algorithm="sha256").hexdigest()[:32]
    return Picture(image=f"{PREFIX}{FOLDER}/{product_id}/{key}", clean=_clean(image))


def picture_store(*, product_id: str, upload) -> str:
    """Checks `upload` as PictureField does (ValidationError if refused: nothing is stored), stores
    its sizes in storages["media"] and returns the value for the product item's `image`."""
    return picture_checked(product_id=product_id, upload=upload).store()


def stored_names(base):
    """(file name, (width, height)) of each size kept for a picture whose names start with `base`."""
    return [(f"{base}/{w * d}x{h * d}.webp", (w * d, h * d)) for w, h in SIZES.values() for d in DENSITIES]


def is_stored(image):
    """Whether a product's `image` value is a picture picture_store kept."""
    return isinstance(image, str) and image.startswith(PREFIX)


def picture_url(image, size, density=1):
    """The URL of a stored picture (`image`: the product's value) in SIZES[size] at `density`."""
    width, height = SIZES[size]
    return f"{media_url()}{image.removeprefix(PREFIX)}/{width * density}x{height * density}.webp"


def media_url():
    """The URL stored pictures' names follow ("/media/", "https://bucket.s3.../")."""
    return _media_base(storages["media"])


@lru_cache(maxsize=4)
def _media_base(storage: Storage) -> str:
    """The URL before a stored file's name: asked of each storage once, then joined to every
    picture's name (a page has dozens)."""
    return storage.url(f"{FOLDER}/x").removesuffix("x").removesuffix(f"{FOLDER}/")


def _error(code, **params):
    return ValidationError(MESSAGES[code].format(**params), code=code, params=params)


def _read(upload):
    """The upload's bytes (ValidationError past MAX_BYTES, read no further)."""
    size = getattr(upload, "size", None)
    if size is not None and size > MAX_BYTES:
        raise _error("too_big", size=_megabytes(size))
    upload.seek(0)
    data = upload.read(MAX_BYTES + 1)
    upload.seek(0)
    if len(data) > MAX_BYTES:
        raise _error("too_big", size=_megabytes(max(len(data), size or 0)))
    if not data:
        raise _error("empty")
    return data


def _megabytes(size):
    return f"{size / (1024 * 1024):.1f}"


def _decoded(upload):
    """(bytes, the decoded picture) of an upload that is a whole JPEG, PNG or WebP; else ValidationError."""
    data = _read(upload)
    try:
        with Image.open(io.BytesIO(data), formats=FORMATS) as probe:
            _check_pixels(probe)
            probe.verify()  # the file's structure (a PNG's checksums)
        image = Image.open(io.BytesIO(data), formats=FORMATS)
        if image.format in ("JPEG", "MPO"):
            # Decoded at the largest size kept or more (a JPEG scales by 1/2, 1/4, 1/8 as it decodes):
            # every byte is still read, so a cut-off file is still refused.
            image.draft("RGB", max(_boxes()))
        image.load()  # every pixel: a truncated file fails here (verify does not decode)
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise _too_many_pixels(None) from None
    except UnidentifiedImageError:
        raise _error("not_picture", kind=_kind(data)) from None
    except ValidationError:
        raise
    except Exception:  # noqa: BLE001 - whatever a malformed file makes a decoder raise, it is refused
        raise _error("damaged") from None
    return data, image


def _check_pixels(image):
    # Pillow warns past MAX_IMAGE_PIXELS and refuses past twice that: refused from the first.
    if Image.MAX_IMAGE_PIXELS and image.width * image.height > Image.MAX_IMAGE_PIXELS:
        raise _too_many_pixels(image.width * image.height)


def _too_many_pixels(pixels):
    """`pixels`: None when Pillow refused the file itself, past twice its limit."""
    limit = Image.MAX_IMAGE_PIXELS or 0
    shown = f"more than {2 * limit / 1e6:.1f}" if pixels is None else f"{pixels / 1e6:.1f}"
    return _error("too_many_pixels", pixels=shown, limit=f"{limit / 1e6:.1f}")


def _kind(data):
    for magic, kind in OTHER_KINDS:
        if data.startswith(magic):
            return f" (it is {kind})"
    for offset, magic, kind in OTHER_BOXES:
        if data[offset:offset + len(magic)] == magic:
            return f" (it is {kind})"
    return ""


def _boxes():
    return [box for _, box in stored_names("")]


def _clean(image):
    """The picture upright (its EXIF orientation applied), no larger than the largest box, in sRGB,
    RGBA, with no metadata."""
    image = ImageOps.exif_transpose(image)
    profile = image.info.get("icc_profile")
    if image.mode not in ("RGB", "RGBA", "CMYK", "L", "LA"):
        image = image.convert("RGBA")  # a palette or 1-bit picture is resized pixel by pixel
    # Once to the largest box (reducing_gap: by whole factors first, then Lanczos), then each size from that.
    image.thumbnail(max(_boxes()), Image.Resampling.LANCZOS, reducing_gap=3.0)
    if profile and image.mode in ("RGB", "RGBA", "CMYK", "L"):
        try:
            image = ImageCms.profileToProfile(
                image, ImageCms.ImageCmsProfile(io.BytesIO(profile)), ImageCms.createProfile("sRGB"),
                outputMode="RGBA" if image.mode == "RGBA" else "RGB",
            )
        except (ImageCms.PyCMSError, OSError, ValueError):
            pass  # a broken profile: its colours as they are
    clean = image.convert("RGBA")
    clean.info = {}
    return clean


def _encoded(picture, box):
    """The picture fitted into `box` (letterboxed, transparent), as WebP bytes with no metadata."""
    fitted = ImageOps.pad(picture, box, method=Image.Resampling.LANCZOS, color=(0, 0, 0, 0))
    out = io.BytesIO()
    fitted.save(out, "WEBP", quality=WEBP_QUALITY, method=4, exif=b"", icc_profile=b"", xmp=b"")
    return out.getvalue()
