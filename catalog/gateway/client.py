"""The boto3 client, built lazily once per process from settings, and the error boundary.

Everything that talks to DynamoDB goes through `client()` and `translate_errors()`; nothing
outside the gateway sees a botocore exception.
"""
import contextlib
import contextvars
import logging
import os
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import boto3
import botocore.session
from boto3.dynamodb.types import DYNAMODB_CONTEXT, TypeDeserializer, TypeSerializer
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError, EndpointConnectionError
from django.conf import settings

from . import budget, telemetry
from .errors import CatalogUnavailable, OutcomeUnknown
from .wire import FastReadParserFactory

log = logging.getLogger(__name__)

_lock = threading.Lock()
_client = None

_serializer = TypeSerializer()
_deserializer = TypeDeserializer()

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

# Error codes that mean "DynamoDB is not able to serve us now" rather than "your request is wrong".
UNAVAILABLE_CODES = {
    "ProvisionedThroughputExceededException",
    "ThrottlingException",
    "RequestLimitExceeded",
    "InternalServerError",
    "ServiceUnavailable",
    "ResourceNotFoundException",  # the table is missing: an operator problem, not a shopper's
    "UnrecognizedClientException",
    "InvalidSignatureException",
    "AccessDeniedException",
    "ExpiredTokenException",
}


def table_name():
    return settings.DYNAMODB_TABLE


def client():
    """The process's boto3 DynamoDB client (thread-safe; built on first use)."""
    global _client
    if _client is None:
        with _lock:
            if _client is None:
                _client = _build_client()
    return _client


def reset_client():
    """Forget the client, so the next call builds it from the current settings."""
    global _client
    with _lock:
        _client = None


def on_setting_changed(*, setting, **kwargs):
    if setting in CLIENT_SETTINGS:
        reset_client()


def _build_client():
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
    kwargs = {}
    if endpoint and not (os.environ.get("AWS_ACCESS_KEY_ID") or os.environ.get("AWS_PROFILE")):
        # DynamoDB Local accepts any credentials; spare the operator from inventing some.
        kwargs = {"aws_access_key_id": "local", "aws_secret_access_key": "local"}
    log.debug("building DynamoDB client for %s", endpoint or f"AWS {settings.AWS_REGION}")
    core = botocore.session.get_session()
    core.register_component("response_parser_factory", FastReadParserFactory())
    return telemetry.install(budget.install(
        boto3.session.Session(botocore_session=core).client("dynamodb", endpoint_url=endpoint, config=config, **kwargs)
    ))


_READ_METHODS = {"GetItem": "get_item", "Query": "query"}


def read(operation, params):
    """One GetItem or Query (`operation`) with `params` as boto3 takes them."""
    return getattr(client(), _READ_METHODS[operation])(**params)


def error_code(exc):
    return exc.response.get("Error", {}).get("Code", "") if isinstance(exc, ClientError) else ""


@contextlib.contextmanager
def translate_errors():
    """Turn transport failures and DynamoDB's service-side failures into CatalogUnavailable.

    ClientErrors that the caller understands (conditional check failures, cancelled
    transactions) pass through for the caller to interpret.
    """
    try:
        yield
    except ClientError as exc:
        code = error_code(exc)
        if code in UNAVAILABLE_CODES or exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0) >= 500:
            log.warning("DynamoDB unavailable: %s", code)
            raise CatalogUnavailable(f"DynamoDB is unavailable ({code})") from exc
        raise
    except BotoCoreError as exc:
        log.warning("DynamoDB unreachable: %s", exc)
        raise CatalogUnavailable("DynamoDB cannot be reached") from exc


# Failures after which a write may or may not have been applied: DynamoDB had the request (or may
# have had it) but its answer was lost. A 4xx refusal (throttling, ...) is an answer: not applied.
_NOT_SENT = (EndpointConnectionError,)


@contextlib.contextmanager
def write_outcome():
    """Around one write request (with botocore's retries): when DynamoDB's answer is lost (a read
    timeout, a closed connection, a 5xx, the budget spent after an attempt went out), the write
    may still commit: raise OutcomeUnknown, not a plain CatalogUnavailable."""
    with budget.counting_sends() as sends:
        try:
            with translate_errors():
                yield
        except CatalogUnavailable as exc:
            cause = exc.__cause__
            answered = isinstance(cause, ClientError) and cause.response.get("ResponseMetadata", {}).get(
                "HTTPStatusCode", 0) < 500
            never_sent = not sends or (len(sends) == 1 and isinstance(cause, _NOT_SENT))
            if answered or never_sent:
                raise
            raise OutcomeUnknown(
                "DynamoDB did not confirm this change in time: it may or may not have been applied."
            ) from exc


BATCH_GET_SIZE = 100
BATCH_WRITE_SIZE = 25
UNPROCESSED_ATTEMPTS = 10


def _backoff(attempt):
    time.sleep(random.uniform(0, min(2.0, 0.05 * 2**attempt)))


# An optimistic write (stock, orders) that lost a race retries for this long before giving up.
CONTENDED_WRITE_SECONDS = 10.0


def contended_attempts():
    """Attempt numbers 0, 1, 2, ... for an optimistic write: before each retry a pause of
    full jitter (up to 2 ms, doubling, capped at 1 s), so that many writers of one item
    spread out instead of colliding again; no further attempt once CONTENDED_WRITE_SECONDS
    have passed (a shopper waits that long at most, well within a worker's timeout).
    Measured on DynamoDB Local (bench/contention.py, 200 sales of one product): with at most 40
    attempts and a 50 ms cap, 32 stock writers gave up 33-44 times; with a 100 ms cap and the
    deadline, 8 times; with 500 ms, 32 checkouts gave up 26-30 times at
    12-14 orders/s; with 1 s, 8, 32 and 64 checkouts never gave up, at 40, 38 and 25 orders/s."""
    deadline = time.monotonic() + CONTENDED_WRITE_SECONDS
    if budget.deadline() is not None:  # within a request: its budget, a last try well before its end
        deadline = min(deadline, budget.deadline() - 0.5)
    attempt = 0
    while True:
        yield attempt
        attempt += 1
        if time.monotonic() >= deadline:
            return
        time.sleep(random.uniform(0, min(1.0, 0.002 * 2**attempt)))


def _until_processed(operation, request, leftover, *, on_request, gave_up):
    """Send a batch request (`operation`: "BatchGetItem" or "BatchWriteItem") again with what
    DynamoDB left unprocessed (the response's `leftover` key), with backoff, until nothing is
    left. Returns the responses."""
    send = getattr(client(), {"BatchGetItem": "batch_get_item", "BatchWriteItem": "batch_write_item"}[operation])
    responses = []
    for attempt in range(UNPROCESSED_ATTEMPTS):
        with translate_errors():
            response = send(RequestItems=request)
        if on_request:
            on_request(operation)
        responses.append(response)
        request = response.get(leftover) or {}
        if not request:
            return responses
        _backoff(attempt)
    raise CatalogUnavailable(gave_up)


def batch_get(item_keys, *, projection=None, names=None, consistent=False, on_request=None):
    """GetItem for many keys: BatchGetItem, 100 keys a request, retrying UnprocessedKeys with
    backoff. Returns the items found (deserialized), in no particular order."""
    table = table_name()
    found = []
    for start in range(0, len(item_keys), BATCH_GET_SIZE):
        request = {table: {"Keys": [serialize(k) for k in item_keys[start : start + BATCH_GET_SIZE]],
                           "ConsistentRead": consistent}}
        if projection:
            request[table]["ProjectionExpression"] = projection
        if names:
            request[table]["ExpressionAttributeNames"] = names
        for response in _until_processed("BatchGetItem", request, "UnprocessedKeys", on_request=on_request,
                                         gave_up="DynamoDB kept leaving keys unprocessed"):
            found.extend(deserialize(i) for i in response["Responses"].get(table, []))
    return found


# Bulk writes (the importer) send this many BatchWriteItem requests at once, as AWS advises for loading
# data: each waits on the network (or on DynamoDB Local's other core), not on this process.
BATCH_WRITERS = 4


def in_parallel(jobs, send, *, done=None):
    """`send(job)` for every job on BATCH_WRITERS threads, each in a copy of the caller's context (its
    time budget); `done(job)` in the calling thread, in order, as they finish. The first failure
    stops the jobs not yet started and is raised."""
    jobs = list(jobs)
    if len(jobs) <= 1:
        for job in jobs:
            send(job)
            if done:
                done(job)
        return
    context = contextvars.copy_context()
    with ThreadPoolExecutor(max_workers=BATCH_WRITERS, thread_name_prefix="dynamodb-batch") as pool:
        futures = [pool.submit(context.copy().run, send, job) for job in jobs]
        try:
            for job, future in zip(jobs, futures):
                future.result()
                if done:
                    done(job)
        except BaseException:
            for future in futures:
                future.cancel()
            raise


def _thread_safe(callback):
    if callback is None:
        return None
    lock = threading.Lock()

    def call(*args):
        with lock:
            callback(*args)

    return call


def batch_write(*, puts=(), deletes=(), on_request=None, progress=None):
    """PutItem and DeleteItem (by key) for many items: BatchWriteItem, 25 a request and
    BATCH_WRITERS requests at once, retrying UnprocessedItems with backoff. A key may not be both
    put and deleted (the order of the writes is not kept)."""
    table = table_name()
    writes = [{"PutRequest": {"Item": serialize(i)}} for i in puts]
    writes += [{"DeleteRequest": {"Key": serialize(k)}} for k in deletes]
    chunks = [writes[start : start + BATCH_WRITE_SIZE] for start in range(0, len(writes), BATCH_WRITE_SIZE)]
    counted = _thread_safe(on_request)

    def send(chunk):
        _until_processed(
            "BatchWriteItem", {table: chunk}, "UnprocessedItems", on_request=counted,
            gave_up="DynamoDB kept leaving items unprocessed; the write stopped part way",
        )

    in_parallel(chunks, send, done=(lambda chunk: progress(len(chunk))) if progress else None)


def serialize(item):
    return {k: _serializer.serialize(v) for k, v in item.items()}


def deserialize(item):
    """An item from DynamoDB's wire format to Python values, exactly as boto3's TypeDeserializer
    makes them (tests/gateway/test_wire.py), with the common tags (S, N, M, L) read directly."""
    return {k: _value(v) for k, v in item.items()}


_decimal = DYNAMODB_CONTEXT.create_decimal


def _value(value):
    if "S" in value:
        return value["S"]
    if "N" in value:
        return _decimal(value["N"])
    if "M" in value:
        return {k: _value(v) for k, v in value["M"].items()}
    if "L" in value:
        return [_value(v) for v in value["L"]]
    return _deserializer.deserialize(value)  # BOOL, NULL, sets, binary


class RequestCounter:
    """Counts the DynamoDB requests made while it is active, by operation name.

    Counting hooks the boto3 client's own event system, so it sees each API call once (retries of
    a call are not counted again).
    """

    def __init__(self):
        self.operations = []
        self._lock = threading.Lock()

    def _count(self, model, **kwargs):
        with self._lock:
            self.operations.append(model.name)

    @property
    def total(self):
        return len(self.operations)

    def __enter__(self):
        client().meta.events.register("before-call.dynamodb", self._count)
        return self

    def __exit__(self, *exc):
        client().meta.events.unregister("before-call.dynamodb", self._count)
        return False


def count_requests():
    return RequestCounter()
