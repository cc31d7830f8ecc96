"""The shared cache (CACHE_URL, Redis): Django's own RedisCache is the default cache, the per-process
hot products cache stays local, and a Redis that does not answer is a friendly 503 on the pages that
need it (sign-in: its limits live there), not a traceback; browse pages still show; and it all works
again once Redis is back, without a restart."""
import pytest
from allauth.account.models import EmailAddress

from catalog import names
from tests.storefront.test_deploy import PRODUCTION, run, settings_under
from tools import redis_local

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-password-1"


def test_cache_url_puts_the_default_cache_on_redis_and_keeps_hot_products_local():
    caches = settings_under({**PRODUCTION, "CACHE_URL": "redis://cache.internal:6379/0"}, ["CACHES"])["CACHES"]
    assert caches["default"]["BACKEND"] == "django.core.cache.backends.redis.RedisCache"
    assert caches["default"]["LOCATION"] == "redis://cache.internal:6379/0"
    assert caches["hot_products"]["BACKEND"] == "django.core.cache.backends.locmem.LocMemCache"
    unset = settings_under(PRODUCTION, ["CACHES"])["CACHES"]
    assert unset["default"]["BACKEND"] == "django.core.cache.backends.locmem.LocMemCache"


@pytest.mark.parametrize("value", ["0", "-1", "soon"])
def test_an_unusable_cache_timeout_stops_the_site_with_a_clear_message(value):
    result = run(["manage.py", "check"], {**PRODUCTION, "CACHE_URL": "redis://cache.internal:6379/0",
                                          "CACHE_TIMEOUT": value})
    assert result.returncode != 0 and "CACHE_TIMEOUT" in result.stderr


@pytest.fixture
def alice(catalog, django_user_model):
    user = django_user_model.objects.create_user(username="alice", email="alice@example.com", password=PASSWORD)
    EmailAddress.objects.create(user=user, email="alice@example.com", verified=True, primary=True)
    return user


def login(client, password):
    return client.post("/accounts/login/", {"login": "alice", "password": password})


def test_redis_down_is_a_503_on_sign_in_browse_pages_still_show_and_it_recovers(alice, client, settings,
                                                                                 monkeypatch):
    monkeypatch.setattr(names, "_cache_down_until", 0.0)  # names go back to the cache for the next tests
    server = redis_local.start()  # its own: this test stops it
    settings.CACHES = {**settings.CACHES, "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": server.url,
        "OPTIONS": {"socket_connect_timeout": 1.0, "socket_timeout": 1.0}}}
    try:
        assert login(client, "wrong").status_code == 400  # counted in Redis
        redis_local.stop(server)

        refused = login(client, PASSWORD)
        assert refused.status_code == 503 and refused["Retry-After"]
        assert "Please try again in a few seconds" in refused.content.decode()
        assert "Traceback" not in refused.content.decode()
        assert client.session.get("_auth_user_id") is None
        home = client.get("/")  # brand and category names come from DynamoDB meanwhile
        assert home.status_code == 200 and "Pixel" in client.get("/products/4/").content.decode()

        server = redis_local.start(port=server.port)  # back, on the same address; the shop is not restarted
        assert login(client, PASSWORD).status_code == 302
        assert client.session.get("_auth_user_id") == str(alice.pk)
    finally:
        redis_local.stop(server)
