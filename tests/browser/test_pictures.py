"""An uploaded picture shows in a real browser under the page's Content-Security-Policy: served by the app
(MEDIA_STORAGE=files, as `make run` has it) and from an S3 bucket (moto's S3 server), the 2x size on a
high-density screen."""
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from catalog.pictures import picture_store
from storefront.media import media_storage
from tests.picture_files import picture_bytes, set_product_image

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LOADED = "img => img.complete && img.naturalWidth > 0 ? [img.naturalWidth, img.currentSrc] : null"


def _show(product_id):
    value = picture_store(product_id=product_id, upload=SimpleUploadedFile("p.png", picture_bytes("PNG")))
    set_product_image(product_id, value)
    return value


def _refusals(page):
    refused = []
    page.on("console", lambda message: refused.append(message.text)
            if "Content Security Policy" in message.text else None)
    return refused


def _shown(page, selector):
    page.wait_for_function(f"({LOADED})(document.querySelector('{selector}'))")
    return page.locator(selector).evaluate(LOADED)


def test_a_picture_kept_as_files_is_served_by_the_app_and_shown(catalog, live_server, page, settings, tmp_path):
    settings.STORAGES = {**settings.STORAGES, "media": media_storage(
        "files", media_url="/media/", media_root=tmp_path, bucket=None, endpoint_url=None, region="eu-central-1")}
    value = _show("2")
    refused = _refusals(page)
    page.goto(f"{live_server.url}/brands/3/")
    width, src = _shown(page, "img.card-image[srcset]")
    assert (width, src) == (160, f"{live_server.url}/media/{value.removeprefix('media:')}/160x120.webp")
    page.goto(f"{live_server.url}/products/2/")
    assert _shown(page, "img.product-image")[0] == 480
    assert refused == []


def test_a_picture_in_s3_is_shown_from_the_bucket_at_2x_on_a_dense_screen(catalog, live_server, chromium, s3_media):
    value = _show("2")
    context = chromium.new_context(viewport={"width": 1200, "height": 900}, device_scale_factor=2)
    page = context.new_page()
    refused = _refusals(page)
    page.goto(f"{live_server.url}/products/2/")
    width, src = _shown(page, "img.product-image")
    # the 960 x 720 file, which a "2x" candidate gives 480 CSS pixels of natural width
    assert (width, src) == (480, f"{s3_media.endpoint}/{s3_media.bucket}/{value.removeprefix('media:')}/960x720.webp")
    assert refused == []
    context.close()
