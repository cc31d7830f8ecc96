"""Capacity model: `make capacity` (docs/scale.md).

Measures the consumed capacity of every operation (bench/capacity_ops.py) on a DynamoDB Local of its own, feeds
it into the traffic mixes (bench/capacity_model.py) and writes var/capacity/capacity.json and capacity.md.
`--costs var/capacity/capacity.json` re-runs the model on saved measurements (no DynamoDB).
"""

import argparse
import json
import secrets
import sys
import time
from pathlib import Path

from .run import ROOT, log, served_settings, use_table


def parse_args(argv=None):
    from bench.capacity_model import LIMITS, PRICES

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    add = parser.add_argument
    add("--mix", type=Path, default=ROOT / "bench" / "capacity_mixes.json", help="JSON file of named traffic mixes")
    add("--visits-per-s", type=float, help="override every mix's visits a second")
    add("--read-price", type=float, default=PRICES["read_per_million"],
        help=f"USD per million read request units ({PRICES['region']}, {PRICES['date']})")
    add("--write-price", type=float, default=PRICES["write_per_million"], help="USD per million write request units")
    add("--read-limit", type=float, default=LIMITS["R"], help="read units a second a partition")
    add("--write-limit", type=float, default=LIMITS["W"], help="write units a second a partition")
    add("--costs", type=Path, help="model only: per-operation costs from a saved capacity.json")
    add("--holds", type=int, default=0, metavar="SECONDS", help="STOCK_HOLD_SECONDS while measuring (0: holds off)")
    add("--out", type=Path, default=ROOT / "var" / "capacity", help="where the report goes")
    return parser.parse_args(argv)


def measure(log=log):
    """Per-operation costs on the current DynamoDB, in a table of their own."""
    from catalog.gateway.table import table_delete, table_ensure

    from .capacity_ops import measure_all

    table = f"capacity-{secrets.token_hex(4)}"
    use_table(table)
    table_ensure(table)
    try:
        return measure_all(log=log)
    finally:
        table_delete(table)


DESIGN = "this design (measured costs)"
ONE_BUCKET = "this design, a product in one stock bucket (measured costs)"


def run_model(costs, args):
    from .capacity_model import max_sales, model, per_line

    mixes = json.loads(args.mix.read_text())
    prices = {"read_per_million": args.read_price, "write_per_million": args.write_price}
    limits = {"R": args.read_limit, "W": args.write_limit}
    results = {}
    for name, mix in mixes.items():
        mix = dict(mix)
        title = mix.pop("title", name)
        if args.visits_per_s:
            mix["visits_per_s"] = args.visits_per_s
        results[name] = {"title": title, **model(costs, mix, prices, limits)}
    sales = {DESIGN: max_sales(costs, limits=limits),
             ONE_BUCKET: max_sales(costs, limits=limits, hot=False)}
    linearity = {family: per_line(costs, family)[2] for family in ("cart_view", "checkout_get", "checkout_post")}
    return results, sales, linearity


def assemble(meta, costs, args, mixes, sales, linearity):
    """capacity.json's content, the headline figures first: `limits` and `write_units`."""
    from .capacity_model import limits, write_units

    return {
        "meta": meta,
        "limits": limits(costs, limits={"R": args.read_limit, "W": args.write_limit}),
        "write_units": write_units(costs),
        "costs": costs, "linearity": linearity, "max_sales": sales, "mixes": mixes,
    }


def _u(x):
    return f"{x:,.2f}".rstrip("0").rstrip(".") if x else "0"


def markdown(results):
    """capacity.md: the headline figures, the highest sales rates and each mix's busiest partitions."""
    meta, w, lim = results["meta"], results["write_units"], results["limits"]
    out = ["# Capacity model", "", f"Measured {meta['date']} on DynamoDB Local; limits a partition: "
           f"{meta['limits']['read_units_per_s']:g} RRU/s, {meta['limits']['write_units_per_s']:g} WRU/s.", "",
           f"Write units: a checkout line {_u(w['checkout_line'])}, a staff adjustment {_u(w['staff_adjustment'])}. "
           f"Limits: one product {_u(lim['product_units_per_s'])} units sold a second, one brand "
           f"{_u(lim['brand_units_per_s'])}, one category {_u(lim['category_units_per_s'])}; the shop "
           f"{_u(lim['shop_orders_per_s'])} orders a second.", "", "| design | scope | sales/s | limited by |",
           "|---|---|---|---|"]
    out += [f"| {label} | {t} | {_u(s[t]['sales_per_s'])} | {s[t]['limited_by']} |"
            for label, s in results["max_sales"].items() for t in ("product", "brand", "category", "shop")]
    for name, m in results["mixes"].items():
        out += ["", f"## {m['title']} (`{name}`)", "", f"{m['read_units_per_s']:,} RRU/s, {m['write_units_per_s']:,} "
                f"WRU/s, ${m['monthly_on_demand']['total_usd']:,} a month on demand.", "",
                "| where | partition key | RRU/s | WRU/s | of the limit (reads / writes) |", "|---|---|---|---|---|"]
        for p in m["partitions"]:
            r = p["read_units_per_s"] / meta["limits"]["read_units_per_s"]
            wr = p["write_units_per_s"] / meta["limits"]["write_units_per_s"]
            out.append(f"| {p['where']} | {p['key']} | {_u(p['read_units_per_s'])} | {_u(p['write_units_per_s'])} | "
                       f"{r:.1%} / {wr:.1%}{' **OVER**' if p['over'] else ''} |")
    return "\n".join(out) + "\n"


def write(results, out_dir):
    (out_dir / "capacity.json").write_text(json.dumps(results, indent=2, default=str))
    (out_dir / "capacity.md").write_text(markdown(results))
    return results


def main(argv=None):
    args = parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    meta = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    if args.costs:
        saved = json.loads(args.costs.read_text())
        costs, meta = saved["costs"], {**saved["meta"], "remodelled": meta["date"]}
    else:
        # Orders without a card payment: the model counts DynamoDB's units, and Stripe's requests are not those.
        with served_settings(args.out, "capacity-", STOCK_HOLD_SECONDS=str(args.holds), SHOP_PAYMENTS="off"):
            log("measuring every operation (ReturnConsumedCapacity=INDEXES)")
            costs = measure()
        from .capacity_meter import schema_indexes

        meta["indexes"] = list(schema_indexes())
    mixes, sales, linearity = run_model(costs, args)
    meta.setdefault("stock_hold_seconds", args.holds)
    meta["seconds"] = round(time.perf_counter() - started, 1)
    meta["prices"] = {"read_per_million_usd": args.read_price, "write_per_million_usd": args.write_price}
    meta["limits"] = {"read_units_per_s": args.read_limit, "write_units_per_s": args.write_limit}
    results = write(assemble(meta, costs, args, mixes, sales, linearity), args.out)
    log(f"limits: {results['limits']}; write units: {results['write_units']}")
    log(f"report: {args.out / 'capacity.md'}, capacity.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
