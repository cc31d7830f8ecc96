"""Pauses before trying again, and the one loop of an optimistic write (retry_optimistic).

Full jitter (a random pause up to a cap that doubles each attempt) spreads out many clients that
failed together instead of letting them collide again; another transaction in the way
(TransactionConflict) is only a moment's wait (conflict_pause)."""
from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from typing import TypeVar

from . import budget

R = TypeVar("R")


def pause(attempt: int, *, first: float, most: float) -> None:
    """Sleep before try `attempt + 1` (attempt counts from 0): up to `first` seconds, doubling with
    each attempt, never more than `most`."""
    time.sleep(random.uniform(0, min(most, first * 2**attempt)))


# An optimistic write (stock, orders) that lost a race retries for this long before giving up.
CONTENDED_WRITE_SECONDS = 10.0

# A transaction cancelled for a TransactionConflict (another transaction on the same item at that
# moment, the normal case when many buy one product) is tried again after at most this long.
CONFLICT_JITTER_SECONDS = 0.005


def backoff_pause(attempt: int) -> None:
    """Full jitter before retry `attempt` (1, 2, ...): up to 2 ms, doubling, capped at 1 s."""
    pause(attempt, first=0.002, most=1.0)


def conflict_pause() -> None:
    """A short random pause (up to CONFLICT_JITTER_SECONDS) before trying a conflicted
    transaction again: enough to spread a crowd out, never the exponential backoff of a lost race."""
    time.sleep(random.uniform(0, CONFLICT_JITTER_SECONDS))


class Again:
    """What one try of retry_optimistic returns to be tried again; `wait(n)` pauses before try n."""

    def __init__(self, name: str, wait: Callable[[int], None]) -> None:
        self.name = name
        self.wait = wait

    def __repr__(self) -> str:
        return self.name


# A lost race (a condition refused, throttling): the growing full-jitter pause (backoff_pause).
AGAIN = Again("AGAIN", backoff_pause)
# Another transaction was in the way (nothing was decided): a moment's jitter (conflict_pause).
AGAIN_SOON = Again("AGAIN_SOON", lambda _n: conflict_pause())
# Nothing to wait for (the refusal returned the item as it is now, or a consistent read comes next).
AGAIN_NOW = Again("AGAIN_NOW", lambda _n: None)


def retry_optimistic(
    attempt: Callable[[int], R | Again], *, busy: BaseException | Callable[[], R], tries: int | None = None
) -> R:
    """The loop of an optimistic write: `attempt(n)` for n = 0, 1, ... until it returns anything but an
    Again, which is returned; before each further try the pause the Again asks for (AGAIN: backoff,
    AGAIN_SOON: a conflict's jitter, AGAIN_NOW: none). State carried between tries (a level as DynamoDB
    returned it with a refusal) lives in the attempt (a closure, or a bound method of a small object).

    The tries end at the write's deadline (attempts_until_deadline: CONTENDED_WRITE_SECONDS, and within a
    request its budget), or after `tries` tries. Then `busy`: raised if it is an exception, else called
    and its value returned (a write that may give up quietly). A shopper waits that long at most, well
    within a worker's timeout; the figures behind the backoff's cap and the deadline (bench/contention.py,
    200 sales of one product on DynamoDB Local) are in docs/benchmarks.md."""
    numbers = range(tries) if tries is not None else attempts_until_deadline()
    again: Again | None = None
    for n in numbers:
        if again is not None:
            again.wait(n)
        outcome = attempt(n)
        if not isinstance(outcome, Again):
            return outcome
        again = outcome
    if isinstance(busy, BaseException):
        raise busy
    return busy()


def attempts_until_deadline() -> Iterator[int]:
    """Attempt numbers 0, 1, 2, ... with no pause of their own, until the write's deadline:
    CONTENDED_WRITE_SECONDS, and within a request its budget, leaving a last try well before its
    end."""
    deadline = time.monotonic() + CONTENDED_WRITE_SECONDS
    within = budget.deadline()
    if within is not None:  # within a request: its budget, a last try well before its end
        deadline = min(deadline, within - 0.5)
    attempt = 0
    while True:
        yield attempt
        attempt += 1
        if time.monotonic() >= deadline:
            return
