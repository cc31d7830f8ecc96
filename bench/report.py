"""results.json -> targets, results.md and a chart."""

import json

BROWSE_PAGES = ("brand", "brand_category", "category_brand", "load_more", "product")
# The pages of the overhead targets (issue 17): browse, product, load more, sorted and search.
TARGET_PAGES = (*BROWSE_PAGES, "brand_name", "brand_price", "brand_price_desc", "search")

TARGETS = {
    "render_overhead": 1.3,  # in-process render p50 / the raw DynamoDB request's p50 (boto3)
    # page p50 over HTTP at concurrency 1 / the raw DynamoDB request's p50 (boto3), timed beside the HTTP points
    "overhead": 1.6,
    "flatness": 1.1,  # brand page p50, largest / smallest catalog
    "requests_per_page": 1,  # DynamoDB requests per browse or product page (warm name cache)
    "errors": 0,  # non-2xx answers and socket errors under load
    "metrics_cost_pct": 3.0,  # metrics on against off, tracing off: % of the page's p50 (issue 35)
    # checkouts on one product (issue 32): orders a second with many buyers / with one buyer, in the same run
    "crowd_throughput": 0.8,
}


def _worst(overhead, key):
    values = [(v[key], k) for k, v in overhead.items() if k in TARGET_PAGES and v.get(key) is not None]
    return max(values) if values else None


def _stalls_text(stalls):
    if not stalls.get("started", True):
        return "Stalls: the probe (bench/stalls.py) did not start; see stalls.log."
    text = (
        "Stalls (bench/stalls.py, a GetItem every 100 ms on the largest catalog while the pages were loaded; "
        f"stalls.log): {stalls['slow_reads']} reads over 100 ms (longest {stalls['longest_read_ms']:.0f} ms) and "
        f"{stalls['failed_reads']} failed"
        + (f", of {stalls['reads']:,}" if stalls.get("reads") else "")
        + f"; the probe woke more than 50 ms late {stalls['late_wakes']} times (longest "
        f"{stalls['longest_late_ms']:.0f} ms: the host not running it)."
    )
    if stalls.get("exit_code") is not None:
        text += (
            f" The probe stopped before the load points ended (exit code {stalls['exit_code']}): "
            "the counts are partial."
        )
    return text


def targets(results):
    """Our targets beside what was measured. Informative: nothing fails on them."""
    rows = []
    overhead = results.get("overhead", {})
    if overhead:
        worst, floor = _worst(overhead, "render_ratio"), _worst(overhead, "render_floor_ratio")
        rows.append(
            {
                "target": f"in-process render / raw request <= {TARGETS['render_overhead']} "
                "(browse, product, load more, sorted, search pages)",
                "measured": f"{worst[0]:.2f} at worst ({worst[1]}); brand {overhead['brand']['render_ratio']:.2f}"
                + (f"; over the floor {floor[0]:.2f} at worst ({floor[1]})" if floor else ""),
                "met": worst[0] <= TARGETS["render_overhead"],
            }
        )
        worst, floor = _worst(overhead, "ratio"), _worst(overhead, "floor_ratio")
        if worst:
            rows.append(
                {
                    "target": f"HTTP page / raw request <= {TARGETS['overhead']} at concurrency 1 (same pages)",
                    "measured": f"{worst[0]:.2f} at worst ({worst[1]}); brand {overhead['brand']['ratio']:.2f}"
                    + (f"; over the floor {floor[0]:.2f} at worst ({floor[1]})" if floor else ""),
                    "met": worst[0] <= TARGETS["overhead"],
                }
            )
    flatness = results.get("flatness", {}).get("brand")
    if flatness:
        rows.append(
            {
                "target": f"flatness ratio <= {TARGETS['flatness']} (brand page p50, largest / smallest catalog)",
                "measured": f"{flatness['ratio']:.2f}"
                + (f" (rounds {min(flatness['round_ratios']):.2f}-{max(flatness['round_ratios']):.2f})"
                   if flatness.get("round_ratios") else ""),
                "met": flatness["ratio"] <= TARGETS["flatness"],
            }
        )
    costs = results.get("costs", {})
    if costs:
        per_page = {p: costs[p]["warm"]["requests"] for p in TARGET_PAGES if p in costs}
        rows.append(
            {
                "target": "one DynamoDB request per browse, product, sorted or search page",
                "measured": ", ".join(f"{p} {n}" for p, n in per_page.items()),
                "met": all(n == TARGETS["requests_per_page"] for n in per_page.values()),
            }
        )
    load = results.get("load", {})
    if load:
        errors = sum(
            point["errors"] for pages in load.values() for points in pages.values() for point in points.values()
        )
        errors += sum(
            p["errors"]
            for pages in results.get("load_flatness", {}).values()
            for points in pages.values()
            for p in points
        )
        rows.append({"target": "zero errors under load", "measured": str(errors), "met": errors == TARGETS["errors"]})
    observability = _observed_pages(results)
    if observability:
        worst = max((f["cost_pct"], page) for page, f in observability.items())
        rows.append(
            {
                "target": f"metrics on (tracing off) cost < {TARGETS['metrics_cost_pct']:g}% of a page's p50 "
                "(in-process, pairs of renders)",
                "measured": f"{worst[0]:+.1f}% at worst ({worst[1]}); from its parts "
                f"{max(f['estimated_cost_pct'] for f in observability.values()):.1f}% at most",
                "met": worst[0] < TARGETS["metrics_cost_pct"],
            }
        )
    rows += _contention_targets(results.get("contention", {}).get("checkout", {}))
    return rows


def _contention_targets(runs):
    """Issue 32's: checkouts of one product exact and never "busy", and as many orders a second with
    32 and 128 buyers as 0.8 times with one."""
    if not runs:
        return []
    rows = [{
        "target": "contention: every checkout run exact (sold out, a sale and an order a unit), no buyer told busy",
        "measured": "; ".join(f"{n} buyers: {'exact' if c['consistent'] else 'NOT exact'}, {c['stock_busy']} busy"
                              for n, c in runs.items()),
        "met": all(c["consistent"] and c["stock_busy"] == 0 for c in runs.values()),
    }]
    single, crowds = runs.get("1"), [n for n in ("32", "128") if n in runs]
    if single and crowds and single["successes_per_s"]:
        ratios = {n: runs[n]["successes_per_s"] / single["successes_per_s"] for n in crowds}
        rows.append({
            "target": f"contention: orders/s with {' and '.join(crowds)} buyers >= "
            f"{TARGETS['crowd_throughput']} x with 1 buyer",
            "measured": f"1 buyer {single['successes_per_s']}/s; "
            + ", ".join(f"{n} buyers {runs[n]['successes_per_s']}/s ({r:.2f} x)" for n, r in ratios.items()),
            "met": all(r >= TARGETS["crowd_throughput"] for r in ratios.values()),
        })
    return rows


def _observed_pages(results):
    """bench/observability.py's figures by page (its "meta" left out)."""
    return {page: f for page, f in results.get("observability", {}).items() if page != "meta"}


def _table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def markdown(results):
    meta = results["meta"]
    out = [
        f"# Storefront benchmark, {meta['date']}",
        "",
        f"{meta['machine']}; load average before: {meta['load_average_before']}. "
        f"gunicorn {meta['gunicorn']['worker_class']} {meta['gunicorn']['workers']} workers × "
        f"{meta['gunicorn']['threads']} threads"
        f"{', heartbeat in ' + meta['gunicorn']['worker_tmp_dir'] if meta['gunicorn'].get('worker_tmp_dir') else ''}; "
        f"DynamoDB Local ({meta['dynamodb_local']}{'; TTL ' + meta['ttl'] if meta.get('ttl') else ''}); "
        f"{'quick run' if meta['quick'] else 'full run'}, {meta['duration_s']} s a load point.",
        "",
        "## Targets",
        "",
        _table(
            ["target", "measured", "met"],
            [[t["target"], t["measured"], "yes" if t["met"] else "**no**"] for t in results["targets"]],
        ),
        "",
        "## Import (the project's bulk path: validate, BatchGetItem for existing IDs, BatchWriteItem)",
        "",
    ]
    rows = []
    for size, imp in results["import"].items():
        rows.append(
            [
                size,
                imp["seconds"],
                imp["items_per_s"],
                ", ".join(f"{n} {op}" for op, n in imp["requests"].items()),
                imp["write_units"],
            ]
        )
    base = results.get("import_baseline")
    if base:
        rows.append(
            [
                f"{base['products']} (one PutItem each)",
                base["seconds"],
                base["items_per_s"],
                f"{base['requests']} PutItem",
                base["write_units"],
            ]
        )
    out += [_table(["products", "seconds", "items/s", "requests", "write units"], rows), ""]

    if results.get("load"):
        out += ["## Pages under load (wrk, keep-alive connections)", ""]
        rows = []
        for size, pages in results["load"].items():
            for page, points in pages.items():
                for conc, p in points.items():
                    rows.append([size, page, conc, p["rps"], p["p50_ms"], p["p95_ms"], p["p99_ms"], p["errors"]])
        out += [_table(["products", "page", "concurrency", "req/s", "p50 ms", "p95 ms", "p99 ms", "errors"], rows), ""]
        stalls = results.get("stalls")
        if stalls:
            out += [_stalls_text(stalls), ""]
        from .flows import NOTES

        flows = [flow for flow in NOTES if any(flow in pages for pages in results["load"].values())]
        if flows:
            out += [
                "POST flows: one wrk connection a signed-in user, each with its own session and product. "
                + "; ".join(f"{flow}: {NOTES[flow]}" for flow in flows)
                + ". Errors: 4xx/5xx answers, and checkouts not sent on to their order page.",
                "",
            ]

    out += ["## Overhead over the raw DynamoDB request (largest catalog, concurrency 1)", ""]
    rows = []
    for page, o in results["overhead"].items():
        rows.append(
            [
                page,
                o["raw_p50_ms"],
                o.get("floor_p50_ms") or "-",
                o["render_p50_ms"],
                f"{o['render_ratio']:.2f}",
                f"{o['render_floor_ratio']:.2f}" if o.get("render_floor_ratio") else "-",
                o["page_p50_ms"] if o["page_p50_ms"] is not None else "-",
                o.get("http_raw_p50_ms") or "-",
                o.get("http_floor_p50_ms") or "-",
                f"{o['ratio']:.2f}" if o["ratio"] is not None else "-",
                f"{o['ratio_to_in_process_raw']:.2f}" if o.get("ratio_to_in_process_raw") is not None else "-",
                f"{o['floor_ratio']:.2f}" if o.get("floor_ratio") else "-",
                o.get("load_point_p50_ms") or "-",
                "; ".join(o["raw_requests"]),
            ]
        )
    out += [
        _table(
            [
                "page",
                "raw p50 ms",
                "floor p50 ms",
                "in-process p50 ms",
                "ratio in-process",
                "over the floor in-process",
                "HTTP p50 ms",
                "raw p50 ms beside HTTP",
                "floor p50 ms beside HTTP",
                "ratio",
                "ratio to the in-process raw",
                "over the floor",
                "HTTP p50 ms, load point",
                "raw request",
            ],
            rows,
        ),
        "",
    ]
    alternation = results["meta"].get("alternation")
    runs = (
        f"{alternation['runs']} runs of each a page a round, the first {alternation['untimed_after_switch']} of each "
        "run untimed" if alternation else "runs of each a page a round"
    )
    out += [
        "Raw: the page's own DynamoDB requests (recorded while it rendered) sent alone with boto3. "
        "Floor: the same requests signed by botocore's SigV4Auth and sent on its URLLib3Session, "
        "without the client's pipeline. "
        "In-process: the page rendered by the Django test client (Django, templates, the request), "
        f"timed in alternation with the raw requests and the floor ({runs}). "
        "HTTP: wrk against gunicorn at concurrency 1, the median of the flatness rounds (the ratio "
        "uses it); the raw request and the floor beside it are timed right after each of those "
        "points, the median of the rounds (a run without them, \"-\", divides by the in-process raw); "
        "the ratio to the in-process raw divides by the raw figure of the first columns instead. "
        "The load point is the single longer run of the table above. The home page makes "
        "no request while the name cache is warm; its raw figure is the Query PK=BRANDS of a cold cache.",
        "",
    ]

    cpu_rows = [
        [page, o["render_cpu_ms"], o["http_cpu_ms"], f"{o['cpu_ratio']:.2f}",
         round(o["page_p50_ms"] - o["render_p50_ms"], 3) if o["page_p50_ms"] is not None else "-"]
        for page, o in results["overhead"].items()
        if o.get("cpu_ratio")
    ]
    if cpu_rows:
        out += [
            "### CPU a page: in the bench's process and in gunicorn (largest catalog, means)",
            "",
            _table(["page", "in-process CPU ms", "gunicorn CPU ms, HTTP", "ratio", "HTTP p50 - in-process p50, ms"],
                   cpu_rows),
            "",
            "In-process: the CPU time of the bench's thread a render (the timed renders above). gunicorn: the "
            "CPU time its workers (every thread) used during each flatness point at concurrency 1, a request, "
            "the median of the rounds. The difference is gunicorn's own work (reading and parsing the "
            "request, handing it between its threads, writing the answer, the access log) and the same "
            "Python code running slower in a server that waits between requests than in a tight loop. "
            "CPU time of DynamoDB Local and wrk is in neither.",
            "",
        ]

    if results.get("flatness"):
        out += ["## Flatness: the same page on the largest and the smallest catalog (p50, concurrency 1)", ""]
        rows = [
            [
                p,
                f["small_p50_ms"],
                f["large_p50_ms"],
                f"{f['ratio']:.2f}",
                f"{f['render_ratio']:.2f}",
                f"{f['raw_ratio']:.2f}",
            ]
            for p, f in results["flatness"].items()
        ]
        sizes = results["meta"]["sizes"]
        out += [
            _table(
                [
                    "page",
                    f"{sizes[0]} products ms",
                    f"{sizes[-1]} products ms",
                    "ratio",
                    "ratio in-process",
                    "ratio raw request",
                ],
                rows,
            ),
            "",
        ]
        if results.get("load_flatness"):
            out += [
                f"Over HTTP: the median of {results['meta']['flat_rounds']} alternating rounds of "
                f"{results['meta']['flat_duration_s']} s a catalog. In-process: Django test client renders. "
                "Raw: the DynamoDB request alone.",
                "",
            ]

    out += ["## DynamoDB requests and consumed capacity per page (in-process render)", ""]
    rows = []
    for page, c in results["costs"].items():
        warm, cold = c["warm"], c["cold"]
        rows.append(
            [
                page,
                warm["requests"],
                warm["read_units"],
                cold["requests"],
                cold["read_units"],
                ", ".join(f"{n} {op}" for op, n in cold["operations"].items()),
            ]
        )
    out += [
        _table(
            [
                "page",
                "requests (warm)",
                "read units (warm)",
                "requests (cold cache)",
                "read units (cold)",
                "operations (cold)",
            ],
            rows,
        ),
        "",
    ]

    if results.get("receive"):
        r = results["receive"]
        out += [
            f"## Bulk receiving: {r['lines']} CSV lines over {r['products']} products",
            "",
            "| run | seconds (validation) | lines/s | received | replayed | DynamoDB requests | requests a line |",
            "|---|---|---|---|---|---|---|",
        ]
        for name in ("first", "again"):
            f = r[name]
            ops = ", ".join(f"{op} {n}" for op, n in sorted(f["requests"].items()))
            out.append(f"| {name} | {f['seconds']} ({f['validate_seconds']}) | {f['lines_per_s']} | {f['applied']} | "
                       f"{f['replayed']} | {ops} | {f['requests_per_line']} |")
        out += ["", f"Levels exact after both runs: {'yes' if r['exact'] else '**NO**'}", ""]
    observability = _observed_pages(results)
    if observability:
        m = results["observability"]["meta"]
        out += [
            "## What metrics cost a page (tracing off; bench/observability.py)",
            "",
            f"In-process renders, metrics on and off in {m['rounds']} rounds of {m['pairs_a_round']} pairs of renders "
            f"a page ({m['metric_values']}); cost: the median of the pairs' differences over the p50 off. "
            f"From its parts: {m['parts_us']['request_us']} µs a request (the metrics middleware), "
            f"{m['parts_us']['dynamodb_request_us']} µs a DynamoDB request (the gateway's).",
            "",
            _table(
                ["page", "p50 off ms", "p50 on ms", "cost", "p50 on / off", "CPU cost", "DynamoDB requests",
                 "from its parts"],
                [[page, f["p50_ms_off"], f["p50_ms_on"], f"{f['cost_pct']:+.1f}%", f"{f['p50_cost_pct']:+.1f}%",
                  f"{f['cpu_cost_pct']:+.1f}%", f["dynamodb_requests"], f"{f['estimated_cost_pct']:.1f}%"]
                 for page, f in observability.items()],
            ),
            "",
        ]
    if not results.get("contention"):  # a run of the pages only (bench/run.py --pages-only)
        return "\n".join(out)
    out += [
        "## Contention: buyers taking 1 each from one product until it runs out",
        "",
        "checkout: each buyer places orders of 1 (`order_place`, one transaction a try); stock_decrease: the "
        "gateway's stock write alone. Inside: the buyers in the shop at once (the server's threads; the others "
        "wait). Until sold out: orders a second until the last unit sold, before the other buyers' \"sold out\" "
        "answers. Retries: transactions refused because another buyer changed the stock first. "
        "p50/p99: each buyer's time to an order, \"busy\" answers and pressing again included. History items: "
        "the sales in the product's stock history (its opening change aside).",
        "",
    ]
    rows = []
    for buyer, by_count in results["contention"].items():
        for n, c in by_count.items():
            rows.append(
                [
                    buyer,
                    n,
                    c.get("server_threads", "—"),
                    c["start_stock"],
                    c["successes"],
                    c["successes_per_s"],
                    c.get("successes_per_s_until_sold_out") or "—",
                    "—" if c.get("p50_ms") is None else c["p50_ms"],
                    "—" if c.get("p99_ms") is None else c["p99_ms"],
                    c["transactions"],
                    c["retries"],
                    c["stock_busy"],
                    c["final_stock"],
                    c["history_items"],
                    "—" if c.get("orders") is None else c["orders"],
                    "yes" if c["consistent"] else "**NO**",
                ]
            )
    out += [
        _table(
            [
                "buyer",
                "buyers",
                "inside",
                "start",
                "successes",
                "successes/s",
                "until sold out /s",
                "p50 ms",
                "p99 ms",
                "TransactWriteItems",
                "retries",
                "StockBusy",
                "final stock",
                "history items",
                "orders",
                "exact",
            ],
            rows,
        ),
        "",
    ]
    return "\n".join(out)


def chart(results, path):
    """Latency by page type and concurrency, and the flatness comparison. Needs matplotlib."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = results["meta"]["sizes"]
    largest = str(sizes[-1])
    load = results.get("load", {}).get(largest, {})
    source = "wrk over HTTP"
    if not load:  # --no-load: the in-process renders, as concurrency 1
        load = {page: {"1": figures} for page, figures in results["render"][largest].items()}
        source = "in-process renders, no HTTP"
    fig, (left, right) = plt.subplots(1, 2, figsize=(14, 5.5), gridspec_kw={"width_ratios": [3, 2]})
    pages = list(load)
    concurrencies = sorted({int(c) for points in load.values() for c in points})
    width = 0.8 / max(1, len(concurrencies))
    for i, conc in enumerate(concurrencies):
        xs = [j + (i - (len(concurrencies) - 1) / 2) * width for j in range(len(pages))]
        p50 = [load[p].get(str(conc), {}).get("p50_ms", 0) for p in pages]
        p99 = [load[p].get(str(conc), {}).get("p99_ms", 0) for p in pages]
        bars = left.bar(xs, p50, width, label=f"p50, {conc} concurrent")
        left.scatter(
            xs, p99, marker="_", s=200, color=bars.patches[0].get_facecolor(), zorder=3, label=f"p99, {conc} concurrent"
        )
    left.set_xticks(range(len(pages)), pages, rotation=20)
    left.set_ylabel("latency, ms (log scale)")
    left.set_yscale("log")
    left.set_title(f"Page latency, {int(largest):,} products ({source})")
    left.set_ylim(top=left.get_ylim()[1] * 6)
    left.legend(fontsize=8, ncol=3, loc="upper left")
    left.grid(axis="y", alpha=0.3)

    flat = results.get("flatness", {})
    fpages = list(flat)
    raw = results.get("raw", {})
    xs = range(len(fpages))
    right.bar(
        [x - 0.3 for x in xs], [flat[p]["small_p50_ms"] for p in fpages], 0.3, label=f"page, {int(sizes[0]):,} products"
    )
    right.bar(list(xs), [flat[p]["large_p50_ms"] for p in fpages], 0.3, label=f"page, {int(largest):,} products")
    right.bar(
        [x + 0.3 for x in xs],
        [raw.get(largest, {}).get(p, {}).get("p50_ms", 0) for p in fpages],
        0.3,
        label=f"raw DynamoDB request, {int(largest):,}",
    )
    for x, p in zip(xs, fpages):
        right.annotate(f"×{flat[p]['ratio']:.2f}", (x, flat[p]["large_p50_ms"]), ha="center", va="bottom", fontsize=8)
    right.set_xticks(list(xs), fpages, rotation=20)
    right.set_ylabel("p50 latency, ms (concurrency 1)")
    right.set_title("Flatness: small vs large catalog (×: large / small)")
    right.set_ylim(top=right.get_ylim()[1] * 1.3)
    right.legend(fontsize=8, loc="upper left")
    right.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write(results, out_dir, *, with_chart=True):
    out_dir.mkdir(parents=True, exist_ok=True)
    results["targets"] = targets(results)
    (out_dir / "results.json").write_text(json.dumps(results, indent=2, default=str) + "\n")
    (out_dir / "results.md").write_text(markdown(results) + "\n")
    if with_chart:
        try:
            chart(results, out_dir / "results.png")
        except ImportError:
            print("matplotlib is missing (pip install -r requirements-bench.txt): no chart")
    return results
