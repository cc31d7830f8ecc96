"""Storefront benchmarks: `make bench` (full) or `make bench QUICK=1`, on a DynamoDB Local of their own
(docs/benchmarks.md): two generated catalogs; each page's DynamoDB requests (bench/pages.py) and pyperf's
in-process timings (bench/inproc.py); wrk over gunicorn beside the stall probe (bench/load.py, bench/stalls.py);
N buyers on one product (bench/contention.py). Writes var/bench/results.json and results.md (bench/results.py)
and keeps pyperf's JSON (inproc-<size>.json: `python -m pyperf stats|hist FILE`).
"""

import argparse
import json
import os
import secrets
import subprocess
import sys
import time
import uuid
from collections import Counter
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

QUICK = {"sizes": [300, 3000], "duration": 3, "flat_rounds": 2, "flat_duration": 1, "start_stock": 60,
         "pyperf": ["-p", "1", "-n", "10", "-w", "2", "-l", "4"], "checkouts": 10}
FULL = {"sizes": [1000, 100_000], "duration": 10, "flat_rounds": 4, "flat_duration": 3, "start_stock": 200,
        "pyperf": ["-p", "6", "-n", "10", "-w", "2"], "checkouts": 40}


def _ints(text):
    return [int(x.replace("_", "")) for x in text.split(",") if x.strip()]


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small catalogs, short load points")
    parser.add_argument("--sizes", type=_ints, help="catalog sizes (default 1000,100000; quick 300,3000)")
    parser.add_argument("--duration", type=int, help="seconds a load point (default 10; quick 3)")
    parser.add_argument("--concurrency", type=_ints, default=[1, 8, 32], help="load concurrencies (default 1,8,32)")
    parser.add_argument("--flat-rounds", type=int, help="flatness rounds over the catalogs (default 4; quick 2)")
    parser.add_argument("--flat-duration", type=int, help="seconds a flatness point (default 3; quick 1)")
    parser.add_argument("--buyers", type=_ints, help="contention: concurrent buyers (default 1,8,32,128)")
    parser.add_argument("--start-stock", type=int, help="contention: stock at the start (default 200; quick 60)")
    parser.add_argument("--checkouts", type=int, help="checkouts over HTTP, unpaid and paid (default 40; quick 10)")
    parser.add_argument("--no-load", action="store_true", help="skip gunicorn and wrk (in-process figures only)")
    parser.add_argument("--no-contention", action="store_true", help="the pages alone")
    parser.add_argument("--pages", help="comma-separated page names (default: every page of bench/pages.py)")
    parser.add_argument("--pyperf", type=str.split, help="pyperf's options for the in-process timings")
    parser.add_argument("--out", type=Path, default=ROOT / "var" / "bench", help="where results go (default var/bench)")
    args = parser.parse_args(argv)
    for name, value in (QUICK if args.quick else FULL).items():
        if getattr(args, name, None) is None:
            setattr(args, name, value)
    if args.buyers is None:
        from bench.contention import BUYER_COUNTS

        args.buyers = BUYER_COUNTS
    args.sizes = sorted(args.sizes)
    from bench.pages import PAGES

    args.pages = [p for p in PAGES if not args.pages or p.name in args.pages.split(",")]
    return args


def log(message):
    print(f"[{time.strftime('%H:%M:%S', time.gmtime())}] {message}", flush=True)


def use_table(table):
    """Point the app (this process) at `table`, with an empty name cache."""
    from django.conf import settings

    from catalog import names

    settings.DYNAMODB_TABLE = table
    names.forget()


def ttl_off(tables):
    """TTL off on the bench's tables: DynamoDB Local answers no read while its TTL sweep runs."""
    from catalog.gateway.table import table_set_ttl

    for table in tables:
        table_set_ttl(table, enabled=False)


def drop_tables(tables):
    """Delete the bench's tables; one that cannot be deleted is logged, so the results are kept."""
    from catalog.gateway import CatalogUnavailable
    from catalog.gateway.table import table_delete

    for table in tables:
        try:
            table_delete(table)
        except CatalogUnavailable as exc:
            log(f"could not delete table {table} ({exc}); the results are kept")


def import_catalogs(sizes, run_id):
    from catalog.gateway import importer
    from catalog.gateway.table import table_ensure

    from .catalog_data import make_catalog

    tables, figures = {}, {}
    for size in sizes:
        table = tables[size] = f"bench-{size}-{run_id}"
        use_table(table)
        table_ensure(table)
        log(f"import {size:,} products into {table}")
        started = time.perf_counter()
        result = importer.import_catalog(make_catalog(size))
        seconds = time.perf_counter() - started
        figures[str(size)] = {"table": table, "seconds": round(seconds, 2),
                              "products_per_s": round(size / seconds, 1), "requests": dict(result.requests)}
    return tables, figures


def inproc(size, table, page_ids, args, *, raw=True, root=ROOT, name=None):
    """pyperf's benchmarks of bench/inproc.py for the pages of one catalog; returns pyperf's JSON file."""
    pages = [{"name": p.name, "path": p.path.format(**page_ids), "headers": p.headers} for p in args.pages]
    out = args.out / (name or f"inproc-{size}.json")
    out.unlink(missing_ok=True)
    env = {**os.environ, "DYNAMODB_TABLE": table, "BENCH_PAGES": json.dumps(pages)}
    cmd = [sys.executable, str(ROOT / "bench" / "inproc.py"), "--copy-env", "--quiet", "-o", str(out), *args.pyperf]
    subprocess.run(cmd + (["--raw"] if raw else []), cwd=root, env=env, check=True)
    return out


def medians_ms(path):
    """{benchmark name: median ms} of a pyperf JSON file."""
    import pyperf

    return {b.get_name(): round(b.median() * 1000, 3) for b in pyperf.BenchmarkSuite.load(str(path)).get_benchmarks()}


@contextmanager
def stall_probe(path, env, patience=60.0):
    """bench/stalls.py in a process of its own while the block runs, which starts once the probe has.
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
        stop_process(process)


def load_pages(tables, args, server_env):
    """wrk against one gunicorn a catalog: flatness rounds (each page at concurrency 1 on every catalog in
    turn), then every page at each concurrency on the largest. Returns (load, flatness, probe)."""
    from .load import Server, gunicorn_flags, wrk
    from .pages import ids

    def point(server, page, page_ids, conc, duration):
        p = wrk(server.url + page.path.format(**page_ids), concurrency=conc, duration=duration, headers=page.headers)
        log(f"  {page.name:<16} c={conc:<3} {p['rps']:>7} req/s  p50 {p['p50_ms']} ms  errors {p['errors']}")
        return p

    load, flat = {}, {}
    largest = args.sizes[-1]
    with ExitStack() as stack:
        servers = {}
        for size, table in tables.items():
            env = {**server_env, "DYNAMODB_TABLE": table}
            server = stack.enter_context(Server(env, args.out / f"gunicorn-{size}.log"))
            servers[size] = (server, ids(server.get("/brands/1/")))
            wrk(server.url + "/", concurrency=gunicorn_flags()["workers"] * 2, duration=1)  # warm every worker
        env = {**server_env, "DYNAMODB_TABLE": tables[largest]}
        probe = stack.enter_context(stall_probe(args.out / "stalls.log", env))
        for n in range(args.flat_rounds if len(servers) > 1 else 0):
            log(f"flatness round {n + 1} of {args.flat_rounds}")
            for page in args.pages:
                for size, (server, page_ids) in servers.items():
                    flat.setdefault(str(size), {}).setdefault(page.name, []).append(
                        point(server, page, page_ids, 1, args.flat_duration))
        server, page_ids = servers[largest]
        log(f"load on {largest:,} products ({args.duration} s a point)")
        for page in args.pages:
            load[page.name] = {str(c): point(server, page, page_ids, c, args.duration) for c in args.concurrency}
    return {str(largest): load}, flat, probe


def export_rows(size, log):
    """The staff CSV export's rows (/staff/catalog/export.csv) as the view makes them, timed on `size` products."""
    import csv
    import io

    from catalog import gateway
    from catalog.gateway.dynamo.testing import count_requests
    from staff.catalog_csv import HEADER, export_row

    buffer, rows, started = io.StringIO(), 0, time.perf_counter()
    writer = csv.writer(buffer)
    with count_requests() as counter:
        writer.writerow(HEADER)
        for page in gateway.products_every(brand_ids=[b.brand_id for b in gateway.brands_all()]):
            for product in page:
                writer.writerow(export_row(product))
                rows += 1
    seconds = time.perf_counter() - started
    log(f"CSV export of {size:,} products: {rows:,} rows, {buffer.tell() / 1e6:.1f} MB in {seconds:.1f} s")
    return {"products": size, "rows": rows, "megabytes": round(buffer.tell() / 1e6, 1), "seconds": round(seconds, 1),
            "requests": dict(Counter(counter.operations))}


def bench(args, *, server_env=None):
    """Everything but starting DynamoDB Local and Django (tests/bench run this on their own)."""
    from . import contention, results
    from .load import gunicorn_flags, wrk_available
    from .pages import discover_ids, measure_costs

    started = time.perf_counter()
    out = {"meta": {"date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"), "quick": bool(args.quick),
                    "sizes": args.sizes, "duration_s": args.duration, "concurrency": args.concurrency,
                    "gunicorn": gunicorn_flags(), "load_generator": None,
                    "in_process": "pyperf " + " ".join(args.pyperf),
                    "load_average_before": [round(x, 2) for x in os.getloadavg()]}}
    tables, out["import"] = import_catalogs(args.sizes, uuid.uuid4().hex[:6])
    try:
        ttl_off(tables.values())
        largest = args.sizes[-1]
        out["inproc"] = {}
        for size, table in tables.items():
            use_table(table)
            page_ids = discover_ids(log=log)
            if size == largest:
                out["costs"] = measure_costs(page_ids, args.pages)
            if size == largest or args.no_load or server_env is None:
                log(f"in-process renders{' and raw requests' if size == largest else ''} on {size:,} products (pyperf)")
                out["inproc"][str(size)] = medians_ms(inproc(size, table, page_ids, args, raw=size == largest))
        use_table(tables[largest])
        out["export"] = export_rows(largest, log)
        if server_env is not None and not args.no_load:
            if not wrk_available():
                raise SystemExit("wrk is missing: `make bench-deps` installs it (apt-get install wrk)")
            out["meta"]["load_generator"] = "wrk (bench/wrk_report.lua)"
            out["load"], out["load_flatness"], probe = load_pages(tables, args, server_env)
            from .stalls import summary

            out["stalls"] = {**summary(args.out / "stalls.log"), "exit_code": probe["exit_code"]}
            from . import paid

            log(f"checkouts over HTTP, unpaid and paid (localstripe), {args.checkouts} each")
            out["checkout_http"] = paid.run(server_env, tables[largest], orders=args.checkouts, out=args.out, log=log)
        if not args.no_contention:
            use_table(tables[largest])
            out["contention"] = contention.run_all(args.buyers, start_stock=args.start_stock, log=log)
    finally:
        drop_tables(tables.values())
    out["meta"]["seconds"] = round(time.perf_counter() - started, 1)
    out["meta"]["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    return results.write(out, args.out)


@contextmanager
def served_settings(out, name="", **variables):
    """A DynamoDB Local of its own (in memory) and Django set up as the bench's servers run (DEBUG off, a
    SQLite database in `out`, and the environment `variables`); yields the environment for the processes the
    bench starts."""
    from tools import dynamodb_local

    log("starting DynamoDB Local")
    with open(out / f"{name}dynamodb-local.log", "wb") as ddb_log:
        process, url = dynamodb_local.start(log=ddb_log)
        try:
            env = {**os.environ, "DJANGO_SETTINGS_MODULE": "storefront.settings",
                   "DJANGO_SECRET_KEY": secrets.token_urlsafe(50), "DYNAMODB_ENDPOINT_URL": url,
                   "DATABASE_URL": f"sqlite:///{out / f'{name}db.sqlite3'}", "DJANGO_LOG_LEVEL": "WARNING",
                   **variables}
            env.pop("DJANGO_DEBUG", None)
            os.environ.clear()
            os.environ.update(env)
            from .load import collectstatic

            collectstatic(env)  # DEBUG off serves hashed static names from the manifest, in-process too
            import django
            from django.core.management import call_command

            django.setup()
            call_command("migrate", verbosity=0, interactive=False)
            yield env
        finally:
            dynamodb_local.stop(process)


def main(argv=None):
    args = parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    with served_settings(args.out) as env:
        results = bench(args, server_env=env)
    print("\nTargets (informative; nothing fails on them):")
    for t in results["targets"]:
        print(f"  [{'met' if t['met'] else 'NOT met'}] {t['target']}: {t['measured']}")
    print(f"\n{results['meta']['seconds']} s. Results: {args.out / 'results.md'}, results.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
