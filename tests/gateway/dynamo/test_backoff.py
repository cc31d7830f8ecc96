"""The one loop of an optimistic write (catalog/gateway/dynamo/backoff.py): the pause each kind of Again asks
for, and what happens when the tries or the deadline run out."""
import pytest

from catalog.gateway.dynamo import backoff
from catalog.gateway.dynamo.backoff import AGAIN, AGAIN_NOW, AGAIN_SOON, retry_optimistic
from catalog.gateway.errors import StockBusy


@pytest.fixture
def pauses(monkeypatch):
    taken = []
    monkeypatch.setattr(backoff.time, "sleep", taken.append)
    monkeypatch.setattr(backoff.random, "uniform", lambda low, high: high)  # each pause at its longest
    return taken


def test_each_again_waits_as_it_says_then_the_result_is_returned(pauses):
    outcomes = iter([AGAIN, AGAIN, AGAIN_SOON, AGAIN_NOW, AGAIN, "done"])
    tried = []

    def attempt(n):
        tried.append(n)
        return next(outcomes)

    assert retry_optimistic(attempt, busy=StockBusy(product_id="7")) == "done"
    assert tried == [0, 1, 2, 3, 4, 5]
    # Before tries 1 and 2 the backoff (2 ms doubling), before 3 a conflict's jitter, before 4 nothing,
    # before 5 the backoff of the fifth try.
    assert pauses == [0.004, 0.008, backoff.CONFLICT_JITTER_SECONDS, 0.064]


def test_after_its_tries_busy_is_raised_or_called(pauses):
    with pytest.raises(StockBusy, match="changing too often"):
        retry_optimistic(lambda n: AGAIN_NOW, busy=StockBusy(product_id="7"), tries=3)
    tried = []
    assert retry_optimistic(lambda n: tried.append(n) or AGAIN_NOW, busy=lambda: "gave up", tries=3) == "gave up"
    assert tried == [0, 1, 2] and pauses == []


def test_the_deadline_ends_the_tries(monkeypatch, pauses):
    monkeypatch.setattr(backoff, "CONTENDED_WRITE_SECONDS", 0.0)  # past after the first try
    tried = []
    with pytest.raises(StockBusy):
        retry_optimistic(lambda n: tried.append(n) or AGAIN, busy=StockBusy(product_id="7"))
    assert tried == [0] and pauses == []
