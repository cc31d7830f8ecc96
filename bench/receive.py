"""Bulk receiving (issue 16): a CSV of N lines (product_id,quantity,reference) over M products,
validated whole and received line by line through `catalog.gateway.stock.receiving`, then the same
file again (every line a replay). Reports lines per second and DynamoDB requests per line."""
import time
import uuid
from decimal import Decimal

from catalog.gateway.catalog import importer
from catalog.gateway.catalog.entities import Product
from catalog.gateway.dynamo.testing import count_requests
from catalog.gateway.stock import receiving

from .catalog_data import FEATURED_BRAND, FEATURED_CATEGORY


def _ops(counter):
    ops = {}
    for op in counter.operations:
        ops[op] = ops.get(op, 0) + 1
    return ops


def run(*, lines=5000, products=500):
    prefix = f"rcv-{uuid.uuid4().hex[:6]}"
    importer.write([], [], [
        Product(product_id=f"{prefix}-{n}", name=f"Received {n}", brand_id=FEATURED_BRAND,
                category_id=FEATURED_CATEGORY, price=Decimal("1.00"), stock_level=0)
        for n in range(products)
    ])
    content = ("product_id,quantity,reference\n" + "".join(
        f"{prefix}-{n % products},{1 + n % 7},PO-{n // 100}\n" for n in range(lines))).encode()
    figures = {"lines": lines, "products": products}
    for run_name in ("first", "again"):
        with count_requests() as counter:
            started = time.perf_counter()
            receipt = receiving.validate(content)
            validated = time.perf_counter()
            result = receiving.receive_lines(receipt, who="bench")
            elapsed = time.perf_counter() - started
        ops = _ops(counter)
        figures[run_name] = {
            "seconds": round(elapsed, 2),
            "validate_seconds": round(validated - started, 2),
            "lines_per_s": round(lines / elapsed, 1),
            "applied": result.applied,
            "replayed": result.replayed,
            "requests": ops,
            "requests_per_line": round(sum(ops.values()) / lines, 3),
        }
    expected = {}
    for n in range(lines):
        expected[n % products] = expected.get(n % products, 0) + 1 + n % 7
    from catalog.gateway import products_get_many

    levels = {}
    ids = [f"{prefix}-{n}" for n in range(products)]
    for start in range(0, products, 100):
        levels.update(products_get_many(product_ids=ids[start:start + 100], consistent=True))
    figures["exact"] = all(levels[f"{prefix}-{n}"].stock_level == expected.get(n, 0) for n in range(products))
    return figures
