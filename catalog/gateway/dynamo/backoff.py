"""Pauses before trying again: full jitter (a random pause up to a cap that doubles each attempt),
so that many clients that failed together spread out instead of colliding again."""
from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from typing import Any

from . import budget


def pause(attempt: int, *, first: Any, most: Any) -> None:
    """Sleep before try `attempt + 1` (attempt counts from 0): up to `first` seconds, doubling with
    each attempt, never more than `most`."""
    time.sleep(random.uniform(0, min(most, first * 2**attempt)))


# An optimistic write (stock, orders) that lost a race retries for this long before giving up.
CONTENDED_WRITE_SECONDS = 10.0


def contended_attempts() -> Iterator[int]:
    """Attempt numbers 0, 1, 2, ... for an optimistic write: before each retry a pause (up to 2 ms,
    doubling, capped at 1 s); no further attempt once CONTENDED_WRITE_SECONDS have passed (a
    shopper waits that long at most, well within a worker's timeout), or, within a request, well
    before its budget ends. The figures behind the cap and the deadline (bench/contention.py, 200
    sales of one product on DynamoDB Local) are in docs/benchmarks.md."""
    for attempt in attempts_until_deadline():
        if attempt:
            backoff_pause(attempt)
        yield attempt


AGAIN = object()  # what one try of retry_optimistic returns to be tried again


def retry_optimistic(attempt: Callable[[int], Any], *, busy: Exception) -> Any:
    """The loop of an optimistic write: `attempt(n)` for n = 0, 1, ... (contended_attempts: a pause before
    each retry, until the write's deadline) until it returns anything but AGAIN, which is returned. Raises
    `busy` (an exception) when the deadline comes first."""
    for n in contended_attempts():
        outcome = attempt(n)
        if outcome is not AGAIN:
            return outcome
    raise busy


def backoff_pause(attempt: int) -> None:
    """Full jitter before retry `attempt` (1, 2, ...): up to 2 ms, doubling, capped at 1 s."""
    pause(attempt, first=0.002, most=1.0)


def attempts_until_deadline() -> Iterator[int]:
    """Attempt numbers 0, 1, 2, ... with no pause of their own, until the write's deadline:
    CONTENDED_WRITE_SECONDS, and within a request its budget, leaving a last try well before its
    end. The caller pauses where it should (conflict_pause or backoff_pause)."""
    deadline = time.monotonic() + CONTENDED_WRITE_SECONDS
    if budget.deadline() is not None:  # within a request: its budget, a last try well before its end
        deadline = min(deadline, budget.deadline() - 0.5)
    attempt = 0
    while True:
        yield attempt
        attempt += 1
        if time.monotonic() >= deadline:
            return


# A transaction cancelled for a TransactionConflict (another transaction on the same item at that
# moment, the normal case when many buy one product) is tried again after at most this long.
CONFLICT_JITTER_SECONDS = 0.005


def conflict_pause() -> None:
    """A short random pause (up to CONFLICT_JITTER_SECONDS) before trying a conflicted
    transaction again: enough to spread a crowd out, never the exponential backoff of a lost race."""
    time.sleep(random.uniform(0, CONFLICT_JITTER_SECONDS))
