"""bench/contention.py: the buyers wait at a door as wide as the server's threads, as shoppers wait in
gunicorn's queue, and each run says how long the sale took, what DynamoDB refused and why."""
import threading

import pytest

from bench import contention
from tests.helpers import seed

pytestmark = pytest.mark.dynamodb_local


def watched(monkeypatch, *, meet=None):
    """Count the buyers inside the shop (in the buy function) at once; with `meet`, each buyer's
    first try waits there until `meet` buyers are inside together."""
    buy, inside, peak, lock = contention.BUYERS["checkout"], [0], [0], threading.Lock()
    met = threading.Barrier(meet, timeout=20) if meet else None
    first = set()

    def counted(product_id, price, buyer_no):
        with lock:
            inside[0] += 1
            peak[0] = max(peak[0], inside[0])
            waits = met is not None and buyer_no not in first
            first.add(buyer_no)
        try:
            if waits:
                met.wait()
            return buy(product_id, price, buyer_no)
        finally:
            with lock:
                inside[0] -= 1

    monkeypatch.setitem(contention.BUYERS, "checkout", counted)
    return peak


def test_no_more_buyers_are_in_the_shop_at_once_than_the_server_has_threads(local_ddb, monkeypatch):
    seed()
    peak = watched(monkeypatch)
    c = contention.run(12, start_stock=8, server_threads=3)
    assert peak[0] <= 3 and c["server_threads"] == 3
    assert c["consistent"] and (c["successes"], c["orders"], c["final_stock"], c["stock_busy"]) == (8, 8, 0, 0)
    # the exact path takes over for the last units (6 at the default threshold), then the sale ends with
    # the last order; the other buyers' "sold out" answers come after it
    assert 0 < c["edge_seconds"] <= c["sold_out_seconds"] <= c["seconds"]
    assert c["successes_per_s_until_sold_out"] >= c["successes_per_s"]
    # every transaction that placed no order was refused, for a reason the run names
    assert c["refused"] + c["conflicts"] == c["retries"] and c["transactions"] == 8 + c["retries"]
    assert c["requests_per_success"] >= 2  # at least the consistent read and the transaction an order


def test_server_threads_zero_lets_every_buyer_in_at_once(local_ddb, monkeypatch):
    seed()
    watched(monkeypatch, meet=6)  # a door narrower than 6 would leave the barrier broken: a failure
    c = contention.run(6, start_stock=4, server_threads=0)
    assert c["server_threads"] == 6 and c["failures"] == [] and c["consistent"]
