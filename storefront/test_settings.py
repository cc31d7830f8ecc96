"""Settings for the test suite: the real settings, pointed away from anything real."""
import os

# Tests never need a real secret; production refuses to start without one.
os.environ.setdefault("DJANGO_SECRET_KEY", "tests-only-not-a-secret")
# Unit tests talk to moto: no test may reach AWS with someone's real credentials.
for _name in ("AWS_SESSION_TOKEN", "AWS_PROFILE"):
    os.environ.pop(_name, None)
os.environ["AWS_ACCESS_KEY_ID"] = "testing"
os.environ["AWS_SECRET_ACCESS_KEY"] = "testing"
# Never the settings a `make run` of this tree wrote (var/run.env).
os.environ["DJANGO_RUN_ENV_FILE"] = ""
# Orders are placed without a card payment unless a test pays (tests/payments: SHOP_PAYMENTS=stripe on
# the session's localstripe): most tests are not about payments, and need no Stripe to run.
os.environ["SHOP_PAYMENTS"] = "off"

from .settings import *  # noqa: E402,F403

DEBUG = False
DYNAMODB_ENDPOINT_URL = None
DYNAMODB_TABLE = "catalog-test"
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    # Uploaded pictures in memory (tests/catalog/test_pictures.py sets files or S3 where it matters).
    "media": {"BACKEND": "django.core.files.storage.InMemoryStorage"},
}
# Static files come from the app folders (no collectstatic before tests).
STATIC_ROOT = None
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
# Timed holds are off unless a test turns them on (tests/shop/test_holds_*.py): most tests check the
# shop that takes the stock when the order is placed, which is the shop with holds off.
STOCK_HOLD_SECONDS = 0
