#!/usr/bin/env python
"""Profile pages rendered in-process (Django test client) against DynamoDB Local with pyinstrument.

    python bench/profile_page.py [--pages brand,category_brand] [--products 3000] [--renders 300]

Writes var/bench/profile-<page>.txt (and .html): where a render's time goes, DynamoDB included.
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
            from catalog.gateway import importer
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


if __name__ == "__main__":
    if __package__ in (None, ""):
        import runpy

        sys.modules.pop("bench.profile_page", None)
        runpy.run_module("bench.profile_page", run_name="__main__")
        sys.exit(0)
    sys.exit(main())
