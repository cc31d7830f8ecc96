"""manage.py run_stock_jobs: one pass, or --loop that outlives a pass DynamoDB did not answer."""
import pytest
from django.core.management import CommandError, call_command

from catalog.gateway.errors import CatalogUnavailable
from catalog.gateway.stock.releases import ReleaseSummary
from shop.management.commands import run_stock_jobs
from shop.stock_alerts import PassSummary


@pytest.fixture(autouse=True)
def no_holds_ended(monkeypatch):
    """The pass's hold release (timed holds) finds nothing unless a test says otherwise."""
    monkeypatch.setattr(run_stock_jobs, "holds_release_ended", lambda: ReleaseSummary(holds=0, units=0))
    monkeypatch.setattr(run_stock_jobs, "terms_pending_all", lambda: 0)  # no table here


def test_one_pass_reports_what_it_sent(monkeypatch, capsys):
    monkeypatch.setattr(run_stock_jobs, "send_due_alerts", lambda: PassSummary(claimed=2, sent=3))
    call_command("run_stock_jobs")
    assert "alerts: 2 claimed, 3 emails sent, 0 failed" in capsys.readouterr().out


def test_one_pass_releases_the_holds_that_ended_before_it_sends_alerts(monkeypatch, capsys):
    order = []
    monkeypatch.setattr(run_stock_jobs, "holds_release_ended",
                        lambda: order.append("holds") or ReleaseSummary(holds=2, units=3))
    monkeypatch.setattr(run_stock_jobs, "send_due_alerts", lambda: order.append("alerts") or PassSummary())
    call_command("run_stock_jobs")
    assert order == ["holds", "alerts"] and "holds released: 2 (3 units)" in capsys.readouterr().out


def test_one_pass_fails_when_dynamodb_cannot_be_reached(monkeypatch):
    def down():
        raise CatalogUnavailable("DynamoDB cannot be reached")

    monkeypatch.setattr(run_stock_jobs, "send_due_alerts", down)
    with pytest.raises(CommandError, match="cannot be reached"):
        call_command("run_stock_jobs")


def test_the_loop_carries_on_after_a_failed_pass(monkeypatch, capsys):
    passes = []

    def one_pass():
        passes.append(1)
        if len(passes) == 1:
            raise CatalogUnavailable("DynamoDB cannot be reached")
        if len(passes) == 3:
            raise KeyboardInterrupt  # Ctrl-C
        return PassSummary(sent=1)

    monkeypatch.setattr(run_stock_jobs, "send_due_alerts", one_pass)
    monkeypatch.setattr(run_stock_jobs.time, "sleep", lambda seconds: None)
    with pytest.raises(KeyboardInterrupt):
        call_command("run_stock_jobs", "--loop", "0.01")
    out = capsys.readouterr()
    assert len(passes) == 3
    assert "pass failed, next in 0.01 s" in out.err and "1 emails sent" in out.out


def test_the_loop_needs_a_positive_interval():
    with pytest.raises(CommandError, match="more than 0"):
        call_command("run_stock_jobs", "--loop", "0")
