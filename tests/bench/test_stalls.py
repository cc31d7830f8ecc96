"""The stall probe run beside `make bench`'s load points: it tells a slow DynamoDB read from a
late wake-up of the machine, and its summary counts both."""
import io
import os
import time

import pytest

from bench import results, run, stalls
from catalog.gateway import client as dynamo


class _Clock:
    """A clock that the probe's sleep and read move forward by the given amounts."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


@pytest.fixture
def clock():
    return _Clock()


def _probe(clock, monkeypatch, *, sleeps, reads):
    sleeps, reads = list(sleeps), list(reads)

    def sleep(seconds):
        clock.now += sleeps.pop(0)

    def product_get(*, product_id):
        assert product_id == "7"
        took = reads.pop(0)
        clock.now += abs(took)
        if took < 0:
            raise dynamo_errors.CatalogUnavailable("DynamoDB did not answer")

    from catalog.gateway import errors as dynamo_errors
    from catalog.gateway.catalog import products

    monkeypatch.setattr(products, "product_get", product_get)
    out = io.StringIO()
    counts = stalls.probe(out, "7", interval=0.1, stop=lambda: not sleeps, clock=clock, sleep=sleep)
    return counts, out.getvalue().splitlines()


def test_the_probe_writes_down_slow_reads_and_its_own_late_wake_ups(clock, monkeypatch, tmp_path):
    # four rounds: all well; the machine did not run the probe for 0.9 s; a read of 1.2 s; a failed read
    counts, lines = _probe(clock, monkeypatch, sleeps=[0.1, 1.0, 0.1, 0.1], reads=[0.002, 0.002, 1.2, -1.5])
    assert counts == (4, 2, 1)
    assert [line.split()[1:] for line in lines] == [
        ["late-wake", "900", "ms"], ["slow-read", "1200", "ms"], ["failed-read", "(CatalogUnavailable)", "1500", "ms"],
    ]
    log = tmp_path / "stalls.log"
    log.write_text(
        "12:00:00.000 probe started: a GetItem every 100 ms\n"
        + "\n".join(lines)
        + "\n12:00:02.000 probe stopped: 4 reads\n"
    )
    found = stalls.summary(log)
    assert found == {
        "started": True, "reads": 4, "slow_reads": 1, "failed_reads": 1, "longest_read_ms": 1500, "late_wakes": 1,
        "longest_late_ms": 900,
    }
    text = results.stalls_text({**found, "exit_code": None})
    assert "1 reads over 100 ms (longest 1500 ms) and 1 failed, of 4" in text and "late 1 times" in text
    assert "partial" in results.stalls_text({**found, "exit_code": 1})


def test_a_probe_that_never_started_is_reported_as_such_not_as_no_stalls(tmp_path):
    found = stalls.summary(tmp_path / "missing.log")
    assert not found["started"] and found["slow_reads"] == 0
    assert "did not start" in results.stalls_text({**found, "exit_code": 1})


@pytest.mark.dynamodb_local
def test_the_probe_reads_a_product_from_dynamodb_local(local_catalog):
    out = io.StringIO()
    rounds = iter(range(3))
    counts = stalls.probe(out, "1", interval=0.01, stop=lambda: next(rounds, None) is None)
    assert counts[0] == 3 and "failed-read" not in out.getvalue()


def test_the_probe_writes_down_a_read_that_fails(settings):
    settings.DYNAMODB_ENDPOINT_URL = "http://127.0.0.1:9"  # nothing listens there
    settings.DYNAMODB_MAX_ATTEMPTS = 1
    dynamo.reset_client()
    out = io.StringIO()
    rounds = iter(range(1))
    try:
        counts = stalls.probe(out, "1", interval=0.01, stop=lambda: next(rounds, None) is None)
    finally:
        dynamo.reset_client()
    assert counts[:2] == (1, 1) and "failed-read (CatalogUnavailable)" in out.getvalue()


@pytest.mark.dynamodb_local
def test_the_bench_starts_the_probe_before_measuring_and_stops_it_after(local_catalog, settings, tmp_path):
    path = tmp_path / "stalls.log"
    # the environment the bench gives it: production settings, this DynamoDB Local and table
    env = {
        **os.environ, "DJANGO_SETTINGS_MODULE": "storefront.settings", "DJANGO_SECRET_KEY": "probe-test-" + "x" * 50,
        "DYNAMODB_ENDPOINT_URL": settings.DYNAMODB_ENDPOINT_URL, "DYNAMODB_TABLE": dynamo.table_name(),
    }
    with run.stall_probe(path, env) as state:
        assert "probe started" in path.read_text()  # the block runs only once the probe is reading
        time.sleep(0.5)
    assert state["exit_code"] is None  # it was still running when the block ended
    found = stalls.summary(path)
    assert found["started"] and found["reads"] >= 2 and found["failed_reads"] == 0
