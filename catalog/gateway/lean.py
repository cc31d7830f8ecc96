"""The hot reads (GetItem and Query) as one signed HTTP request each, past botocore's request pipeline.

For one GetItem or Query, boto3 spends about as long as DynamoDB Local takes to answer: parameter
validation and serialization against the service model, a dozen events, endpoint rules, its own
signer, and the retry handler's bookkeeping. DynamoDB's wire protocol for these two calls is small:
a POST of the request's JSON with an `X-Amz-Target` header, signed with Signature Version 4, and
a JSON answer. This module sends exactly that, and keeps every guarantee the boto3 path gives:

- **signing**: SigV4 (`sign`), checked against botocore's own signer in tests/gateway/test_lean.py;
  the key is derived once a day;
- **credentials**: the same botocore credentials object the boto3 client uses (environment, profile,
  instance or task role); `get_frozen_credentials()` on every request refreshes a role's
  temporary credentials before they expire, as botocore does;
- **endpoint**: the boto3 client's own, resolved by botocore's endpoint rules
  (`client.meta.endpoint_url`);
- **timeouts**: botocore's connect and read timeouts, capped by the request's time budget
  (`budget.attempt_timeout`), on keep-alive connections, at most as many idle as boto3's pool
  (catalog/gateway/transport.py: HTTP/1.1 with httptools' parser, TLS verified as botocore does);
- **retries**: botocore's standard mode: up to DYNAMODB_MAX_ATTEMPTS attempts; throttling
  errors, 5xx answers, transient error codes, connection failures and a bad CRC32 are retried after
  `rand(0, 1) * min(scale * 2**i, 20)` s (scale 1 s for throttling, 25 ms otherwise); none that the
  time budget cannot fit (`budget.retry_allowed`);
- **errors**: what botocore raises (ClientError with the same `Error` and `ResponseMetadata`,
  EndpointConnectionError, ConnectTimeoutError, ReadTimeoutError, ...), so `translate_errors`
  and `write_outcome` map them to the project's exceptions unchanged;
- **observers**: the request counter of the tests and the bench's meter see these requests as they
  see boto3's (`client.observe`).

Used when `DYNAMODB_LEAN_READS` is on (the default) for the shopper's GetItem and Query requests
(`client.read`); every write, batch and transaction goes through boto3. moto intercepts botocore,
not HTTP: the moto unit tests run the boto3 path, and tests/gateway/test_lean.py runs this one
against moto's server, DynamoDB Local and a scripted HTTP server for the failure paths;
tests/gateway/test_transport.py tries the connections themselves (kept, closed, cut short, TLS).
"""
import hashlib
import hmac
import json
import random
import socket
import threading
import time
import zlib
from datetime import UTC, datetime
from urllib.parse import urlsplit

import orjson
from botocore.exceptions import (
    ClientError,
    ConnectionClosedError,
    ConnectTimeoutError,
    EndpointConnectionError,
    NoCredentialsError,
    ReadTimeoutError,
)
from botocore.httpsession import get_cert_path

from . import budget, transport

OPERATIONS = frozenset({"GetItem", "Query"})
TARGET_PREFIX = "DynamoDB_20120810."
CONTENT_TYPE = "application/x-amz-json-1.0"
SERVICE = "dynamodb"

# botocore's standard retry mode (botocore/retries/standard.py), for DynamoDB.
THROTTLING_CODES = frozenset({
    "Throttling", "ThrottlingException", "ThrottledException", "RequestThrottledException",
    "TooManyRequestsException", "ProvisionedThroughputExceededException", "TransactionInProgressException",
    "RequestLimitExceeded", "BandwidthLimitExceeded", "LimitExceededException", "RequestThrottled",
    "SlowDown", "PriorRequestNotComplete", "EC2ThrottledException",
})
TRANSIENT_CODES = frozenset({"RequestTimeout", "RequestTimeoutException", "PriorRequestNotComplete"})
TRANSIENT_STATUSES = frozenset({500, 502, 503, 504})
THROTTLING_SCALE = 1.0
TRANSIENT_SCALE = 0.025
MAX_BACKOFF = 20.0


class Retry(Exception):
    """One attempt failed in a way worth another: `error` is what to raise if none is left."""

    def __init__(self, error, *, throttled=False, timed_out=False):
        super().__init__(str(error))
        self.error, self.throttled, self.timed_out = error, throttled, timed_out


def backoff(attempt, *, throttled, rand=random.random):
    """The pause before attempt `attempt + 1` (attempt counts from 1), as botocore's standard mode."""
    scale = THROTTLING_SCALE if throttled else TRANSIENT_SCALE
    return rand() * min(scale * 2 ** (attempt - 1), MAX_BACKOFF)


def _hmac(key, text):
    return hmac.new(key, text.encode(), hashlib.sha256).digest()


def _retried(error, attempt):
    """`error` with botocore's count of the attempts sent again (a ClientError's RetryAttempts)."""
    if isinstance(error, ClientError):
        error.response["ResponseMetadata"]["RetryAttempts"] = attempt - 1
    return error


class Signer:
    """AWS Signature Version 4 for DynamoDB's JSON POSTs (one host, path "/", no query string)."""

    def __init__(self, region):
        self.region = region
        self._keys = {}  # (secret, date) -> signing key; a new key a day, or when the secret changes
        self._lock = threading.Lock()

    def signing_key(self, secret, date):
        key = self._keys.get((secret, date))
        if key is None:
            key = _hmac(_hmac(_hmac(_hmac(f"AWS4{secret}".encode(), date), self.region), SERVICE), "aws4_request")
            with self._lock:
                self._keys = {(secret, date): key}
        return key

    def sign(self, *, host, target, body, credentials, now):
        """The headers of one request: `credentials` frozen (access_key, secret_key, token)."""
        amz_date = now.strftime("%Y%m%dT%H%M%SZ")
        date = amz_date[:8]
        payload_hash = hashlib.sha256(body).hexdigest()
        headers = {
            "content-type": CONTENT_TYPE,
            "host": host,
            "x-amz-date": amz_date,
            "x-amz-target": target,
        }
        if credentials.token:
            headers["x-amz-security-token"] = credentials.token
        names = sorted(headers)
        canonical = "\n".join([
            "POST", "/", "",
            *(f"{name}:{headers[name]}" for name in names), "",
            ";".join(names), payload_hash,
        ])
        scope = f"{date}/{self.region}/{SERVICE}/aws4_request"
        to_sign = f"AWS4-HMAC-SHA256\n{amz_date}\n{scope}\n{hashlib.sha256(canonical.encode()).hexdigest()}"
        signature = hmac.new(self.signing_key(credentials.secret_key, date), to_sign.encode(), hashlib.sha256)
        headers["authorization"] = (
            f"AWS4-HMAC-SHA256 Credential={credentials.access_key}/{scope}, "
            f"SignedHeaders={';'.join(names)}, Signature={signature.hexdigest()}"
        )
        return headers


class LeanClient:
    """GetItem and Query over one keep-alive connection pool; thread-safe."""

    def __init__(self, *, endpoint_url, region, credentials, connect_timeout, read_timeout, max_attempts,
                 max_pool_connections, sleep=time.sleep):
        parts = urlsplit(endpoint_url)
        self.endpoint_url = endpoint_url
        self.host = parts.netloc
        self.signer = Signer(region)
        self.credentials = credentials
        self.connect_timeout = connect_timeout
        self.read_timeout = read_timeout
        self.max_attempts = max_attempts
        self.sleep = sleep
        self.endpoint = transport.Endpoint(
            endpoint_url,
            maxsize=max_pool_connections,
            ca_certs=get_cert_path(True) if parts.scheme == "https" else None,
            socket_options=[(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)],
        )

    def call(self, operation, params):
        """One API call (`operation` in OPERATIONS), with retries: DynamoDB's answer as botocore
        parses it (a dict; no binary attributes in this table, so plain JSON is the same)."""
        if operation not in OPERATIONS:
            raise ValueError(f"the lean client does not send {operation}")
        body = json.dumps(params, separators=(",", ":")).encode()
        target = TARGET_PREFIX + operation
        attempt = 1
        while True:
            try:
                answer = self._attempt(operation, target, body)
            except Retry as failed:
                pause = backoff(attempt, throttled=failed.throttled)
                if attempt >= self.max_attempts or not budget.retry_allowed(timed_out=failed.timed_out, pause=pause):
                    raise _retried(failed.error, attempt) from None
                self.sleep(pause)
                attempt += 1
            except ClientError as error:
                raise _retried(error, attempt) from None
            else:
                if attempt > 1:  # as botocore's: the attempts sent again (catalog/gateway/telemetry.py counts them)
                    answer["ResponseMetadata"] = {"HTTPStatusCode": 200, "RetryAttempts": attempt - 1}
                return answer

    def _attempt(self, operation, target, body):
        read_timeout = budget.attempt_timeout(self.read_timeout)
        credentials = self.credentials.get_frozen_credentials() if self.credentials is not None else None
        if credentials is None or not credentials.access_key:
            raise NoCredentialsError()
        headers = self.signer.sign(host=self.host, target=target, body=body, credentials=credentials,
                                   now=datetime.now(UTC))
        budget.record_send(target)
        head = "".join(["POST / HTTP/1.1\r\n", *(f"{name}: {value}\r\n" for name, value in headers.items()),
                        f"content-length: {len(body)}\r\naccept-encoding: identity\r\n\r\n"]).encode()
        try:
            response = self.endpoint.request(head, body, connect_timeout=min(self.connect_timeout, read_timeout),
                                             read_timeout=read_timeout)
        except transport.ConnectFailed as exc:
            raise Retry(EndpointConnectionError(endpoint_url=self.endpoint_url, error=exc)) from exc
        except transport.ConnectTimedOut as exc:
            raise Retry(ConnectTimeoutError(endpoint_url=self.endpoint_url, error=exc), timed_out=True) from exc
        except transport.ReadTimedOut as exc:
            raise Retry(ReadTimeoutError(endpoint_url=self.endpoint_url, error=exc), timed_out=True) from exc
        except transport.Broken as exc:
            raise Retry(ConnectionClosedError(endpoint_url=self.endpoint_url)) from exc
        data = response.body
        crc = response.headers.get("x-amz-crc32")
        if crc is not None and zlib.crc32(data) != int(crc):
            raise Retry(ConnectionClosedError(endpoint_url=self.endpoint_url))
        if response.status == 200:
            return orjson.loads(data)  # parsed in C: half json.loads' time for a page of items
        raise self._error(operation, response, data)

    def _error(self, operation, response, data):
        try:
            answer = orjson.loads(data) if data else {}
        except ValueError:
            answer = {}
        code = str(answer.get("__type", "")).rpartition("#")[2] or str(response.status)
        message = answer.get("message") or answer.get("Message") or ""
        error = ClientError({
            "Error": {"Code": code, "Message": message},
            "ResponseMetadata": {
                "HTTPStatusCode": response.status,
                "RequestId": response.headers.get("x-amzn-requestid", ""),
                "HTTPHeaders": dict(response.headers),
            },
        }, operation)
        if code in THROTTLING_CODES:
            return Retry(error, throttled=True)
        if code in TRANSIENT_CODES or response.status in TRANSIENT_STATUSES:
            return Retry(error)
        return error
