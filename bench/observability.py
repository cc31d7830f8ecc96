"""What metrics cost a page, with tracing off (issue 35's target: under 3% of a page's p50).

    python -m bench.observability [--products 3000] [--rounds 40] [--renders 25] [--pages home,brand,...]

Part of `make bench` (bench/run.py, on its largest catalog); alone, it starts its own DynamoDB Local,
imports a generated catalog and writes `observability` into var/bench/results.json (the other keys
of an earlier run are kept).

One process, two Django test clients on the same table: one with the site's middleware as settings
say (metrics on), one without the metrics middleware, and while it renders, the gateway's DynamoDB
metrics (catalog/gateway/telemetry.py) record nothing (metrics off). Everything else is the same:
the request log middleware, its DynamoDB tally, the budgets, tracing off. The two alternate render
by render, in pairs (on then off, off then on, in turn), page by page, in rounds. On a busy 2-core
machine a render is often descheduled or slowed by a neighbour: that hits one render of a pair and
not its partner, a few milliseconds away, so the cost is taken from the pairs: `cost_pct` is the
median of (on - off) over the pairs, in percent of the page's p50 with metrics off (robust to such
hits, which the plain ratio of the two p50s, `p50_cost_pct`, is not); `cpu_cost_pct` the same for
this thread's CPU time. Beside them, what the cost should be from its parts, which a busy neighbour
moves far less: `estimated_cost_pct`, the metrics middleware's time a request plus the gateway's
metrics' time a DynamoDB request times the page's requests (each timed alone, in a tight loop:
`parts_us`; warm caches, so a floor), over the page's p50 with metrics off.

Metrics are written as in production, to files in PROMETHEUS_MULTIPROC_DIR (prometheus_client's
multiprocess mode, several times slower an update than its in-memory values): the standalone run
and `make bench` set one for their own process.

In-process renders leave out the HTTP server, so a page's time here is below its p50 over HTTP and
the same cost is a larger share of it: the percentages are an upper bound of what gunicorn sees.
"""

import argparse
import contextlib
import json
import os
import secrets
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The pages measured by default: a browse page, a filtered one, search, a product, the HTMX fragment, home.
DEFAULT_PAGES = ("home", "brand", "category_brand", "search", "product", "load_more")
# Pairs of renders of a page not timed when a round comes to it (connections, caches).
SWITCH_WARMUP = 2
TARGET_PCT = 3.0


class _Unrecorded:
    """A metric that records nothing: stands in for the gateway's while metrics are off."""

    def labels(self, *values):
        return self

    def inc(self, amount=1):
        pass

    def observe(self, amount):
        pass


@contextlib.contextmanager
def dynamodb_metrics_off():
    """The gateway's DynamoDB metrics record nothing inside (its log tally still counts)."""
    from catalog.gateway.dynamo import telemetry

    names = ("REQUESTS", "DURATION", "RETRIES", "CAPACITY")
    saved = {name: getattr(telemetry, name) for name in names}
    for name in names:
        setattr(telemetry, name, _Unrecorded())
    try:
        yield
    finally:
        for name, metric in saved.items():
            setattr(telemetry, name, metric)


@contextlib.contextmanager
def own_metrics_dir():
    """This process writes its metrics to files as gunicorn's workers do (multiprocess mode), in a
    new folder removed at the end. Enter it before prometheus_client is first imported; a
    PROMETHEUS_MULTIPROC_DIR already set is used as it is. Subprocesses started with an environment
    copied before are not affected (bench/run.py's gunicorns each make their own)."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        yield os.environ["PROMETHEUS_MULTIPROC_DIR"]
        return
    path = tempfile.mkdtemp(prefix="fromatoz-bench-metrics-")
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = path
    try:
        yield path
    finally:
        os.environ.pop("PROMETHEUS_MULTIPROC_DIR", None)
        shutil.rmtree(path, ignore_errors=True)


def clients():
    """{"on": a test client with settings.MIDDLEWARE, "off": one without the metrics middleware}."""
    from django.conf import settings
    from django.test import override_settings

    from storefront import metrics

    from .pages import django_client

    on, off = django_client(), django_client()
    on.handler.load_middleware()
    assert metrics.MIDDLEWARE in settings.MIDDLEWARE, "the metrics middleware is not in settings.MIDDLEWARE"
    with override_settings(MIDDLEWARE=[m for m in settings.MIDDLEWARE if m != metrics.MIDDLEWARE]):
        off.handler.load_middleware()  # the test client keeps the chain it loaded
    return {"on": on, "off": off}


def _timed(client, page, page_ids, kind):
    """One render with metrics `kind` ("on" or "off"): (wall seconds, this thread's CPU seconds)."""
    from .pages import render

    with dynamodb_metrics_off() if kind == "off" else contextlib.nullcontext():
        started_cpu, started = time.thread_time(), time.perf_counter()
        render(client, page, page_ids)
        return time.perf_counter() - started, time.thread_time() - started_cpu


def _p50_ms(seconds):
    return round(statistics.median(seconds) * 1000, 3)


def _pct(on, off):
    return round((on / off - 1) * 100, 2)


def _us(call, n):
    """Microseconds a call of `call`: the median of 5 runs of n // 5."""
    times = []
    for _ in range(5):
        started = time.perf_counter()
        for _ in range(n // 5):
            call()
        times.append((time.perf_counter() - started) / (n // 5))
    return statistics.median(times) * 1e6


def parts_us(n=20000):
    """What metrics add, timed alone in this process (microseconds): the metrics middleware around a
    view that answers at once, less the bare view; the gateway's bookkeeping of one DynamoDB request
    (telemetry.finished), less the same with its metrics off."""
    from django.http import HttpResponse
    from django.test import RequestFactory
    from django.urls import resolve

    from catalog.gateway.dynamo import telemetry
    from storefront.metrics import RequestMetricsMiddleware

    request = RequestFactory().get("/products/1/")
    request.resolver_match = resolve("/products/1/")
    response = HttpResponse()

    def view(_):
        return response

    middleware = RequestMetricsMiddleware(view)
    answer = {"ResponseMetadata": {"HTTPStatusCode": 200, "RetryAttempts": 0}, "Item": {}}

    def dynamodb_request():
        telemetry.finished("GetItem", time.perf_counter(), response=answer)

    on = _us(dynamodb_request, n)
    with dynamodb_metrics_off():
        off = _us(dynamodb_request, n)
    return {
        "request_us": round(_us(lambda: middleware(request), n) - _us(lambda: view(request), n), 2),
        "dynamodb_request_us": round(on - off, 2),
    }


def dynamodb_requests(client, page, page_ids):
    """The DynamoDB requests of one (warm) render of the page."""
    from .meter import Meter
    from .pages import render

    with Meter() as meter:
        render(client, page, page_ids)
    return meter.summary()["requests"]


def measure(page_ids, *, rounds=40, renders=25, pages=DEFAULT_PAGES, log=print):
    """{page: {p50_ms_off, p50_ms_on, cost_pct, p50_cost_pct, cpu_p50_ms_off, cpu_p50_ms_on,
    cpu_cost_pct, dynamodb_requests, estimated_cost_pct, renders}} and "meta": metrics on against
    off, in `rounds` rounds of `renders` pairs of renders a page."""
    from prometheus_client import values

    from .pages import PAGES

    by_name = {p.name: p for p in PAGES}
    chosen = [by_name[name] for name in pages]
    both = clients()
    parts = parts_us()
    calls = {page.name: dynamodb_requests(both["on"], page, page_ids) for page in chosen}
    wall = {p.name: {"on": [], "off": [], "diff": []} for p in chosen}
    cpu = {p.name: {"on": [], "off": [], "diff": []} for p in chosen}
    log(f"metrics on and off, {rounds} rounds of {renders} pairs of renders a page ({', '.join(pages)})")
    started = time.perf_counter()
    for n in range(rounds):
        for page in chosen:
            for kind in ("on", "off") * SWITCH_WARMUP:
                _timed(both[kind], page, page_ids, kind)
            for i in range(renders):
                order = ("on", "off") if (n + i) % 2 == 0 else ("off", "on")
                pair = {kind: _timed(both[kind], page, page_ids, kind) for kind in order}
                for j, figures in enumerate((wall, cpu)):
                    f = figures[page.name]
                    f["on"].append(pair["on"][j])
                    f["off"].append(pair["off"][j])
                    f["diff"].append(pair["on"][j] - pair["off"][j])
    figures = {}
    for page in chosen:
        w, c = wall[page.name], cpu[page.name]
        off, cpu_off = statistics.median(w["off"]), statistics.median(c["off"])
        figures[page.name] = {
            "p50_ms_off": _p50_ms(w["off"]),
            "p50_ms_on": _p50_ms(w["on"]),
            "cost_pct": round(statistics.median(w["diff"]) / off * 100, 2),
            "p50_cost_pct": _pct(statistics.median(w["on"]), off),
            "cpu_p50_ms_off": _p50_ms(c["off"]),
            "cpu_p50_ms_on": _p50_ms(c["on"]),
            "cpu_cost_pct": round(statistics.median(c["diff"]) / cpu_off * 100, 2),
            "dynamodb_requests": calls[page.name],
            "estimated_cost_pct": round(
                (parts["request_us"] + calls[page.name] * parts["dynamodb_request_us"]) / (off * 1e6) * 100, 2),
            "renders": len(w["on"]),
        }
        f = figures[page.name]
        log(f"  {page.name:<15} off {f['p50_ms_off']:>7} ms  on {f['p50_ms_on']:>7} ms  cost {f['cost_pct']:>6} %  "
            f"(p50s {f['p50_cost_pct']} %, CPU {f['cpu_cost_pct']} %, from its parts {f['estimated_cost_pct']} %)")
    figures["meta"] = {
        "rounds": rounds,
        "pairs_a_round": renders,
        "untimed_pairs_a_round": SWITCH_WARMUP,
        "seconds": round(time.perf_counter() - started, 1),
        "target_pct": TARGET_PCT,
        "tracing": "off",
        # MmapedValue: multiprocess mode, as under gunicorn; MutexValue: in memory
        "metric_values": values.ValueClass.__name__,
        "parts_us": parts,
        "worst_cost_pct": max(figures[p.name]["cost_pct"] for p in chosen),
    }
    return figures


def save(figures, out):
    """`observability` into out/results.json, the other keys of an earlier run kept."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / "results.json"
    results = json.loads(path.read_text()) if path.exists() else {}
    results["observability"] = figures
    path.write_text(json.dumps(results, indent=2) + "\n")
    return path


def run(products, *, rounds, renders, pages, out, table="bench-observability", log=print):
    """On the DynamoDB endpoint and settings this process has: a table of `products` generated
    products, the pages measured, the figures saved. Returns them."""
    from catalog.gateway.catalog import importer
    from catalog.gateway.schema import table_delete, table_ensure

    from .catalog_data import make_catalog
    from .pages import discover_ids
    from .run import use_table

    use_table(table)
    table_ensure(table)
    try:
        log(f"import {products:,} products into {table}")
        importer.import_catalog(make_catalog(products))
        figures = measure(discover_ids(log=log), rounds=rounds, renders=renders, pages=pages, log=log)
    finally:
        table_delete(table)
    figures["meta"]["products"] = products
    save(figures, out)
    return figures


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--products", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=40, help="alternating rounds (default 40)")
    parser.add_argument("--renders", type=int, default=25, help="timed renders of each a page a round (default 25)")
    parser.add_argument("--pages", default=",".join(DEFAULT_PAGES))
    parser.add_argument("--out", type=Path, default=ROOT / "var" / "bench")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)

    from tools import dynamodb_local

    from .load import collectstatic

    with open(args.out / "dynamodb-local-observability.log", "wb") as ddb_log, own_metrics_dir():
        process, url = dynamodb_local.start(log=ddb_log)
        try:
            os.environ.update({
                "DJANGO_SETTINGS_MODULE": "storefront.settings",
                "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
                "DYNAMODB_ENDPOINT_URL": url,
                "DATABASE_URL": f"sqlite:///{args.out / 'db.sqlite3'}",
                "DJANGO_LOG_LEVEL": "WARNING",
            })
            os.environ.pop("DJANGO_DEBUG", None)
            os.environ.pop("OTEL_EXPORTER_OTLP_ENDPOINT", None)  # tracing off
            os.environ.pop("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", None)
            collectstatic(dict(os.environ))
            import django

            django.setup()
            figures = run(args.products, rounds=args.rounds, renders=args.renders, pages=args.pages.split(","),
                          out=args.out)
        finally:
            dynamodb_local.stop(process)
    print(f"worst cost {figures['meta']['worst_cost_pct']} % (target under {TARGET_PCT} %); "
          f"{args.out / 'results.json'} (observability)")
    return 0


if __name__ == "__main__":  # python -m bench.observability (from the repository's root)
    sys.exit(main())
