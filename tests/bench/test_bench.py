"""The benchmark's core on a tiny catalog: it runs end to end and writes the results it promises.
(No load generator here: `make bench` runs wrk; this checks everything else, fast.)"""
import json
import os
import re

import pytest

from bench import run as bench_run
from catalog.gateway import client as dynamo

pytestmark = pytest.mark.dynamodb_local


def test_bench_core_writes_results_with_every_figure(settings, dynamodb_local_url, tmp_path):
    settings.DYNAMODB_ENDPOINT_URL = dynamodb_local_url
    dynamo.reset_client()
    args = bench_run.parse_args([
        "--sizes", "60,90", "--no-load", "--no-chart", "--raw-iterations", "24", "--flat-rounds", "2",
        "--warmup", "40", "--baseline", "30",
        "--buyers", "2,4", "--start-stock", "6", "--receive-lines", "40", "--out", str(tmp_path),
        "--observability-rounds", "2", "--observability-renders", "2",
    ])
    try:
        bench_run.bench(args)
    finally:
        dynamo.reset_client()

    results = json.loads((tmp_path / "results.json").read_text())
    assert results["meta"]["ttl"] == "off while measuring"
    assert {"meta", "import", "import_baseline", "costs", "raw", "render", "overhead", "flatness", "contention",
            "targets", "observability"} <= set(results)
    assert set(results["import"]) == {"60", "90"}
    receive = results["receive"]
    assert receive["exact"] and (receive["first"]["applied"], receive["again"]["replayed"]) == (40, 40)
    assert receive["first"]["requests"]["TransactWriteItems"] == 40 and receive["again"]["lines_per_s"] > 0
    assert results["import"]["90"]["requests"]["BatchWriteItem"] >= 1
    assert results["import_baseline"]["requests"] == 30
    pages = {"home", "brand", "brand_category", "category_brand", "product", "load_more",
             "brand_name", "brand_price", "brand_price_desc", "search"}
    assert set(results["costs"]) == pages == set(results["overhead"]) == set(results["flatness"])
    for page in pages - {"home"}:
        assert results["costs"][page]["warm"]["requests"] == 1, page
        assert results["overhead"][page]["ratio"] > 0
        assert results["overhead"][page]["floor_p50_ms"] > 0 and results["overhead"][page]["floor_ratio"] > 0
    assert results["costs"]["home"]["cold"]["operations"] == {"Query": 2}
    # the meter sees the capacity of the reads
    assert results["costs"]["brand"]["warm"]["read_units"] > 0 and results["costs"]["product"]["warm"]["read_units"] > 0
    assert set(results["contention"]) == {"checkout", "stock_decrease"}
    for buyer, by_count in results["contention"].items():
        for buyers in ("2", "4"):
            c = by_count[buyers]
            assert c["successes"] == 6 and c["final_stock"] == 0 and c["history_items"] == 6 and c["consistent"]
            assert c["other_history_items"] == 1  # the import's opening change, not a sale
            assert c["orders"] == (6 if buyer == "checkout" else None)
            assert 0 < c["p50_ms"] <= c["p99_ms"]
            assert c["server_threads"] == int(buyers)  # fewer buyers than the server's threads: all inside
    assert {t["target"].split(" ")[0] for t in results["targets"]} >= {
        "in-process", "HTTP", "flatness", "one", "metrics"}
    markdown = (tmp_path / "results.md").read_text()
    assert "## Contention" in markdown and "| p50 ms | p99 ms |" in markdown
    assert "| buyers | inside | start | successes | successes/s | until sold out /s |" in markdown
    # what metrics cost each page, on the largest catalog, in the results and the report
    assert results["observability"]["meta"]["products"] == 90 and results["observability"]["brand"]["renders"] == 4
    assert "## What metrics cost a page" in markdown
    # the report says how the renders and raw requests alternated, from what the run did
    assert f"({bench_run.ALTERNATION_RUNS} runs of each a page a round, the first {bench_run.SWITCH_WARMUP}" in markdown

    # every raw request, floor request and render asked for was timed: 2 rounds of 6 alternating runs of 2
    assert results["raw"]["90"]["brand"]["n"] == results["raw"]["90"]["brand"]["floor"]["n"] == 24
    assert results["render"]["90"]["brand"]["n"] == 24
    # the renders' CPU time is kept; without gunicorn (--no-load) there is none to set beside it
    assert 0 < results["render"]["90"]["brand"]["cpu_mean_ms"]
    assert results["overhead"]["brand"]["http_cpu_ms"] is None and results["overhead"]["brand"]["cpu_ratio"] is None
    assert "### CPU a page" not in markdown


def test_a_run_of_the_pages_only_writes_their_figures_and_skips_the_rest(settings, dynamodb_local_url, tmp_path):
    settings.DYNAMODB_ENDPOINT_URL = dynamodb_local_url
    dynamo.reset_client()
    args = bench_run.parse_args([
        "--sizes", "60", "--no-load", "--no-chart", "--raw-iterations", "12", "--flat-rounds", "1",
        "--warmup", "20", "--baseline", "10", "--out", str(tmp_path), "--pages-only",
    ])
    try:
        bench_run.bench(args)
    finally:
        dynamo.reset_client()
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["overhead"]["brand"]["render_ratio"] > 0 and results["costs"]["brand"]["warm"]["requests"] == 1
    assert not {"contention", "observability", "receive"} & set(results) and results["meta"]["seconds"] > 0
    assert "## Contention" not in (tmp_path / "results.md").read_text()


def test_the_buyer_counts_are_one_eight_32_and_128_in_quick_runs_too():
    assert bench_run.parse_args(["--quick"]).buyers == bench_run.parse_args([]).buyers == [1, 8, 32, 128]
    assert (bench_run.parse_args(["--quick"]).start_stock, bench_run.parse_args([]).start_stock) == (60, 200)


def test_the_crowd_targets_compare_orders_a_second_with_one_buyer_and_count_busy_buyers():
    from bench import report

    def run(rate, busy=0, consistent=True):
        return {"successes_per_s": rate, "stock_busy": busy, "consistent": consistent}

    met = report.targets({"contention": {"checkout": {"1": run(10.0), "32": run(9.0), "128": run(8.0)}}})
    assert [t["met"] for t in met] == [True, True]
    assert "32 buyers 9.0/s (0.90 x), 128 buyers 8.0/s (0.80 x)" in met[1]["measured"]
    missed = report.targets({"contention": {"checkout": {"1": run(5.7), "32": run(0.6, busy=955), "128": run(0.2)}}})
    assert [t["met"] for t in missed] == [False, False] and "32 buyers: exact, 955 busy" in missed[0]["measured"]


def test_raw_requests_and_renders_alternate_in_short_runs_that_keep_the_totals():
    runs = bench_run.alternation_runs(250, 75)
    assert len(runs) == bench_run.ALTERNATION_RUNS and all(raw >= 41 and render >= 12 for raw, render in runs)
    assert (sum(r for r, _ in runs), sum(n for _, n in runs)) == (250, 75)
    assert bench_run.alternation_runs(3, 2) == [(1, 1), (2, 1)]  # never a run without a render


def _results(*, paired):
    """A saved results.json's figures for one page on two catalogs, with or without the raw
    requests timed beside the HTTP points."""
    raw = {"p50_ms": 2.0, "floor": {"p50_ms": 1.0}, "requests": ["Query"]}
    results = {
        "meta": {"sizes": [10, 20]},
        "raw": {"10": {"brand": raw}, "20": {"brand": raw}},
        "render": {"10": {"brand": {"p50_ms": 2.4}}, "20": {"brand": {"p50_ms": 2.6, "cpu_mean_ms": 1.2}}},
        "load_flatness": {
            "10": {"brand": [{"p50_ms": 3.0}] * 3},
            # gunicorn's CPU a request in each round (None: /proc could not tell that round)
            "20": {"brand": [{"p50_ms": 3.2, "server_cpu_ms": 1.9}, {"p50_ms": 3.3, "server_cpu_ms": None},
                             {"p50_ms": 9.0, "server_cpu_ms": 2.1}]},
        },
    }
    if paired:
        results["load_flatness_raw"] = {"20": {"brand": [
            {"raw": {"p50_ms": p}, "floor": {"p50_ms": p / 2}} for p in (2.2, 2.5, 1.9)
        ]}}
    return bench_run.derive(results)


def test_the_http_ratio_divides_by_the_raw_request_timed_beside_the_http_points():
    overhead = _results(paired=True)["overhead"]["brand"]
    # medians of the rounds: page 3.3 ms, raw request beside it 2.2 ms, its floor 1.1 ms
    assert (overhead["page_p50_ms"], overhead["http_raw_p50_ms"]) == (3.3, 2.2)
    assert overhead["ratio"] == 1.5 and overhead["floor_ratio"] == 3.0
    assert overhead["ratio_to_in_process_raw"] == 1.65  # the raw request of the in-process minute, 2.0 ms
    assert overhead["render_ratio"] == 1.3  # in-process: the raw request timed in alternation with the renders


def test_gunicorns_cpu_a_page_is_set_beside_the_renders_cpu_in_process():
    overhead = _results(paired=True)["overhead"]["brand"]
    # the median of the rounds that have a figure (1.9 and 2.1), over the render's 1.2 ms in-process
    assert (overhead["http_cpu_ms"], overhead["render_cpu_ms"], overhead["cpu_ratio"]) == (2.0, 1.2, 1.667)


def test_a_run_without_raw_requests_beside_its_http_points_keeps_the_in_process_raw():
    overhead = _results(paired=False)["overhead"]["brand"]
    assert overhead["http_raw_p50_ms"] is None  # the report shows "-" there, not the in-process figure
    assert overhead["ratio"] == overhead["ratio_to_in_process_raw"] == 1.65


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
    from catalog.gateway import CatalogUnavailable
    from catalog.gateway.table import schema

    deleted, said = [], []

    def table_delete(table):
        if table == "big":
            raise CatalogUnavailable("DynamoDB cannot be reached")
        deleted.append(table)

    monkeypatch.setattr(schema, "table_delete", table_delete)
    monkeypatch.setattr(bench_run, "log", said.append)
    bench_run.drop_tables(["small", "big", "other"])  # raises nothing
    assert deleted == ["small", "other"]
    assert said == ["could not delete table big (DynamoDB cannot be reached); the results are kept"]


def test_bench_compare_times_each_trees_renders_in_process(local_catalog, tmp_path, settings):
    """bench-compare's CPU comparison: each side's own code renders the pages in a process of its
    own, in alternating rounds; a page made slower in one tree shows, the same code comes out even."""
    import os
    from argparse import Namespace

    from bench import compare
    from bench.pages import PageType

    pages = [PageType("home", "/"), PageType("brand", "/brands/{brand}/"), PageType("product", "/products/{product}/")]
    env = {
        **os.environ, "DJANGO_SETTINGS_MODULE": "storefront.settings", "DJANGO_SECRET_KEY": "x" * 50,
        "DJANGO_DEBUG": "true",  # unhashed static names: no collectstatic needed here
        "DYNAMODB_ENDPOINT_URL": settings.DYNAMODB_ENDPOINT_URL, "DYNAMODB_TABLE": settings.DYNAMODB_TABLE,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
    }
    args = Namespace(rounds=2, cpu_iterations=20, concurrency=8)
    page_ids = {side: {"brand": "3", "product": "1"} for side in "AB"}
    # A is a copy of this tree whose home view spends 3 ms of CPU more: A's own code must be measured.
    slow = tmp_path / "slow"
    compare.checkout("HEAD", slow)
    views = slow / "catalog" / "views.py"
    views.write_text(views.read_text().replace(
        "def home(request):\n",
        "def home(request):\n    import time\n    end = time.thread_time() + 0.003\n"
        "    while time.thread_time() < end:\n        pass\n",
    ))
    cpu = compare.measure_cpu({"A": slow, "B": compare.ROOT}, page_ids, pages, args, env)

    for side in "AB":
        assert set(cpu[side]) == {"home", "brand", "product"}
        assert all(len(rounds) == 2 and all(ms > 0 for ms in rounds) for rounds in cpu[side].values())
    point = {"rps": 100.0, "p50_ms": 1.0, "errors": 0}
    load = {side: {p.name: {"c1": [point], "cN": [point]} for p in pages} for side in "AB"}
    rows = {row["page"]: row for row in compare.summarise(load, pages, args, cpu)}
    assert rows["home"]["A_cpu_ms"] > rows["home"]["B_cpu_ms"] + 2.5
    assert all(0.5 < rows[page]["cpu_ratio"] < 2 for page in ("brand", "product"))  # the same code on both sides
    assert all(len(row["cpu_ratio_rounds"]) == 2 for row in rows.values())
    meta = {"ref": "HEAD", "products": 9, "rounds": 2, "duration": 1, "machine": "test"}
    assert "| brand |" in compare.markdown(list(rows.values()), meta, 8).split("In-process CPU time")[1]


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
