#!/usr/bin/env python
"""Profile pages rendered in-process (Django test client) against DynamoDB Local with pyinstrument.

    python bench/profile_page.py [--pages brand,category_brand] [--products 3000] [--renders 300]

Writes var/bench/profile-<page>.txt (and .html): where a render's time goes, DynamoDB included.
`--reads-from-memory` instead times each page's renders with and without its GetItem or Query sent,
in alternating rounds: without, the gateway's `read` gives back the answer DynamoDB gave the first
time, so what is left is Django's share of the page (the view, the templates, the middleware, turning
the answer into products).
"""

import argparse
import os
import secrets
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if __package__ in (None, ""):
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
    sys.path.insert(0, str(ROOT))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", default="brand,category_brand,product,home")
    parser.add_argument("--products", type=int, default=3000)
    parser.add_argument("--renders", type=int, default=300)
    parser.add_argument("--time-only", action="store_true", help="only time the renders (no profile)")
    parser.add_argument("--reads-from-memory", action="store_true",
                        help="time renders with the page's reads answered from memory beside normal ones")
    parser.add_argument("--out", type=Path, default=ROOT / "var" / "bench")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)

    from pyinstrument import Profiler

    from tools import dynamodb_local

    from .load import collectstatic

    with open(args.out / "dynamodb-local-profile.log", "wb") as ddb_log:
        process, url = dynamodb_local.start(log=ddb_log)
        try:
            os.environ.update(
                {
                    "DJANGO_SETTINGS_MODULE": "storefront.settings",
                    "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
                    "DYNAMODB_ENDPOINT_URL": url,
                    "DYNAMODB_TABLE": "bench-profile",
                    "DJANGO_LOG_LEVEL": "WARNING",
                }
            )
            os.environ.pop("DJANGO_DEBUG", None)
            collectstatic(dict(os.environ))
            import django

            django.setup()
            from catalog.gateway.catalog import importer
            from catalog.gateway.schema import table_ensure

            from .catalog_data import make_catalog
            from .meter import latency_summary, percentile
            from .pages import PAGES, discover_ids, django_client, render

            table_ensure("bench-profile")
            importer.import_catalog(make_catalog(args.products))
            page_ids = discover_ids()
            client = django_client()
            by_name = {p.name: p for p in PAGES}
            for name in args.pages.split(","):
                page = by_name[name]
                if args.reads_from_memory:
                    print(f"{name}: {_django_share(client, page, page_ids, args.renders)}")
                    continue
                for _ in range(20):
                    render(client, page, page_ids)
                durations, cpu = [], []
                for _ in range(args.renders):
                    started, started_cpu = time.perf_counter(), time.thread_time()
                    render(client, page, page_ids)
                    cpu.append(time.thread_time() - started_cpu)
                    durations.append(time.perf_counter() - started)
                plain, plain_cpu = latency_summary(durations), latency_summary(cpu)
                # CPU time of this process: what the app itself costs, steady on a busy machine.
                print(
                    f"{name}: unprofiled p50 {plain['p50_ms']} ms, mean {plain['mean_ms']} ms; "
                    f"CPU p50 {plain_cpu['p50_ms']} ms, p10 {percentile(sorted(cpu), 10) * 1000:.3f} ms"
                )
                if args.time_only:
                    continue
                profiler = Profiler(interval=0.001)
                started = time.perf_counter()
                with profiler:
                    for _ in range(args.renders):
                        render(client, page, page_ids)
                per_render = (time.perf_counter() - started) / args.renders * 1000
                tree = profiler.output_text(unicode=True, color=False)
                flat = profiler.output_text(unicode=True, color=False, flat=True)
                text = "Functions by own time:\n" + "\n".join(flat.splitlines()[:60]) + "\n\nCall tree:\n" + tree
                header = (
                    f"{name}: {args.renders} renders, {per_render:.2f} ms a render profiled; "
                    f"unprofiled p50 {plain['p50_ms']} ms, mean {plain['mean_ms']} ms, "
                    f"CPU p50 {plain_cpu['p50_ms']} ms\n\n"
                )
                (args.out / f"profile-{name}.txt").write_text(header + text)
                (args.out / f"profile-{name}.html").write_text(profiler.output_html())
                print(f"{name}: {per_render:.2f} ms a render -> {args.out / f'profile-{name}.txt'}")
        finally:
            dynamodb_local.stop(process)
    return 0


def _django_share(client, page, page_ids, renders, rounds=6):
    """p50 and CPU p50 of renders that send their reads and of renders whose reads (the list and
    product pages' `read`: pages.py, products.py) are answered from memory, in alternating rounds."""
    from unittest import mock

    from catalog.gateway import client as gateway_client
    from catalog.gateway.catalog import products
    from catalog.gateway.dynamo import pages

    from .meter import percentile
    from .pages import render

    answers = {}

    def from_memory(operation, params):
        key = (operation, repr(params))
        if key not in answers:
            answers[key] = gateway_client.read(operation, params)
        return answers[key]

    timed = {"sent": ([], []), "from memory": ([], [])}
    for n in range(rounds):
        for mode in ("sent", "from memory") if n % 2 == 0 else ("from memory", "sent"):
            reader = gateway_client.read if mode == "sent" else from_memory
            with mock.patch.object(pages, "read", reader), mock.patch.object(products, "read", reader):
                for i in range(renders // rounds + 2):
                    started, started_cpu = time.perf_counter(), time.thread_time()
                    render(client, page, page_ids)
                    if i >= 2:  # the first renders after a switch are slower
                        timed[mode][1].append(time.thread_time() - started_cpu)
                        timed[mode][0].append(time.perf_counter() - started)
    return "; ".join(
        f"reads {mode} p50 {percentile(sorted(wall), 50) * 1000:.3f} ms (CPU {percentile(sorted(cpu), 50) * 1000:.3f})"
        for mode, (wall, cpu) in timed.items()
    )


if __name__ == "__main__":
    if __package__ in (None, ""):
        import runpy

        sys.modules.pop("bench.profile_page", None)
        runpy.run_module("bench.profile_page", run_name="__main__")
        sys.exit(0)
    sys.exit(main())
