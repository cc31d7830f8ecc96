"""The boto3 client, built lazily once per process from settings (and again when they change).

Every request to DynamoDB goes through `client()` (or `read`, for a GetItem or Query), inside
boundary.translate_errors(): nothing outside the gateway sees a botocore exception.
"""
from __future__ import annotations

import logging
import os
import threading
from typing import Any

import boto3
import botocore.session
from botocore.config import Config
from botocore.useragent import UserAgentString
from django.conf import settings

from . import budget, telemetry, wire

log = logging.getLogger(__name__)

_lock = threading.Lock()
_client = None

CLIENT_SETTINGS = {
    "DYNAMODB_TABLE",
    "DYNAMODB_ENDPOINT_URL",
    "AWS_REGION",
    "DYNAMODB_CONNECT_TIMEOUT",
    "DYNAMODB_READ_TIMEOUT",
    "DYNAMODB_MAX_ATTEMPTS",
    "DYNAMODB_MAX_POOL_CONNECTIONS",
    "DYNAMODB_READ_BUDGET",
}


def table_name() -> str:
    return settings.DYNAMODB_TABLE


def client() -> Any:
    """The process's boto3 DynamoDB client (thread-safe; built on first use)."""
    global _client
    if _client is None:
        with _lock:
            if _client is None:
                _client = _build_client()
    return _client


def reset_client() -> None:
    """Forget the client, so the next call builds it from the current settings."""
    global _client
    with _lock:
        _client = None


def on_setting_changed(*, setting: Any, **kwargs: Any) -> None:
    if setting in CLIENT_SETTINGS:
        reset_client()


def _build_client() -> Any:
    endpoint = settings.DYNAMODB_ENDPOINT_URL or None
    config = Config(
        region_name=settings.AWS_REGION,
        # Within a request the budget caps each attempt's read timeout (budget.before_send); a
        # connection attempt longer than the read budget could not fit in it either.
        connect_timeout=min(settings.DYNAMODB_CONNECT_TIMEOUT, settings.DYNAMODB_READ_BUDGET),
        read_timeout=settings.DYNAMODB_READ_TIMEOUT,
        retries={"mode": "standard", "max_attempts": settings.DYNAMODB_MAX_ATTEMPTS},
        max_pool_connections=settings.DYNAMODB_MAX_POOL_CONNECTIONS,
        tcp_keepalive=True,
        # boto3's own lighter settings: the gateway builds every request itself (keys.py, validate.py),
        # so botocore's parameter check only costs time; the regional endpoint, no account lookup; and
        # checksums only where an operation requires them (DynamoDB's answers keep their CRC32 check).
        parameter_validation=False,
        account_id_endpoint_mode="disabled",
        request_checksum_calculation="when_required",
        response_checksum_validation="when_required",
    )
    session = botocore.session.get_session()
    boto3_session = boto3.session.Session(botocore_session=session)  # names itself Boto3 in `session`
    # botocore builds its User-Agent header anew for every request, twice (from the environment, the
    # config and the features used); the same header built once is the client's `user_agent` setting
    # (botocore appends the session's extra, "Botocore/<version>", to it), with the operator's app ID
    # (AWS_SDK_UA_APP_ID), which botocore reads into the client's config only when it builds the header.
    if appid := session.get_config_variable("user_agent_appid"):
        config = config.merge(Config(user_agent_appid=appid))
    user_agent = UserAgentString.from_environment().set_session_config(
        session.user_agent_name, session.user_agent_version, None
    ).with_client_config(config).to_string()
    config = config.merge(Config(user_agent=user_agent))
    kwargs = {}
    if endpoint and not (os.environ.get("AWS_ACCESS_KEY_ID") or os.environ.get("AWS_PROFILE")):
        # DynamoDB Local accepts any credentials; spare the operator from inventing some.
        kwargs = {"aws_access_key_id": "local", "aws_secret_access_key": "local"}
    log.debug("building DynamoDB client for %s", endpoint or f"AWS {settings.AWS_REGION}")
    return telemetry.install(budget.install(wire.install(
        boto3_session.client("dynamodb", endpoint_url=endpoint, config=config, **kwargs)
    )))


_READ_METHODS = {"GetItem": "get_item", "Query": "query"}


def read(operation: str, params: dict[str, Any]) -> Any:
    """One GetItem or Query (`operation`) with `params` as boto3 takes them."""
    return getattr(client(), _READ_METHODS[operation])(**params)
