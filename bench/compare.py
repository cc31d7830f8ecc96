#!/usr/bin/env python
"""A/B page benchmark: `make bench-compare REF=<commit>`.

Serves the pages of REF (a commit, checked out with `git archive` into var/bench-compare/) and of
this working tree side by side, two gunicorns with the same flags against one catalog in one
DynamoDB Local, and loads each page type with wrk in alternating rounds (A then B, then B then A),
so that a busy neighbour or a drift of the machine hits both alike. Prints, for each page, the p50
at concurrency 1 and the throughput and p50 at concurrency 8 of both, with the ratio B / A; writes
var/bench/compare.md and compare.json.

The catalog is imported with this working tree's importer into a table made from its schema; the
REF must be able to read that table (a REF older than an added index or attribute reads it fine).
"""

import argparse
import json
import os
import secrets
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if __package__ in (None, ""):
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
    sys.path.insert(0, str(ROOT))


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ref", required=True, help="the commit to compare against (A); B is the working tree")
    parser.add_argument("--products", type=int, default=100_000, help="catalog size (default 100000)")
    parser.add_argument("--rounds", type=int, default=4, help="alternating rounds (default 4)")
    parser.add_argument("--duration", type=int, default=3, help="seconds a load point (default 3)")
    parser.add_argument("--concurrency", type=int, default=8, help="the loaded concurrency (default 8)")
    parser.add_argument(
        "--cpu-iterations", type=int, default=300,
        help="in-process renders timed per page, side and round for the CPU comparison (default 300; 0 skips it)",
    )
    parser.add_argument("--pages", help="comma-separated page names (default: every page of bench/pages.py)")
    parser.add_argument("--out", type=Path, default=ROOT / "var" / "bench", help="where results go")
    return parser.parse_args(argv)


def log(message):
    print(f"[{time.strftime('%H:%M:%S', time.gmtime())}] {message}", flush=True)


def checkout(ref, into):
    """The tree of `ref` in `into` (replaced), with this checkout's virtualenv beside it."""
    commit = subprocess.run(
        ["git", "rev-parse", "--verify", f"{ref}^{{commit}}"], cwd=ROOT, capture_output=True, text=True
    )
    if commit.returncode != 0:
        raise SystemExit(f"bench-compare: {ref!r} is not a commit of this repository")
    shutil.rmtree(into, ignore_errors=True)
    into.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", commit.stdout.strip()], cwd=ROOT, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return commit.stdout.strip()


def import_catalog(size, table):
    from catalog.gateway.catalog import importer
    from catalog.gateway.schema import table_ensure

    from .catalog_data import make_catalog
    from .run import use_table

    use_table(table)
    table_ensure(table)
    importer.import_catalog(make_catalog(size))


def point(server, page, page_ids, concurrency, duration):
    from .load import wrk

    return wrk(
        server.url + page.path.format(**page_ids), concurrency=concurrency, duration=duration,
        headers=page.headers, method=page.method, body=page.body,
    )


def measure(servers, pages, args):
    """Alternating rounds: {side: {page: {"c1": [points], "cN": [points]}}}."""
    figures = {side: {page.name: {"c1": [], "cN": []} for page in pages} for side in servers}
    order = list(servers)
    for n in range(args.rounds):
        log(f"round {n + 1} of {args.rounds}: {' then '.join(order)}")
        for page in pages:
            for side in order:
                server, page_ids = servers[side]
                figures[side][page.name]["c1"].append(point(server, page, page_ids, 1, args.duration))
                figures[side][page.name]["cN"].append(
                    point(server, page, page_ids, args.concurrency, args.duration)
                )
        order.reverse()
    return figures


def measure_cpu(roots, page_ids, pages, args, env):
    """In-process CPU time per render (bench/render_cpu.py, run in each tree), in alternating
    rounds like the load: {side: {page: [p50 ms of each round]}}."""
    script = ROOT / "bench" / "render_cpu.py"
    figures = {side: {page.name: [] for page in pages} for side in roots}
    order = list(roots)
    for n in range(args.rounds):
        log(f"in-process CPU, round {n + 1} of {args.rounds}: {' then '.join(order)}")
        for side in order:
            todo = [
                {"name": page.name, "path": page.path.format(**page_ids[side]), "headers": page.headers}
                for page in pages
                if page.method == "GET"
            ]
            done = subprocess.run(
                [sys.executable, str(script), "--iterations", str(args.cpu_iterations)],
                cwd=roots[side], env=env, input=json.dumps(todo), capture_output=True, text=True,
            )
            if done.returncode:
                raise SystemExit(f"in-process renders of {side} ({roots[side]}) failed:\n{done.stderr}")
            for name, result in json.loads(done.stdout).items():
                figures[side][name].append(result["cpu_ms"])
        order.reverse()
    return figures


def summarise(figures, pages, args, cpu=None):
    def median(points, key):
        return round(statistics.median(p[key] for p in points), 2)

    rows = []
    for page in pages:
        a, b = figures["A"][page.name], figures["B"][page.name]
        row = {"page": page.name}
        for side, f in (("A", a), ("B", b)):
            row[f"{side}_p50_c1_ms"] = median(f["c1"], "p50_ms")
            row[f"{side}_rps_c{args.concurrency}"] = median(f["cN"], "rps")
            row[f"{side}_p50_c{args.concurrency}_ms"] = median(f["cN"], "p50_ms")
            row[f"{side}_errors"] = sum(p["errors"] for p in f["c1"] + f["cN"])
        row["p50_c1_ratio"] = round(row["B_p50_c1_ms"] / row["A_p50_c1_ms"], 3) if row["A_p50_c1_ms"] else None
        if cpu and cpu["A"].get(page.name):
            row["A_cpu_ms"], row["B_cpu_ms"] = (round(statistics.median(cpu[side][page.name]), 3) for side in "AB")
            row["cpu_ratio"] = round(row["B_cpu_ms"] / row["A_cpu_ms"], 3)
            row["cpu_ratio_rounds"] = [
                round(b / a, 3) for a, b in zip(cpu["A"][page.name], cpu["B"][page.name], strict=True)
            ]
        rps_a = row[f"A_rps_c{args.concurrency}"]
        row[f"rps_c{args.concurrency}_ratio"] = round(row[f"B_rps_c{args.concurrency}"] / rps_a, 3) if rps_a else None
        rows.append(row)
    return rows


def markdown(rows, meta, concurrency):
    c = concurrency
    lines = [
        f"# A/B: {meta['ref']} (A) against the working tree (B)",
        "",
        f"{meta['products']:,} products, {meta['rounds']} alternating rounds of {meta['duration']} s a point, "
        f"{meta['machine']}; medians of the rounds. Ratios are B / A (p50: below 1 is faster; req/s: above 1).",
        "",
        f"| page | A p50 c=1 | B p50 c=1 | ratio | A req/s c={c} | B req/s c={c} | ratio | A p50 c={c} | B p50 c={c} "
        "| errors A / B |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['page']} | {r['A_p50_c1_ms']} ms | {r['B_p50_c1_ms']} ms | {r['p50_c1_ratio']} "
            f"| {r[f'A_rps_c{c}']} | {r[f'B_rps_c{c}']} | {r[f'rps_c{c}_ratio']} "
            f"| {r[f'A_p50_c{c}_ms']} ms | {r[f'B_p50_c{c}_ms']} ms | {r['A_errors']} / {r['B_errors']} |"
        )
    cpu_rows = [r for r in rows if "cpu_ratio" in r]
    if cpu_rows:
        lines += [
            "",
            "In-process CPU time of one render (the WSGI application called directly, `time.thread_time`:",
            "the app's own work, without the wait for DynamoDB), p50; medians of the rounds, and the ratio",
            "B / A of each round. CPU time usually moves less between rounds than wall time, but a busy",
            "host moves it too: read the ratio of each round before the median.",
            "",
            "| page | A CPU | B CPU | ratio | ratio of each round |",
            "|---|---|---|---|---|",
        ]
        for r in cpu_rows:
            rounds = ", ".join(str(x) for x in r["cpu_ratio_rounds"])
            lines.append(f"| {r['page']} | {r['A_cpu_ms']} ms | {r['B_cpu_ms']} ms | {r['cpu_ratio']} | {rounds} |")
    return "\n".join(lines) + "\n"


def run(args, env, ref_dir, ref_commit):
    from contextlib import ExitStack

    from .load import Server, collectstatic, gunicorn_flags, wrk
    from .pages import PAGES, ids

    pages = [p for p in PAGES if not args.pages or p.name in args.pages.split(",")]
    table = f"compare-{secrets.token_hex(4)}"
    log(f"import {args.products:,} products into {table}")
    import_catalog(args.products, table)
    env = {**env, "DYNAMODB_TABLE": table}
    servers, roots = {}, {"A": ref_dir, "B": ROOT}
    with ExitStack() as stack:
        for side, root in roots.items():
            collectstatic(env, root=root)
            server = stack.enter_context(Server(env, args.out / f"compare-gunicorn-{side}.log", root=root))
            servers[side] = (server, ids(server.get("/brands/1/")))
            wrk(server.url + "/", concurrency=gunicorn_flags()["workers"] * 2, duration=1)  # warm up
        figures = measure(servers, pages, args)
        ids_of = {side: side_ids for side, (_server, side_ids) in servers.items()}
    cpu = measure_cpu(roots, ids_of, pages, args, env) if args.cpu_iterations else None
    return figures, cpu, pages


def main(argv=None):
    args = parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    ref_dir = ROOT / "var" / "bench-compare" / "ref"
    ref_commit = checkout(args.ref, ref_dir)
    from tools import dynamodb_local

    from .load import wrk_available

    if not wrk_available():
        raise SystemExit("bench-compare needs wrk (`make bench-compare` installs it)")
    started = time.monotonic()
    with open(args.out / "compare-dynamodb-local.log", "wb") as ddb_log:
        process, url = dynamodb_local.start(log=ddb_log)
        try:
            env = {
                **os.environ,
                "DJANGO_SETTINGS_MODULE": "storefront.settings",
                "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
                "DYNAMODB_ENDPOINT_URL": url,
                "DJANGO_SQLITE_PATH": str(args.out / "compare-db.sqlite3"),
                "DATABASE_URL": f"sqlite:///{args.out / 'compare-db.sqlite3'}",
                "DJANGO_LOG_LEVEL": "WARNING",
            }
            env.pop("DJANGO_DEBUG", None)
            os.environ.update(env)
            os.environ.pop("DJANGO_DEBUG", None)
            import django

            django.setup()
            figures, cpu, pages = run(args, env, ref_dir, ref_commit)
        finally:
            dynamodb_local.stop(process)
    from .run import _machine

    meta = {
        "ref": f"{args.ref} ({ref_commit[:10]})",
        "products": args.products,
        "rounds": args.rounds,
        "duration": args.duration,
        "concurrency": args.concurrency,
        "machine": _machine(),
        "load_average_after": os.getloadavg(),
        "seconds": round(time.monotonic() - started),
    }
    rows = summarise(figures, pages, args, cpu)
    (args.out / "compare.json").write_text(
        json.dumps({"meta": meta, "rows": rows, "points": figures, "cpu": cpu}, indent=1)
    )
    text = markdown(rows, meta, args.concurrency)
    (args.out / "compare.md").write_text(text)
    print("\n" + text)
    return 0


if __name__ == "__main__":
    if __package__ in (None, ""):
        import runpy

        sys.modules.pop("bench.compare", None)
        runpy.run_module("bench.compare", run_name="__main__")
        sys.exit(0)
    sys.exit(main())
