"""Pauses before trying again: full jitter (a random pause up to a cap that doubles each attempt),
so that many clients that failed together spread out instead of colliding again."""
import random
import time

from . import budget


def pause(attempt, *, first, most):
    """Sleep before try `attempt + 1` (attempt counts from 0): up to `first` seconds, doubling with
    each attempt, never more than `most`."""
    time.sleep(random.uniform(0, min(most, first * 2**attempt)))


# An optimistic write (stock, orders) that lost a race retries for this long before giving up.
CONTENDED_WRITE_SECONDS = 10.0


def contended_attempts():
    """Attempt numbers 0, 1, 2, ... for an optimistic write: before each retry a pause (up to 2 ms,
    doubling, capped at 1 s); no further attempt once CONTENDED_WRITE_SECONDS have passed (a
    shopper waits that long at most, well within a worker's timeout), or, within a request, well
    before its budget ends. The figures behind the cap and the deadline (bench/contention.py, 200
    sales of one product on DynamoDB Local) are in docs/benchmarks.md."""
    deadline = time.monotonic() + CONTENDED_WRITE_SECONDS
    if budget.deadline() is not None:  # within a request: its budget, a last try well before its end
        deadline = min(deadline, budget.deadline() - 0.5)
    attempt = 0
    while True:
        yield attempt
        attempt += 1
        if time.monotonic() >= deadline:
            return
        pause(attempt, first=0.002, most=1.0)
