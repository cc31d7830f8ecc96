"""The "media" storage (STORAGES["media"]) that keeps the product pictures staff upload
(catalog/pictures.py), and the origin pages load them from, for the CSP's img-src.

MEDIA_STORAGE=files: files under MEDIA_ROOT (var/media/), served by the app under MEDIA_URL
(catalog/media_files.py), or by another server when MEDIA_URL is a full URL. MEDIA_STORAGE=s3:
django-storages' S3 storage, in MEDIA_S3_BUCKET, with credentials from boto3's usual chain (the
environment, a profile, the instance's role); pictures are linked at the bucket
(https://<bucket>.s3.<region>.amazonaws.com/, or AWS_S3_ENDPOINT_URL/<bucket>/ for moto or another
S3), or at MEDIA_URL when it is a full URL (a CDN in front of the bucket). Either way a name is
written once per picture and never changes (catalog/pictures.py), so links are plain, unsigned and
cached for a year.
"""
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured

KINDS = ("files", "s3")
CACHE_CONTROL = "public, max-age=31536000, immutable"


def media_storage(kind, media_url, media_root, bucket, endpoint_url, region):
    """STORAGES["media"] for MEDIA_STORAGE `kind`."""
    if kind not in KINDS:
        raise ImproperlyConfigured(f"MEDIA_STORAGE must be one of {', '.join(KINDS)}, got {kind!r}")
    if not media_url.endswith("/"):
        raise ImproperlyConfigured(f"MEDIA_URL must end with a slash, got {media_url!r}")
    if kind == "files":
        return {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            # Linked at MEDIA_URL (Django's, under the script prefix when it is a path).
            "OPTIONS": {"location": str(media_root), "allow_overwrite": True,
                        "file_permissions_mode": 0o644, "directory_permissions_mode": 0o755},
        }
    if not bucket:
        raise ImproperlyConfigured("MEDIA_STORAGE=s3 needs MEDIA_S3_BUCKET, the bucket the pictures go to")
    if _is_absolute(media_url):
        link = urlsplit(media_url)
    elif endpoint_url:
        link = urlsplit(f"{endpoint_url.rstrip('/')}/{bucket}/")
    else:
        link = urlsplit(f"https://{bucket}.s3.{region}.amazonaws.com/")
    return {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": bucket, "region_name": region, "endpoint_url": endpoint_url or None,
            # Public, unsigned links: the same URL for every page and every visitor.
            "querystring_auth": False, "custom_domain": f"{link.netloc}{link.path}".rstrip("/"),
            "url_protocol": f"{link.scheme}:", "file_overwrite": True, "default_acl": None,
            "object_parameters": {"CacheControl": CACHE_CONTROL},
        },
    }


def media_origin(storage, media_url):
    """The origin pictures are linked at when it is not the shop's own ("https://bucket.s3...."), else None."""
    options = storage.get("OPTIONS", {})
    if "custom_domain" in options:
        return f"{options['url_protocol']}//{options['custom_domain'].split('/')[0]}"
    link = urlsplit(media_url)
    return f"{link.scheme}://{link.netloc}" if link.scheme else None


def _is_absolute(url):
    return bool(urlsplit(url).scheme)
