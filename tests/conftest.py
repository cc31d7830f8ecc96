"""Fixtures: a catalog table on moto (fast) or on DynamoDB Local (real behaviour), built from
the same table definition the app uses, and a small catalog to fill it with."""
import uuid
from pathlib import Path

import pytest
from django.core.cache import caches
from moto import mock_aws

from catalog.gateway import client as dynamo
from catalog.gateway.table import table_delete, table_ensure
from storefront import health
from storefront.security_headers import content_security_policy, payment_origins
from tools import axe, dynamodb_local, postgres_local, redis_local, stripe_local

from .helpers import CHROMIUM, CHROMIUM_ARGS, make_account, seed_small_catalog


@pytest.fixture(autouse=True)
def _fresh_cache():
    for cache in caches.all():  # the default cache and the named ones (hot_products)
        cache.clear()
    health.forget()  # /readyz checks each test's own table
    yield
    for cache in caches.all():
        cache.clear()


@pytest.fixture
def ddb(settings):
    """An empty catalog table on moto."""
    with mock_aws():
        settings.DYNAMODB_ENDPOINT_URL = None
        settings.DYNAMODB_TABLE = "catalog-test"
        dynamo.reset_client()
        table_ensure(settings.DYNAMODB_TABLE)
        yield settings.DYNAMODB_TABLE
    dynamo.reset_client()


@pytest.fixture
def catalog(ddb):
    """The small catalog on moto (tests.helpers.seed_small_catalog: imported once, copied afterwards)."""
    return seed_small_catalog()


@pytest.fixture
def shopper(django_user_model):
    """Alice, a shopper (password a-long-password-1) whose address is confirmed, as sign-up leaves an account."""
    return make_account(django_user_model, "alice", "a-long-password-1")


@pytest.fixture(scope="session")
def dynamodb_local_url(tmp_path_factory):
    """DynamoDB Local for the whole session: started here, stopped at the end."""
    try:
        log = open(tmp_path_factory.mktemp("ddb") / "dynamodb-local.log", "wb")
        process, url = dynamodb_local.start(log=log)
    except dynamodb_local.Missing as exc:
        pytest.fail(f"DynamoDB Local is needed for this test: {exc}")
    yield url
    dynamodb_local.stop(process)
    log.close()


@pytest.fixture
def local_ddb(settings, dynamodb_local_url):
    """An empty catalog table of its own on DynamoDB Local."""
    settings.DYNAMODB_ENDPOINT_URL = dynamodb_local_url
    settings.DYNAMODB_TABLE = f"t-{uuid.uuid4().hex[:12]}"
    dynamo.reset_client()
    table_ensure(settings.DYNAMODB_TABLE)
    yield settings.DYNAMODB_TABLE
    table_delete(settings.DYNAMODB_TABLE)
    dynamo.reset_client()


@pytest.fixture
def local_catalog(local_ddb):
    """The small catalog on DynamoDB Local (tests.helpers.seed_small_catalog: imported once, copied afterwards)."""
    return seed_small_catalog()


@pytest.fixture(scope="session")
def postgres_server():
    """A throwaway PostgreSQL server for the session (Debian's postgresql): started here, stopped at the end."""
    try:
        server = postgres_local.start()
    except postgres_local.Missing as exc:
        pytest.fail(str(exc))
    yield server
    postgres_local.stop(server)


@pytest.fixture(scope="session")
def redis_server():
    """A throwaway Redis server for the session (Debian's redis-server, nothing kept on disk)."""
    try:
        server = redis_local.start()
    except redis_local.Missing as exc:
        pytest.fail(str(exc))
    yield server
    redis_local.stop(server)


@pytest.fixture
def redis_cache(settings, redis_server):
    """Django's default cache on the session's Redis (what CACHE_URL gives), emptied before and after."""
    settings.CACHES = {**settings.CACHES, "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": redis_server.url,
        "OPTIONS": {"socket_connect_timeout": 1.0, "socket_timeout": 1.0}}}
    caches["default"].clear()
    yield redis_server
    caches["default"].clear()


@pytest.fixture(scope="session")
def localstripe_server(tmp_path_factory):
    """localstripe (a fake Stripe server, real HTTP) for the whole session, on a port of its own."""
    log = open(tmp_path_factory.mktemp("stripe") / "localstripe.log", "wb")
    try:
        server = stripe_local.start(log=log)
    except stripe_local.Missing as exc:
        pytest.fail(f"localstripe is needed for this test: {exc}")
    yield server
    stripe_local.stop(server)
    log.close()


@pytest.fixture
def stripe_on(settings, localstripe_server):
    """Card payments on (SHOP_PAYMENTS=stripe), against the session's localstripe, as `make run` sets them."""
    settings.SHOP_PAYMENTS = "stripe"
    settings.STRIPE_API_BASE = localstripe_server.url
    settings.STRIPE_SECRET_KEY = "sk_test_fromatoz"
    settings.STRIPE_PUBLISHABLE_KEY = "pk_test_fromatoz"
    settings.STRIPE_WEBHOOK_SECRET = "whsec_test_fromatoz"
    settings.STRIPE_JS_URL = f"{localstripe_server.url}/js.stripe.com/v3/"
    origins = payment_origins("stripe", settings.STRIPE_JS_URL, settings.STRIPE_API_BASE)
    settings.CONTENT_SECURITY_POLICY = content_security_policy(settings.PRODUCT_IMAGE_HOSTS, payment_origins=origins)
    return localstripe_server


# --- real browser ---------------------------------------------------------------------------

@pytest.fixture(scope="session")
def chromium():
    """Debian's Chromium driven by Playwright (never a browser Playwright downloads)."""
    import os

    from playwright.sync_api import expect, sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs it (apt-get install chromium)")
    # Playwright's sync API runs an event loop in this thread; the tests' own ORM calls are safe.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    expect.set_options(timeout=10_000)  # assertions wait as long as actions (set_default_timeout); 5 s otherwise
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(chromium):
    context = chromium.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    page.set_default_timeout(10_000)
    yield page
    context.close()


@pytest.fixture(scope="session")
def axe_script():
    """axe-core's script (the pinned npm package, checked and kept under var/)."""
    try:
        return str(axe.install(quiet=True))
    except axe.Missing as exc:
        pytest.fail(f"axe-core is needed for this test: {exc}")


@pytest.fixture(scope="session")
def s3_server():
    """moto's S3 (and the rest of moto) as an HTTP server on a free port, for the whole session: its URL.
    It shares moto's state with the in-process mock of `ddb`, which starts every backend afresh: a test
    takes `catalog` (or `ddb`) before `s3_media`."""
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


@pytest.fixture
def s3_media(settings, s3_server):
    """MEDIA_STORAGE=s3 in a bucket of its own on the moto server, readable by anyone (as the bucket
    behind the shop's pictures is: docs/pictures.md), with the settings settings.py makes of it."""
    import json
    from types import SimpleNamespace

    import boto3
    from django.core.files.storage import storages

    from storefront.media import media_origin, media_storage
    from storefront.security_headers import content_security_policy

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
    events = s3_media.storage.connection.meta.client.meta.events
    events.register("before-call.s3", lambda model, **kwargs: calls.append(model.name))
    return calls
