"""Settings for the Fromatoz storefront.

Every environment variable the project reads is named here, and only here (storefront/env.py reads
them: the environment, then the file DJANGO_RUN_ENV_FILE names); `.env.example` lists them all. The bigger values are
built by storefront/cache_config.py, logging_config.py, rate_limits.py and security_headers.py.
"""
import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from storefront.cache_config import caches
from storefront.env import BASE_DIR, env, env_bool, env_float, env_int, env_list, networks
from storefront.env import RUN_ENV as RUN_ENV  # settings too: the file `make run` wrote, and its values
from storefront.env import RUN_ENV_FILE as RUN_ENV_FILE
from storefront.logging_config import log_format, logging_config
from storefront.media import media_origin, media_storage
from storefront.rate_limits import account_rate_limits, alert_rate_limits
from storefront.security_headers import content_security_policy, image_hosts, payment_origins, permissions_policy

DEBUG = env_bool("DJANGO_DEBUG", False)

SECRET_KEY = env("DJANGO_SECRET_KEY")
if SECRET_KEY is None:
    if not DEBUG:
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY is not set. Set it in the environment "
            "(`make run` generates one under var/ for local use)."
        )
    SECRET_KEY = "insecure-development-key-only-with-DJANGO_DEBUG"

ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1")
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "csp",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.humanize",  # allauth's passkey list loads it
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_htmx",
    "template_partials",
    "django_countries",
    "allauth",  # accounts: django-allauth and its MFA app
    "allauth.account",
    "allauth.mfa",
    "catalog",
    "shop",
    "staff",
    "storefront",
    "payments",  # card payments (Stripe)
]

MIDDLEWARE = [
    # Requests by view and status, and their time (storefront/metrics.py): first, so that it covers
    # every other middleware.
    "storefront.metrics.RequestMetricsMiddleware",
    # The request ID, the request's log line (storefront/requestlog.py); the accounts database's
    # spans while tracing is on (none, and no cost, when it is off).
    "storefront.requestlog.RequestLogMiddleware",
    "storefront.tracing.DatabaseSpansMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # PUT, DELETE and other methods no page takes: 405 before any view (storefront/http.py).
    "storefront.http.PageMethodsMiddleware",
    "csp.middleware.CSPMiddleware",
    "django_permissions_policy.PermissionsPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "staff.upload_limit.UploadLimitMiddleware",  # an oversized staff upload: 413 before CSRF reads the body
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "shop.account_sessions.StaffSessionMiddleware",  # staff sessions end STAFF_SESSION_SECONDS after sign-in
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "storefront.errors.PrivatePagesMiddleware",
    "storefront.errors.CatalogErrorMiddleware",
    "allauth.account.middleware.AccountMiddleware",  # allauth's sign-in stages (email code, second factor)
    "shop.middleware.AccountFormErrorsMiddleware",  # a refused form on allauth's pages: 400
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
                "storefront.templatetags.frame",
            ],
        },
    },
]

WSGI_APPLICATION = "storefront.wsgi.application"

# Accounts and sessions (and so carts): nothing of the catalog is stored here. DATABASE_URL unset is
# the SQLite file under var/; postgres://user:password@host:5432/name is PostgreSQL (psycopg 3), which
# several app servers share.
DATABASES = {
    "default": dj_database_url.parse(
        env("DATABASE_URL", f"sqlite:///{BASE_DIR / 'var' / 'db.sqlite3'}"),
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 0),
        conn_health_checks=env_bool("DATABASE_CONN_HEALTH_CHECKS", True),
    )
}

AUTH_USER_MODEL = "shop.User"
AUTHENTICATION_BACKENDS = [
    # allauth's alone (it is Django's ModelBackend, by email first, then by username): with Django's in
    # front, a username that is someone's email address would sign in before the address's owner.
    "allauth.account.auth_backends.AuthenticationBackend",
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
# Order times and stock history are shown in the shop's time zone (stored in UTC).
TIME_ZONE = env("SHOP_TIME_ZONE", "Europe/Berlin")
# One language (English): no translation machinery. With it on, every number a template shows
# asked the active language of a context-local variable (the filter chips' counts, the prices).
# Formats are still en's (the same as Django's defaults), and nothing is translated either way.
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "var" / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "storefront.storage.StaticStorage"
        if not DEBUG
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

LOGIN_URL = "account_login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

SESSION_COOKIE_HTTPONLY = True

# --- HTTPS (behind a proxy that terminates TLS) ---------------------------
# DJANGO_HTTPS=1 turns on every HTTPS setting at once: secure cookies, redirect to HTTPS, HSTS, and
# trusting the proxy's X-Forwarded-Proto. DJANGO_SECURE_COOKIES alone is the cookie part.
HTTPS = env_bool("DJANGO_HTTPS", False)
SESSION_COOKIE_SECURE = HTTPS or env_bool("DJANGO_SECURE_COOKIES", False)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
# Sessions (the cart with them) are rows in the database above, shared by every app server.
SESSION_ENGINE = "django.contrib.sessions.backends.db"

# --- Email: password reset links and order confirmations ---------------------------------
# EMAIL_HOST unset: emails are written to the console (local use). Set it for SMTP in production.
EMAIL_HOST = env("EMAIL_HOST")
EMAIL_BACKEND = (
    "django.core.mail.backends.smtp.EmailBackend" if EMAIL_HOST else "django.core.mail.backends.console.EmailBackend"
)
EMAIL_HOST = EMAIL_HOST or "localhost"
EMAIL_PORT = env_int("EMAIL_PORT", 587)
EMAIL_HOST_USER = env("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)
EMAIL_TIMEOUT = env_float("EMAIL_TIMEOUT", 10.0)
DEFAULT_FROM_EMAIL = env("DEFAULT_FROM_EMAIL", "Fromatoz <shop@localhost>")
PASSWORD_RESET_TIMEOUT = env_int("PASSWORD_RESET_TIMEOUT", 3 * 24 * 3600)

# --- Accounts: django-allauth and its MFA app ---------------------------------------------
# Sign-in by email or username; sign-up asks email, username and the password twice (and a name,
# optional). Every address is confirmed with a code mailed to it, before the first sign-in and before
# an email change takes effect; the old address is told of every email and password change.
ACCOUNT_ADAPTER = "shop.adapter.AccountAdapter"
ACCOUNT_FORMS = {
    "login": "shop.forms.SignInForm", "signup": "shop.forms.SignUpForm",
    # Email fields no longer than the database's column (254); the email change asks for the password
    # in every submission.
    "add_email": "shop.forms.AddEmailForm", "change_email": "shop.forms.ChangeEmailForm",
    "reset_password": "shop.forms.ResetPasswordForm", "request_login_code": "shop.forms.RequestLoginCodeForm",
}
ACCOUNT_LOGIN_METHODS = {"email", "username"}
ACCOUNT_SIGNUP_FIELDS = ["email*", "username*", "password1*", "password2*"]
ACCOUNT_UNIQUE_EMAIL = True
ACCOUNT_EMAIL_VERIFICATION = "mandatory"  # what lets sign-up answer the same whether or not the address is taken
ACCOUNT_EMAIL_VERIFICATION_BY_CODE_ENABLED = True
ACCOUNT_PREVENT_ENUMERATION = True
ACCOUNT_CHANGE_EMAIL = True  # one address per account: a change replaces it once the new one is confirmed
ACCOUNT_EMAIL_NOTIFICATIONS = True
ACCOUNT_REAUTHENTICATION_REQUIRED = True  # email changes (and 2FA changes) ask for the password again
ACCOUNT_LOGIN_BY_CODE_ENABLED = True  # the owner's way in while their account's password sign-in is throttled
ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION = True
ACCOUNT_LOGIN_ON_PASSWORD_RESET = False
ACCOUNT_SESSION_REMEMBER = True  # the usual session cookie (SESSION_COOKIE_AGE), no "remember me" box
ACCOUNT_LOGOUT_REDIRECT_URL = "home"
ACCOUNT_EMAIL_SUBJECT_PREFIX = "Fromatoz: "
ACCOUNT_USERNAME_BLACKLIST = ["admin", "staff", "support", "fromatoz", "root"]
# Throttling: allauth's rate limits, "N/period/per", counted in Django's default cache (storefront/rate_limits.py
# says what each counts): failed sign-ins, mails to an address, and every account mail to one inbox.
ACCOUNT_MAILS_PER_MAILBOX = env_int("ACCOUNT_MAILS_PER_MAILBOX", 10, minimum=1)
ACCOUNT_RATE_LIMITS = account_rate_limits(
    login_failed=env("ACCOUNT_RATE_LIMIT_LOGIN_FAILED", "10/m/ip,5/5m/key"),
    reset_password=env("ACCOUNT_RATE_LIMIT_RESET_PASSWORD", "20/m/ip,5/h/key"),
    request_login_code=env("ACCOUNT_RATE_LIMIT_REQUEST_LOGIN_CODE", "20/m/ip,3/m/key,5/h/key"),
    confirm_email=env("ACCOUNT_RATE_LIMIT_CONFIRM_EMAIL", "1/10s/key,5/h/key"),
    mails_per_mailbox=ACCOUNT_MAILS_PER_MAILBOX,
)
# A password reset or sign-in code asked for an address with no account sends nothing (the page says the same).
ACCOUNT_EMAIL_UNKNOWN_ACCOUNTS = False
# The client address: REMOTE_ADDR; behind N proxies of yours (TRUSTED_PROXY_COUNT=N), the address the
# outermost of them put into X-Forwarded-For (anything further left can be forged by the client).
# shop/checks.py warns (deploy) when DJANGO_HTTPS is on and this is 0: every client looks like the proxy.
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 0)
# Second factors: an authenticator app (TOTP) with recovery codes, and passkeys (WebAuthn), which can
# also sign in on their own. Staff pages need one unless STAFF_MFA_REQUIRED is off (staff/decorators.py).
MFA_SUPPORTED_TYPES = ["totp", "recovery_codes", "webauthn"]
MFA_PASSKEY_LOGIN_ENABLED = True
MFA_FORMS = {
    # Passkey forms whose credential (JSON from the browser) is checked for size, depth and shape before
    # allauth parses it (shop/passkeys.py): a bad one is a form error, never a 500.
    "add_webauthn": "shop.passkeys.AddPasskeyForm",
    "signup_webauthn": "shop.passkeys.SignupPasskeyForm",
    "authenticate_webauthn": "shop.passkeys.AuthenticatePasskeyForm",
    "reauthenticate_webauthn": "shop.passkeys.ReauthenticatePasskeyForm",
    "login_webauthn": "shop.passkeys.LoginPasskeyForm",
    # Authenticator-app codes: the step of the last code taken is kept in the database, so no code is
    # taken twice on any server (shop/mfa_forms.py).
    "authenticate": "shop.mfa_forms.AuthenticateForm", "reauthenticate": "shop.mfa_forms.ReauthenticateForm",
    "activate_totp": "shop.mfa_forms.ActivateTOTPForm",
}
MFA_TOTP_ISSUER = "Fromatoz"
# A code is also taken in the 30 s step before or after the server's (RFC 6238, 5.2): one typed as the
# phone turns it over, or a phone's clock a little off, still signs in.
MFA_TOTP_TOLERANCE = 1
# WebAuthn over plain http (local use: `make run` on http://localhost, the browser tests on live_server).
MFA_WEBAUTHN_ALLOW_INSECURE_ORIGIN = env_bool("MFA_WEBAUTHN_ALLOW_INSECURE_ORIGIN", DEBUG)
STAFF_MFA_REQUIRED = env_bool("STAFF_MFA_REQUIRED", True)
# A staff session ends this long after its sign-in (shoppers keep SESSION_COOKIE_AGE): shop/account_sessions.py.
STAFF_SESSION_SECONDS = env_int("STAFF_SESSION_SECONDS", 8 * 3600, minimum=60)
# --- end of accounts ---------------------------------------------------------------------------

if HTTPS:
    SECURE_SSL_REDIRECT = True
    # The load balancer's health checks and the metrics scraper talk to each app server directly, on
    # plain HTTP inside the network: they are answered, not redirected.
    SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$", r"^metrics$"]
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_HSTS_SECONDS = env_int("DJANGO_HSTS_SECONDS", 365 * 24 * 3600)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("DJANGO_HSTS_PRELOAD", True)

# --- Headers of every answer (storefront/security_headers.py) -------------------------------
# Product pictures on other sites: the hosts (host or host:port) whose https pictures the importer
# accepts and img-src allows; empty, only pictures under static/.
PRODUCT_IMAGE_HOSTS = image_hosts(env_list("PRODUCT_IMAGE_HOSTS"))
# Pictures staff upload (MEDIA_STORAGE `files` or `s3`), and the origin img-src allows for them: storefront/media.py.
AWS_REGION = env("AWS_REGION", "eu-central-1")  # the table's, and the pictures' bucket's
MEDIA_STORAGE, MEDIA_URL = env("MEDIA_STORAGE", "files"), env("MEDIA_URL", "/media/")
MEDIA_S3_BUCKET, AWS_S3_ENDPOINT_URL = env("MEDIA_S3_BUCKET"), env("AWS_S3_ENDPOINT_URL")
MEDIA_ROOT = BASE_DIR / "var" / "media"
STORAGES["media"] = media_storage(
    MEDIA_STORAGE, MEDIA_URL, MEDIA_ROOT, MEDIA_S3_BUCKET, AWS_S3_ENDPOINT_URL, AWS_REGION)
# --- Card payments (payments/, docs/payments.md): SHOP_PAYMENTS `stripe` or `off` (orders without payment) ---
SHOP_PAYMENTS = env("SHOP_PAYMENTS", "stripe").strip().lower()  # anything else: the check payments.E002
SHOP_CURRENCY = env("SHOP_CURRENCY", "EUR").strip().upper()
STRIPE_SECRET_KEY, STRIPE_PUBLISHABLE_KEY = env("STRIPE_SECRET_KEY", ""), env("STRIPE_PUBLISHABLE_KEY", "")
STRIPE_WEBHOOK_SECRET, STRIPE_TIMEOUT = env("STRIPE_WEBHOOK_SECRET", ""), env_float("STRIPE_TIMEOUT", 10.0)
STRIPE_API_BASE = env("STRIPE_API_BASE", "").rstrip("/")  # unset: Stripe itself; `make run`: its localstripe
STRIPE_JS_URL = env("STRIPE_JS_URL", "https://js.stripe.com/v3/")
PAYMENT_LAPSE_WARNING_DAYS = env_int("PAYMENT_LAPSE_WARNING_DAYS", 6, minimum=1)  # Stripe voids them after 7 days
CONTENT_SECURITY_POLICY = content_security_policy(PRODUCT_IMAGE_HOSTS, media_origin(STORAGES["media"], MEDIA_URL),
                                                  payment_origins(SHOP_PAYMENTS, STRIPE_JS_URL, STRIPE_API_BASE))
PERMISSIONS_POLICY = permissions_policy()

# --- DynamoDB -------------------------------------------------------------
# No endpoint means AWS's own endpoint for AWS_REGION.
DYNAMODB_TABLE = env("DYNAMODB_TABLE", "fromatoz")
DYNAMODB_ENDPOINT_URL = env("DYNAMODB_ENDPOINT_URL")
DYNAMODB_CONNECT_TIMEOUT = env_float("DYNAMODB_CONNECT_TIMEOUT", 2.0)
DYNAMODB_READ_TIMEOUT = env_float("DYNAMODB_READ_TIMEOUT", 5.0)
DYNAMODB_MAX_ATTEMPTS = env_int("DYNAMODB_MAX_ATTEMPTS", 3, minimum=1)
DYNAMODB_MAX_POOL_CONNECTIONS = env_int("DYNAMODB_MAX_POOL_CONNECTIONS", 32, minimum=1)
# Time budgets of one web request for DynamoDB (connects, answers and retries together), counted from
# the request's start: a GET's, and a POST's (a write, its reads, its tries again after a lost race).
# No single answer is awaited longer than the read budget. Past the budget: 503 (catalog/gateway/dynamo/budget.py).
DYNAMODB_READ_BUDGET = env_float("DYNAMODB_READ_BUDGET", 1.5)
DYNAMODB_WRITE_BUDGET = env_float("DYNAMODB_WRITE_BUDGET", 10.0)
if not 0 < DYNAMODB_READ_BUDGET <= DYNAMODB_WRITE_BUDGET:
    raise ImproperlyConfigured("DYNAMODB_READ_BUDGET must be more than 0 and at most DYNAMODB_WRITE_BUDGET")
# The table protects itself: create_table and migrate_table turn these on (where the DynamoDB has them).
DYNAMODB_PITR = env_bool("DYNAMODB_PITR", True)
DYNAMODB_DELETION_PROTECTION = env_bool("DYNAMODB_DELETION_PROTECTION", True)
# migrate_table's backfills: the share of the table's capacity they may use, and their Scan segments.
DYNAMODB_MIGRATION_CAPACITY_SHARE = env_float("DYNAMODB_MIGRATION_CAPACITY_SHARE", 0.25)
DYNAMODB_MIGRATION_SEGMENTS = env_int("DYNAMODB_MIGRATION_SEGMENTS", 4, minimum=1)
if not 0 < DYNAMODB_MIGRATION_CAPACITY_SHARE <= 1:
    raise ImproperlyConfigured("DYNAMODB_MIGRATION_CAPACITY_SHARE must be more than 0 and at most 1")

# --- Catalog ---------------------------------------------------------------
CATALOG_PAGE_SIZE = env_int("CATALOG_PAGE_SIZE", 24, minimum=1)
# Brand and category lists are cached this many seconds (access patterns 1, 2).
CATALOG_NAMES_TTL = env_int("CATALOG_NAMES_TTL", 60)
LOW_STOCK_THRESHOLD = env_int("LOW_STOCK_THRESHOLD", 5)

# --- What shoppers are told before they pay (product, cart, checkout) --------------------
# Prices include VAT (the shop's prices are what a shopper pays); off: "plus VAT".
SHOP_PRICES_INCLUDE_VAT = env_bool("SHOP_PRICES_INCLUDE_VAT", True)
# Delivery costs and times, one sentence the shop sets.
SHOP_DELIVERY_NOTE = env("SHOP_DELIVERY_NOTE", "Delivery is free and takes 2–4 working days.")

# --- Back-in-stock alerts (run_stock_jobs sends them) ----------------------------------------
# When units come back, alerts are sent to at most (units still in stock) + this many shoppers, oldest
# ask first: a few more than the units, since not everyone who is told buys.
STOCK_ALERT_MARGIN = env_int("STOCK_ALERT_MARGIN", 2)
# An alert's email (or its confirmation) that fails this many times, one pass after another, is given up
# and logged as an error (the alert is `failed`): a message the mail server always refuses is not retried forever.
STOCK_ALERT_MAIL_ATTEMPTS = env_int("STOCK_ALERT_MAIL_ATTEMPTS", 5, minimum=1)
# The shop's address for links in emails the job sends (no request to take it from): confirm, unsubscribe.
SHOP_BASE_URL = env("SHOP_BASE_URL", "http://127.0.0.1:8000").rstrip("/")
# Asking for alerts (POST /products/<id>/notify/), at most this many times an hour: per client address, per
# email address a guest enters (each may send a confirmation email), per signed-in account; 0: no limit.
# Counted by allauth's rate limits in Django's default cache (as sign-ins are: see "Accounts").
STOCK_ALERT_ASKS_PER_IP = env_int("STOCK_ALERT_ASKS_PER_IP", 20)
STOCK_ALERT_ASKS_PER_EMAIL = env_int("STOCK_ALERT_ASKS_PER_EMAIL", 5)
STOCK_ALERT_ASKS_PER_USER = env_int("STOCK_ALERT_ASKS_PER_USER", 20)

ACCOUNT_RATE_LIMITS |= alert_rate_limits(
    per_ip=STOCK_ALERT_ASKS_PER_IP, per_email=STOCK_ALERT_ASKS_PER_EMAIL, per_user=STOCK_ALERT_ASKS_PER_USER)

# --- Timed holds (catalog/gateway/stock/holds.py; run_stock_jobs releases those that ended) -----
# Opening the checkout holds the cart's units for this many seconds; 0 turns holds off (the shop sells
# at the moment the order is placed).
STOCK_HOLD_SECONDS = env_int("STOCK_HOLD_SECONDS", 600)
# At most this many units of one product held for one shopper (a bigger cart line cannot check out).
STOCK_HOLD_MAX_UNITS = env_int("STOCK_HOLD_MAX_UNITS", 10, minimum=1)
# The longest one hold lasts, renewals included: opening the checkout again renews a hold, but never past
# this many seconds after it was first taken (then it ends, is released, and the shopper queues again).
STOCK_HOLD_MAX_SECONDS = env_int("STOCK_HOLD_MAX_SECONDS", 2 * STOCK_HOLD_SECONDS, minimum=STOCK_HOLD_SECONDS)
# After a hold's window (STOCK_HOLD_MAX_SECONDS from when it was first taken) the shopper cannot hold that product
# again for this many seconds: others can hold or buy it; the shopper can still buy it without a hold.
STOCK_HOLD_COOLDOWN_SECONDS = env_int("STOCK_HOLD_COOLDOWN_SECONDS", STOCK_HOLD_MAX_SECONDS, minimum=0)
# At most this many units held for one shopper in all, over every product.
STOCK_HOLD_MAX_UNITS_PER_SHOPPER = env_int("STOCK_HOLD_MAX_UNITS_PER_SHOPPER", 50, minimum=1)

# A product whose stock is spread over buckets, as shoppers' pages read it, is kept this many seconds in the
# `hot_products` cache (catalog/hot_products.py; 0: not kept); staff pages and the checkout read it exactly.
HOT_PRODUCT_CACHE_SECONDS = env_int("HOT_PRODUCT_CACHE_SECONDS", 1)
# Django's default cache holds every limit (allauth's sign-in, sign-up, reset and alert limits, used
# second-factor codes) and the brand and category names. CACHE_URL (redis://host:6379/0) puts it in
# one Redis that every process and app server shares, so a limit counts the whole shop's tries; unset,
# each process keeps its own in memory (one server). `hot_products` stays in each process' memory on
# purpose: a copy of a product kept a second to spare DynamoDB reads, which a trip to Redis on every
# product read would not beat, and which is no limit.
CACHE_URL = env("CACHE_URL")
# Seconds to connect to Redis and to wait for an answer: a Redis that does not answer costs a page
# this long, then a 503 (storefront/errors.py), not a worker held up.
CACHE_TIMEOUT = env_float("CACHE_TIMEOUT", 1.0)
CACHES = caches(CACHE_URL, timeout=CACHE_TIMEOUT, hot_product_seconds=HOT_PRODUCT_CACHE_SECONDS)

# --- Operating it: health checks, metrics, traces, logs (README "Operating it") ----------------
# /metrics (and /readyz' details) answer a caller connected directly (the TCP peer, REMOTE_ADDR; never
# X-Forwarded-For) from these networks, and any request with `Authorization: Bearer <METRICS_TOKEN>`
# (unset: no token is accepted); a request that carries X-Forwarded-For needs the token.
METRICS_ALLOWED_CIDRS = env("METRICS_ALLOWED_CIDRS", "127.0.0.0/8,::1/128")
METRICS_ALLOWED_NETWORKS = networks("METRICS_ALLOWED_CIDRS", METRICS_ALLOWED_CIDRS)
METRICS_TOKEN = env("METRICS_TOKEN", "")
# Traces: OpenTelemetry, only when an OTLP endpoint is set (its standard OTEL_* variables, read by
# its SDK: OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_SERVICE_NAME, OTEL_TRACES_SAMPLER, ...). Unset, or with
# OTEL_SDK_DISABLED=true, nothing of OpenTelemetry is imported (storefront/tracing.py).
TRACING = bool(env("OTEL_EXPORTER_OTLP_ENDPOINT") or env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")) and not env_bool(
    "OTEL_SDK_DISABLED", False)
TRACING_SERVICE_NAME = env("OTEL_SERVICE_NAME", "fromatoz-storefront")
# Requests not traced: the load balancer's health checks and the metrics scrapes.
TRACING_EXCLUDED_URLS = env("OTEL_PYTHON_DJANGO_EXCLUDED_URLS", "healthz,readyz,metrics")
# Logs: `json` (one object a line, for a log collector) or `text` (`make run` sets it, for people).
LOG_FORMAT = log_format(env("LOG_FORMAT", "json"))
LOGGING = logging_config(LOG_FORMAT, env("DJANGO_LOG_LEVEL", "INFO"))
