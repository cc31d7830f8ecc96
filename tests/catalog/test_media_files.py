"""catalog.media_files: with MEDIA_STORAGE=files (as `make run` has it) the app serves the pictures kept
under MEDIA_ROOT at MEDIA_URL: only the names picture_store makes, cached a year, never sniffed."""
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from catalog import media_files
from catalog.pictures import picture_store, picture_url
from storefront.media import media_storage
from tests.picture_files import picture_bytes


@pytest.fixture
def media_root(settings, tmp_path):
    """The files storage `make run` uses, in a folder of the test's own."""
    (tmp_path / "secret.txt").write_text("not a picture")
    root = tmp_path / "media"
    settings.MEDIA_ROOT = root
    settings.STORAGES = {**settings.STORAGES, "media": media_storage(
        "files", media_url=settings.MEDIA_URL, media_root=root, bucket=None, endpoint_url=None,
        region=settings.AWS_REGION)}
    return root


def test_a_kept_picture_is_served_by_the_app(media_root, client):
    value = picture_store(product_id="7", upload=SimpleUploadedFile("a.jpg", picture_bytes("JPEG")))
    url = picture_url(value, "page")
    assert url.startswith("/media/pictures/7/") and url.endswith("/480x360.webp")
    file = media_root / url.removeprefix("/media/")
    assert file.is_file() and oct(file.stat().st_mode & 0o777) == "0o644"
    response = client.get(url)
    assert response.status_code == 200
    assert b"".join(response.streaming_content) == file.read_bytes()
    assert response["Content-Type"] == "image/webp" and response["X-Content-Type-Options"] == "nosniff"
    assert response["Cache-Control"] == "public, max-age=31536000, immutable"
    head = client.head(url)
    assert head.status_code == 200 and head["Content-Length"] == str(file.stat().st_size)
    assert client.post(url).status_code == 405


@pytest.mark.parametrize("path", [
    "/media/pictures/7/0123456789abcdef0123456789abcdef/480x360.webp",  # no such picture
    "/media/secret.txt", "/media/../secret.txt", "/media/pictures/../../secret.txt",
    "/media/pictures/7/0123456789abcdef0123456789abcdef/../../../../secret.txt",
    "/media/pictures/7/0123456789abcdef0123456789abcdef/480x360.webp.txt",
])
def test_nothing_else_is_served(media_root, client, path):
    assert client.get(path).status_code == 404


def test_the_route_is_there_only_when_the_app_keeps_the_files(settings):
    assert [pattern.name for pattern in media_files.urlpatterns()] == ["media_picture"]
    settings.MEDIA_URL = "https://pictures.example.com/"
    assert media_files.urlpatterns() == []  # another server serves them
    settings.MEDIA_URL, settings.MEDIA_STORAGE = "/media/", "s3"
    assert media_files.urlpatterns() == []


@pytest.mark.parametrize("method", ["put", "delete"])
def test_only_get_and_head_are_taken_for_any_name_under_media(media_root, client, method):
    for path in ["/media/pictures/7/0123456789abcdef0123456789abcdef/480x360.webp", "/media/secret.txt"]:
        assert getattr(client, method)(path).status_code == 405
