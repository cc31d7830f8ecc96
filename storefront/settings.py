"""Settings for the Fromatoz storefront.

Every environment variable the project reads is read here, and only here;
`.env.example` lists them all.
"""
import os
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def env(name, default=None):
    value = os.environ.get(name)
    return default if value is None or value == "" else value


def env_bool(name, default=False):
    value = env(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_int(name, default):
    value = env(name)
    if value is None:
        return default
    try:
        return int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number, got {value!r}") from None


def env_float(name, default):
    value = env(name)
    if value is None:
        return default
    try:
        return float(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a number, got {value!r}") from None


DEBUG = env_bool("DJANGO_DEBUG", False)

SECRET_KEY = env("DJANGO_SECRET_KEY")
if SECRET_KEY is None:
    if not DEBUG:
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY is not set. Set it in the environment "
            "(`make run` generates one under var/ for local use)."
        )
    SECRET_KEY = "insecure-development-key-only-with-DJANGO_DEBUG"

ALLOWED_HOSTS = [h.strip() for h in env("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1").split(",") if h.strip()]
CSRF_TRUSTED_ORIGINS = [o.strip() for o in env("DJANGO_CSRF_TRUSTED_ORIGINS", "").split(",") if o.strip()]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_htmx",
    "template_partials",
    "catalog",
    "shop",
    "staff",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "storefront.errors.CatalogErrorMiddleware",
]

ROOT_URLCONF = "storefront.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "catalog.context_processors.navigation",
                "shop.context_processors.cart",
            ],
            "builtins": [
                "template_partials.templatetags.partials",
                "catalog.templatetags.catalog_tags",
                "shop.templatetags.shop_tags",
            ],
        },
    },
]

WSGI_APPLICATION = "storefront.wsgi.application"

# Staff accounts and sessions only: nothing of the catalog is stored here.
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": Path(env("DJANGO_SQLITE_PATH", str(BASE_DIR / "var" / "db.sqlite3"))),
    }
}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
# Order times and stock history are shown in the shop's time zone (stored in UTC).
TIME_ZONE = env("SHOP_TIME_ZONE", "Europe/Berlin")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "var" / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if not DEBUG
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SECURE = env_bool("DJANGO_SECURE_COOKIES", False)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE

# --- DynamoDB -------------------------------------------------------------
# No endpoint means AWS's own endpoint for AWS_REGION.
DYNAMODB_TABLE = env("DYNAMODB_TABLE", "fromatoz")
DYNAMODB_ENDPOINT_URL = env("DYNAMODB_ENDPOINT_URL")
AWS_REGION = env("AWS_REGION", "eu-central-1")
DYNAMODB_CONNECT_TIMEOUT = env_float("DYNAMODB_CONNECT_TIMEOUT", 2.0)
DYNAMODB_READ_TIMEOUT = env_float("DYNAMODB_READ_TIMEOUT", 5.0)
DYNAMODB_MAX_ATTEMPTS = env_int("DYNAMODB_MAX_ATTEMPTS", 3)
DYNAMODB_MAX_POOL_CONNECTIONS = env_int("DYNAMODB_MAX_POOL_CONNECTIONS", 32)

# --- Catalog ---------------------------------------------------------------
CATALOG_PAGE_SIZE = env_int("CATALOG_PAGE_SIZE", 24)
# Brand and category lists are cached this many seconds (access patterns 1, 2).
CATALOG_NAMES_TTL = env_int("CATALOG_NAMES_TTL", 60)
LOW_STOCK_THRESHOLD = env_int("LOW_STOCK_THRESHOLD", 5)

CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env("DJANGO_LOG_LEVEL", "INFO")},
    "loggers": {"botocore": {"level": "WARNING"}, "urllib3": {"level": "WARNING"}},
}
