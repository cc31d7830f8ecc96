"""Table migrations: the baseline and the machinery of later steps.

The upgrade of a shop of the seed's layout, with orders, customers and stock history in it, goes in two
hops: the baseline release's own `migrate_table` (its code, extracted from git and run as a process of
its own against the same DynamoDB Local table) brings it to the baseline; this code's then accepts it,
and reads everything back unchanged. A table not at the baseline is refused, naming that release. The
machinery a later step would use (AddIndex, DeleteIndex, Backfill, plan, backups) is tried on synthetic
steps appended to STEPS."""
import os
import shutil
import subprocess
import sys
import threading
import uuid
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from io import StringIO

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.core.management.base import CommandError

from catalog.checks import refuse_outdated_table, table_problems
from catalog.gateway import client as dynamo
from catalog.gateway import codec, keys
from catalog.gateway.catalog.products import (
    brands_all,
    product_get,
    products_by_brand,
    products_by_category,
    products_search,
)
from catalog.gateway.orders.entities import PurchaseLine
from catalog.gateway.orders.fulfilment import order_cancel, order_ship, orders_open
from catalog.gateway.orders.orders import order_place
from catalog.gateway.stock.history import stock_history_all, stock_ledger
from catalog.gateway.stock.reorder import product_set_reorder_point, products_to_reorder
from catalog.gateway.stock.stock import stock_decrease, stock_increase
from catalog.gateway.table import backfill_scan, schema
from catalog.gateway.table.backfill_scan import rewrite_item, rewrite_of
from catalog.gateway.table.migrations import (
    BASELINE,
    BASELINE_COMMIT,
    STEPS,
    AddIndex,
    Backfill,
    DeleteIndex,
    Run,
    migrate,
    migrations_applied,
    migrations_pending,
    runner,
)
from tests.helpers import REPO, seed, with_sales_as_adjustments

pytestmark = pytest.mark.django_db

# What the steps up to the baseline add to items of the seed's layout: taken away to make such a table.
DERIVED = {
    *(f"{index}{part}" for index in keys.SORT_INDEXES for part in ("PK", "SK")), *keys.REORDER_ATTRIBUTES,
    f"{keys.LEDGER}PK", f"{keys.LEDGER}SK", f"{keys.BY_REASON}PK", f"{keys.BY_REASON}SK", *keys.OPEN_ORDER_ATTRIBUTES,
    "categoryCounts", "brandCounts",
}
# The seed's two list indexes, which projected the exact level and the description.
SEED_PROJECTED = ["type", "productId", "name", "description", "stockLevel", "price", "brandId", "categoryId", "image",
                  "count"]


def all_items(table):
    """Every item of a table but the migration records (tests may Scan; the shop never does)."""
    items, params = {}, {"TableName": table, "ConsistentRead": True}
    while True:
        response = dynamo.client().scan(**params)
        for item in map(codec.deserialize, response["Items"]):
            if item["PK"] != keys.MIGRATIONS_PK:
                items[(item["PK"], item["SK"])] = item
        if "LastEvaluatedKey" not in response:
            return items
        params["ExclusiveStartKey"] = response["LastEvaluatedKey"]


def is_opening(item):
    return item.get("type") == "STOCK_ADJUSTMENT" and item.get("reason") == "opening"


def without_openings(items):
    return {k: v for k, v in items.items() if not is_opening(v)}


def openings(items):
    """{product: [(delta, resulting level, the change after it or None)]} of the opening stock changes:
    what a staff member reads at the start of each product's history."""
    found = {}
    for (pk, sk), item in sorted(items.items()):
        if is_opening(item):
            later = [s for p, s in items if p == pk and s.startswith("STOCK#") and s > sk]
            found.setdefault(item["productId"], []).append(
                (int(item["delta"]), int(item["resultingLevel"]), bool(later)))
    return found


def shop_history():
    """Orders of two customers (one placed, one shipped, one cancelled) and staff stock changes."""
    def buy(customer, pid, quantity, price):
        oid = f"{date.today():%Y%m%d}-{uuid.uuid4().hex}"
        order_place(customer_id=customer, customer_name=customer.title(), customer_email=f"{customer}@example.com",
                    order_id=oid, token=uuid.uuid4().hex, lines=[PurchaseLine(pid, quantity, Decimal(price))])
        return oid

    buy("ann", "1", 2, "39990.00")
    shipped = buy("bob", "4", 1, "899.00")
    cancelled = buy("bob", "7", 3, "29.90")
    order_ship(customer_id="bob", order_id=shipped)
    order_cancel(customer_id="bob", order_id=cancelled, who="staff")
    stock_increase(product_id="5", quantity=10, token=uuid.uuid4().hex, who="staff", reference="PO-1")
    stock_decrease(product_id="6", quantity=1, token=uuid.uuid4().hex, who="staff", note="scratched")
    product_set_reorder_point(product_id="7", reorder_point=45)


# What the baseline gives an order line placed before sales were recorded on order lines: its Buyers keys,
# its order's time, number and customer (no Ledger keys, no level: its sale's record is the adjustment).
BUYER_KEYS_BACKFILLED = (*keys.BUYER_ATTRIBUTES, "at", "customerId", "customerName", "customerEmail", "orderNumber")


def as_migrated(items):
    """Today's `items` as a table of the seed's layout holds them once at the baseline."""
    return with_sales_as_adjustments(items, keep=BUYER_KEYS_BACKFILLED)


def seed_index(name):
    return {"IndexName": name, "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": SEED_PROJECTED},
            "KeySchema": [{"AttributeName": f"{name}PK", "KeyType": "HASH"},
                          {"AttributeName": f"{name}SK", "KeyType": "RANGE"}]}


def make_seed_layout_copy(source, target):
    """A table of the seed's layout (PK/SK, GSI1, GSI2) holding `source`'s items as the seed's code
    would have left them: no sort, warehouse or search items or keys, no counts on brands and categories,
    sales recorded as stock adjustments (with_sales_as_adjustments)."""
    request = schema.create_table_request(target, indexes=[])
    request["AttributeDefinitions"] += [{"AttributeName": f"{name}{part}", "AttributeType": "S"}
                                        for name in (keys.GSI1, keys.GSI2) for part in ("PK", "SK")]
    request["GlobalSecondaryIndexes"] = [seed_index(keys.GSI1), seed_index(keys.GSI2)]
    dynamo.client().create_table(**request)
    dynamo.client().get_waiter("table_exists").wait(TableName=target)
    for item in with_sales_as_adjustments(all_items(source)).values():
        if item.get("type") in ("TERM", "TERM_COUNT", "ORDER_NUMBER") or is_opening(item):
            continue  # (imports wrote no opening stock changes then)
        old = {k: v for k, v in item.items() if k not in DERIVED}
        if item.get("type") == "ORDER":  # before order numbers (and names on orders)
            old = {k: v for k, v in old.items() if k not in ("orderNumber", "customerName", "customerEmail")}
        dynamo.client().put_item(TableName=target, Item=codec.serialize(old))


@pytest.fixture
def today(local_ddb):
    """This code's table, with the small catalog and a shop's history; returns (table, its items)."""
    seed()
    shop_history()
    return local_ddb, all_items(local_ddb)


@pytest.fixture
def seed_table(today, settings):
    """The same shop on a table of the seed's layout; the settings point at it."""
    source, items = today
    target = f"seed-{uuid.uuid4().hex[:10]}"
    make_seed_layout_copy(source, target)
    settings.DYNAMODB_TABLE = target
    yield target, items
    dynamo.client().update_table(TableName=target, DeletionProtectionEnabled=False)
    dynamo.client().delete_table(TableName=target)


def baseline_release(tmp_path):
    """The baseline release's code, extracted from this checkout's git history into `tmp_path`."""
    git = shutil.which("git")
    if git is None:
        pytest.skip("git is not installed: the baseline release's code cannot be extracted")
    found = subprocess.run([git, "-C", str(REPO), "cat-file", "-e", f"{BASELINE_COMMIT}^{{commit}}"],
                           capture_output=True)
    if found.returncode != 0:
        pytest.skip(f"this checkout's history lacks the baseline commit {BASELINE_COMMIT} (a shallow clone?)")
    tree = tmp_path / "baseline"
    tree.mkdir()
    archive = subprocess.run([git, "-C", str(REPO), "archive", BASELINE_COMMIT], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
    return tree


def run_baseline_migrate_table(tree, *, table, endpoint, tmp_path):
    """`manage.py migrate_table` of the baseline release on `table`, as an operator runs it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DYNAMODB_"))}
    env.update(DJANGO_SETTINGS_MODULE="storefront.settings", DJANGO_SECRET_KEY="tests-only-not-a-secret",
               DYNAMODB_ENDPOINT_URL=endpoint, DYNAMODB_TABLE=table,
               DATABASE_URL=f"sqlite:///{tmp_path / 'baseline-db.sqlite3'}")
    return subprocess.run([sys.executable, str(tree / "manage.py"), "migrate_table"], cwd=tree, env=env,
                          capture_output=True, text=True, timeout=600)


def listing(page):
    return [p.product_id for p in page.items]


@pytest.mark.dynamodb_local
def test_a_seed_layout_shop_goes_to_the_baseline_by_its_release_then_to_this_code_with_nothing_lost(
    seed_table, today, settings, client, dynamodb_local_url, tmp_path,
):
    table, before = seed_table
    source = today[0]
    tree = baseline_release(tmp_path)

    # This code refuses it, naming the release to run first.
    with pytest.raises(CommandError, match=BASELINE_COMMIT):
        call_command("migrate_table", stdout=StringIO())

    hop = run_baseline_migrate_table(tree, table=table, endpoint=dynamodb_local_url, tmp_path=tmp_path)
    assert hop.returncode == 0, hop.stderr
    assert "Applying 0001_products" in hop.stdout and "0075_alert_counts_on_products: done" in hop.stdout

    out = StringIO()
    call_command("migrate_table", stdout=out)  # no write needed: the baseline release's records say it
    said = out.getvalue()
    assert "No migrations to apply: the table is up to date." in said
    assert f"Table {table!r} is at version {BASELINE.name}." in said
    assert table_problems() == []
    refuse_outdated_table()

    # Every item as this code would have written it: orders, customers, history, levels, counts, terms,
    # and each product's opening stock change (its level at the import, first in its history), so its
    # history adds up to its level.
    after = all_items(table)
    assert without_openings(after) == without_openings(as_migrated(before))
    assert openings(after) == openings(as_migrated(before)) and len(openings(after)) == 7  # product 3 is at 0
    reconciled = StringIO()
    call_command("reconcile_stock", stdout=reconciled)
    assert "8 product(s) checked: every history adds up." in reconciled.getvalue()
    described = dynamo.client().describe_table(TableName=table)["Table"]
    assert sorted(i["IndexName"] for i in described["GlobalSecondaryIndexes"]) == sorted(schema.INDEXES)
    assert described["DeletionProtectionEnabled"] is True
    ttl = dynamo.client().describe_time_to_live(TableName=table)["TimeToLiveDescription"]
    assert ttl["TimeToLiveStatus"] == "ENABLED" and ttl["AttributeName"] == "expiresAt"

    # What the pages read, the same on the upgraded table as on this code's own.
    today_utc = datetime.now(UTC).date()
    since = today_utc - timedelta(days=1)  # the test may have begun before midnight
    def reads():
        return (
            listing(products_by_brand(brand_id="10", sort="name")),
            listing(products_by_brand(brand_id="3", sort="-price")),
            listing(products_by_category(category_id="1", brand_id="10", sort="price")),
            listing(products_search(query="acme", sort="price")),
            listing(products_search(query="model")),
            [(b.brand_id, dict(b.category_counts)) for b in brands_all()],
            [p.product_id for p in products_to_reorder().items],
            [o.order_id for o in orders_open().items],
            # (the opening changes are compared above: the baseline wrote its own)
            [c.adjustment_id for c in stock_ledger(start=since, end=today_utc) if c.reason != "opening"],
            [c.adjustment_id for c in stock_history_all(product_id="6", reason="damaged")],
            [(c.reason, c.delta, c.order_id) for c in stock_history_all(product_id="1") if c.reason != "opening"],
            [c.order_id for c in stock_history_all(product_id="7", reason="sold")],
        )

    migrated = reads()
    settings.DYNAMODB_TABLE = source
    assert migrated == reads()
    settings.DYNAMODB_TABLE = table
    assert migrated[0] == ["7", "6", "8"]  # Acme Car Charger, Acme Jet Boat, Acme Roadster
    assert migrated[3] == ["7", "8", "6"]
    assert "7" in migrated[6] and "3" in migrated[6]  # reorder point 45 with 40 left (after the cancel); sold out
    assert len(migrated[7]) == 1 and len(migrated[10]) == 1  # ann's order, open; her sale, counted once

    # Pages, as a shopper sees them.
    client.get("/")  # the names, cached as on a busy site
    page = client.get("/brands/10/?sort=name")
    assert page.status_code == 200
    html = page.content.decode()
    assert html.index("Acme Car Charger") < html.index("Acme Jet Boat") < html.index("Acme Roadster")
    assert "Acme Roadster" in client.get("/search/?q=roadster").content.decode()

    # A second run changes nothing.
    call_command("migrate_table", stdout=StringIO())
    assert all_items(table) == after


# --- a table not at the baseline is refused, naming the release ------------------------------------

def forget_baseline(table, *, steps_recorded=()):
    """The table as a release before the baseline left it: no baseline record, the records of
    `steps_recorded` (names of the baseline release's steps)."""
    dynamo.client().delete_item(TableName=table, Key=codec.serialize(keys.migration_key(BASELINE.name)))
    for name in steps_recorded:
        dynamo.client().put_item(TableName=table, Item=codec.serialize(
            {**keys.migration_key(name), "type": "MIGRATION", "name": name, "contract": False}))


def test_migrate_table_refuses_a_table_of_a_release_before_the_baseline_and_names_the_release(ddb):
    forget_baseline(ddb)  # a seed-layout table: no records at all
    for args in ((), ("--plan",)):
        with pytest.raises(CommandError) as refused:
            call_command("migrate_table", *args, stdout=StringIO())
        said = str(refused.value)
        assert BASELINE_COMMIT in said and "no record of the baseline's migration steps" in said
        assert "migrate_table on it first" in said
    assert migrations_applied(table=ddb) == {}  # nothing written


def test_a_table_that_lacks_one_step_of_the_baseline_is_refused_and_stops_a_server(ddb):
    forget_baseline(ddb, steps_recorded=BASELINE.steps[:-1])  # that release's migrate_table --before-deploy
    with pytest.raises(CommandError, match=f"lacks 1 of the baseline's 40 migration steps \\({BASELINE.steps[-1]}\\)"):
        call_command("migrate_table", stdout=StringIO())
    problems = table_problems()
    assert [p.id for p in problems] == ["catalog.E003"]
    assert BASELINE_COMMIT in problems[0].msg and BASELINE_COMMIT in problems[0].hint
    with pytest.raises(ImproperlyConfigured, match=BASELINE_COMMIT):
        refuse_outdated_table()
    with pytest.raises(Exception, match=BASELINE_COMMIT):
        call_command("check", "--database", "default", stdout=StringIO(), stderr=StringIO())


def test_a_table_the_baseline_release_migrated_is_at_the_baseline_without_a_write(ddb):
    forget_baseline(ddb, steps_recorded=BASELINE.steps)  # each step recorded, as that release's migrate_table does
    records = migrations_applied(table=ddb)
    assert table_problems() == []
    out = StringIO()
    call_command("migrate_table", "--no-backup", stdout=out)
    assert "No migrations to apply: the table is up to date." in out.getvalue()
    assert f"is at version {BASELINE.name}." in out.getvalue()
    assert set(migrations_applied(table=ddb)) == set(records)


def test_a_new_table_is_created_at_the_baseline(ddb):
    records = migrations_applied(table=ddb)
    assert set(records) == {step.name for step in STEPS}
    assert records[BASELINE.name]["description"].startswith(f"the layout of release {BASELINE_COMMIT[:12]}")
    assert migrations_pending(table_name=ddb, steps=STEPS) == [] and table_problems() == []
    out = StringIO()
    call_command("migrate_table", "--plan", stdout=out)
    assert "No migrations to apply: the table is up to date." in out.getvalue()


@pytest.mark.dynamodb_local
def test_gunicorn_refuses_to_serve_a_table_of_a_release_before_the_baseline(local_ddb, dynamodb_local_url, tmp_path):
    forget_baseline(local_ddb)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DYNAMODB_"))}
    env.update(DJANGO_SETTINGS_MODULE="storefront.settings", DJANGO_SECRET_KEY="tests-only-not-a-secret",
               DYNAMODB_ENDPOINT_URL=dynamodb_local_url, DYNAMODB_TABLE=local_ddb,
               DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}")
    server = subprocess.run(
        [str(REPO / ".venv" / "bin" / "gunicorn"), "storefront.wsgi:application", "--bind", "127.0.0.1:0",
         "--workers", "1"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=120,
    )
    assert server.returncode != 0
    assert BASELINE_COMMIT in server.stderr and "migrate_table" in server.stderr


# --- the machinery of later steps, on synthetic ones -------------------------------------------------

def _level_copy(run, capacity):
    """A synthetic backfill: each product's level copied to `levelCopy`, on condition the level is as read."""
    def derive(item):
        return rewrite_of(item, {"levelCopy": item.get("stockLevel", 0)}, ("levelCopy",))

    return lambda item: int(rewrite_item(item, derive=derive, depends_on=("stockLevel",), capacity=capacity))


TEST_INDEX = AddIndex("0076_index_LevelCopy", "LevelCopy", "index LevelCopy (products by level copy)",
                      key_attributes=("brandId", "productId"), projected=None)
TEST_BACKFILL = Backfill("0077_level_copy", ("PRODUCT",), _level_copy, "products: their level copied")


@pytest.fixture
def later_steps(settings):
    """Two later steps, appended to STEPS (the list every reader of it holds) for the test, and recorded
    on the test's table (made by the fixture before this one), as on a new table."""
    added = [TEST_INDEX, TEST_BACKFILL]
    STEPS.extend(added)
    runner.migrations_mark_applied(steps=added, table=settings.DYNAMODB_TABLE)
    yield added
    del STEPS[-len(added):]


@pytest.mark.dynamodb_local
def test_plan_lists_the_later_steps_and_writes_nothing(local_ddb, local_catalog, later_steps):
    table = local_ddb
    untouched, records = all_items(table), migrations_applied(table=table)
    for step in later_steps:
        dynamo.client().delete_item(TableName=table, Key=codec.serialize(keys.migration_key(step.name)))
    out = StringIO()
    call_command("migrate_table", "--plan", stdout=out)
    said = out.getvalue()
    assert "0076_index_LevelCopy: index LevelCopy (products by level copy)\n" in said
    assert "0077_level_copy: products: their level copied (rewrites items: backup first)" in said
    assert f"is at version {BASELINE.name}." in said
    assert all_items(table) == untouched
    assert set(migrations_applied(table=table)) == set(records) - {s.name for s in later_steps}
    assert "LevelCopy" not in {i["IndexName"] for i in dynamo.client().describe_table(TableName=table)["Table"][
        "GlobalSecondaryIndexes"]}
    problems = table_problems()
    assert [p.id for p in problems] == ["catalog.E001"]  # a server of this code would not start
    assert "0076_index_LevelCopy, 0077_level_copy" in problems[0].msg
    assert "python manage.py migrate_table" in problems[0].hint


class Crash(Exception):
    pass


@pytest.mark.dynamodb_local
def test_an_interrupted_backfill_continues_where_it_stopped_and_gives_the_same_result(
    local_ddb, local_catalog, later_steps, monkeypatch,
):
    table = local_ddb
    for step in later_steps:
        dynamo.client().delete_item(TableName=table, Key=codec.serialize(keys.migration_key(step.name)))
    monkeypatch.setattr(backfill_scan, "PAGE_SIZE", 1)
    written = []
    real = TEST_BACKFILL.make_apply

    def crashing(run, capacity):
        apply = real(run, capacity)

        def once(item):
            if len(written) == 4:
                raise Crash("the machine went away")
            written.append(item["productId"])
            return apply(item)
        return once

    crashing_step = Backfill(TEST_BACKFILL.name, TEST_BACKFILL.item_types, crashing, TEST_BACKFILL.description)
    with pytest.raises(Crash):
        migrate(steps=[BASELINE, TEST_INDEX, crashing_step], run=Run(table=table, segments=2, say=lambda line: None),
                backup=False)
    assert migrations_pending(table_name=table, steps=STEPS) == [TEST_BACKFILL.name]
    done, segments, scanned = backfill_scan.backfill_status(TEST_BACKFILL.name)
    assert segments == 2 and scanned > 0

    scanned_again = []
    real_scan = backfill_scan.scan_all

    def counting(**kwargs):
        tally = real_scan(**kwargs)
        scanned_again.append(tally.scanned)
        return tally

    monkeypatch.setattr(runner, "scan_all", counting)
    migrate(steps=STEPS, run=Run(table=table, segments=4, say=lambda line: None), backup=False)
    assert migrations_pending(table_name=table, steps=STEPS) == []
    products = [i for i in all_items(table).values() if i.get("type") == "PRODUCT"]
    assert len(products) == 8 and all(p["levelCopy"] == p["stockLevel"] for p in products)
    # It went on from the pages it had saved, not from the start (nor with 4 segments).
    total = len(all_items(table))
    assert scanned_again[0] < total
    assert backfill_scan.backfill_status(TEST_BACKFILL.name) is None  # progress records cleared
    # The index the first step made serves its Query.
    found = dynamo.client().query(TableName=table, IndexName="LevelCopy", KeyConditionExpression="brandId = :b",
                                  ExpressionAttributeValues=codec.serialize({":b": "3"}))["Items"]
    found = [i for i in map(codec.deserialize, found) if i.get("type") == "PRODUCT"]
    assert found and all("levelCopy" in i for i in found)


@pytest.mark.dynamodb_local
def test_a_sale_and_a_staff_change_during_a_backfill_are_kept(local_ddb, local_catalog, later_steps, monkeypatch):
    table = local_ddb
    dynamo.client().delete_item(TableName=table, Key=codec.serialize(keys.migration_key(TEST_BACKFILL.name)))
    before = product_get(product_id="2", consistent=True).stock_level
    real = backfill_scan.rewrite_item
    meanwhile, done = threading.Lock(), set()

    def with_others_writing(item, **kwargs):
        # Between the Scan's read of the product and its rewrite, a shopper buys and staff set a reorder point.
        with meanwhile:
            if item.get("productId") == "2" and "sale" not in done:
                done.add("sale")
                stock_decrease(product_id="2", quantity=1, token=uuid.uuid4().hex, reason="sold", who="shop")
            if item.get("productId") == "4" and "staff" not in done:
                done.add("staff")
                product_set_reorder_point(product_id="4", reorder_point=20)
        return real(item, **kwargs)

    monkeypatch.setattr(sys.modules[__name__], "rewrite_item", with_others_writing)
    migrate(steps=STEPS, run=Run(table=table, say=lambda line: None), backup=False)
    assert done == {"sale", "staff"}
    items = all_items(table)
    assert items[("P#2", "METADATA")]["levelCopy"] == before - 1 == items[("P#2", "METADATA")]["stockLevel"]
    assert items[("P#4", "METADATA")]["reorderPoint"] == 20 and "levelCopy" in items[("P#4", "METADATA")]


def test_a_table_ahead_of_the_code_is_refused(ddb):
    put = dynamo.client().put_item
    put(TableName=ddb, Item=codec.serialize({
        **keys.migration_key("0099_newer_addition"), "type": "MIGRATION", "name": "0099_newer_addition",
        "contract": False,
    }))
    assert [p.id for p in table_problems()] == ["catalog.W003"]  # older code still serves beside a newer one
    refuse_outdated_table()
    with pytest.raises(CommandError, match="0099_newer_addition"):
        call_command("migrate_table", stdout=StringIO())
    put(TableName=ddb, Item=codec.serialize({
        **keys.migration_key("0100_drop_old_index"), "type": "MIGRATION", "name": "0100_drop_old_index",
        "contract": True,
    }))
    assert "catalog.E002" in [p.id for p in table_problems()]
    with pytest.raises(ImproperlyConfigured, match="newer release"):
        refuse_outdated_table()


@pytest.mark.dynamodb_local
def test_an_index_projection_changes_by_a_new_index_and_a_later_delete(local_ddb):
    seed()
    product_set_reorder_point(product_id="7", reorder_point=45)
    steps = [
        *STEPS,
        AddIndex("0076_index_Reorder2", "Reorder2", "the reorder list with whole products",
                 key_attributes=("ReorderPK", "ReorderSK"), projected=None),
        DeleteIndex("0077_drop_Reorder", keys.REORDER, "the old reorder index"),
    ]
    migrate(steps=steps[:-1], run=Run(table=local_ddb, say=lambda line: None), backup=False)
    found = dynamo.client().query(
        TableName=local_ddb, IndexName="Reorder2", KeyConditionExpression="ReorderPK = :pk",
        ExpressionAttributeValues=codec.serialize({":pk": keys.REORDER_PK}),
    )["Items"]
    assert "description" in codec.deserialize(found[0])  # ALL: what the old index did not project
    migrate(steps=steps, run=Run(table=local_ddb, say=lambda line: None), backup=False)
    described = dynamo.client().describe_table(TableName=local_ddb)["Table"]
    names = [i["IndexName"] for i in described["GlobalSecondaryIndexes"]]
    assert "Reorder2" in names and keys.REORDER not in names
    records = migrations_applied(table=local_ddb)
    assert records["0077_drop_Reorder"]["contract"] is True
    assert migrations_pending(table_name=local_ddb, steps=steps) == []


def test_a_backup_is_taken_and_named_before_the_first_step_that_rewrites_items(catalog, ddb, later_steps):
    """On moto (which has on-demand backups, as AWS does): a table that lacks a backfill."""
    record = codec.serialize(keys.migration_key(TEST_BACKFILL.name))
    dynamo.client().delete_item(TableName=ddb, Key=record)
    out = StringIO()
    call_command("migrate_table", "--plan", stdout=out)
    assert TEST_BACKFILL.name in out.getvalue()
    assert dynamo.client().list_backups(TableName=ddb)["BackupSummaries"] == []

    out = StringIO()
    call_command("migrate_table", stdout=out)
    said = out.getvalue()
    backups = dynamo.client().list_backups(TableName=ddb)["BackupSummaries"]
    assert len(backups) == 1
    assert backups[0]["BackupName"].startswith(f"{ddb}-before-{TEST_BACKFILL.name}-")
    assert f"Backup {backups[0]['BackupName']} taken" in said
    assert "Point-in-time recovery is on." in said and "Deletion protection turned on." in said
    assert migrations_pending(table_name=ddb, steps=STEPS) == []

    dynamo.client().delete_item(TableName=ddb, Key=record)
    call_command("migrate_table", "--no-backup", stdout=StringIO())
    assert len(dynamo.client().list_backups(TableName=ddb)["BackupSummaries"]) == 1


def test_before_deploy_applies_what_the_new_code_needs_to_start_and_stops_at_the_online_steps(ddb, later_steps):
    online = Backfill("0078_online_copy", ("PRODUCT",), _level_copy, "products: a copy after the deploy",
                      online=True)
    STEPS.append(online)
    try:
        for step in (TEST_BACKFILL, online):
            dynamo.client().delete_item(TableName=ddb, Key=codec.serialize(keys.migration_key(step.name)))
        assert [p.id for p in table_problems()] == ["catalog.E001"]  # a new server would not start
        out = StringIO()
        call_command("migrate_table", "--before-deploy", "--no-backup", stdout=out)
        said = out.getvalue()
        assert "Applying 0077_level_copy" in said and "Stopping before 0078_online_copy" in said
        assert migrations_pending(table_name=ddb, steps=STEPS) == ["0078_online_copy"]
        assert [p.id for p in table_problems()] == ["catalog.W004"]  # it starts; the online step runs after
    finally:
        STEPS.remove(online)


def test_no_later_step_takes_the_table_past_dynamodbs_limits_on_projected_attributes():
    """From the baseline's indexes through every later step: AWS's 100 INCLUDE attributes summed over
    the indexes, DynamoDB Local's 20 distinct names, at every point; at the end, the schema's indexes."""
    indexes = {name: schema.index_definition(name)["Projection"] for name in schema.INDEXES}

    def within_limits(where):
        included = [a for p in indexes.values() if p["ProjectionType"] == "INCLUDE" for a in p["NonKeyAttributes"]]
        assert len(included) <= schema.PROJECTED_ATTRIBUTE_LIMIT, where
        assert len(set(included)) <= schema.LOCAL_DISTINCT_PROJECTED_LIMIT, where

    within_limits(BASELINE.name)
    for step in STEPS:
        if isinstance(step, AddIndex):
            indexes[step.index] = step.definitions()[1]["Projection"]
        elif isinstance(step, DeleteIndex):
            indexes.pop(step.index)
        within_limits(step.name)
    assert indexes == {name: schema.index_definition(name)["Projection"] for name in schema.INDEXES}
