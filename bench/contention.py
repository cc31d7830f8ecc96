"""Many buyers at once on one product: each takes 1 until the stock runs out.

A buyer is a function (product_id) -> True when it took one, False when there is nothing left.
BUYERS names them; the checkout will be one more entry, measured by the same harness.
"""

import threading
import time
import uuid
from decimal import Decimal

from catalog import gateway, importer
from catalog.dynamo import count_requests
from catalog.entities import Product
from catalog.errors import InsufficientStock, StockBusy

from .catalog_data import FEATURED_BRAND, FEATURED_CATEGORY


def buy_one_stock_decrease(product_id):
    try:
        gateway.stock_decrease(
            product_id=product_id, quantity=1, token=gateway.new_token(), reason="bench", who="bench"
        )
    except InsufficientStock:
        return False
    return True


BUYERS = {
    "stock_decrease": buy_one_stock_decrease,
    # "checkout": buy_one_checkout,  (when the checkout exists)
}


def history_count(product_id):
    total, after = 0, None
    while True:
        page = gateway.stock_history(product_id=product_id, after=after, limit=1000)
        total += len(page.items)
        after = page.next_cursor
        if after is None:
            return total


def run(buyers, *, start_stock, buyer="stock_decrease"):
    """`buyers` threads on a fresh product holding `start_stock`; returns the figures and proof."""
    buy = BUYERS[buyer]
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
                price=Decimal("1.00"),
                stock_level=start_stock,
            )
        ],
    )
    successes, busy, failures = [0], [0], []
    lock = threading.Lock()
    gate = threading.Barrier(buyers)

    def worker():
        gate.wait()
        while True:
            try:
                took = buy(product_id)
            except StockBusy:
                with lock:
                    busy[0] += 1
                continue
            except Exception as exc:  # recorded, never hidden
                with lock:
                    failures.append(repr(exc))
                return
            if not took:
                return
            with lock:
                successes[0] += 1

    threads = [threading.Thread(target=worker) for _ in range(buyers)]
    with count_requests() as counter:
        started = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.perf_counter() - started
    ops = {}
    for op in counter.operations:
        ops[op] = ops.get(op, 0) + 1
    final = gateway.product_get(product_id=product_id, consistent=True).stock_level
    history = history_count(product_id)
    transactions = ops.get("TransactWriteItems", 0)
    return {
        "buyer": buyer,
        "buyers": buyers,
        "start_stock": start_stock,
        "successes": successes[0],
        "seconds": round(elapsed, 3),
        "successes_per_s": round(successes[0] / elapsed, 1) if elapsed else 0.0,
        "transactions": transactions,
        "retries": transactions - successes[0],
        "stock_busy": busy[0],
        "failures": failures,
        "requests": ops,
        "final_stock": final,
        "history_items": history,
        "consistent": final == start_stock - successes[0] and history == successes[0] and final == 0,
    }
