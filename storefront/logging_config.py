"""The LOGGING setting: one line a record on the console, `json` (one object a line, for a log
collector) or `text` (for people); every line carries the request ID and (tracing on) the trace ID
of the request it belongs to (storefront/logcontext.py)."""
from django.core.exceptions import ImproperlyConfigured


def logging_config(log_format, level):
    """Django's LOGGING dict for LOG_FORMAT `log_format` ("json" or "text") and the root `level`."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {
            "request": {"()": "storefront.logcontext.RequestContextFilter"},
            # Django logs every 4xx/5xx answer; a failing /readyz (every few seconds) logs its changes itself.
            "not_health": {"()": "storefront.logcontext.NotHealthChecks"},
        },
        "formatters": {
            "json": {  # python-json-logger: the time in UTC, ISO 8601
                "()": "pythonjsonlogger.json.JsonFormatter",
                "fmt": "%(levelname)s %(name)s %(message)s %(request_id)s %(trace_id)s",
                "rename_fields": {"levelname": "level", "name": "logger"},
                "timestamp": "time",
            },
            "text": {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"},
        },
        "handlers": {"console": {"class": "logging.StreamHandler", "formatter": log_format, "filters": ["request"]}},
        "root": {"handlers": ["console"], "level": level},
        "loggers": {
            "botocore": {"level": "WARNING"},
            "urllib3": {"level": "WARNING"},
            "django.request": {"filters": ["not_health"]},
        },
    }


def log_format(value):
    """LOG_FORMAT: `json` or `text` (any case, spaces around allowed); anything else is a configuration error."""
    value = value.strip().lower()
    if value not in {"json", "text"}:
        raise ImproperlyConfigured(f"LOG_FORMAT must be json or text, got {value!r}")
    return value
