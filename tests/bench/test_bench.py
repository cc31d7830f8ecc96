"""The benchmark's core on a tiny catalog: it runs end to end and writes the keys it promises.
(No load generator here: `make bench` runs wrk; this checks everything else.)"""
import json
import os
import re

import pytest

from bench import results as bench_results
from bench import run as bench_run
from catalog.gateway import client as dynamo

pytestmark = pytest.mark.dynamodb_local
PYPERF = "-p 1 -n 2 -w 0 -l 1"  # a few renders: the keys matter here, not the figures


@pytest.fixture
def bench_env(settings, dynamodb_local_url, tmp_path, monkeypatch):
    """The environment bench/run.py's main() gives pyperf's worker processes."""
    settings.DYNAMODB_ENDPOINT_URL = dynamodb_local_url
    for name, value in {"DJANGO_SETTINGS_MODULE": "storefront.settings", "DJANGO_SECRET_KEY": "x" * 50,
                        "DJANGO_DEBUG": "true", "DYNAMODB_ENDPOINT_URL": dynamodb_local_url,
                        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}"}.items():
        monkeypatch.setenv(name, value)
    dynamo.reset_client()
    yield
    dynamo.reset_client()


def test_bench_core_writes_results_with_every_key(bench_env, tmp_path):
    args = bench_run.parse_args(["--sizes", "60,90", "--no-load", "--pages", "home,brand,product", "--pyperf", PYPERF,
                                 "--buyers", "2,4", "--start-stock", "6", "--out", str(tmp_path)])
    bench_run.bench(args)

    results = json.loads((tmp_path / "results.json").read_text())
    pages = {"home", "brand", "product"}
    assert set(results["costs"]) == pages == set(results["overhead"]) == set(results["flatness"])
    for page in pages:
        assert results["overhead"][page]["render_ratio"] > 0 and "ratio" in results["overhead"][page]
    for page in pages - {"home"}:
        assert results["costs"][page]["warm"]["requests"] == 1, page
    assert results["costs"]["home"]["cold"]["operations"] == {"Query": 2}
    assert results["flatness"]["brand"]["ratio"] > 0  # without HTTP: the in-process renders of both catalogs
    assert (tmp_path / "inproc-90.json").exists()  # pyperf's own file: `python -m pyperf stats` reads it
    assert set(results["contention"]) == {"checkout", "stock_decrease"}
    assert results["export"]["rows"] == 90  # the staff CSV export, every product of the larger catalog once
    for buyer, by_count in results["contention"].items():
        for buyers in ("2", "4"):
            c = by_count[buyers]
            assert c["successes"] == 6 and c["final_stock"] == 0 and c["history_items"] == 6 and c["consistent"]
            assert c["orders"] == (6 if buyer == "checkout" else None) and c["stock_busy"] == 0
            assert c["successes_per_s"] > 0 and 0 < c["p50_ms"] <= c["p99_ms"]
    assert {t["target"].split(" ")[0] for t in results["targets"]} >= {"in-process", "flatness", "one", "contention:"}
    markdown = (tmp_path / "results.md").read_text()
    assert "## Targets" in markdown and "## One product, many buyers" in markdown


def test_the_buyer_counts_are_one_eight_32_and_128_in_quick_runs_too():
    assert bench_run.parse_args(["--quick"]).buyers == bench_run.parse_args([]).buyers == [1, 8, 32, 128]
    assert (bench_run.parse_args(["--quick"]).start_stock, bench_run.parse_args([]).start_stock) == (60, 200)


def test_the_crowd_targets_compare_orders_a_second_with_one_buyer_and_count_busy_buyers():
    def run(rate, busy=0, consistent=True):
        return {"successes_per_s": rate, "stock_busy": busy, "consistent": consistent}

    met = bench_results.targets({"contention": {"checkout": {"1": run(10.0), "32": run(9.0), "128": run(8.0)}}})
    assert [t["met"] for t in met] == [True, True]
    assert "32 buyers 9.0/s (0.90 x), 128 buyers 8.0/s (0.80 x)" in met[1]["measured"]
    missed = bench_results.targets(
        {"contention": {"checkout": {"1": run(5.7), "32": run(0.6, busy=955), "128": run(0.2)}}})
    assert [t["met"] for t in missed] == [False, False] and "32 buyers: exact, 955 busy" in missed[0]["measured"]


def test_the_http_ratio_divides_the_pages_p50_at_concurrency_1_by_its_raw_requests():
    point = {"p50_ms": 3.3, "errors": 0}
    results = bench_results.derive({
        "meta": {"sizes": [10, 20]}, "inproc": {"20": {"render_brand": 2.4, "raw_brand": 2.0}},
        "load_flatness": {"10": {"brand": [point, {**point, "p50_ms": 3.0}]}, "20": {"brand": [point, point]}},
    })
    assert results["overhead"]["brand"] == {"page_p50_ms": 3.3, "render_ms": 2.4, "raw_ms": 2.0, "ratio": 1.65,
                                            "render_ratio": 1.2}
    assert results["flatness"]["brand"]["ratio"] == round(3.3 / 3.15, 3)


class _Answers:
    """A test client stand-in that answers the brand page with the given statuses in turn."""

    def __init__(self, *statuses):
        self.statuses, self.asked = list(statuses), 0

    def get(self, path):
        self.asked += 1
        status = self.statuses.pop(0)
        body = b'<a hx-get="/brands/1/?after=abc&amp;page=2">Load more</a>' if status == 200 else b""
        return type("Response", (), {"status_code": status, "content": body})()


def test_the_first_brand_page_is_asked_again_while_dynamodb_is_catching_up(monkeypatch):
    from bench import pages

    monkeypatch.setattr(pages.time, "sleep", lambda seconds: None)
    client = _Answers(503, 503, 200)
    assert pages.discover_ids(client, log=lambda message: None)["next_url"] == "/brands/1/?after=abc&page=2"
    assert client.asked == 3


def test_a_brand_page_that_stays_unavailable_stops_the_bench(monkeypatch):
    from bench import pages

    clock = iter(range(0, 1000, 50))
    monkeypatch.setattr(pages.time, "sleep", lambda seconds: None)
    monkeypatch.setattr(pages.time, "monotonic", lambda: next(clock))
    with pytest.raises(RuntimeError, match="HTTP 503"):
        pages.discover_ids(_Answers(*[503] * 10), patience=120)
    with pytest.raises(RuntimeError, match="HTTP 404"):
        pages.discover_ids(_Answers(404), patience=120)


def test_a_table_that_cannot_be_deleted_does_not_lose_the_runs_results(monkeypatch):
    from catalog.gateway import CatalogUnavailable, table

    deleted, said = [], []

    def table_delete(table):
        if table == "big":
            raise CatalogUnavailable("DynamoDB cannot be reached")
        deleted.append(table)

    monkeypatch.setattr(table, "table_delete", table_delete)  # the package's face, which bench/run.py imports
    monkeypatch.setattr(bench_run, "log", said.append)
    bench_run.drop_tables(["small", "big", "other"])  # raises nothing
    assert deleted == ["small", "other"]
    assert said == ["could not delete table big (DynamoDB cannot be reached); the results are kept"]


def test_bench_compare_times_each_trees_own_code_with_pyperf(local_catalog, bench_env, settings, tmp_path):
    """bench-compare runs bench/inproc.py in each tree: a page made slower in one tree shows there."""
    from types import SimpleNamespace

    from bench import compare
    from bench.pages import PAGES

    slow = tmp_path / "slow"
    compare.checkout("HEAD", slow)  # a copy of this tree whose home view spends 3 ms of CPU more
    views = slow / "catalog" / "views.py"
    views.write_text(views.read_text().replace(
        "def home(request):\n",
        "def home(request):\n    import time\n    end = time.thread_time() + 0.003\n"
        "    while time.thread_time() < end:\n        pass\n",
    ))
    args = SimpleNamespace(out=tmp_path, pyperf=["-p", "1", "-n", "3", "-w", "1", "-l", "2"],
                           pages=[p for p in PAGES if p.name == "home"])
    table, ids = settings.DYNAMODB_TABLE, {"brand": "1"}
    ms = {}
    for side, root in (("slow", slow), ("tree", compare.ROOT)):
        ms[side] = bench_run.medians_ms(bench_run.inproc(None, table, ids, args, raw=False, root=root,
                                                         name=f"{side}.json"))
    assert ms["slow"]["render_home"] > ms["tree"]["render_home"] + 2


def test_the_bench_serves_with_the_heartbeat_directory_run_sh_chooses(monkeypatch, tmp_path):
    """bench/load.py starts gunicorn as scripts/run.sh does: the workers' heartbeat file in
    GUNICORN_WORKER_TMP_DIR when it is set, else in /dev/shm where there is one."""
    from bench.load import gunicorn_flags

    monkeypatch.setenv("GUNICORN_WORKER_TMP_DIR", str(tmp_path))
    assert gunicorn_flags()["worker_tmp_dir"] == str(tmp_path)
    monkeypatch.delenv("GUNICORN_WORKER_TMP_DIR")
    assert gunicorn_flags()["worker_tmp_dir"] == ("/dev/shm" if os.path.isdir("/dev/shm") else None)


def test_each_tree_is_served_with_its_own_run_sh_worker_class(tmp_path):
    """bench-compare serves REF with REF's scripts/run.sh flags, not the working tree's: a REF with
    another worker class (a dotted class name, as run.sh had before gunicorn's own gthread came back)
    is measured with that class, its name read whole; the working tree's is gunicorn's gthread."""
    from gunicorn.util import load_class
    from gunicorn.workers.gthread import ThreadWorker

    from bench.load import RUN_SCRIPT, gunicorn_flags

    ours = gunicorn_flags()["worker_class"]
    assert ours == "gthread" and load_class(ours) is ThreadWorker
    other = "storefront.gunicorn_worker.ThreadWorker"
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "run.sh").write_text(
        RUN_SCRIPT.read_text().replace(f"--worker-class {ours} ", f"--worker-class {other} "))
    assert gunicorn_flags(tmp_path)["worker_class"] == other


def test_the_readmes_deployment_serves_with_the_worker_class_run_sh_and_the_bench_use():
    from bench.load import ROOT, gunicorn_flags

    command = re.search(r"gunicorn storefront\.wsgi:application .*\\\n(.*)", (ROOT / "README.md").read_text()).group(1)
    assert f"--worker-class {gunicorn_flags()['worker_class']} " in command


def test_the_bench_turns_ttl_off_on_its_tables_while_the_app_creates_them_with_it_on(local_ddb):
    ttl = lambda: dynamo.client().describe_time_to_live(TableName=local_ddb)["TimeToLiveDescription"]  # noqa: E731
    assert ttl() == {"TimeToLiveStatus": "ENABLED", "AttributeName": "expiresAt"}
    bench_run.ttl_off([local_ddb])
    assert ttl()["TimeToLiveStatus"] == "DISABLED"
