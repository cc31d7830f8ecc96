#!/usr/bin/env python
"""Many buyers at once on one product: each takes 1 until the stock runs out.

A buyer is a function (product_id, price, buyer_no) -> True when it took one, False when there
is nothing left. BUYERS names them: "checkout" places an order (the purchase: one transaction
that takes the stock and writes the order, its line and the sale's stock adjustment), and
"stock_decrease" is the gateway's stock write alone. Each buyer's time to an order (from pressing
"buy" until it has one, "busy" answers and their retries included) gives p50_ms and p99_ms.

The buyers go through a door as wide as the shop's server: at most `server_threads` of them are in
the shop at once (gunicorn's workers x threads, as `make run` starts it: scripts/run.sh), the others
wait outside as they would in the server's queue; `--server-threads 0` lets every buyer in at once
(a server with a thread a buyer). Besides the orders a second over the whole run (every buyer
answered), each run reports the rate until the product sold out (the last order), the sold-out
answers after it, the transactions DynamoDB refused by reason (a condition: the exact path near the
edge; a TransactionConflict: another transaction on the item) and, when the harness knows
DynamoDB Local's process, the CPU seconds of the harness and of DynamoDB Local.

`make bench` runs it on its largest catalog (bench/run.py). Alone, on its own DynamoDB Local:

    python bench/contention.py --quick          # buyers 1, 8, 32, 128; 60 units each run
    python bench/contention.py --buyers 8,32 --start-stock 200 --buyer checkout
    python bench/contention.py --buyer checkout --buyers 1,128 --rounds 3   # alternating, 3 rounds

which writes var/bench/contention.json (results.json is `make bench`'s and is left alone).
"""

import argparse
import json
import os
import resource
import sys
import threading
import time
import uuid
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if __package__ in (None, ""):
    # Run as a script: import from the repository root, never bench/'s modules as top-level ones.
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
    sys.path.insert(0, str(ROOT))

from django.test import override_settings  # noqa: E402

from bench.catalog_data import FEATURED_BRAND, FEATURED_CATEGORY  # noqa: E402
from bench.load import gunicorn_flags, process_cpu_seconds  # noqa: E402
from bench.meter import percentile  # noqa: E402
from catalog import gateway  # noqa: E402
from catalog.gateway import LineProblem  # noqa: E402
from catalog.gateway.catalog import importer  # noqa: E402
from catalog.gateway.catalog.entities import Product  # noqa: E402
from catalog.gateway.dynamo.client import client as gateway_client  # noqa: E402
from catalog.gateway.dynamo.testing import count_requests  # noqa: E402
from catalog.gateway.errors import InsufficientStock, OrderRejected, StockBusy  # noqa: E402
from catalog.gateway.orders import orders  # noqa: E402
from catalog.gateway.stock.entities import SOLD  # noqa: E402
from catalog.gateway.stock.takes import take_floor  # noqa: E402

PRICE = Decimal("1.00")
# The buyer counts of `make bench` (quick runs too) and their stock: full 200 units, quick 60.
BUYER_COUNTS = [1, 8, 32, 128]
START_STOCK = 200
QUICK_START_STOCK = 60


def buy_one_checkout(product_id, price, buyer_no):
    try:
        orders.order_place(
            customer_id=f"bench-buyer-{buyer_no}",
            customer_name=f"Bench buyer {buyer_no}",
            order_id=orders.new_order_id(),
            token=gateway.new_token(),
            lines=[gateway.PurchaseLine(product_id=product_id, quantity=1, price=price)],
        )
    except OrderRejected as exc:
        if all(problem.kind == LineProblem.SHORT for problem in exc.problems):
            return False  # sold out
        raise
    return True


def buy_one_stock_decrease(product_id, price, buyer_no):
    try:
        gateway.stock_decrease(
            product_id=product_id, quantity=1, token=gateway.new_token(), reason="sold", who=f"bench-{buyer_no}"
        )
    except InsufficientStock:
        return False
    return True


BUYERS = {
    "checkout": buy_one_checkout,
    "stock_decrease": buy_one_stock_decrease,
}


def orders_count(buyers, product_id):
    """Orders of the bench's buyers that hold `product_id` (one Query a buyer and page)."""
    total = 0
    for buyer_no in range(buyers):
        after = None
        while True:
            page = orders.orders_by_customer(customer_id=f"bench-buyer-{buyer_no}", after=after)
            total += sum(1 for order in page.items if any(line.product_id == product_id for line in order.lines))
            after = page.next_cursor
            if after is None:
                break
    return total


def history_counts(product_id):
    """(sale changes, other changes) in the product's stock history, read consistently: the other is
    the opening change the import wrote with the product's level."""
    sales = others = 0
    for change in gateway.stock_history_all(product_id=product_id):
        if change.reason == SOLD:
            sales += 1
        else:
            others += 1
    return sales, others


def server_threads_default():
    """The shop's request threads as `make run` starts it: gunicorn's workers x threads."""
    flags = gunicorn_flags()
    return flags["workers"] * flags["threads"]


class Refusals:
    """TransactWriteItems that DynamoDB cancelled, by reason: `refused` (a condition failed: a sale
    at the edge lost its exact compare-and-set, or a relative take met the edge) and `conflicts`
    (TransactionConflict: another transaction had the item at that moment). Hooks the client's own
    events, as count_requests does."""

    def __init__(self):
        self.refused = self.conflicts = 0
        self._lock = threading.Lock()

    def _seen(self, parsed, **kwargs):
        codes = {reason.get("Code") for reason in parsed.get("CancellationReasons") or ()}
        with self._lock:
            self.refused += "ConditionalCheckFailed" in codes
            self.conflicts += "TransactionConflict" in codes or parsed.get("Error", {}).get("Code") in (
                "TransactionConflictException", "TransactionInProgressException")

    def __enter__(self):
        gateway_client().meta.events.register("after-call.dynamodb.TransactWriteItems", self._seen)
        return self

    def __exit__(self, *exc):
        gateway_client().meta.events.unregister("after-call.dynamodb.TransactWriteItems", self._seen)
        return False


def cpu_seconds(emulator_pid=None):
    """(this process's CPU seconds, DynamoDB Local's or None) so far."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime, process_cpu_seconds(emulator_pid) if emulator_pid else None


def run(buyers, *, start_stock, buyer="checkout", server_threads=None, emulator_pid=None):
    """`buyers` threads on a fresh product holding `start_stock`, at most `server_threads` of them
    in the shop at once (None: the server's, server_threads_default(); 0: all of them); returns
    the figures and proof."""
    buy = BUYERS[buyer]
    server_threads = server_threads_default() if server_threads is None else server_threads
    inside = min(buyers, server_threads) if server_threads else buyers
    product_id = f"contention-{buyers}-{uuid.uuid4().hex[:8]}"
    importer.write(
        [],
        [],
        [
            Product(
                product_id=product_id,
                name="Contended",
                brand_id=FEATURED_BRAND,
                category_id=FEATURED_CATEGORY,
                price=PRICE,
                stock_level=start_stock,
            )
        ],
    )
    successes, busy, failures, waits, order_times = [0], [0], [], [], []
    lock = threading.Lock()
    door = threading.BoundedSemaphore(inside)  # the server's threads: the others wait in its queue
    gate = threading.Barrier(buyers)

    def worker(buyer_no):
        gate.wait()
        pressed = time.perf_counter()  # when this buyer began trying for the next unit
        while True:
            try:
                with door:
                    took = buy(product_id, PRICE, buyer_no)
            except StockBusy:
                with lock:
                    busy[0] += 1
                continue  # the buyer presses again: the wait goes on
            except Exception as exc:  # recorded, never hidden
                with lock:
                    failures.append(repr(exc))
                return
            if not took:
                return
            now = time.perf_counter()
            with lock:
                successes[0] += 1
                waits.append(now - pressed)
                order_times.append(now - started)
            pressed = now

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(buyers)]
    # A connection for each buyer inside (the settings' pool is sized for a worker's threads).
    pool = max(inside, gateway_pool_size())
    with override_settings(DYNAMODB_MAX_POOL_CONNECTIONS=pool), count_requests() as counter, Refusals() as refusals:
        cpu_before = cpu_seconds(emulator_pid)
        started = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.perf_counter() - started
        cpu_after = cpu_seconds(emulator_pid)
    emulator_cpu = None if None in (cpu_before[1], cpu_after[1]) else round(cpu_after[1] - cpu_before[1], 2)
    ops = {}
    for op in counter.operations:
        ops[op] = ops.get(op, 0) + 1
    final = gateway.product_get(product_id=product_id, consistent=True).stock_level
    history, other_history = history_counts(product_id)
    placed = orders_count(buyers, product_id) if buyer == "checkout" else None
    transactions = ops.get("TransactWriteItems", 0)
    # Exact: sold out, one sale in the history a unit sold (the opening change aside) and one order.
    exact = final == start_stock - successes[0] and history == successes[0] and final == 0
    waits_ms = sorted(w * 1000 for w in waits)
    order_times.sort()
    sold_out = order_times[-1] if order_times else None
    # The sales above the edge took their units relatively; from take_floor down, the exact path.
    relative = start_stock - take_floor(None)
    edge = order_times[relative - 1] if 0 < relative <= len(order_times) else None
    return {
        "buyer": buyer,
        "buyers": buyers,
        "server_threads": inside,
        "start_stock": start_stock,
        "successes": successes[0],
        "seconds": round(elapsed, 3),
        "successes_per_s": round(successes[0] / elapsed, 1) if elapsed else 0.0,
        # Until the last unit sold; the rest of `seconds` is the other buyers' "sold out" answers.
        "sold_out_seconds": round(sold_out, 3) if sold_out is not None else None,
        "edge_seconds": round(edge, 3) if edge is not None else None,  # when the exact path took over
        "successes_per_s_until_sold_out": round(successes[0] / sold_out, 1) if sold_out else None,
        "p50_ms": round(percentile(waits_ms, 50), 1) if waits_ms else None,
        "p99_ms": round(percentile(waits_ms, 99), 1) if waits_ms else None,
        "transactions": transactions,
        "retries": transactions - successes[0],
        "refused": refusals.refused,
        "conflicts": refusals.conflicts,
        "stock_busy": busy[0],
        "failures": failures,
        "requests": ops,
        "requests_per_success": round(len(counter.operations) / successes[0], 2) if successes[0] else None,
        "cpu_seconds": {
            "harness": round(cpu_after[0] - cpu_before[0], 2),
            "dynamodb_local": emulator_cpu,
        },
        "final_stock": final,
        "history_items": history,
        "other_history_items": other_history,
        "orders": placed,
        "consistent": exact and placed in (None, successes[0]) and not failures,
    }


def gateway_pool_size():
    from django.conf import settings

    return settings.DYNAMODB_MAX_POOL_CONNECTIONS


def run_all(buyer_counts, *, start_stock, buyers=tuple(BUYERS), log=print, rounds=1, server_threads=None,
            emulator_pid=None):
    """{buyer: {str(buyers): run(...)}} for each kind of buyer and each buyer count, on the current table.
    With `rounds` > 1 the buyer counts alternate round by round (a busy moment of a shared machine
    hits each count alike); each entry is its round of median rate (the lower of two), with every
    round's rates in `rounds`."""
    results = {}
    for buyer in buyers:
        runs = {str(count): [] for count in buyer_counts}
        for round_no in range(rounds):
            for count in buyer_counts:
                log(f"contention, {buyer}: {count} buyers, stock {start_stock}"
                    + (f", round {round_no + 1} of {rounds}" if rounds > 1 else ""))
                c = run(count, start_stock=start_stock, buyer=buyer, server_threads=server_threads,
                        emulator_pid=emulator_pid)
                runs[str(count)].append(c)
                log(f"  {c['successes_per_s']} successes/s ({c['successes_per_s_until_sold_out']} until sold out), "
                    f"p50 {c['p50_ms']} ms, p99 {c['p99_ms']} ms, {c['retries']} retries ({c['refused']} refused, "
                    f"{c['conflicts']} conflicts), {c['stock_busy']} busy, exact: {c['consistent']}")
        results[buyer] = {}
        for count, done in runs.items():
            median = sorted(done, key=lambda c: c["successes_per_s"])[(len(done) - 1) // 2]
            results[buyer][count] = median
            if rounds > 1:
                median["consistent"] = all(c["consistent"] for c in done)
                median["rounds"] = [
                    {key: c[key] for key in ("successes_per_s", "successes_per_s_until_sold_out", "p50_ms", "p99_ms",
                                             "stock_busy", "consistent")}
                    for c in done
                ]
    return results


def _ints(text):
    return [int(x) for x in text.split(",") if x.strip()]


def main(argv=None):
    """The contention runs alone, on their own DynamoDB Local (in memory) and a small catalog."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_START_STOCK} units a run (default {START_STOCK})")
    parser.add_argument("--buyers", type=_ints, default=BUYER_COUNTS, help="buyer counts (default 1,8,32,128)")
    parser.add_argument("--start-stock", type=int, help="units at the start of each run")
    parser.add_argument("--buyer", choices=sorted(BUYERS), action="append", help="kind of buyer (default: each)")
    parser.add_argument("--products", type=int, default=300, help="catalog products beside the contended one")
    parser.add_argument("--rounds", type=int, default=1, help="rounds of the buyer counts, alternating (default 1)")
    parser.add_argument("--server-threads", type=int, help="buyers in the shop at once (default: gunicorn's "
                        "workers x threads of scripts/run.sh; 0: every buyer)")
    parser.add_argument("--no-warm-up", action="store_true", help="measure from a cold DynamoDB Local")
    parser.add_argument("--out", type=Path, default=ROOT / "var" / "bench" / "contention.json")
    args = parser.parse_args(argv)
    start_stock = args.start_stock or (QUICK_START_STOCK if args.quick else START_STOCK)

    from tools import dynamodb_local

    process, url = dynamodb_local.start()
    try:
        os.environ.update(DYNAMODB_ENDPOINT_URL=url, DYNAMODB_TABLE=f"bench-contention-{uuid.uuid4().hex[:6]}",
                          DJANGO_SECRET_KEY=os.environ.get("DJANGO_SECRET_KEY") or uuid.uuid4().hex)
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "storefront.settings")
        os.environ.pop("DJANGO_DEBUG", None)
        import django

        django.setup()
        from bench.catalog_data import make_catalog
        from catalog.gateway.schema import table_ensure, table_set_ttl

        table_ensure(os.environ["DYNAMODB_TABLE"])
        table_set_ttl(os.environ["DYNAMODB_TABLE"], enabled=False)  # as make bench: no TTL sweeps
        importer.import_catalog(make_catalog(args.products))
        if not args.no_warm_up:
            # DynamoDB Local's JVM compiles its hot code in its first seconds: measured cold, the
            # first run (1 buyer) would be slower than the same run later (make bench's runs come
            # after its page benchmarks, on a warm JVM).
            print("warm-up (not measured): 8 buyers, stock 100")
            run(8, start_stock=100)
        started = time.perf_counter()
        results = run_all(args.buyers, start_stock=start_stock, buyers=args.buyer or tuple(BUYERS), rounds=args.rounds,
                          server_threads=args.server_threads, emulator_pid=process.pid)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({
            "meta": {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "start_stock": start_stock,
                     "seconds": round(time.perf_counter() - started, 1), "dynamodb_local": "in memory",
                     "rounds": args.rounds, "warm_up": not args.no_warm_up,
                     "load_average": [round(x, 2) for x in os.getloadavg()]},
            "contention": results,
        }, indent=2))
        print(f"Results: {args.out}")
    finally:
        dynamodb_local.stop(process)
    return 0


if __name__ == "__main__":
    sys.exit(main())
