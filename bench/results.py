"""results.json: the measurements, the ratios derived from them, our targets; results.md from it."""

import json
import statistics

# The pages of the overhead targets: browse, product, load more, sorted and search (the home page reads
# from the name cache).
TARGET_PAGES = ("brand", "brand_category", "category_brand", "load_more", "product", "brand_name", "brand_price",
                "brand_price_desc", "search")
TARGETS = {
    "render_overhead": 1.3,  # in-process render median / the page's DynamoDB requests alone (pyperf medians)
    "overhead": 1.6,  # page p50 over HTTP at concurrency 1 (wrk) / those requests alone
    "flatness": 1.1,  # brand page p50, largest / smallest catalog
    "requests_per_page": 1,  # DynamoDB requests a browse or product page makes (warm name cache)
    "errors": 0,  # non-2xx answers and socket errors under load
    "crowd_throughput": 0.8,  # checkouts of one product: orders/s with 32 and 128 buyers / with 1
}


def http_p50(results, size, page):
    """A page's p50 over HTTP at concurrency 1: the median of the flatness rounds, else the load point."""
    points = results.get("load_flatness", {}).get(str(size), {}).get(page)
    if points:
        return round(statistics.median(p["p50_ms"] for p in points), 3)
    point = results.get("load", {}).get(str(size), {}).get(page, {}).get("1")
    return point["p50_ms"] if point else None


def derive(results):
    """`overhead` and `flatness` from the pyperf medians and wrk's points."""
    sizes = results["meta"]["sizes"]
    largest, smallest = str(sizes[-1]), str(sizes[0])
    inproc = results["inproc"][largest]
    results["overhead"] = {}
    for name in (k.removeprefix("render_") for k in inproc if k.startswith("render_")):
        raw, render, page = inproc[f"raw_{name}"], inproc[f"render_{name}"], http_p50(results, largest, name)
        results["overhead"][name] = {
            "page_p50_ms": page, "render_ms": render, "raw_ms": raw,
            "ratio": round(page / raw, 3) if page else None, "render_ratio": round(render / raw, 3),
        }
    results["flatness"] = {}
    for name in results["overhead"] if largest != smallest else ():
        small, large = http_p50(results, smallest, name), http_p50(results, largest, name)
        if not (small and large) and smallest in results["inproc"]:  # no HTTP: the in-process renders
            small, large = results["inproc"][smallest][f"render_{name}"], inproc[f"render_{name}"]
        if small and large:
            results["flatness"][name] = {"small_p50_ms": small, "large_p50_ms": large, "ratio": round(large / small, 3)}
    return results


def _worst(overhead, key):
    values = [(v[key], k) for k, v in overhead.items() if k in TARGET_PAGES and v.get(key) is not None]
    return max(values) if values else None


def targets(results):
    """Our targets beside what was measured. Informative: nothing fails on them."""
    rows = []
    overhead = results.get("overhead", {})
    for key, target, label in (("render_ratio", "render_overhead", "in-process render / raw requests"),
                               ("ratio", "overhead", "HTTP page at concurrency 1 / raw requests")):
        worst = _worst(overhead, key)
        if worst:
            rows.append({"target": f"{label} <= {TARGETS[target]} (browse, product, load more, sorted, search)",
                         "measured": f"{worst[0]:.2f} at worst ({worst[1]})", "met": worst[0] <= TARGETS[target]})
    flatness = results.get("flatness", {}).get("brand")
    if flatness:
        rows.append({"target": f"flatness <= {TARGETS['flatness']} (brand page p50, largest / smallest catalog)",
                     "measured": f"{flatness['ratio']:.2f}", "met": flatness["ratio"] <= TARGETS["flatness"]})
    costs = results.get("costs", {})
    if costs:
        per_page = {p: costs[p]["warm"]["requests"] for p in TARGET_PAGES if p in costs}
        rows.append({"target": "one DynamoDB request per browse, product, sorted or search page",
                     "measured": ", ".join(f"{p} {n}" for p, n in per_page.items()),
                     "met": all(n == TARGETS["requests_per_page"] for n in per_page.values())})
    if results.get("load"):
        points = [p for pages in results["load"].values() for by_c in pages.values() for p in by_c.values()]
        points += [p for pages in results.get("load_flatness", {}).values() for ps in pages.values() for p in ps]
        errors = sum(p["errors"] for p in points)
        rows.append({"target": "zero errors under load", "measured": str(errors), "met": errors == TARGETS["errors"]})
    runs = results.get("contention", {}).get("checkout", {})
    if runs:
        rows.append({
            "target": "contention: every checkout run exact (sold out, a sale and an order a unit), no buyer told busy",
            "measured": "; ".join(f"{n} buyers: {'exact' if c['consistent'] else 'NOT exact'}, {c['stock_busy']} busy"
                                  for n, c in runs.items()),
            "met": all(c["consistent"] and c["stock_busy"] == 0 for c in runs.values()),
        })
        single, crowds = runs.get("1"), [n for n in ("32", "128") if n in runs]
        if single and crowds and single["successes_per_s"]:
            ratios = {n: runs[n]["successes_per_s"] / single["successes_per_s"] for n in crowds}
            rows.append({
                "target": f"contention: orders/s with {' and '.join(crowds)} buyers >= "
                          f"{TARGETS['crowd_throughput']} x with 1 buyer",
                "measured": f"1 buyer {single['successes_per_s']}/s; "
                            + ", ".join(f"{n} buyers {runs[n]['successes_per_s']}/s ({r:.2f} x)"
                                        for n, r in ratios.items()),
                "met": all(r >= TARGETS["crowd_throughput"] for r in ratios.values()),
            })
    return rows


def _table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(str(c) for c in row) + " |" for row in rows])


def markdown(results):
    meta = results["meta"]
    out = [f"# Storefront benchmark, {meta['date']}", "",
           f"Catalogs {meta['sizes']}; {meta['seconds']} s; load average {meta['load_average_after']}; "
           f"in-process: {meta['in_process']}; HTTP: {meta['load_generator'] or 'not measured'}. "
           "Every figure is in results.json.", "", "## Targets", "",
           _table(["target", "measured", "met"], [[t["target"], t["measured"], "yes" if t["met"] else "**no**"]
                                                 for t in results["targets"]]), "", "## Pages (largest catalog)", "",
           _table(["page", "DynamoDB requests", "raw ms", "render ms", "HTTP p50 ms", "render / raw", "HTTP / raw"],
                  [[p, results["costs"][p]["warm"]["requests"], o["raw_ms"], o["render_ms"], o["page_p50_ms"],
                    o["render_ratio"], o["ratio"]] for p, o in results["overhead"].items()])]
    runs = results.get("contention", {})
    if runs:
        out += ["", "## One product, many buyers", "",
                _table(["buyer", "buyers", "successes/s", "p99 ms", "busy", "exact"],
                       [[b, n, c["successes_per_s"], c["p99_ms"], c["stock_busy"], c["consistent"]]
                        for b, by_n in runs.items() for n, c in by_n.items()])]
    if results.get("checkout_http"):
        out += ["", "## A checkout over HTTP (one buyer after another)", "", _table(
            ["payment", "orders", "p50 ms", "p99 ms", "DynamoDB requests", "Stripe requests"],
            [[m, c["orders"], c["p50_ms"], c["p99_ms"], c["dynamodb_requests"], c["stripe_requests"]]
             for m, c in results["checkout_http"].items()])]
    if "stalls" in results:
        out += ["", stalls_text(results["stalls"])]
    return "\n".join(out) + "\n"


def stalls_text(s):
    """The stall probe's line (bench/stalls.py: a GetItem every 100 ms beside the load points)."""
    if not s["started"]:
        return "Stall probe: it did not start; see stalls.log."
    return (f"Stall probe (stalls.log): {s['slow_reads']} reads over 100 ms (longest {s['longest_read_ms']:.0f} ms) "
            f"and {s['failed_reads']} failed, of {s['reads']}; the probe woke more than 50 ms late "
            f"{s['late_wakes']} times" + (" (it stopped early: the counts are partial)." if s.get("exit_code")
                                          is not None else "."))


def write(results, out_dir):
    derive(results)
    results["targets"] = targets(results)
    (out_dir / "results.json").write_text(json.dumps(results, indent=1))
    (out_dir / "results.md").write_text(markdown(results))
    return results
