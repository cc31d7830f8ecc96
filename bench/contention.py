"""Many buyers at once on one product: each takes 1 until the stock runs out.

A buyer is a function (product_id, price, buyer_no) -> True when it took one, False when there
is nothing left. BUYERS names them: "checkout" places an order (the purchase: one transaction
that takes the stock and writes the order, its line and the sale's stock adjustment), and
"stock_decrease" is the gateway's stock write alone.
"""

import threading
import time
import uuid
from decimal import Decimal

from catalog import gateway
from catalog.gateway import LineProblem, importer, orders
from catalog.gateway.entities import Product
from catalog.gateway.errors import InsufficientStock, OrderRejected, StockBusy
from catalog.gateway.testing import count_requests

from .catalog_data import FEATURED_BRAND, FEATURED_CATEGORY

PRICE = Decimal("1.00")


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


def history_count(product_id):
    total, after = 0, None
    while True:
        page = gateway.stock_history(product_id=product_id, after=after, limit=1000)
        total += len(page.items)
        after = page.next_cursor
        if after is None:
            return total


def run(buyers, *, start_stock, buyer="checkout"):
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
                price=PRICE,
                stock_level=start_stock,
            )
        ],
    )
    successes, busy, failures = [0], [0], []
    lock = threading.Lock()
    gate = threading.Barrier(buyers)

    def worker(buyer_no):
        gate.wait()
        while True:
            try:
                took = buy(product_id, PRICE, buyer_no)
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

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(buyers)]
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
    placed = orders_count(buyers, product_id) if buyer == "checkout" else None
    transactions = ops.get("TransactWriteItems", 0)
    exact = final == start_stock - successes[0] and history == successes[0] and final == 0
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
        "orders": placed,
        "consistent": exact and placed in (None, successes[0]) and not failures,
    }
