"""Many buyers at once on one product, each taking 1 until the stock runs out; exact or not (docs/benchmarks.md).

A buyer (BUYERS) places an order ("checkout") or writes the stock alone ("stock_decrease"); at most the
server's threads (scripts/run.sh's workers x threads) are in the shop at once, the others wait as in its queue.
"""

import statistics
import threading
import time
import uuid
from collections import Counter
from decimal import Decimal

from django.conf import settings
from django.test import override_settings

from bench.catalog_data import FEATURED_BRAND, FEATURED_CATEGORY
from bench.load import gunicorn_flags
from catalog import gateway
from catalog.gateway import LineProblem, importer
from catalog.gateway.catalog.entities import Product
from catalog.gateway.dynamo.client import client as gateway_client
from catalog.gateway.dynamo.testing import count_requests
from catalog.gateway.errors import InsufficientStock, OrderRejected, StockBusy
from catalog.gateway.orders import orders
from catalog.gateway.stock.entities import SOLD
from catalog.gateway.stock.takes import take_floor

PRICE = Decimal("1.00")
BUYER_COUNTS = [1, 8, 32, 128]  # `make bench`'s, quick runs too


def buy_one_checkout(product_id, price, buyer_no):
    try:
        orders.order_place(customer_id=f"bench-buyer-{buyer_no}", customer_name=f"Bench buyer {buyer_no}",
                           order_id=orders.new_order_id(), token=gateway.new_token(),
                           lines=[gateway.PurchaseLine(product_id=product_id, quantity=1, price=price)])
    except OrderRejected as exc:
        if all(problem.kind == LineProblem.SHORT for problem in exc.problems):
            return False  # sold out
        raise
    return True


def buy_one_stock_decrease(product_id, price, buyer_no):
    try:
        gateway.stock_decrease(product_id=product_id, quantity=1, token=gateway.new_token(), reason="sold",
                               who=f"bench-{buyer_no}")
    except InsufficientStock:
        return False
    return True


BUYERS = {"checkout": buy_one_checkout, "stock_decrease": buy_one_stock_decrease}


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


class Refusals:
    """TransactWriteItems that DynamoDB cancelled: `refused` (a condition failed: the exact path's
    compare-and-set lost, or a relative take met the edge) and `conflicts` (TransactionConflict)."""

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


def percentile(values, q):
    """The q-th percentile of `values` (linear between the nearest two); None of none."""
    if not values:
        return None
    return round(values[0] if len(values) == 1 else statistics.quantiles(values, n=100, method="inclusive")[q - 1], 1)


def run(buyers, *, start_stock, buyer="checkout", server_threads=None):
    """`buyers` threads on a fresh product holding `start_stock`, at most `server_threads` of them in the
    shop at once (None: gunicorn's workers x threads; 0: all of them); returns the figures and proof."""
    buy = BUYERS[buyer]
    if server_threads is None:
        server_threads = gunicorn_flags()["workers"] * gunicorn_flags()["threads"]
    inside = min(buyers, server_threads) if server_threads else buyers
    product_id = f"contention-{buyers}-{uuid.uuid4().hex[:8]}"
    importer.write([], [], [Product(product_id=product_id, name="Contended", brand_id=FEATURED_BRAND,
                                    category_id=FEATURED_CATEGORY, price=PRICE, stock_level=start_stock)])
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
    pool = max(inside, settings.DYNAMODB_MAX_POOL_CONNECTIONS)
    with override_settings(DYNAMODB_MAX_POOL_CONNECTIONS=pool), count_requests() as counter, Refusals() as refusals:
        started = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.perf_counter() - started
    ops = dict(Counter(counter.operations))
    final = gateway.product_get(product_id=product_id, consistent=True).stock_level
    # the history read consistently: the sales, and the rest (the import's opening change)
    reasons = [change.reason for change in gateway.stock_history_all(product_id=product_id)]
    history, other_history = reasons.count(SOLD), len(reasons) - reasons.count(SOLD)
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
        "p50_ms": percentile(waits_ms, 50),
        "p99_ms": percentile(waits_ms, 99),
        "transactions": transactions,
        "retries": transactions - successes[0],
        "refused": refusals.refused,
        "conflicts": refusals.conflicts,
        "stock_busy": busy[0],
        "failures": failures,
        "requests": ops,
        "requests_per_success": round(len(counter.operations) / successes[0], 2) if successes[0] else None,
        "final_stock": final,
        "history_items": history,
        "other_history_items": other_history,
        "orders": placed,
        "consistent": exact and placed in (None, successes[0]) and not failures,
    }


def run_all(buyer_counts, *, start_stock, buyers=tuple(BUYERS), log=print, server_threads=None):
    """{buyer: {str(buyers): run(...)}} for each kind of buyer and each buyer count, on the current table."""
    results = {}
    for buyer in buyers:
        results[buyer] = {}
        for count in buyer_counts:
            log(f"contention, {buyer}: {count} buyers, stock {start_stock}")
            c = results[buyer][str(count)] = run(count, start_stock=start_stock, buyer=buyer,
                                                 server_threads=server_threads)
            log(f"  {c['successes_per_s']} successes/s ({c['successes_per_s_until_sold_out']} until sold out), "
                f"p99 {c['p99_ms']} ms, {c['retries']} retries, {c['stock_busy']} busy, exact: {c['consistent']}")
    return results
