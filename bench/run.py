#!/usr/bin/env python
"""Storefront benchmarks: `make bench` (full) or `make bench QUICK=1`.

On this machine, against a DynamoDB Local it starts itself (in memory unless --db-path):

1. imports large generated catalogs through the project's bulk import, each into its own table,
   beside a baseline of one PutItem per product;
2. serves the site as production does (gunicorn with scripts/run.sh's worker flags, DEBUG off,
   whitenoise) and loads each page type with wrk at each concurrency, then the POST flows (a
   staff stock adjustment, a shopper's add-to-cart and checkout) with a signed-in user a connection;
3. times the raw DynamoDB request behind each page alone, and the ratio page / raw;
4. compares the same pages on the largest and the smallest catalog (flatness);
5. sets N buyers on one product at once (checkouts, then bare stock writes) and checks the result is exact;
6. counts the DynamoDB requests and consumed capacity of each page (rendered in-process);
7. measures what metrics cost a page, on and off in alternating rounds in-process (bench/observability.py).

Writes var/bench/results.json, results.md and results.png, and prints our targets beside the
figures. Nothing fails on a target: these are measurements.
"""

import argparse
import os
import platform
import secrets
import statistics
import subprocess
import sys
import time
import uuid
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parent.parent
if __package__ in (None, ""):
    # Run as a script: import from the repository root, never bench/'s modules as top-level ones.
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
    sys.path.insert(0, str(ROOT))

# QUICK must stay under 3 minutes on the 2-core machine (about 2.5 today, with the POST flows).
QUICK = {
    "sizes": [300, 3000],
    "duration": 3,
    "raw_iterations": 120,
    "start_stock": 60,
    "flat_rounds": 2,
    "flat_duration": 1,
    "warmup": 2500,
    "receive_lines": 1000,
    "observability_rounds": 8,
    "observability_renders": 10,
}
FULL = {
    "sizes": [1000, 100_000],
    "duration": 10,
    "raw_iterations": 1000,
    "start_stock": 200,
    "flat_rounds": 4,
    "flat_duration": 3,
    "warmup": 6000,
    "receive_lines": 5000,
    "observability_rounds": 40,
    "observability_renders": 25,
}
# In-process renders are slower than raw requests; fewer of them give as steady a p50.
MAX_RENDER_ITERATIONS = 300


def _ints(text):
    return [int(x.replace("_", "")) for x in text.split(",") if x.strip()]


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small catalogs, short load points (under 3 minutes)")
    parser.add_argument(
        "--sizes", type=_ints, help="catalog sizes, smallest first (default 1000,100000; quick 300,3000)"
    )
    parser.add_argument("--duration", type=int, help="seconds a load point (default 10; quick 3)")
    parser.add_argument("--concurrency", type=_ints, default=[1, 8, 32], help="load concurrencies (default 1,8,32)")
    parser.add_argument("--flat-rounds", type=int, help="flatness: rounds over the catalogs (default 4; quick 2)")
    parser.add_argument("--flat-duration", type=int, help="flatness: seconds a point (default 3; quick 1)")
    parser.add_argument(
        "--warmup", type=int, help="DynamoDB requests sent before timing anything (default 6000; quick 2500)"
    )
    parser.add_argument("--raw-iterations", type=int, help="raw requests timed per page type (default 1000; quick 120)")
    parser.add_argument("--baseline", type=int, default=2000, help="products imported one PutItem at a time")
    parser.add_argument(
        "--buyers", type=_ints, help="contention: concurrent buyers on one product (default 1,8,32,128, quick too)"
    )
    parser.add_argument("--start-stock", type=int, help="contention: stock at the start (default 200; quick 60)")
    parser.add_argument(
        "--no-load", action="store_true", help="skip gunicorn and wrk (page figures from in-process renders)"
    )
    parser.add_argument(
        "--keep-ttl", action="store_true",
        help="leave TTL on on the bench's tables (DynamoDB Local's sweep then stalls every read for a while)",
    )
    parser.add_argument("--receive-lines", type=int, help="bulk receiving: CSV lines (default 5000; quick 1000)")
    parser.add_argument(
        "--observability-rounds", type=int,
        help="what metrics cost a page: alternating rounds of metrics on and off (default 40; quick 8)",
    )
    parser.add_argument(
        "--observability-renders", type=int, help="... timed renders of each a page a round (default 25; quick 10)"
    )
    parser.add_argument(
        "--pages-only", action="store_true",
        help="the pages alone (in-process, raw, HTTP): no metrics cost, contention or bulk receiving",
    )
    parser.add_argument("--no-chart", action="store_true", help="skip the PNG chart")
    parser.add_argument("--db-path", help="keep DynamoDB Local's data in this folder (default: in memory)")
    parser.add_argument(
        "--rederive",
        type=Path,
        metavar="RESULTS_JSON",
        help="measure nothing: recompute overhead, flatness, targets, results.md and the chart "
        "from a saved results.json into --out",
    )
    parser.add_argument("--out", type=Path, default=ROOT / "var" / "bench", help="where results go (default var/bench)")
    args = parser.parse_args(argv)
    if args.buyers is None:
        from .contention import BUYER_COUNTS

        args.buyers = BUYER_COUNTS
    defaults = QUICK if args.quick else FULL
    for name, value in defaults.items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    args.sizes = sorted(args.sizes)
    return args


def log(message):
    print(f"[{time.strftime('%H:%M:%S', time.gmtime())}] {message}", flush=True)


def _machine():
    memory = ""
    try:
        pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        memory = f", {pages / 2**30:.0f} GiB"
    except (ValueError, OSError, AttributeError):
        pass
    return f"{platform.machine()} {os.cpu_count()} cores{memory}, Python {platform.python_version()}"


def _load_average():
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def use_table(table):
    """Point the app (this process) at `table`, with an empty name cache."""
    from django.conf import settings

    from catalog import names

    settings.DYNAMODB_TABLE = table
    names.forget()


def ttl_off(tables):
    """Turn TTL off on the bench's tables once they are imported. DynamoDB Local sweeps every table
    with TTL on about every 10 s, and no read of the instance is answered while it does: about
    1 s every 11 s with the 100,000-product catalog loaded (bench/stalls.py saw it; on 1.7 million
    small items 150-340 ms every 10.5 s with TTL on and nothing over 100 ms with it off). AWS's
    expiry runs beside the reads. Nothing the bench does waits for an item to expire."""
    from catalog.gateway.schema import table_set_ttl

    for table in tables:
        table_set_ttl(table, enabled=False)


def drop_tables(tables):
    """Delete the bench's tables, as far as DynamoDB lets it: a DeleteTable that times out (DynamoDB
    Local deleting 1.7 million items takes longer than a read timeout) is logged, not raised, so
    that it cannot throw away the results of a run that took an hour. (In memory, the tables go
    with DynamoDB Local when the run stops it; with --db-path, delete them by hand.)"""
    from catalog.gateway import CatalogUnavailable
    from catalog.gateway.schema import table_delete

    for table in tables:
        try:
            table_delete(table)
        except CatalogUnavailable as exc:
            log(f"could not delete table {table} ({exc}); the results are kept")


def import_catalogs(args, run_id):
    """Each size into its own table through the bulk import; then the one-PutItem baseline."""
    from catalog.gateway.catalog import importer
    from catalog.gateway.dynamo.client import client
    from catalog.gateway.dynamo.codec import serialize
    from catalog.gateway.schema import table_delete, table_ensure

    from .catalog_data import make_catalog
    from .meter import Meter

    tables, figures, products = {}, {}, None
    for size in args.sizes:
        table = tables[size] = f"bench-{size}-{run_id}"
        use_table(table)
        table_ensure(table)
        data = make_catalog(size)
        log(f"import {size:,} products into {table}")
        with Meter() as meter:
            started = time.perf_counter()
            brands, categories, products = importer.validate(data)
            validated = time.perf_counter()
            result = importer.write(brands, categories, products)
            done = time.perf_counter()
        items = len(brands) + len(categories) + len(products)
        figures[str(size)] = {
            "table": table,
            "products": len(products),
            "items": items,
            "seconds": round(done - started, 2),
            "validate_seconds": round(validated - started, 2),
            "write_seconds": round(done - validated, 2),
            "items_per_s": round(items / (done - started), 1),
            "write_items_per_s": round(items / (done - validated), 1),
            "requests": dict(sorted(result.requests.items())),
            "write_units": round(meter.write_units, 1),
            "read_units": round(meter.read_units, 1),
        }
        log(f"  {figures[str(size)]['items_per_s']:,} items/s, {result.requests}")

    # Baseline: the first products of the largest catalog, one PutItem each, into a scratch table.
    baseline = products[: args.baseline]
    table = f"bench-baseline-{run_id}"
    use_table(table)
    table_ensure(table)
    log(f"baseline: {len(baseline):,} products one PutItem at a time")
    ddb = client()
    with Meter() as meter:
        started = time.perf_counter()
        for product in baseline:
            ddb.put_item(TableName=table, Item=serialize(product.to_item()))
        elapsed = time.perf_counter() - started
    table_delete(table)
    base = {
        "products": len(baseline),
        "seconds": round(elapsed, 2),
        "items_per_s": round(len(baseline) / elapsed, 1),
        "requests": len(baseline),
        "write_units": round(meter.write_units, 1),
    }
    log(f"  {base['items_per_s']:,} items/s")
    return tables, figures, base


def measure_in_process(tables, args):
    """Per size: DynamoDB cost per page, then the raw requests, their floor and the in-process
    renders. The three are timed in alternation (ALTERNATION_RUNS runs of each a page a round), and
    in rounds over the catalogs: a drift of the machine, a pause of DynamoDB Local or its JIT
    warming up then hits a page's raw request and its render alike, and every catalog alike."""
    from .meter import latency_summary
    from .pages import PAGES, discover_ids, django_client, measure_costs, render
    from .raw import describe, time_calls, warm_up

    costs, calls, page_ids = None, {}, {}
    for size, table in tables.items():
        use_table(table)
        page_ids[size] = discover_ids(log=log)
        size_costs, calls[size] = measure_costs(page_ids[size])
        if size == args.sizes[-1]:
            costs = size_costs
    started = time.perf_counter()
    warm_up([page_calls for size_calls in calls.values() for page_calls in size_calls.values()], args.warmup)
    log(f"DynamoDB Local warmed up: {args.warmup:,} requests in {time.perf_counter() - started:.1f} s")
    client = django_client()
    rounds = max(1, args.flat_rounds)
    raw_iterations = max(1, args.raw_iterations // rounds)
    render_iterations = max(1, min(args.raw_iterations, MAX_RENDER_ITERATIONS) // rounds)
    runs = alternation_runs(raw_iterations, render_iterations)
    raw_times = {size: {page.name: [] for page in PAGES} for size in tables}
    floor_times = {size: {page.name: [] for page in PAGES} for size in tables}
    render_times = {size: {page.name: [] for page in PAGES} for size in tables}
    render_cpu = {size: {page.name: [] for page in PAGES} for size in tables}  # this thread's CPU a render
    log(
        f"raw DynamoDB requests, their floor and in-process renders in alternation, {rounds} rounds over the "
        f"catalogs ({raw_iterations} requests of each kind and {render_iterations} renders a page a round, "
        f"in {len(runs)} runs)"
    )
    for _ in range(rounds):
        for size, table in tables.items():
            use_table(table)
            for page in PAGES:
                page_calls = calls[size][page.name]
                time_calls(page_calls, 0)  # the first requests of a page (connection, JIT) are not timed
                time_calls(page_calls, 0, floor=True)
                for _ in range(5):
                    render(client, page, page_ids[size])
                for raw_n, render_n in runs:
                    raw_times[size][page.name] += time_calls(page_calls, raw_n, warmup=SWITCH_WARMUP)
                    floor_times[size][page.name] += time_calls(page_calls, raw_n, warmup=SWITCH_WARMUP, floor=True)
                    for _ in range(SWITCH_WARMUP):
                        render(client, page, page_ids[size])
                    for _ in range(render_n):
                        cpu, started = time.thread_time(), time.perf_counter()
                        render(client, page, page_ids[size])
                        render_times[size][page.name].append(time.perf_counter() - started)
                        render_cpu[size][page.name].append(time.thread_time() - cpu)
    raw = {
        str(size): {
            page: {
                **latency_summary(times),
                "floor": latency_summary(floor_times[size][page]),
                "requests": [describe(op, params) for op, params in calls[size][page]],
            }
            for page, times in pages.items()
        }
        for size, pages in raw_times.items()
    }
    renders = {
        str(size): {
            page: {**latency_summary(times), "cpu_mean_ms": latency_summary(render_cpu[size][page])["mean_ms"]}
            for page, times in pages.items()
        }
        for size, pages in render_times.items()
    }
    return costs, raw, renders, calls


# Runs of each kind a page a round. The first request or render after a switch from the other kind
# is slower by about 0.4-0.5 ms on this machine (and settles by the third): each run starts with
# SWITCH_WARMUP of them untimed, and runs are few and long enough (about 0.2 s in the full run) that a page's
# figures are of its steady state, yet close enough in time that a drift of the machine hits all.
ALTERNATION_RUNS = 6
SWITCH_WARMUP = 2


def alternation_runs(raw_iterations, render_iterations, runs=ALTERNATION_RUNS):
    """How `raw_iterations` raw requests (and as many floor requests) and `render_iterations`
    renders are split into alternating runs: [(raw requests, renders), ...], at most `runs` of
    them, the totals kept exactly."""
    n = max(1, min(runs, raw_iterations, render_iterations))

    def share(total, i):
        return total * (i + 1) // n - total * i // n

    return [
        (share(raw_iterations, i), share(render_iterations, i))
        for i in range(n)
    ]


@contextmanager
def stall_probe(path, env, patience=60.0):
    """bench/stalls.py in a process of its own while the block runs (a GetItem every 100 ms on the
    largest catalog; slow reads and its own late wake-ups written to `path`). The block starts once
    the probe has (its start-up, Django and boto3, would otherwise slow the first point measured).
    Yields a dict whose "exit_code" is set at the end if the probe had stopped before it."""
    from tools.dynamodb_local import stop as stop_process

    from .stalls import STARTED

    path.unlink(missing_ok=True)
    process = subprocess.Popen([sys.executable, "-m", "bench.stalls", str(path), "1"], cwd=ROOT, env=env)
    state = {"exit_code": None}
    deadline = time.monotonic() + patience
    while process.poll() is None and time.monotonic() < deadline:
        if path.exists() and STARTED in path.read_text():
            break
        time.sleep(0.1)
    try:
        yield state
    finally:
        state["exit_code"] = process.poll()
        stop_process(process)  # SIGTERM, then SIGKILL after 10 s


def load_pages(tables, args, server_env, out_dir, calls=None):
    """One gunicorn per catalog, all serving at once. First the flatness rounds: each page at
    concurrency 1 on every catalog in turn, a few short rounds, so that a busy neighbour or a
    drift of the machine hits every catalog alike. Right after each of those points the page's raw
    request and its floor are timed again (`calls`: {size: {page: requests}}), so that the HTTP
    ratio sets the page beside its request as DynamoDB Local answered it in the same minute. Then
    every page at every concurrency on the largest catalog. Returns (load, flatness rounds, the
    raw requests beside them, the stall probe's state)."""
    from contextlib import ExitStack

    from . import flows
    from .load import Server, cpu_ms_per_request, gunicorn_flags, wrk
    from .meter import latency_summary
    from .pages import PAGES, ids
    from .raw import time_calls

    def point(server, page, page_ids, conc, duration):
        return wrk(
            server.url + page.path.format(**page_ids),
            concurrency=conc,
            duration=duration,
            headers=page.headers,
            method=page.method,
            body=page.body,
        )

    def show(size, page, p):
        log(
            f"  {size:>7,} {page.name:<15} c={p['concurrency']:<3} {p['rps']:>7} req/s  p50 {p['p50_ms']} ms  "
            f"p99 {p['p99_ms']} ms  errors {p['errors']}"
        )

    load, rounds, paired = {}, {}, {}
    paired_iterations = max(1, args.raw_iterations // (2 * max(1, args.flat_rounds)))
    with ExitStack() as stack:
        servers = {}
        for size, table in tables.items():
            env = {**server_env, "DYNAMODB_TABLE": table}
            server = stack.enter_context(Server(env, out_dir / f"gunicorn-{size}.log"))
            servers[size] = (server, ids(server.get("/brands/1/")))
            # Warm every worker's name cache and connections before measuring.
            wrk(server.url + "/", concurrency=gunicorn_flags()["workers"] * 2, duration=1)
        probe_env = {**server_env, "DYNAMODB_TABLE": tables[args.sizes[-1]]}
        probe = stack.enter_context(stall_probe(out_dir / "stalls.log", probe_env))
        if len(servers) > 1:
            for n in range(args.flat_rounds):
                log(f"flatness round {n + 1} of {args.flat_rounds} (concurrency 1, {args.flat_duration} s a point)")
                for page in PAGES:
                    for size, (server, page_ids) in servers.items():
                        cpu_before = server.worker_cpu()
                        p = point(server, page, page_ids, 1, args.flat_duration)
                        # gunicorn's CPU a request, to set beside the render's CPU in-process
                        p["server_cpu_ms"] = cpu_ms_per_request(cpu_before, server.worker_cpu(), p["requests"])
                        rounds.setdefault(str(size), {}).setdefault(page.name, []).append(p)
                        if calls:
                            page_calls = calls[size][page.name]
                            paired.setdefault(str(size), {}).setdefault(page.name, []).append(
                                {
                                    "raw": latency_summary(time_calls(page_calls, paired_iterations)),
                                    "floor": latency_summary(time_calls(page_calls, paired_iterations, floor=True)),
                                }
                            )
        largest = args.sizes[-1]
        server, page_ids = servers[largest]
        log(f"load on {largest:,} products ({args.duration} s a point)")
        load[str(largest)] = {}
        for page in PAGES:
            load[str(largest)][page.name] = {}
            for conc in args.concurrency:
                p = load[str(largest)][page.name][str(conc)] = point(server, page, page_ids, conc, args.duration)
                show(largest, page, p)
        # The POST flows: a signed-in user a connection (bench/flows.py).
        use_table(tables[largest])
        for flow in flows.FLOWS:
            load[str(largest)][flow] = {}
            for conc in args.concurrency:
                # Fresh sessions for each point: a checkout still running when the last point
                # stopped would otherwise empty a cart that this point has just filled.
                sessions = flows.prepare(flow, conc, out_dir / f"sessions-{flow}.tsv")
                try:
                    p = wrk(server.url + "/", concurrency=conc, duration=args.duration, flow=flow, sessions=sessions)
                finally:
                    sessions.unlink()  # signed-in session cookies
                load[str(largest)][flow][str(conc)] = p
                show(largest, SimpleNamespace(name=flow), p)
    return load, rounds, paired, probe


def page_p50(results, size, page):
    """A page's p50 at concurrency 1 over HTTP: the median of the alternating rounds (the
    steadiest figure on a shared machine), else the load point at concurrency 1, else (no
    load generator) the in-process render's."""
    points = results.get("load_flatness", {}).get(str(size), {}).get(page)
    if points:
        return round(statistics.median(p["p50_ms"] for p in points), 3)
    load = results.get("load", {}).get(str(size), {}).get(page, {}).get("1")
    if load:
        return load["p50_ms"]
    render = results["render"].get(str(size), {}).get(page)
    return render["p50_ms"] if render else None


def paired_raw_p50(results, size, page, kind="raw"):
    """The raw request's (or its floor's) p50 timed right after each flatness round's HTTP point:
    the median of the rounds, as for the page's own p50. None for a run without them."""
    points = results.get("load_flatness_raw", {}).get(str(size), {}).get(page)
    if not points:
        return None
    return round(statistics.median(p[kind]["p50_ms"] for p in points), 3)


def server_cpu_ms(results, size, page):
    """gunicorn's CPU a request at concurrency 1 (its workers, every thread): the median of the
    flatness rounds. None for a run without it (no /proc, or a run from before it was measured)."""
    points = results.get("load_flatness", {}).get(str(size), {}).get(page) or []
    values = [p["server_cpu_ms"] for p in points if p.get("server_cpu_ms") is not None]
    return round(statistics.median(values), 3) if values else None


def derive(results):
    """Overhead and flatness from the measurements in `results` (also for a saved results.json).
    In-process ratios divide by the raw request timed in alternation with the renders; HTTP ratios
    by the raw request timed beside the HTTP points (else, for a run without them, the former)."""
    sizes = results["meta"]["sizes"]
    largest, smallest = str(sizes[-1]), str(sizes[0])
    results["overhead"] = {}
    for page, raw in results["raw"][largest].items():
        p50 = page_p50(results, largest, page)
        point = results.get("load", {}).get(largest, {}).get(page, {}).get("1")
        paired_raw = paired_raw_p50(results, largest, page)
        paired_floor = paired_raw_p50(results, largest, page, "floor")
        http_raw = paired_raw or raw["p50_ms"]
        http_floor = paired_floor or raw.get("floor", {}).get("p50_ms")
        render = results["render"][largest][page]["p50_ms"]
        render_cpu = results["render"][largest][page].get("cpu_mean_ms")
        http_cpu = server_cpu_ms(results, largest, page)
        results["overhead"][page] = {
            "page_p50_ms": p50,
            "load_point_p50_ms": point["p50_ms"] if point else None,
            "render_p50_ms": render,
            "raw_p50_ms": raw["p50_ms"],
            "floor_p50_ms": raw["floor"]["p50_ms"] if "floor" in raw else None,
            # None for a run without raw requests timed beside its HTTP points
            "http_raw_p50_ms": paired_raw,
            "http_floor_p50_ms": paired_floor,
            "ratio": round(p50 / http_raw, 3) if p50 else None,
            # The HTTP p50 over the raw request timed with the in-process renders (another minute).
            "ratio_to_in_process_raw": round(p50 / raw["p50_ms"], 3) if p50 else None,
            "render_ratio": round(render / raw["p50_ms"], 3),
            # The same page over the floor: one signed HTTP request without boto3.
            "floor_ratio": round(p50 / http_floor, 3) if p50 and http_floor else None,
            "render_floor_ratio": round(render / raw["floor"]["p50_ms"], 3) if "floor" in raw else None,
            "raw_requests": raw["requests"],
            # CPU a page (means): the render in the bench's own thread, and gunicorn's workers over HTTP
            "render_cpu_ms": render_cpu,
            "http_cpu_ms": http_cpu,
            "cpu_ratio": round(http_cpu / render_cpu, 3) if http_cpu and render_cpu else None,
        }
    results["flatness"] = {}
    if largest == smallest:
        return results
    for page in results["raw"][largest]:
        small, large = page_p50(results, smallest, page), page_p50(results, largest, page)
        if small and large:
            results["flatness"][page] = {
                "small_p50_ms": small,
                "large_p50_ms": large,
                "ratio": round(large / small, 3),
                # The same comparison without HTTP, and for the raw request alone.
                "render_ratio": round(
                    results["render"][largest][page]["p50_ms"] / results["render"][smallest][page]["p50_ms"], 3
                ),
                "raw_ratio": round(
                    results["raw"][largest][page]["p50_ms"] / results["raw"][smallest][page]["p50_ms"], 3
                ),
                # The spread: each alternating round's own ratio (HTTP, concurrency 1).
                "round_ratios": [
                    round(big["p50_ms"] / little["p50_ms"], 3)
                    for little, big in zip(
                        results.get("load_flatness", {}).get(smallest, {}).get(page, []),
                        results.get("load_flatness", {}).get(largest, {}).get(page, []),
                    )
                ],
            }
    return results


def bench(args, *, server_env=None):
    """Everything but starting DynamoDB Local and Django: the core, also run by tests/test_bench.py."""
    from . import contention, observability, receive, report
    from .load import gunicorn_flags, wrk_available
    from .pages import discover_ids

    run_id = uuid.uuid4().hex[:6]
    started = time.perf_counter()
    results = {
        "meta": {
            "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "machine": _machine(),
            "load_average_before": _load_average(),
            "quick": bool(args.quick),
            "sizes": args.sizes,
            "duration_s": args.duration,
            "flat_rounds": args.flat_rounds,
            "flat_duration_s": args.flat_duration,
            "concurrency": args.concurrency,
            "raw_iterations": args.raw_iterations,
            "alternation": {"runs": ALTERNATION_RUNS, "untimed_after_switch": SWITCH_WARMUP},
            "gunicorn": gunicorn_flags(),
            "dynamodb_local": f"data in {args.db_path}" if args.db_path else "in memory",
            "load_generator": None,
        }
    }
    tables, results["import"], results["import_baseline"] = import_catalogs(args, run_id)
    try:
        results["meta"]["ttl"] = "on" if args.keep_ttl else "off while measuring"
        if not args.keep_ttl:
            ttl_off(tables.values())
        results["costs"], results["raw"], results["render"], calls = measure_in_process(tables, args)
        if server_env is not None and not args.no_load:
            if not wrk_available():
                raise SystemExit(
                    "wrk is missing: `scripts/install-system-deps.sh bench` installs it (apt-get install wrk)"
                )
            results["meta"]["load_generator"] = "wrk " + "(Lua: bench/wrk_report.lua)"
            results["load"], results["load_flatness"], results["load_flatness_raw"], probe = load_pages(
                tables, args, server_env, args.out, calls
            )
            from .stalls import summary

            # exit_code: the probe's, if it had stopped before the load points ended (else None)
            results["stalls"] = {**summary(args.out / "stalls.log"), "exit_code": probe["exit_code"]}

        derive(results)
        if args.pages_only:
            results["meta"]["seconds"] = round(time.perf_counter() - started, 1)
            results["meta"]["load_average_after"] = _load_average()
            return report.write(results, args.out, with_chart=False)

        largest = args.sizes[-1]
        use_table(tables[largest])
        results["observability"] = observability.measure(
            discover_ids(log=log), rounds=args.observability_rounds, renders=args.observability_renders, log=log
        )
        results["observability"]["meta"]["products"] = largest
        results["contention"] = contention.run_all(args.buyers, start_stock=args.start_stock, log=log)
        log(f"bulk receiving: {args.receive_lines} lines")
        results["receive"] = receive.run(lines=args.receive_lines, products=max(1, min(500, args.receive_lines // 10)))
        log(f"  {results['receive']['first']['lines_per_s']} lines/s, "
            f"{results['receive']['first']['requests_per_line']} requests a line, exact: {results['receive']['exact']}")
    finally:
        drop_tables(tables.values())
    results["meta"]["seconds"] = round(time.perf_counter() - started, 1)
    results["meta"]["load_average_after"] = _load_average()
    return report.write(results, args.out, with_chart=not args.no_chart)


def print_targets(results):
    print("\nTargets (informative; nothing fails on them):")
    for t in results["targets"]:
        print(f"  [{'met' if t['met'] else 'NOT met'}] {t['target']}: {t['measured']}")


def main(argv=None):
    args = parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.rederive:
        import json

        from . import report

        results = report.write(derive(json.loads(args.rederive.read_text())), args.out, with_chart=not args.no_chart)
        print_targets(results)
        return 0
    from tools import dynamodb_local

    log("starting DynamoDB Local")
    with open(args.out / "dynamodb-local.log", "wb") as ddb_log:
        # The JVM's own pauses (garbage collection, safepoints) with wall-clock times, to set beside
        # the load points' slowest answers and any DynamoDB Local read timeout in the gunicorn logs.
        pauses = f"-Xlog:gc,safepoint:file={args.out / 'dynamodb-local-pauses.log'}:time,uptime,level,tags"
        process, url = dynamodb_local.start(db_path=args.db_path, log=ddb_log, java_options=[pauses])
        try:
            env = {
                **os.environ,
                "DJANGO_SETTINGS_MODULE": "storefront.settings",
                "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
                "DYNAMODB_ENDPOINT_URL": url,
                "DATABASE_URL": f"sqlite:///{args.out / 'db.sqlite3'}",
                "DJANGO_LOG_LEVEL": "WARNING",
            }
            env.pop("DJANGO_DEBUG", None)
            os.environ.update(env)
            os.environ.pop("DJANGO_DEBUG", None)
            from .load import collectstatic

            # DEBUG off serves hashed static names from the manifest: the in-process renders need it too.
            collectstatic(env)
            from .observability import own_metrics_dir

            # Metrics in files, as gunicorn's workers write them, for this process' in-process renders
            # (after `env` is copied: each gunicorn makes a folder of its own).
            with own_metrics_dir():
                import django

                django.setup()
                results = bench(args, server_env=env)
        finally:
            dynamodb_local.stop(process)
    print_targets(results)
    print(f"\n{results['meta']['seconds']} s. Results: {args.out / 'results.md'}, results.json, results.png")
    return 0


if __name__ == "__main__":
    if __package__ in (None, ""):
        # `python bench/run.py`: run as the bench package's module so relative imports work.
        import runpy

        sys.modules.pop("bench.run", None)
        runpy.run_module("bench.run", run_name="__main__")
        sys.exit(0)
    sys.exit(main())
