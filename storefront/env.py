"""Reading settings from the environment, for storefront/settings.py (which names every variable).

The environment wins over var/run.env, the settings `make run` chose (secret key, DynamoDB Local's
address, ...) and wrote there (never committed), so `manage.py` in a second terminal works against
the running shop with nothing to set. DJANGO_RUN_ENV_FILE names another file (relative to the
project), or (empty) none. An empty variable counts as unset.
"""
import ipaddress
import os
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured
from dotenv import dotenv_values

from common.numbers import Unreadable, parse_decimal, parse_whole

BASE_DIR = Path(__file__).resolve().parent.parent
RUN_ENV_FILE = os.environ.get("DJANGO_RUN_ENV_FILE", "var/run.env")
RUN_ENV = dotenv_values(BASE_DIR / RUN_ENV_FILE) if RUN_ENV_FILE and (BASE_DIR / RUN_ENV_FILE).is_file() else {}


def env(name, default=None):
    value = os.environ.get(name)
    if value is None:
        value = RUN_ENV.get(name)
    return default if value is None or value == "" else value


def env_bool(name, default=False):
    value = env(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_int(name, default, minimum=0):
    value = env(name)
    if value is None:
        return default
    try:
        return parse_whole(value, minimum=minimum)
    except Unreadable as exc:
        raise ImproperlyConfigured(f"{name} {exc}, got {value!r}") from None


def env_list(name, default=""):
    """A comma-separated list, each entry stripped, empty ones left out."""
    return [item.strip() for item in env(name, default).split(",") if item.strip()]


def env_float(name, default):
    value = env(name)
    if value is None:
        return default
    try:
        return float(parse_decimal(value))
    except Unreadable as exc:
        raise ImproperlyConfigured(f"{name} {exc}, got {value!r}") from None


def networks(name, text):
    """The addresses or networks (CIDR) of a comma-separated `text`, read from the variable `name`."""
    try:
        return [ipaddress.ip_network(c.strip(), strict=False) for c in text.split(",") if c.strip()]
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} must be addresses or networks (CIDR), comma-separated: {exc}") from None
