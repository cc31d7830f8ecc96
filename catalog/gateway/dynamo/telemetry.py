"""What every DynamoDB request did, for an operator: Prometheus metrics, the request's own figures for
its log line.

`finished` is called once per API call (botocore's retries inside it), by the boto3 client's events
(`install`, registered when the client is built).

Metrics (prometheus_client; added up across gunicorn's workers in its multiprocess mode):
- `fromatoz_dynamodb_requests_total{operation, outcome}`: one per API call; outcome is `ok`, `throttled`
  (still throttled after botocore's retries: the shopper got a 503), `conditional_check_failed`,
  `transaction_conflict`, `client_error`, `server_error`, `unreachable` (no answer: connection refused,
  timed out) or `budget_exceeded` (not sent: the page's time budget was spent);
- `fromatoz_dynamodb_request_duration_seconds{operation}`: each call, its retries included;
- `fromatoz_dynamodb_retries_total{operation}`: attempts sent again (throttling, 5xx, damaged answers);
- `fromatoz_dynamodb_consumed_capacity_units_total{operation}`: where DynamoDB returns it (a request
  with ReturnConsumedCapacity).
"""
from __future__ import annotations

import contextlib
import contextvars
import time
from collections.abc import Iterator
from typing import Any

from botocore.exceptions import ClientError
from prometheus_client import Counter, Histogram

from .budget import BudgetExceeded

# DynamoDB's throttling errors (its API reference, "Common errors" and each operation's errors).
THROTTLING_CODES = frozenset({"ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded"})

# Seconds: a GetItem on DynamoDB Local or AWS takes 1-5 ms; a stalled one is cut at the read budget (1.5 s).
DURATION_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 1.5, 2.5, 5.0, 10.0)

REQUESTS = Counter("fromatoz_dynamodb_requests", "DynamoDB API calls, by operation and outcome",
                   ["operation", "outcome"])
DURATION = Histogram("fromatoz_dynamodb_request_duration_seconds",
                     "DynamoDB API calls' time, retries included", ["operation"], buckets=DURATION_BUCKETS)
RETRIES = Counter("fromatoz_dynamodb_retries", "DynamoDB attempts sent again (throttling, 5xx, ...)", ["operation"])
CAPACITY = Counter("fromatoz_dynamodb_consumed_capacity_units",
                   "Capacity units DynamoDB reported consumed (requests that ask for it)", ["operation"])

# Label children by label values: prometheus_client's labels() takes a lock and checks the names on
# every call; these are looked up once.
_children: dict[tuple[Any, tuple[Any, ...]], Any] = {}


def _child(metric: Any, *values: Any) -> Any:
    key = (metric, values)
    child = _children.get(key)
    if child is None:
        child = _children[key] = metric.labels(*values)
    return child


class Tally:
    """The DynamoDB requests of one web request, and their time (for its log line)."""

    __slots__ = ("requests", "seconds")

    def __init__(self) -> None:
        self.requests, self.seconds = 0, 0.0


_tally: contextvars.ContextVar[Tally | None] = contextvars.ContextVar("dynamodb_tally", default=None)


@contextlib.contextmanager
def tallying() -> Iterator[Tally]:
    """Adds up the DynamoDB requests made inside (this thread, and threads started with a copy of
    its context): yields the Tally."""
    tally = Tally()
    token = _tally.set(tally)
    try:
        yield tally
    finally:
        _tally.reset(token)


def outcome(response: Any = None, error: Any = None) -> str:
    """What became of a call: from its parsed answer (`response`, an error answer included) or the
    exception that ended it."""
    if error is not None:
        if isinstance(error, ClientError):
            response = error.response
        elif isinstance(error, BudgetExceeded):
            return "budget_exceeded"
        else:
            return "unreachable"
    failure = response.get("Error") if response else None
    if not failure:
        return "ok"
    code = failure.get("Code", "")
    if code in THROTTLING_CODES:
        return "throttled"
    if code == "ConditionalCheckFailedException":
        return "conditional_check_failed"
    if code == "TransactionConflictException":
        return "transaction_conflict"
    if code == "TransactionCanceledException":
        reasons = {reason.get("Code") for reason in response.get("CancellationReasons") or ()}
        if "TransactionConflict" in reasons:
            return "transaction_conflict"
        if "ConditionalCheckFailed" in reasons:
            return "conditional_check_failed"
        if reasons & {"ThrottlingError", "ProvisionedThroughputExceeded"}:
            return "throttled"
    status = response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0)
    return "server_error" if status >= 500 else "client_error"


def finished(operation: str, started: Any, *, response: Any = None, error: Any = None) -> None:
    """One API call ended (`started`: its time.perf_counter() at the start)."""
    seconds = time.perf_counter() - started
    if error is not None and isinstance(error, ClientError):
        response = error.response
    _child(REQUESTS, operation, outcome(response, error)).inc()
    _child(DURATION, operation).observe(seconds)
    if response:
        retries = response.get("ResponseMetadata", {}).get("RetryAttempts")
        if retries:
            _child(RETRIES, operation).inc(retries)
        consumed = response.get("ConsumedCapacity")
        if consumed:
            units = sum(float(entry.get("CapacityUnits", 0))
                        for entry in (consumed if isinstance(consumed, list) else [consumed]))
            _child(CAPACITY, operation).inc(units)
    tally = _tally.get()
    if tally is not None:
        tally.requests += 1
        tally.seconds += seconds


# --- the boto3 client's events ----------------------------------------------------------------

_STARTED = "fromatoz_started"


def _before_call(model: Any, context: Any, **kwargs: Any) -> None:
    context[_STARTED] = (model.name, time.perf_counter())


def _after_call(parsed: Any, model: Any, context: Any, **kwargs: Any) -> None:
    started = context.pop(_STARTED, None)
    if started is not None:
        finished(started[0], started[1], response=parsed)


def _after_call_error(exception: BaseException, context: Any, **kwargs: Any) -> None:
    started = context.pop(_STARTED, None)
    if started is not None:
        finished(started[0], started[1], error=exception)


def install(client: Any) -> Any:
    """Measure every call of the boto3 `client` (from the moment it starts to its parsed answer or
    its exception, botocore's retries inside)."""
    events = client.meta.events
    events.register("before-call.dynamodb", _before_call)
    events.register("after-call.dynamodb", _after_call)
    events.register("after-call-error.dynamodb", _after_call_error)
    return client
