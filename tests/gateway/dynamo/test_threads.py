"""Requests sent at once (catalog/gateway/dynamo/threads.py), each within the caller's time budget."""
import time

import pytest


def test_parallel_writes_report_in_order_carry_the_budget_and_stop_at_the_first_failure():
    from catalog.gateway import budget
    from catalog.gateway.dynamo.threads import in_parallel
    from catalog.gateway.errors import CatalogUnavailable

    sent, done, deadlines = [], [], []

    def send(job):
        deadlines.append(budget.deadline())
        time.sleep(0.1)  # a request's round trip (long enough that a late wake-up cannot start 20 jobs)
        if job == 5:
            raise CatalogUnavailable("DynamoDB is unavailable")
        sent.append(job)

    with budget.request_budget("POST"), pytest.raises(CatalogUnavailable):
        in_parallel(range(40), send, done=done.append)
    assert done == list(range(5))  # reported in order, up to the failure
    assert len(sent) < 20  # the jobs not yet started were not sent
    assert None not in deadlines  # every thread worked within the request's time budget
