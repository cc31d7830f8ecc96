"""The traffic model: measured per-operation costs (bench/capacity_ops.py) times a traffic mix
(bench/capacity_mixes.json); docs/scale.md explains it."""

import math

from catalog.gateway import keys

LIMITS = {"R": 3000.0, "W": 1000.0}  # DynamoDB's per-partition throughput, units a second
SECONDS_A_MONTH = 730 * 3600
FUNNEL = ("cart_view", "checkout_get", "checkout_post")
HOT_BUCKETS = 10  # the stock buckets of the hot product `make capacity` measures
# A product's own keys: its item and history, its stock buckets, its Buyers shards, its holds' partitions.
PER_LINE_ROLES = {"product", "bucket", "buyers", "holds", "brand", "category"}
# Per-product roles spread evenly over that many keys of the product.
PRODUCT_SHARDS = {"bucket": HOT_BUCKETS, "buyers": keys.BUYER_SHARDS, "holds": keys.HOLD_KEY_SHARDS}
# A buyer's own partition; an order number's claim (a partition per order); history under a sharded key.
SPREAD_ROLES = {"customer", "order", "history"}
# Roles whose load is spread evenly over a fixed number of keys.
SHARDED_ROLES = {"ledger": keys.LEDGER_SHARDS, "open_orders": keys.OPEN_ORDER_SHARDS, "hold_expiry": keys.HOLD_SHARDS}

# On-demand list prices, us-east-1, USD (aws.amazon.com/dynamodb/pricing/on-demand/); other regions cost more.
PRICES = {"read_per_million": 0.125, "write_per_million": 0.625, "date": "2024-11-01 (checked 2026-11-23)",
          "region": "us-east-1"}

DEFAULTS = {
    "visits_per_s": 20,
    "pages_per_visit": 6,
    "page_mix": {"home": 0.15, "brand": 0.2, "brand_category": 0.05, "category": 0.1, "category_brand": 0.05,
                 "product": 0.35, "load_more": 0.1},
    "conversion": 0.03,
    "lines_per_order": 2,
    "zipf_s": 1.0,
    "products": 100_000,
    "brands": 50,
    "categories": 20,
    "focus": None,
    "staff_adjustments_per_s": 0.1,
    "app_processes": 8,
    "names_ttl_s": 60,
    "hot_product_ttl_s": 1,  # HOT_PRODUCT_CACHE_SECONDS: each process reads a spread product this often (0: never kept)
    "customer_orders_per_s": 1 / 60,
    "stock_per_product": 1000,
    "low_stock_threshold": 5,  # LOW_STOCK_THRESHOLD: the stock bands a product passes on its way to sold out
}


def _parse(charges):
    """{(where, role, kind, rw): units} of capacity_ops' "where|role|kind|rw" keys."""
    return {tuple(key.split("|")): units for key, units in charges.items()}


def _of(costs, name):
    return _parse(costs[name]["charges"])


def _add(target, charges, times=1.0):
    for k, v in charges.items():
        target[k] = target.get(k, 0.0) + v * times
    return target


def _by_role(charges):
    """{(where, role, rw): units}: the item kinds added up."""
    out = {}
    for (where, role, _kind, rw), units in charges.items():
        out[(where, role, rw)] = out.get((where, role, rw), 0.0) + units
    return out


def _writes(charges):
    return sum(v for k, v in charges.items() if k[3] == "W")


def per_line(costs, family):
    """(fixed, per line) of an order-sized operation family, fitted on its 1- and 5-line measurements:
    {(where, role, kind, rw): units} each. Also the 2-line prediction error (linearity check)."""
    measured = {int(name.rsplit("_", 1)[1]): _parse(c["charges"])
                for name, c in costs.items() if name.startswith(family + "_")}
    lo, hi = min(measured), max(measured)
    keys = set(measured[lo]) | set(measured[hi])
    line = {k: (measured[hi].get(k, 0) - measured[lo].get(k, 0)) / (hi - lo) for k in keys}
    fixed = {k: measured[lo].get(k, 0) - lo * line[k] for k in keys}
    errors = {}
    for n, m in measured.items():
        predicted = {k: fixed.get(k, 0) + n * line.get(k, 0) for k in keys | set(m)}
        errors[n] = round(max((abs(predicted[k] - m.get(k, 0)) for k in predicted), default=0), 6)
    return ({k: v for k, v in fixed.items() if abs(v) > 1e-9}, {k: v for k, v in line.items() if abs(v) > 1e-9},
            errors)


def order_costs(costs, lines_per_order):
    """One order's funnel: add to cart a line each, the cart, the checkout page, the checkout, the
    order page. Returns (per-line charges, fixed charges), {(where, role, kind, rw): units}."""
    line, fixed = _add({}, _of(costs, "add_to_cart")), {}
    for family in FUNNEL:
        f, per, _ = per_line(costs, family)
        _add(fixed, f)
        _add(line, per)
    _add(fixed, _of(costs, "order_detail"))
    # A line's own partitions (product, brand, category) stay per line; the rest is the order's.
    for k in [k for k in line if k[1] not in PER_LINE_ROLES]:
        fixed[k] = fixed.get(k, 0.0) + line.pop(k) * lines_per_order
    return line, fixed


def band_change_charges(costs):
    """The list index entries a sale that moves its product's stock band writes beyond one inside a band:
    `band_change_checkout` less `checkout_get_1` + `checkout_post_1`, index entries only."""
    if "band_change_checkout" not in costs:
        return {}
    inside = _add(_add({}, _of(costs, "checkout_get_1")), _of(costs, "checkout_post_1"))
    out = {k: v - inside.get(k, 0.0) for k, v in _of(costs, "band_change_checkout").items() if k[0] != "table"}
    return {k: v for k, v in out.items() if v > 1e-9}


def band_change_share(mix):
    """Of the units a product sells from `stock_per_product` to none, the share that moves its band:
    the last LOW_STOCK_THRESHOLD + 1 (into "Only N left", then each one less, then "Sold out")."""
    mix = {**DEFAULTS, **(mix or {})}
    return min(1.0, (mix["low_stock_threshold"] + 1) / mix["stock_per_product"])


def zipf_shares(n, s):
    weights = [1 / (r + 1) ** s for r in range(n)]
    total = sum(weights)
    return [w / total for w in weights]


def product_shares(mix):
    """Share of product views and of order lines of each product, by rank."""
    n, b = mix["products"], mix["brands"]
    shares = zipf_shares(n, mix["zipf_s"])
    focus = mix.get("focus")
    if not focus:
        return shares
    f = focus["share"]
    if focus["kind"] == "product":
        hot = [1.0] + [0.0] * (n - 1)
    else:  # the brand of the most popular product: its products by their own Zipf order
        in_brand = [shares[r] if r % b == 0 else 0.0 for r in range(n)]
        total = sum(in_brand)
        hot = [x / total for x in in_brand]
    return [f * h + (1 - f) * x for h, x in zip(hot, shares)]


def group_shares(shares, groups):
    out = [0.0] * groups
    for r, x in enumerate(shares):
        out[r % groups] += x
    return out


def model(costs, mix, prices=PRICES, limits=LIMITS):
    """Partition loads, totals and cost of a mix. `costs` as capacity_ops.measure_all returns."""
    mix = {**DEFAULTS, **mix}
    shares = {"product": product_shares(mix)}
    shares["brand"] = group_shares(shares["product"], mix["brands"])
    shares["category"] = group_shares(shares["product"], mix["categories"])
    pages_per_s = mix["visits_per_s"] * mix["pages_per_visit"]
    orders_per_s = mix["visits_per_s"] * mix["conversion"]
    lines = mix["lines_per_order"]
    line, fixed = order_costs(costs, lines)

    # (rate a second, {(where, role, kind, rw): units}, spread): spread "share" or "uniform"
    pages = mix["page_mix"]
    events = [(pages_per_s * share / sum(pages.values()), _of(costs, page), "share") for page, share in pages.items()]
    events += [(orders_per_s * lines, line, "share"),
               (orders_per_s * lines * band_change_share(mix), band_change_charges(costs), "share"),
               (orders_per_s, fixed, "share"),
               (mix["staff_adjustments_per_s"], _of(costs, "staff_adjustment"), "uniform"),
               (mix["app_processes"] / mix["names_ttl_s"], _of(costs, "home_cold"), "share")]  # names re-read

    totals = {"R": 0.0, "W": 0.0}
    role_load = {}  # (where, role, rw) -> list of per-key loads (role spread) or a scalar (one key)
    for rate, charges, spread in events:
        for (where, role, _kind, rw), units in charges.items():
            load = rate * units
            totals[rw] += load
            slot = role_load.setdefault((where, role), {"R": None, "W": None})
            if role in shares or role in PRODUCT_SHARDS:
                # a product's bucket or Buyers shard: the product's share, spread over its keys of that role
                base = shares.get(role, shares["product"])
                share = base if spread == "share" else [1 / len(base)] * len(base)
                share = [x / PRODUCT_SHARDS.get(role, 1) for x in share]
                vector = slot[rw] or [0.0] * len(share)
                slot[rw] = [v + load * x for v, x in zip(vector, share)]
            elif role == "customer":
                slot[rw] = (slot[rw] or 0.0) + min(rate, mix["customer_orders_per_s"]) * units
            elif role == "order":
                slot[rw] = (slot[rw] or 0.0) + min(rate, 1.0) * units  # one order's claim: written once
            else:
                slot[rw] = (slot[rw] or 0.0) + load / SHARDED_ROLES.get(role, 1)

    partitions = []
    for (where, role), rw in role_load.items():
        if role in shares or role in PRODUCT_SHARDS:
            n = len(shares.get(role, shares["product"]))
            r_vec, w_vec = rw["R"] or [0.0] * n, rw["W"] or [0.0] * n
            ranked = sorted(range(n), key=lambda i: -max(r_vec[i] / limits["R"], w_vec[i] / limits["W"]))[:3]
            for i in ranked:
                partitions.append(_partition(where, _key_name(role, i), role, r_vec[i], w_vec[i], limits))
        else:
            # customer: one customer placing `customer_orders_per_s`; others: one key for everyone
            partitions.append(_partition(where, _key_name(role, 0), role, rw["R"] or 0.0, rw["W"] or 0.0, limits))
    partitions.sort(key=lambda p: (p["where"] != "table", p["where"], -p["utilisation"]))
    month = SECONDS_A_MONTH / 1e6
    cost = {
        "reads_usd": round(totals["R"] * month * prices["read_per_million"], 2),
        "writes_usd": round(totals["W"] * month * prices["write_per_million"], 2),
    }
    cost["total_usd"] = round(cost["reads_usd"] + cost["writes_usd"], 2)
    return {
        "mix": mix,
        "pages_per_s": round(pages_per_s, 2),
        "orders_per_s": round(orders_per_s, 3),
        "lines_per_s": round(orders_per_s * lines, 3),
        "read_units_per_s": round(totals["R"], 2),
        "write_units_per_s": round(totals["W"], 2),
        "monthly_on_demand": cost,
        "partitions": partitions,
        "over_limit": [p for p in partitions if p["utilisation"] >= 1],
    }


def _key_name(role, index):
    return {"product": f"P#<rank {index + 1}>", "bucket": f"P#<rank {index + 1}>#S#<one of {HOT_BUCKETS}>",
            "buyers": f"P#<rank {index + 1}>#B#<one of {PRODUCT_SHARDS['buyers']}>",
            "holds": f"P#<rank {index + 1}>#H#<one of {PRODUCT_SHARDS['holds']}>",
            "hold_expiry": f"HOLDS#<one of {SHARDED_ROLES['hold_expiry']}>",
            "open_orders": "OPEN_ORDERS" + (f"#<one of {SHARDED_ROLES['open_orders']}>"
                                            if SHARDED_ROLES["open_orders"] > 1 else ""),
            "brand": f"B#<brand {index + 1}>",
            "category": f"C#<category {index + 1}>", "customer": "CUSTOMER#<one>", "order": "ORDERNO#<one>",
            "ledger": f"LEDGER#<day>#<one of {keys.LEDGER_SHARDS}>"}.get(role, role)


def _partition(where, key, role, r, w, limits):
    utilisation = max(r / limits["R"], w / limits["W"])
    return {"where": where, "key": key, "role": role, "read_units_per_s": round(r, 3),
            "write_units_per_s": round(w, 3), "utilisation": round(utilisation, 4),
            "over": utilisation >= 1}


def hot_sale(costs):
    """What one unit sold of a product spread over HOT_BUCKETS stock buckets costs (its funnel, its order,
    the order page), {(where, role, kind, rw): units}; None when it was not measured."""
    if "hot_funnel" not in costs or "hot_checkout" not in costs:
        return None
    charges = {}
    for name in ("hot_funnel", "hot_checkout", "order_detail"):
        _add(charges, _of(costs, name))
    return charges


def hot_refresh_load(costs, mix=None):
    """What the server processes read a second of a product spread over HOT_BUCKETS buckets, however many
    buy it: each process's `hot_products` copy read again as it expires, {(where, role, rw): units a second}.
    Empty when not measured or not kept (ttl 0: then the funnel's measured reads are per sale)."""
    mix = {**DEFAULTS, **(mix or {})}
    if "hot_refresh" not in costs or not mix["hot_product_ttl_s"]:
        return {}
    rate = mix["app_processes"] / mix["hot_product_ttl_s"]
    return _by_role({k: units * rate for k, units in _of(costs, "hot_refresh").items()})


def sale_charges(costs, mix=None, *, hot=False):
    """What one unit sold (a one-line order of quantity 1, the whole funnel) costs each partition role,
    {(where, role, rw): units}; `hot`: of a product spread over HOT_BUCKETS stock buckets."""
    charges = hot_sale(costs) if hot else None
    if charges is None:
        line, fixed = order_costs(costs, 1)
        charges = _add(dict(line), fixed)
    # the sales that move the band write the list index entries too
    return _by_role(_add(charges, band_change_charges(costs), band_change_share(mix)))


def max_sales(costs, mix=None, limits=LIMITS, *, hot=True):
    """Highest sales a second of one product (spread over HOT_BUCKETS stock buckets where measured and
    `hot`), of one brand, of one category, and of the whole shop (one-line orders), as their partitions
    allow, and the partition that limits each."""
    ordinary = sale_charges(costs, mix)
    hot_charges = sale_charges(costs, mix, hot=True) if hot else ordinary
    # A hot product's pages are read from each process's copy: those reads take their share first.
    refresh = hot_refresh_load(costs, mix) if hot and hot_charges is not ordinary else {}
    result = {}
    targets = (("product", PER_LINE_ROLES), ("brand", {"brand"}), ("category", {"category"}), ("shop", set()))
    for target, roles in targets:
        best = (math.inf, None)
        charges = hot_charges if target == "product" else ordinary
        for (where, role, rw), units in charges.items():
            # The shop: the keys every order writes (OPEN_ORDERS, a day's Ledger shards, ...).
            mine = role in roles if roles else role not in PER_LINE_ROLES
            if units <= 0 or role in SPREAD_ROLES or not mine:
                continue
            keys_of_role = SHARDED_ROLES.get(role, 1) * PRODUCT_SHARDS.get(role, 1)
            kept = refresh.get((where, role, rw), 0.0) if target == "product" else 0.0
            rate = max(limits[rw] * keys_of_role - kept, 0.0) / units
            if rate < best[0]:
                unit = "WRU" if rw == "W" else "RRU"
                also = f" + {kept / keys_of_role:g} {unit}/s of the processes' kept copies" if kept else ""
                shards = PRODUCT_SHARDS.get(role, 1)  # a product's keys of this role: the load on each
                each = f"{units / shards:g} {unit} a sale on each" if shards > 1 else f"{units:g} {unit} a sale"
                best = (rate, f"{where} {_key_name(role, 0)} ({each}{also}, limit {limits[rw]:g}/s)")
        result[target] = {"sales_per_s": round(best[0], 1) if best[1] else None, "limited_by": best[1]}
    return result


def limits(costs, mix=None, limits=LIMITS):
    """capacity.json's `limits`: units sold a second of one product, one brand, one category; orders a second."""
    sales = max_sales(costs, mix=mix, limits=limits)
    return {f"{t}_units_per_s": sales[t]["sales_per_s"] for t in ("product", "brand", "category")} | {
        "shop_orders_per_s": sales["shop"]["sales_per_s"]}


def write_units(costs):
    """Write units of one checkout line (fitted, inside a stock band), of one line of a product spread over
    stock buckets (its one-line checkout less the order's fixed part) and of one staff adjustment."""
    fixed, line, _errors = per_line(costs, "checkout_post")
    units = {"checkout_line": round(_writes(line), 3)}
    if "hot_checkout" in costs:
        units["hot_checkout_line"] = round(_writes(_of(costs, "hot_checkout")) - _writes(fixed), 3)
    units["staff_adjustment"] = round(_writes(_of(costs, "staff_adjustment")), 3)
    return units
