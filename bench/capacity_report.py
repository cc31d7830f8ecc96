"""var/capacity/: capacity.json (everything), capacity.md (the tables) and flash_sale.png (the chart)."""

import json

from .capacity_ops import totals


def _u(x):
    return f"{x:,.2f}".rstrip("0").rstrip(".") if x else "0"


def markdown(results):
    meta = results["meta"]
    out = [
        "# Capacity model",
        "",
        f"Measured {meta['date']} on DynamoDB Local; indexes: {', '.join(meta.get('indexes', []))}. "
        f"Limits a partition: {meta['limits']['read_units_per_s']:g} read and "
        f"{meta['limits']['write_units_per_s']:g} write units a second. Prices (on-demand, USD a million units): "
        f"read {meta['prices']['read_per_million_usd']}, write {meta['prices']['write_per_million_usd']}.",
        "",
        "## Measured cost of each operation",
        "",
        "Request units: read (RRU) and write (WRU), by the meter's per-item measurement (transactional "
        "writes twice); `Local said` is DynamoDB Local's own total for the request(s), which is wrong for "
        "transactions: it does not grow with the items written (16 for an order of 1, 2 or 5 lines).",
        "",
        "| operation | per | requests | RRU | WRU | Local said (RRU / WRU) | written: table items / index entries |",
        "|---|---|---|---|---|---|---|",
    ]
    if "write_units" in results:
        w, lim = results["write_units"], results["limits"]
        out[-3:-3] = [
            "",
            f"Write units: a checkout line {_u(w['checkout_line'])}, a staff adjustment {_u(w['staff_adjustment'])}. "
            f"Limits: one product {_u(lim['product_units_per_s'] or 0)} units sold a second, one brand "
            f"{_u(lim['brand_units_per_s'] or 0)}, one category {_u(lim['category_units_per_s'] or 0)}; the shop "
            f"{_u(lim['shop_orders_per_s'] or 0)} orders a second.",
        ]
    for name, c in results["costs"].items():
        t = totals(c["charges"])
        said_r = sum(v["R"] for v in c["reported"].values())
        said_w = sum(v["W"] for v in c["reported"].values())
        items = c.get("items", {})
        written = " / ".join([_u(items.get("table", 0))] + [f"{k} {_u(v)}" for k, v in items.items() if k != "table"])
        requests = ", ".join(f"{k} {v}" for k, v in c["requests"].items()) or "none"
        out.append(f"| {name} | {c['per']} | {requests} | {_u(t['R'])} | {_u(t['W'])} | {_u(said_r)} / {_u(said_w)} "
                   f"| {written if items else ''} |")
    out += ["", "Per partition role (where | role | item | R/W: units):", ""]
    for name in ("product", "brand", "checkout_post_1", "checkout_post_5", "band_change_checkout",
                 "relative_sale_line", "staff_adjustment"):
        if name in results["costs"]:
            parts = ", ".join(f"`{k}` {_u(v)}" for k, v in results["costs"][name]["charges"].items())
            out.append(f"- {name}: {parts}")
    out += ["", "Linearity of the order-sized operations (largest error of the fit on 1 and 5 lines, units): "
            + ", ".join(f"{f} {errors}" for f, errors in results["linearity"].items()), ""]

    out += ["## Highest sales rate the design allows", "",
            "One unit sold = a one-line order of quantity 1 through the whole funnel (add to cart, cart, checkout "
            "page, checkout, order page). One brand = its sales spread over its many products.", "",
            "| design | one product, sales/s | limited by | one brand, sales/s | limited by | one category, sales/s "
            "| limited by | the shop, orders/s | limited by |", "|---|---|---|---|---|---|---|---|---|"]
    for label, s in results["max_sales"].items():
        out.append(f"| {label} | " + " | ".join(
            f"{_u(s[t]['sales_per_s'] or 0)} | {s[t]['limited_by']}" for t in ("product", "brand", "category", "shop")
        ) + " |")

    for name, m in results["mixes"].items():
        mix = m["mix"]
        focus = mix.get("focus")
        out += [
            "", f"## Mix: {m['title']} (`{name}`)", "",
            f"{mix['visits_per_s']:,} visits/s x {mix['pages_per_visit']} pages = {m['pages_per_s']:,} pages/s; "
            f"conversion {mix['conversion']:.0%}: {m['orders_per_s']:,} orders/s of {mix['lines_per_order']} lines; "
            f"Zipf s {mix['zipf_s']} over {mix['products']:,} products, {mix['brands']} brands, "
            f"{mix['categories']} categories"
            + (f"; {focus['share']:.0%} of product views and lines on one {focus['kind']}" if focus else "") + ".",
            "",
            f"Total {m['read_units_per_s']:,} RRU/s and {m['write_units_per_s']:,} WRU/s; on demand "
            f"${m['monthly_on_demand']['total_usd']:,} a month (reads ${m['monthly_on_demand']['reads_usd']:,}, "
            f"writes ${m['monthly_on_demand']['writes_usd']:,}).",
            "",
            "| where | partition key | RRU/s | WRU/s | of the limit (reads / writes) |",
            "|---|---|---|---|---|",
        ]
        for p in m["partitions"]:
            flag = " **OVER**" if p["over"] else ""
            r = p["read_units_per_s"] / meta["limits"]["read_units_per_s"]
            w = p["write_units_per_s"] / meta["limits"]["write_units_per_s"]
            out.append(f"| {p['where']} | {p['key']} | {_u(p['read_units_per_s'])} | {_u(p['write_units_per_s'])} | "
                       f"{r:.1%} / {w:.1%}{flag} |")
    return "\n".join(out) + "\n"


def chart(results, path, mix="flash_sale"):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    m = results["mixes"].get(mix)
    if m is None:
        return None
    limits = results["meta"]["limits"]
    parts = [p for p in m["partitions"] if p["read_units_per_s"] or p["write_units_per_s"]]
    parts = sorted(parts, key=lambda p: p["utilisation"])[-14:]
    labels = [f"{p['where']} {p['key']}" for p in parts]
    reads = [100 * p["read_units_per_s"] / limits["read_units_per_s"] for p in parts]
    writes = [100 * p["write_units_per_s"] / limits["write_units_per_s"] for p in parts]
    fig, ax = plt.subplots(figsize=(10, 0.45 * len(parts) + 1.8))
    y = range(len(parts))
    ax.barh([i + 0.2 for i in y], reads, height=0.4, label=f"reads, % of {limits['read_units_per_s']:g} RRU/s")
    ax.barh([i - 0.2 for i in y], writes, height=0.4, label=f"writes, % of {limits['write_units_per_s']:g} WRU/s")
    ax.axvline(100, color="red", linestyle="--", label="partition limit")
    ax.set_yticks(list(y), labels)
    ax.set_xscale("symlog", linthresh=1)
    ax.set_xlabel("load, % of the per-partition limit (log scale)")
    ax.set_title(f"Partition load against the limit: {m['title']} ({m['mix']['visits_per_s']:,} visits/s)")
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def write(results, out_dir, with_chart=True):
    (out_dir / "capacity.json").write_text(json.dumps(results, indent=2, default=str))
    (out_dir / "capacity.md").write_text(markdown(results))
    if with_chart:
        chart(results, out_dir / "flash_sale.png")
    return results
