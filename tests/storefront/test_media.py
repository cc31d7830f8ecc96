"""storefront.media: MEDIA_STORAGE, MEDIA_S3_BUCKET, MEDIA_URL and AWS_S3_ENDPOINT_URL make the "media"
storage, and the CSP's img-src allows where its pictures are linked, and nothing more."""
import pytest
from django.core.exceptions import ImproperlyConfigured

from storefront.media import media_origin, media_storage
from tests.storefront.test_deploy import PRODUCTION, settings_under


def storage(kind, media_url="/media/", bucket="shop-pictures", endpoint_url=None):
    return media_storage(kind, media_url=media_url, media_root="/srv/media", bucket=bucket,
                         endpoint_url=endpoint_url, region="eu-central-1")


@pytest.mark.parametrize("kind,media_url,endpoint_url,origin,url", [
    ("files", "/media/", None, None, None),
    ("files", "https://pictures.example.com/m/", None, "https://pictures.example.com", None),
    ("s3", "/media/", None, "https://shop-pictures.s3.eu-central-1.amazonaws.com",
     "https://shop-pictures.s3.eu-central-1.amazonaws.com/pictures/1/k/160x120.webp"),
    ("s3", "/media/", "http://127.0.0.1:5000", "http://127.0.0.1:5000",
     "http://127.0.0.1:5000/shop-pictures/pictures/1/k/160x120.webp"),
    ("s3", "https://cdn.example.com/p/", None, "https://cdn.example.com",
     "https://cdn.example.com/p/pictures/1/k/160x120.webp"),
])
def test_pictures_are_linked_where_the_storage_keeps_them(kind, media_url, endpoint_url, origin, url):
    media = storage(kind, media_url, endpoint_url=endpoint_url)
    assert media_origin(media, media_url) == origin
    if url:
        from storages.backends.s3 import S3Storage

        assert S3Storage(**media["OPTIONS"]).url("pictures/1/k/160x120.webp") == url


@pytest.mark.parametrize("kind,media_url,bucket,message", [
    ("disk", "/media/", None, "MEDIA_STORAGE must be one of files, s3, got 'disk'"),
    ("files", "/media", None, "MEDIA_URL must end with a slash, got '/media'"),
    ("s3", "/media/", None, "MEDIA_STORAGE=s3 needs MEDIA_S3_BUCKET, the bucket the pictures go to"),
])
def test_a_wrong_setting_is_a_clear_error(kind, media_url, bucket, message):
    with pytest.raises(ImproperlyConfigured) as wrong:
        storage(kind, media_url, bucket)
    assert str(wrong.value) == message


def test_production_settings_put_the_pictures_in_the_bucket_and_allow_it_in_img_src():
    names = ["STORAGES", "CONTENT_SECURITY_POLICY", "MEDIA_URL"]
    files = settings_under(PRODUCTION, names)
    assert files["STORAGES"]["media"]["BACKEND"] == "django.core.files.storage.FileSystemStorage"
    assert files["CONTENT_SECURITY_POLICY"]["DIRECTIVES"]["img-src"] == ["'self'", "data:"]
    s3 = settings_under({**PRODUCTION, "MEDIA_STORAGE": "s3", "MEDIA_S3_BUCKET": "shop-pictures"}, names)
    assert s3["STORAGES"]["media"]["BACKEND"] == "storages.backends.s3.S3Storage"
    assert s3["STORAGES"]["media"]["OPTIONS"]["bucket_name"] == "shop-pictures"
    assert s3["CONTENT_SECURITY_POLICY"]["DIRECTIVES"]["img-src"] == [
        "'self'", "data:", "https://shop-pictures.s3.eu-central-1.amazonaws.com"]
