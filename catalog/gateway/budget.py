"""Time budgets: how long one web request may spend on DynamoDB, all attempts together.

A request gets a deadline for reads (`DYNAMODB_READ_BUDGET` seconds from its start) and a later one
for writes (`DYNAMODB_WRITE_BUDGET`); a gateway write runs under the write deadline, reads included
(`writing()`). Two botocore event handlers enforce it on the client:

- before each attempt is sent (`before-send`): no time left, no request (BudgetExceeded); else the
  attempt's read timeout is the time left (botocore's per-request `read_timeout`), so one stalled
  attempt cannot outlive the budget;
- before botocore retries (`needs-retry`, ahead of its own handler): no retry unless the longest
  pause botocore's standard mode may take before it (1 s, then 2 s, ...) still leaves time.

Outside a request (management commands, the bench, tests that call the gateway directly) there is
no deadline: the client's own timeouts and retries (DYNAMODB_CONNECT_TIMEOUT, DYNAMODB_READ_TIMEOUT,
DYNAMODB_MAX_ATTEMPTS) apply alone.
"""
import contextlib
import contextvars
import time
from dataclasses import dataclass

from django.conf import settings

from .errors import CatalogUnavailable

# Below this much time left an attempt is not worth sending.
MIN_ATTEMPT_SECONDS = 0.05


class BudgetExceeded(CatalogUnavailable):
    """The request's DynamoDB time budget is spent: nothing more is sent (HTTP 503)."""


@dataclass
class Budget:
    read_deadline: float
    write_deadline: float
    writing: bool = False

    @property
    def deadline(self):
        return self.write_deadline if self.writing else self.read_deadline

    def remaining(self):
        return self.deadline - time.monotonic()


_current = contextvars.ContextVar("dynamodb_budget", default=None)


def current():
    """The budget of the request being served, or None."""
    return _current.get()


@contextlib.contextmanager
def request_budget(*, read_seconds=None, write_seconds=None):
    """Every DynamoDB call inside is held to the request's read (or write) deadline."""
    now = time.monotonic()
    read = settings.DYNAMODB_READ_BUDGET if read_seconds is None else read_seconds
    write = settings.DYNAMODB_WRITE_BUDGET if write_seconds is None else write_seconds
    token = _current.set(Budget(read_deadline=now + read, write_deadline=now + max(read, write)))
    try:
        yield _current.get()
    finally:
        _current.reset(token)


@contextlib.contextmanager
def writing():
    """A gateway write (and the reads it makes) runs under the write deadline."""
    budget = _current.get()
    if budget is None or budget.writing:
        yield
        return
    budget.writing = True
    try:
        yield
    finally:
        budget.writing = False


def write_deadline():
    """The monotonic time by which a write must be done, or None (no request budget)."""
    budget = _current.get()
    return budget.write_deadline if budget is not None else None


_sends = contextvars.ContextVar("dynamodb_sends", default=None)


@contextlib.contextmanager
def counting_sends():
    """Counts the attempts sent (botocore's retries included) inside, in this thread: a list
    that grows by one for each attempt that went out."""
    sends = []
    token = _sends.set(sends)
    try:
        yield sends
    finally:
        _sends.reset(token)


def before_send(request, **kwargs):
    """botocore `before-send`: refuse to start an attempt without time left; cap its read timeout."""
    budget = _current.get()
    if budget is not None:
        left = budget.remaining()
        if left < MIN_ATTEMPT_SECONDS:
            raise BudgetExceeded("DynamoDB did not answer within this page's time budget")
        context = getattr(request, "context", None)
        if context is not None:
            context["read_timeout"] = min(left, context.get("read_timeout") or settings.DYNAMODB_READ_TIMEOUT)
    sends = _sends.get()
    if sends is not None:
        sends.append(request)
    return None


def needs_retry(attempts, **kwargs):
    """botocore `needs-retry`, registered ahead of botocore's own handler: False (no retry) when
    the pause botocore may take before the next attempt (standard mode: up to 2^(attempts-1) s)
    would not leave time for it; None leaves the decision to botocore."""
    budget = _current.get()
    if budget is None:
        return None
    if budget.remaining() < 2 ** (attempts - 1) + MIN_ATTEMPT_SECONDS:
        return False
    return None


def install(client):
    client.meta.events.register_first("needs-retry.dynamodb", needs_retry)
    client.meta.events.register("before-send.dynamodb", before_send)
    return client
