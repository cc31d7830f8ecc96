"""Time the staff catalog export (/staff/catalog/export.csv's rows) on a large catalog in DynamoDB Local.

    .venv/bin/python -m bench.catalog_export [PRODUCTS]     # default 100,000

Starts its own DynamoDB Local (in memory), writes PRODUCTS product items of bench/catalog_data.py's catalog with
BatchWriteItem (the product items only, with their list index keys: what the export reads; no search terms or
stock history, which it does not), then times the export's rows as the view makes them (gateway.products_every,
staff.catalog_csv.export_row, Python's csv) and prints the seconds, the rows, the bytes and the requests.
Not part of `make test` or `make bench`; docs/catalog-editor.md keeps the figure."""
import csv
import io
import sys
import time

from .run import ROOT, served_settings, use_table


def main(products):
    out = ROOT / "var" / "bench"
    out.mkdir(parents=True, exist_ok=True)
    with served_settings(out, "export-"):  # its own DynamoDB Local (in memory), Django set up
        from catalog import gateway
        from catalog.gateway.catalog.entities import Product
        from catalog.gateway.catalog.import_file import validate
        from catalog.gateway.dynamo.batches import batch_write
        from catalog.gateway.dynamo.testing import count_requests
        from catalog.gateway.table import table_ensure
        from staff.catalog_csv import HEADER, export_row

        from .catalog_data import make_catalog

        use_table("export-bench")
        table_ensure("export-bench")
        data = make_catalog(products)
        started = time.perf_counter()
        brands, categories, _ = validate({**data, "products": []})
        gateway.importer.write(brands, categories, [])  # the brand and category items; the products below
        items = []
        for raw in data["products"]:
            product, _ = gateway.check_product(raw, path="p", brand_ids=[b.brand_id for b in brands],
                                                      category_ids=[c.category_id for c in categories])
            items.append(Product.to_item(product))
        batch_write(puts=items)
        print(f"seeded {products:,} products in {time.perf_counter() - started:.0f} s", flush=True)
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        with count_requests() as counter:
            started = time.perf_counter()
            writer.writerow(HEADER)
            rows = 0
            for page in gateway.products_every(brand_ids=[b.brand_id for b in gateway.brands_all()]):
                for product in page:
                    writer.writerow(export_row(product))
                    rows += 1
            seconds = time.perf_counter() - started
        operations = {op: counter.operations.count(op) for op in sorted(set(counter.operations))}
        print(f"exported {rows:,} rows, {len(buffer.getvalue()) / 1e6:.1f} MB in {seconds:.1f} s "
              f"({rows / seconds:,.0f} rows/s); requests {operations}", flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
