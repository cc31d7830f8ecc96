"""Fixtures of the catalog's tests: moto's S3 as a real server, and the media storage put in it."""
import json
import uuid
from types import SimpleNamespace

import boto3
import pytest
from django.core.files.storage import storages
from moto.server import ThreadedMotoServer

from storefront.media import media_origin, media_storage
from storefront.security_headers import content_security_policy


@pytest.fixture(scope="session")
def s3_server():
    """moto's S3 (and the rest of moto) as an HTTP server on a free port, for the whole session: its URL."""
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


@pytest.fixture
def s3_media(settings, s3_server):
    """MEDIA_STORAGE=s3 in a bucket of its own on the moto server, readable by anyone (as a bucket
    behind the shop's pictures is: docs/pictures.md), with the settings settings.py makes of it."""
    bucket = f"pictures-{uuid.uuid4().hex[:12]}"
    client = boto3.client("s3", endpoint_url=s3_server, region_name=settings.AWS_REGION)
    client.create_bucket(Bucket=bucket, CreateBucketConfiguration={"LocationConstraint": settings.AWS_REGION})
    client.put_bucket_policy(Bucket=bucket, Policy=json.dumps({
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject",
                       "Resource": f"arn:aws:s3:::{bucket}/pictures/*"}],
    }))
    settings.MEDIA_STORAGE, settings.MEDIA_S3_BUCKET, settings.AWS_S3_ENDPOINT_URL = "s3", bucket, s3_server
    media = media_storage("s3", media_url=settings.MEDIA_URL, media_root=settings.MEDIA_ROOT, bucket=bucket,
                          endpoint_url=s3_server, region=settings.AWS_REGION)
    settings.STORAGES = {**settings.STORAGES, "media": media}
    settings.CONTENT_SECURITY_POLICY = content_security_policy(
        settings.PRODUCT_IMAGE_HOSTS, media_origin(media, settings.MEDIA_URL))
    yield SimpleNamespace(bucket=bucket, client=client, endpoint=s3_server, storage=storages["media"])


@pytest.fixture
def s3_requests(s3_media):
    """The S3 requests the media storage makes from here on, by operation name (boto3's events)."""
    calls = []
    events = storages["media"].connection.meta.client.meta.events
    events.register("before-call.s3", lambda model, **kwargs: calls.append(model.name))
    return calls
