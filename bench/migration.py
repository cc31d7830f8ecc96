#!/usr/bin/env python
"""How long `migrate_table` takes, and what it consumes, on a shop of the seed's layout.

Starts its own DynamoDB Local (on disk, in var/bench/migration-db, emptied first), writes a catalog of
--products products (bench/catalog_data.py) as the seed's code would have: PK/SK, GSI1 and GSI2, no sort,
search or warehouse keys, no counts. Then applies every step of catalog/gateway/migrations.py, one at
a time, at the settings' capacity share (or --units-per-second) and reports each step's time and
capacity units.

    python bench/migration.py --products 100000
"""
import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if __package__ in (None, ""):
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
    sys.path.insert(0, str(ROOT))


def log(message):
    print(f"[{time.strftime('%H:%M:%S', time.gmtime())}] {message}", flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--products", type=int, default=10_000)
    parser.add_argument("--units-per-second", type=float, default=None,
                        help="capacity units a second a backfill may use (default: the settings' share)")
    parser.add_argument("--segments", type=int, default=4)
    args = parser.parse_args(argv)

    import shutil

    # On disk: in memory, a 100,000-product table and its index builds outgrew this machine's memory.
    db_path = ROOT / "var" / "bench" / "migration-db"
    shutil.rmtree(db_path, ignore_errors=True)
    local = LocalOnDisk(db_path)
    # DynamoDB Local holding a million items or more stalls for seconds at times (the app's 5 s read
    # timeout gave up after 38 minutes of a 100,000-product run): the bench waits, as an operator would.
    os.environ.update(DYNAMODB_ENDPOINT_URL=local.url, DYNAMODB_TABLE="bench-migration", AWS_ACCESS_KEY_ID="x",
                      AWS_SECRET_ACCESS_KEY="x", DJANGO_SECRET_KEY="bench", DYNAMODB_READ_TIMEOUT="120")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "storefront.settings")
    import django

    django.setup()
    try:
        return measure(args, local)
    finally:
        local.stop()
        shutil.rmtree(db_path, ignore_errors=True)


class LocalOnDisk:
    """DynamoDB Local on one port and one folder, restarted before each index step. It keeps the
    memory it took to build an index after the index is ACTIVE, in proportion to the table's items,
    so a few builds over a 100,000-product table outgrow the machine; a fresh process reads the same
    table from disk. (AWS DynamoDB builds indexes on its own servers.)"""

    def __init__(self, db_path):
        from tools import dynamodb_local

        self.tool, self.db_path = dynamodb_local, db_path
        self.port = dynamodb_local.free_port()
        self.process, self.url = dynamodb_local.start(port=self.port, db_path=db_path)

    def restart(self):
        self.stop()
        self.process, _ = self.tool.start(port=self.port, db_path=self.db_path)

    def stop(self):
        self.tool.stop(self.process)


def measure(args, local):
    from bench.catalog_data import make_catalog
    from catalog.gateway import client as dynamo
    from catalog.gateway import keys, migrations, schema
    from catalog.gateway.catalog import importer
    from catalog.gateway.dynamo import batches

    table = "bench-migration"
    dynamo.client().create_table(**schema.create_table_request(table, indexes=[keys.GSI1, keys.GSI2]))
    dynamo.client().get_waiter("table_exists").wait(TableName=table)
    brands, categories, products = importer.validate(make_catalog(args.products))
    items = [b.to_item() for b in brands] + [c.to_item() for c in categories]
    derived = set(migrations.PRODUCT_DERIVED)
    items += [{k: v for k, v in p.to_item().items() if k not in derived} for p in products]
    started = time.monotonic()
    batches.batch_write(puts=items)
    log(f"seed layout: {len(items):,} items written in {time.monotonic() - started:.0f} s")

    times, restarts = {}, 0
    run = migrations.Run(table=table, say=log, segments=args.segments, units_per_second=args.units_per_second)
    from catalog.gateway.errors import CatalogUnavailable

    for n, step in enumerate(migrations.STEPS, start=1):
        if isinstance(step, migrations.AddIndex):
            local.restart()  # not timed: see LocalOnDisk
            restarts += 1
        began = time.monotonic()
        for attempt in range(5):  # a stop part way is resumed where it was, as `migrate_table` run again does
            try:
                migrations.migrate(steps=migrations.STEPS[:n], run=run, backup=False)
                break
            except CatalogUnavailable as exc:
                log(f"interrupted ({exc}); resuming (run {attempt + 2})")
                time.sleep(10)
        else:
            raise SystemExit(f"{step.name} did not finish after 5 runs: no figure")
        times[step.name] = time.monotonic() - began
    total = sum(times.values())
    records = migrations.migrations_applied(table=table)
    limit = f"{args.units_per_second:g} units/s" if args.units_per_second else "the settings' capacity share"
    print(f"\nmigrate_table on {args.products:,} products of the seed's layout (DynamoDB Local, on disk, "
          f"{args.segments} segments, {limit}; DynamoDB Local restarted before each of the {restarts} "
          "index steps, not timed):")
    print("| step | seconds | what it did |")
    print("|---|---|---|")
    for step in migrations.STEPS:
        print(f"| {step.name} | {times.get(step.name, 0):.1f} | {records[step.name].get('summary', '')} |")
    print(f"| all | {total:.0f} | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
