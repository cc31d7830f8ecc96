"""Time budgets: how long one web request may spend on DynamoDB, all attempts together.

A request gets one deadline, counted from its start: `DYNAMODB_READ_BUDGET` seconds for a page that
only reads (GET, HEAD), `DYNAMODB_WRITE_BUDGET` for one that writes (POST...: a write, the reads
around it, and the optimistic write's tries again after losing a race). Two botocore event handlers
enforce it on the boto3 client:

- before each attempt is sent (`before-send`): no time left, no request (BudgetExceeded); else the
  attempt waits for its answer at most the time left, and never longer than the read budget
  (botocore's per-request `read_timeout`): a stalled DynamoDB is found out within the read budget,
  a POST's included;
- before botocore retries (`needs-retry`, ahead of its own handler): no retry of an attempt that
  timed out (the budget is for answers, not for waiting twice), and none unless the longest pause
  botocore's standard mode may take before it (1 s, then 2 s, ...) still leaves time.

Outside a request (management commands, the bench, tests that call the gateway directly) there is
no deadline: the client's own timeouts and retries (DYNAMODB_CONNECT_TIMEOUT, DYNAMODB_READ_TIMEOUT,
DYNAMODB_MAX_ATTEMPTS) apply alone.
"""
from __future__ import annotations

import contextlib
import contextvars
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import ConnectTimeoutError, ReadTimeoutError
from django.conf import settings

from ..errors import CatalogUnavailable

# Below this much time left an attempt is not worth sending.
MIN_ATTEMPT_SECONDS = 0.05
READ_ONLY_METHODS = {"GET", "HEAD", "OPTIONS"}


class BudgetExceeded(CatalogUnavailable):
    """The request's DynamoDB time budget is spent: nothing more is sent (HTTP 503)."""


@dataclass(frozen=True)
class Budget:
    deadline: float

    def remaining(self) -> float:
        return self.deadline - time.monotonic()


_current: contextvars.ContextVar[Budget | None] = contextvars.ContextVar("dynamodb_budget", default=None)


def current() -> Budget | None:
    """The budget of the request being served, or None."""
    return _current.get()


@contextlib.contextmanager
def request_budget(method: str = "GET", *, seconds: float | None = None) -> Iterator[Budget | None]:
    """Every DynamoDB call inside shares one deadline: the read budget for a read-only `method`,
    the write budget for any other (or `seconds`)."""
    if seconds is None:
        writes = method.upper() not in READ_ONLY_METHODS
        seconds = settings.DYNAMODB_WRITE_BUDGET if writes else settings.DYNAMODB_READ_BUDGET
    token = _current.set(Budget(deadline=time.monotonic() + seconds))
    try:
        yield _current.get()
    finally:
        _current.reset(token)


def deadline() -> float | None:
    """The monotonic time by which the request's DynamoDB work must be done, or None."""
    budget = _current.get()
    return budget.deadline if budget is not None else None


_sends: contextvars.ContextVar[list[Any] | None] = contextvars.ContextVar("dynamodb_sends", default=None)


@contextlib.contextmanager
def counting_sends() -> Iterator[list[Any]]:
    """Counts the attempts sent (botocore's retries included) inside, in this thread: a list
    that grows by one for each attempt that went out."""
    sends: list[Any] = []
    token = _sends.set(sends)
    try:
        yield sends
    finally:
        _sends.reset(token)


def attempt_timeout(read_timeout: Any) -> Any:
    """Before an attempt is sent: BudgetExceeded without time left for it; else how long it may
    wait for its answer (`read_timeout`, capped by the time left and the read budget)."""
    budget = _current.get()
    if budget is None:
        return read_timeout
    left = budget.remaining()
    if left < MIN_ATTEMPT_SECONDS:
        raise BudgetExceeded("DynamoDB did not answer within this page's time budget")
    return min(left, settings.DYNAMODB_READ_BUDGET, read_timeout or settings.DYNAMODB_READ_TIMEOUT)


def record_send(request: dict[str, Any]) -> None:
    """An attempt goes out (see counting_sends)."""
    sends = _sends.get()
    if sends is not None:
        sends.append(request)


def retry_allowed(*, timed_out: Any, pause: Any) -> bool:
    """Whether another attempt may follow one that failed, after `pause` seconds: not after a
    timeout, nor when the pause would not leave time for it; always outside a request."""
    budget = _current.get()
    if budget is None:
        return True
    return not timed_out and budget.remaining() >= pause + MIN_ATTEMPT_SECONDS


def before_send(request: dict[str, Any], **kwargs: Any) -> None:
    """botocore `before-send`: refuse to start an attempt without time left; cap its read timeout."""
    context = getattr(request, "context", None)
    read_timeout = attempt_timeout(context.get("read_timeout") if context is not None else None)
    if context is not None and _current.get() is not None:
        context["read_timeout"] = read_timeout
    record_send(request)
    return None


def needs_retry(attempts: int, caught_exception: Any = None, **kwargs: Any) -> bool | None:
    """botocore `needs-retry`, registered ahead of botocore's own handler: False (no retry) after
    a timeout, or when the pause botocore may take before the next attempt (standard mode: up to
    2^(attempts-1) s) would not leave time for it; None leaves the decision to botocore."""
    if _current.get() is None:
        return None
    timed_out = isinstance(caught_exception, (ReadTimeoutError, ConnectTimeoutError))
    if not retry_allowed(timed_out=timed_out, pause=2 ** (attempts - 1)):
        return False
    return None


def install(client: Any) -> Any:
    client.meta.events.register_first("needs-retry.dynamodb", needs_retry)
    client.meta.events.register("before-send.dynamodb", before_send)
    return client
