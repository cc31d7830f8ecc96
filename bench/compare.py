#!/usr/bin/env python
"""A/B page benchmark: `make bench-compare REF=<commit>`.

REF's tree (`git archive` into var/bench-compare/ref) and this working tree, against one catalog in one
DynamoDB Local, in alternating rounds (REF then tree, then tree then REF): each round times every page
in-process with pyperf (bench/inproc.py run in each tree, appended to compare-ref.json and
compare-tree.json) and over HTTP with wrk at concurrency 1 (one gunicorn a tree, run.sh's flags). Writes
var/bench/compare.md (pyperf's `compare_to` table, and the HTTP p50s) and compare.json.

The catalog is imported with this tree's importer; REF must be able to read that table.
"""

import argparse
import json
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
    parser.add_argument("--ref", required=True, help="the commit to compare the working tree with")
    parser.add_argument("--products", type=int, default=100_000, help="catalog size (default 100000)")
    parser.add_argument("--rounds", type=int, default=4, help="alternating rounds (default 4)")
    parser.add_argument("--duration", type=int, default=3, help="seconds an HTTP point (default 3; 0 skips HTTP)")
    parser.add_argument("--pyperf", default="-p 2 -n 10 -w 2", help="pyperf options a round and tree")
    parser.add_argument("--out", type=Path, default=ROOT / "var" / "bench", help="where results go")
    return parser.parse_args(argv)


def checkout(ref, into):
    """The tree of `ref` in `into` (replaced)."""
    commit = subprocess.run(["git", "rev-parse", "--verify", f"{ref}^{{commit}}"], cwd=ROOT, capture_output=True,
                            text=True)
    if commit.returncode != 0:
        raise SystemExit(f"bench-compare: {ref!r} is not a commit of this repository")
    shutil.rmtree(into, ignore_errors=True)
    into.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", commit.stdout.strip()], cwd=ROOT, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return commit.stdout.strip()


def run(args, env, roots):
    """Alternating rounds; returns {side: {page: [HTTP p50 ms of each round]}}."""
    from contextlib import ExitStack

    import pyperf

    from catalog.gateway import importer
    from catalog.gateway.schema import table_ensure

    from .catalog_data import make_catalog
    from .load import Server, collectstatic, wrk
    from .pages import PAGES, ids

    args.pages = PAGES
    from .run import inproc, log, use_table

    table = f"compare-{secrets.token_hex(4)}"
    log(f"import {args.products:,} products into {table}")
    use_table(table)
    table_ensure(table)
    importer.import_catalog(make_catalog(args.products))
    env = {**env, "DYNAMODB_TABLE": table}
    http = {side: {page.name: [] for page in PAGES} for side in roots}
    for side in roots:
        (args.out / f"compare-{side}.json").unlink(missing_ok=True)
    with ExitStack() as stack:
        servers = {}
        for side, root in roots.items():
            collectstatic(env, root=root)
            server = stack.enter_context(Server(env, args.out / f"compare-gunicorn-{side}.log", root=root))
            servers[side] = (server, ids(server.get("/brands/1/")))
        order = list(roots)
        for n in range(args.rounds):
            log(f"round {n + 1} of {args.rounds}: {' then '.join(order)}")
            for side in order:
                server, page_ids = servers[side]
                path = inproc(None, table, page_ids, args, raw=False, root=roots[side],
                              name=f"compare-{side}-round.json")
                pyperf.add_runs(str(args.out / f"compare-{side}.json"), pyperf.BenchmarkSuite.load(str(path)))
                for page in PAGES if args.duration else ():
                    p = wrk(server.url + page.path.format(**page_ids), concurrency=1, duration=args.duration,
                            headers=page.headers)
                    http[side][page.name].append(p["p50_ms"])
            order.reverse()
    return http


def main(argv=None):
    args = parse_args(argv)
    args.pyperf = args.pyperf.split()
    args.out.mkdir(parents=True, exist_ok=True)
    ref_commit = checkout(args.ref, ROOT / "var" / "bench-compare" / "ref")
    roots = {"ref": ROOT / "var" / "bench-compare" / "ref", "tree": ROOT}
    started = time.monotonic()
    from .run import served_settings

    with served_settings(args.out, "compare-") as env:
        http = run(args, env, roots)
    table = subprocess.run([sys.executable, "-m", "pyperf", "compare_to", "--table", str(args.out / "compare-ref.json"),
                            str(args.out / "compare-tree.json")], capture_output=True, text=True, check=True).stdout
    from .run import medians_ms

    inproc = {side: medians_ms(args.out / f"compare-{side}.json") for side in roots}
    rows = {}
    for name, ref_ms in inproc["ref"].items():
        page = name.removeprefix("render_")
        row = rows[page] = {"ref_ms": ref_ms, "tree_ms": inproc["tree"][name],
                            "ratio": round(inproc["tree"][name] / ref_ms, 3)}
        if http["ref"][page]:
            row["http_ref_p50_ms"], row["http_tree_p50_ms"] = (statistics.median(http[s][page]) for s in roots)
            row["http_ratio"] = round(row["http_tree_p50_ms"] / row["http_ref_p50_ms"], 3)
    meta = {"ref": f"{args.ref} ({ref_commit[:10]})", "products": args.products, "rounds": args.rounds,
            "pyperf": " ".join(args.pyperf), "seconds": round(time.monotonic() - started)}
    (args.out / "compare.json").write_text(json.dumps({"meta": meta, "pages": rows}, indent=1))
    lines = [f"# {meta['ref']} against the working tree, {args.products:,} products, {args.rounds} rounds", "",
             "In-process (pyperf compare_to, ref then tree):", "", "```", table.rstrip(), "```", ""]
    if args.duration:
        lines += ["HTTP p50 at concurrency 1 (wrk, median of the rounds):", "",
                  "| page | ref ms | tree ms | tree / ref |", "|---|---|---|---|"]
        lines += [f"| {p} | {r['http_ref_p50_ms']} | {r['http_tree_p50_ms']} | {r['http_ratio']} |"
                  for p, r in rows.items()]
    text = "\n".join(lines) + "\n"
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
