"""catalog.pictures: a picture staff upload is checked (JPEG, PNG or WebP, at most 10 MB, a whole picture
of at most Pillow's MAX_IMAGE_PIXELS), re-encoded without metadata in the sizes the pages show, kept in
the media storage under a keyed hash, and shown on the list cards and the product page."""
import hashlib
import io
import re
import struct
import urllib.request
import zlib

import pytest
from django import forms
from django.core.exceptions import ValidationError
from django.core.files.storage import storages
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image

from catalog.gateway.dynamo.testing import count_requests
from catalog.pictures import PictureField, picture_store, picture_url
from tests.picture_files import picture_bytes, set_product_image

BOXES = [(160, 120), (320, 240), (480, 360), (960, 720)]
NOT_A_PICTURE = "This file is not a JPEG, PNG or WebP picture."
DAMAGED = "The picture could not be read to its end: it is damaged or incomplete."


@pytest.fixture(autouse=True)
def media(settings):
    """An empty media storage of the test's own (in memory)."""
    settings.STORAGES = {**settings.STORAGES, "media": {"BACKEND": "django.core.files.storage.InMemoryStorage"}}


class PictureForm(forms.Form):
    image = PictureField()


def upload(data, name="photo.jpg"):
    return SimpleUploadedFile(name, data, content_type="image/jpeg")


def stored_files():
    """Every file in the media storage, by name."""
    storage, found, folders = storages["media"], [], [""]
    while folders:
        folder = folders.pop()
        subfolders, files = storage.listdir(folder)
        folders += [f"{folder}{sub}/" for sub in subfolders]
        found += [f"{folder}{name}" for name in files]
    return sorted(found)


def read_back(name):
    with storages["media"].open(name, "rb") as file:
        data = file.read()
    picture = Image.open(io.BytesIO(data))
    picture.load()
    return picture


def with_size(png, width, height):
    """A PNG whose header says it is `width` x `height` (a decompression bomb: a few bytes that would
    decode to gigabytes), its checksum right."""
    start = png.index(b"IHDR")
    header = b"IHDR" + struct.pack(">II", width, height) + png[start + 12:start + 17]
    return png[:start] + header + struct.pack(">I", zlib.crc32(header)) + png[start + 21:]


@pytest.mark.parametrize("kind", ["JPEG", "PNG", "WEBP"])
def test_a_picture_is_kept_in_each_size_without_its_metadata(kind):
    data = picture_bytes(kind, (800, 600))
    form = PictureForm(files={"image": upload(data, f"holiday.{kind.lower()}")})
    assert form.is_valid(), form.errors
    value = picture_store(product_id="p-1", upload=form.cleaned_data["image"])
    key = re.fullmatch(r"media:pictures/p-1/([0-9a-f]{32})", value).group(1)
    assert stored_files() == [f"pictures/p-1/{key}/{w}x{h}.webp" for w, h in sorted(BOXES)]
    for width, height in BOXES:
        picture = read_back(f"pictures/p-1/{key}/{width}x{height}.webp")
        assert (picture.format, picture.size) == ("WEBP", (width, height))
        assert not picture.getexif() and not {"exif", "icc_profile", "xmp", "Author"} & set(picture.info)
        assert picture.getpixel((width // 2, height // 2))[:3] == pytest.approx((0xC0, 0x30, 0x20), abs=12)


@pytest.mark.parametrize("kind,mode", [("PNG", "P"), ("PNG", "LA"), ("PNG", "I;16"), ("PNG", "1"), ("JPEG", "CMYK"),
                                       ("JPEG", "L"), ("WEBP", "RGBA")])
def test_pictures_of_every_colour_mode_are_kept(kind, mode):
    value = picture_store(product_id="1", upload=upload(picture_bytes(kind, (300, 300), mode=mode)))
    assert read_back(f"{value.removeprefix('media:')}/160x120.webp").size == (160, 120)


def test_a_picture_is_turned_as_the_camera_said_and_letterboxed_into_the_pages_boxes():
    # A landscape sensor's picture of a portrait scene: orientation 6, "turn 90 degrees clockwise".
    value = picture_store(product_id="1", upload=upload(picture_bytes("JPEG", (400, 300), orientation=6)))
    page = read_back(f"{value.removeprefix('media:')}/480x360.webp")
    assert page.mode == "RGBA"
    assert page.getpixel((240, 180))[3] == 255  # the picture, upright: 270 x 360 in the middle
    assert page.getpixel((20, 180))[3] == 0 and page.getpixel((460, 180))[3] == 0  # transparent either side


def test_the_name_is_a_keyed_hash_of_the_content_never_the_files_name():
    data = picture_bytes("PNG")
    first = picture_store(product_id="1", upload=upload(data, "a.png"))
    assert picture_store(product_id="1", upload=upload(data, "../../etc/passwd.png")) == first  # the same files
    assert len(stored_files()) == 4
    assert hashlib.sha256(data).hexdigest()[:32] not in first  # not guessable from the picture alone
    assert "a.png" not in first and "passwd" not in first
    other = picture_store(product_id="1", upload=upload(picture_bytes("PNG", (401, 300)), "a.png"))
    assert other != first and len(stored_files()) == 8


def test_the_form_field_asks_the_browser_for_pictures_only():
    html = str(PictureForm()["image"])
    assert 'type="file"' in html and 'accept="image/jpeg,image/png,image/webp"' in html
    assert PictureField().help_text == "JPEG, PNG or WebP, at most 10 MB."


def _refused():
    jpeg, png = picture_bytes("JPEG", (400, 300)), picture_bytes("PNG", (400, 300))
    tiny_png = picture_bytes("PNG", (1, 1), mode="L")
    return [
        ("text renamed .jpg", b"Not a picture at all, just words.\n" * 10, NOT_A_PICTURE),
        ("GIF", picture_bytes("GIF", (40, 30), mode="L"), f"{NOT_A_PICTURE[:-1]} (it is a GIF)."),
        ("truncated JPEG", jpeg[: len(jpeg) // 2], DAMAGED),
        ("truncated PNG", png[: len(png) - 40], DAMAGED),
        ("11 MB", jpeg + b"\0" * (11 * 1024 * 1024 - len(jpeg)), "The picture is 11.0 MB: at most 10 MB is taken."),
        ("empty", b"", "The file is empty: choose a JPEG, PNG or WebP picture."),
        ("bomb past twice the limit", with_size(tiny_png, 20_000, 20_000),
         "The picture has more than 179.0 million pixels: at most 89.5 million are taken."),
        ("bomb past the limit", with_size(tiny_png, 10_000, 10_000),
         "The picture has 100.0 million pixels: at most 89.5 million are taken."),
    ]


@pytest.mark.filterwarnings("ignore::PIL.Image.DecompressionBombWarning")  # Pillow's, before the refusal
@pytest.mark.parametrize("data,message", [case[1:] for case in _refused()], ids=[case[0] for case in _refused()])
def test_a_file_that_is_not_a_whole_allowed_picture_is_refused_and_nothing_kept(data, message):
    form = PictureForm(files={"image": upload(data)})
    assert not form.is_valid()
    assert form.errors["image"] == [message]
    with pytest.raises(ValidationError) as refused:  # picture_store checks everything itself
        picture_store(product_id="1", upload=upload(data))
    assert refused.value.messages == [message]
    assert stored_files() == []


@pytest.mark.filterwarnings("ignore::PIL.Image.DecompressionBombWarning")
def test_the_pixel_limit_is_pillows(monkeypatch):
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 500_000)
    form = PictureForm(files={"image": upload(picture_bytes("WEBP", (1000, 1000)))})
    assert form.errors["image"] == ["The picture has 1.0 million pixels: at most 0.5 million are taken."]
    assert PictureForm(files={"image": upload(picture_bytes("WEBP", (800, 625)))}).is_valid()  # 500,000


def test_the_cards_and_the_product_page_show_a_kept_picture_at_their_size(catalog, client):
    client.get("/brands/3/")  # the brand and category names, read once and cached
    with count_requests() as before:
        client.get("/brands/3/"), client.get("/products/2/")
    value = picture_store(product_id="2", upload=upload(picture_bytes("JPEG")))
    set_product_image("2", value)
    base = f"/media/{value.removeprefix('media:')}"
    with count_requests() as after:
        cards, page = client.get("/brands/3/").content.decode(), client.get("/products/2/").content.decode()
    assert after.operations == before.operations == ["Query", "GetItem"]  # the picture costs no request
    assert (f'<img class="card-image" src="{base}/160x120.webp" srcset="{base}/320x240.webp 2x" '
            'width="160" height="120" loading="lazy" alt="">') in cards
    assert (f'<img class="product-image" src="{base}/480x360.webp" srcset="{base}/960x720.webp 2x" '
            'width="480" height="360" alt="Model Y">') in page
    assert picture_url(value, "card", 2) == f"{base}/320x240.webp"


def test_a_picture_given_by_the_importer_is_shown_as_before(catalog, client):
    set_product_image("2", "https://img.example/y.jpg")
    page = client.get("/products/2/").content.decode()
    assert '<img class="product-image" src="https://img.example/y.jpg" width="480" height="360"' in page


def test_s3_keeps_the_sizes_in_the_bucket_and_pages_link_them_there(catalog, client, s3_media, s3_requests):
    value = picture_store(product_id="2", upload=upload(picture_bytes("PNG")))
    assert s3_requests == ["PutObject"] * 4  # one a size, no other request
    key = value.removeprefix("media:")
    listed = s3_media.client.list_objects_v2(Bucket=s3_media.bucket)["Contents"]
    assert sorted(item["Key"] for item in listed) == sorted(f"{key}/{w}x{h}.webp" for w, h in BOXES)
    head = s3_media.client.head_object(Bucket=s3_media.bucket, Key=f"{key}/160x120.webp")
    assert (head["ContentType"], head["CacheControl"]) == ("image/webp", "public, max-age=31536000, immutable")
    set_product_image("2", value)
    page = client.get("/products/2/")
    bucket_url = f"{s3_media.endpoint}/{s3_media.bucket}/{key}"
    assert f'src="{bucket_url}/480x360.webp" srcset="{bucket_url}/960x720.webp 2x"' in page.content.decode()
    img_src = re.search(r"img-src ([^;]+)", page["Content-Security-Policy"]).group(1).split()
    assert img_src == ["'self'", "data:", s3_media.endpoint]
    shown = urllib.request.urlopen(f"{bucket_url}/480x360.webp", timeout=10)  # as a browser fetches it
    assert shown.headers["Content-Type"] == "image/webp"
    assert Image.open(io.BytesIO(shown.read())).size == (480, 360)
    assert s3_requests == ["PutObject"] * 4  # showing it asks S3 nothing


def test_s3_is_asked_nothing_for_a_refused_file(s3_media, s3_requests):
    with pytest.raises(ValidationError):
        picture_store(product_id="2", upload=upload(b"GIF89a" + b"\0" * 100))
    assert s3_requests == []
    assert s3_media.client.list_objects_v2(Bucket=s3_media.bucket)["KeyCount"] == 0
