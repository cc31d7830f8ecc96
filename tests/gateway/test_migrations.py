"""Table migrations on DynamoDB Local: a table of the seed's layout, with orders, customers and
stock history in it, brought to today's layout in place, with nothing lost (migrate_table)."""
import threading
import uuid
from datetime import UTC, date, datetime
from decimal import Decimal
from io import StringIO

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.core.management.base import CommandError

from catalog.checks import refuse_outdated_table, table_problems
from catalog.gateway import backfill_scan, codec, keys, migrations, schema
from catalog.gateway import client as dynamo
from catalog.gateway.entities import PurchaseLine
from catalog.gateway.migrations import STEPS, AddIndex, DeleteIndex, Run, migrate, migrations_pending
from catalog.gateway.orders import order_cancel, order_place, order_ship, orders_open
from catalog.gateway.products import brands_all, product_get, products_by_brand, products_by_category, products_search
from catalog.gateway.stock import (
    product_set_reorder_point,
    products_to_reorder,
    stock_decrease,
    stock_history_all,
    stock_increase,
    stock_ledger,
)
from tests.helpers import seed

pytestmark = pytest.mark.django_db

# What a step adds to items of the seed's layout: taken away to make such a table from today's.
DERIVED = set(migrations.PRODUCT_DERIVED) | set(migrations.STOCK_ADJUSTMENT_DERIVED) | set(keys.OPEN_ORDER_ATTRIBUTES)
DERIVED_MAPS = {"categoryCounts", "brandCounts"}


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


def make_seed_layout_copy(source, target):
    """A table of the seed's layout (PK/SK, GSI1, GSI2) holding `source`'s items as the seed's code
    would have left them: no sort, warehouse or search items or keys, no counts on brands and categories."""
    dynamo.client().create_table(**schema.create_table_request(target, indexes=[keys.GSI1, keys.GSI2]))
    dynamo.client().get_waiter("table_exists").wait(TableName=target)
    for item in all_items(source).values():
        if item.get("type") in ("TERM", "TERM_COUNT", "ORDER_NUMBER"):
            continue
        old = {k: v for k, v in item.items() if k not in DERIVED and k not in DERIVED_MAPS}
        if item.get("type") == "ORDER":  # before order numbers (and names on orders)
            old = {k: v for k, v in old.items() if k not in ("orderNumber", "customerName", "customerEmail")}
        dynamo.client().put_item(TableName=target, Item=codec.serialize(old))


@pytest.fixture
def today(local_ddb):
    """Today's table, with the small catalog and a shop's history; returns (table, its items)."""
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


def listing(page):
    return [p.product_id for p in page.items]


def test_a_seed_layout_shop_is_brought_to_todays_layout_with_nothing_lost(seed_table, today, settings, client):
    table, before = seed_table
    source = today[0]
    out = StringIO()
    call_command("migrate_table", stdout=out)
    said = out.getvalue()
    assert "Applying 0001_products" in said and "Applying 0015_idempotency_ttl" in said
    assert "takes no backups" in said  # DynamoDB Local has none; AWS names the backup here
    assert f"Table {table!r} is at version {STEPS[-1].name}." in said

    # Every item as today's code would have written it: orders, customers, history, levels, counts, terms.
    after = all_items(table)
    assert after == before
    described = dynamo.client().describe_table(TableName=table)["Table"]
    assert sorted(i["IndexName"] for i in described["GlobalSecondaryIndexes"]) == sorted(schema.INDEXES)
    assert described["DeletionProtectionEnabled"] is True
    ttl = dynamo.client().describe_time_to_live(TableName=table)["TimeToLiveDescription"]
    assert ttl["TimeToLiveStatus"] == "ENABLED" and ttl["AttributeName"] == "expiresAt"

    # What the pages read, the same on the migrated table as on today's.
    today_utc = datetime.now(UTC).date()
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
            [c.adjustment_id for c in stock_ledger(start=today_utc, end=today_utc)],
            [c.adjustment_id for c in stock_history_all(product_id="6", reason="damaged")],
        )

    migrated = reads()
    settings.DYNAMODB_TABLE = source
    assert migrated == reads()
    settings.DYNAMODB_TABLE = table
    assert migrated[0] == ["7", "6", "8"]  # Acme Car Charger, Acme Jet Boat, Acme Roadster
    assert migrated[3] == ["7", "8", "6"]
    assert "7" in migrated[6] and "3" in migrated[6]  # reorder point 45 with 40 left (after the cancel); sold out

    # Pages, as a shopper sees them.
    page = client.get("/brands/10/?sort=name")
    assert page.status_code == 200
    html = page.content.decode()
    assert html.index("Acme Car Charger") < html.index("Acme Jet Boat") < html.index("Acme Roadster")
    assert "Acme Roadster" in client.get("/search/?q=roadster").content.decode()

    # A second run changes nothing.
    out = StringIO()
    call_command("migrate_table", stdout=out)
    assert "No migrations to apply." in out.getvalue()
    assert all_items(table) == before


def test_plan_lists_the_pending_steps_and_writes_nothing(seed_table):
    table, before = seed_table
    untouched = all_items(table)
    out = StringIO()
    call_command("migrate_table", "--plan", stdout=out)
    said = out.getvalue()
    for step in STEPS:
        assert step.name in said
    assert "0001_products: products: sort-index keys (name, price), Reorder keys and search term items " \
        "(rewrites items" in said
    after = all_items(table)
    assert after == untouched
    assert migrations.migrations_applied(table=table) == {}
    assert len(migrations_pending(table_name=table)) == len(STEPS)
    assert not dynamo.client().describe_table(TableName=table)["Table"].get("DeletionProtectionEnabled")
    assert set(after) == {k for k, v in before.items() if v.get("type") not in ("TERM", "TERM_COUNT", "ORDER_NUMBER")}
    assert sorted(i["IndexName"] for i in dynamo.client().describe_table(TableName=table)["Table"][
        "GlobalSecondaryIndexes"]) == ["GSI1", "GSI2"]


def test_an_up_to_date_table_has_nothing_to_apply(local_ddb):
    out = StringIO()
    call_command("migrate_table", "--plan", stdout=out)
    assert "No migrations to apply." in out.getvalue()
    out = StringIO()
    call_command("migrate_table", stdout=out)
    assert "No migrations to apply." in out.getvalue()
    dynamo.client().update_table(TableName=local_ddb, DeletionProtectionEnabled=False)  # so the fixture can drop it


class Crash(Exception):
    pass


def test_an_interrupted_backfill_continues_where_it_stopped_and_gives_the_same_result(
    seed_table, monkeypatch,
):
    table, before = seed_table
    monkeypatch.setattr(backfill_scan, "PAGE_SIZE", 3)
    real = backfill_scan.rewrite_item
    written = []

    def crashing(item, **kwargs):
        if len(written) == 4:
            raise Crash("the machine went away")
        written.append(item["productId"])
        return real(item, **kwargs)

    monkeypatch.setattr(migrations, "rewrite_item", crashing)
    with pytest.raises(Crash):
        migrate(run=Run(table=table, segments=2, say=lambda line: None), backup=False)
    assert migrations_pending(table_name=table)[0] == "0001_products"
    done, segments, scanned = backfill_scan.backfill_status("0001_products")
    assert segments == 2 and scanned > 0

    monkeypatch.setattr(migrations, "rewrite_item", real)
    scanned_again = []
    real_scan = backfill_scan.scan_all

    def counting(**kwargs):
        tally = real_scan(**kwargs)
        scanned_again.append((kwargs["step_name"], tally.scanned))
        return tally

    monkeypatch.setattr(migrations, "scan_all", counting)
    migrate(run=Run(table=table, segments=4, say=lambda line: None), backup=False)
    assert migrations_pending(table_name=table) == []
    assert all_items(table) == before
    # The first backfill went on from the pages it had saved, not from the start (nor with 4 segments).
    first = dict(scanned_again)["0001_products"]
    total = dict(scanned_again)["0009_stock_change_and_order_keys"]  # a full read of the same table
    assert first < total
    assert backfill_scan.backfill_status("0001_products") is None  # progress records cleared


def test_a_sale_and_a_staff_change_during_a_backfill_are_kept(seed_table, monkeypatch):
    table, before = seed_table
    real = backfill_scan.rewrite_item
    meanwhile = threading.Lock()
    done = set()

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

    monkeypatch.setattr(migrations, "rewrite_item", with_others_writing)
    migrate(run=Run(table=table, say=lambda line: None), backup=False)
    assert done == {"sale", "staff"}
    sold = product_get(product_id="2", consistent=True)
    assert sold.stock_level == int(before[("P#2", "METADATA")]["stockLevel"]) - 1
    item = all_items(table)[("P#2", "METADATA")]
    assert item["ReorderSK"] == keys.reorder_keys("2", sold.stock_level)["ReorderSK"]
    assert item["ByName1PK"] == "B#3"
    staffed = all_items(table)[("P#4", "METADATA")]
    level = int(before[("P#4", "METADATA")]["stockLevel"])
    assert staffed["reorderPoint"] == 20 and staffed["ReorderSK"] == keys.reorder_keys("4", level)["ReorderSK"]
    assert [p.product_id for p in products_to_reorder().items].count("4") == 1
    assert any(c.delta == -1 and c.reason == "sold" for c in stock_history_all(product_id="2"))


def test_a_table_behind_the_code_stops_a_server_from_starting(seed_table):
    problems = table_problems()
    assert [p.id for p in problems] == ["catalog.E001"]
    assert "python manage.py migrate_table" in problems[0].hint
    with pytest.raises(ImproperlyConfigured, match="migrate_table"):
        refuse_outdated_table()
    out = StringIO()
    with pytest.raises(Exception, match="migrate_table"):
        call_command("check", "--database", "default", stdout=out, stderr=StringIO())


def test_a_table_ahead_of_the_code_is_refused(local_ddb):
    put = dynamo.client().put_item
    put(TableName=local_ddb, Item=codec.serialize({
        **keys.migration_key("0099_newer_addition"), "type": "MIGRATION", "name": "0099_newer_addition",
        "contract": False,
    }))
    assert [p.id for p in table_problems()] == ["catalog.W003"]  # older code still serves beside a newer one
    refuse_outdated_table()
    with pytest.raises(CommandError, match="0099_newer_addition"):
        call_command("migrate_table", stdout=StringIO())
    put(TableName=local_ddb, Item=codec.serialize({
        **keys.migration_key("0100_drop_old_index"), "type": "MIGRATION", "name": "0100_drop_old_index",
        "contract": True,
    }))
    assert "catalog.E002" in [p.id for p in table_problems()]
    with pytest.raises(ImproperlyConfigured, match="newer release"):
        refuse_outdated_table()


def test_an_index_projection_changes_by_a_new_index_and_a_later_delete(local_ddb):
    seed()
    product_set_reorder_point(product_id="7", reorder_point=45)
    steps = [
        *STEPS,
        AddIndex("0016_index_Reorder2", "Reorder2", "the reorder list with whole products",
                 key_attributes=("ReorderPK", "ReorderSK"), projected=None),
        DeleteIndex("0017_drop_Reorder", keys.REORDER, "the old reorder index"),
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
    records = migrations.migrations_applied(table=local_ddb)
    assert records["0017_drop_Reorder"]["contract"] is True
    assert migrations_pending(table_name=local_ddb, steps=steps) == []


def test_a_backup_is_taken_and_named_before_the_first_step_that_rewrites_items(catalog, ddb):
    """On moto (which has on-demand backups, as AWS does): a table that lacks a backfill."""
    dynamo.client().delete_item(TableName=ddb, Key=codec.serialize(keys.migration_key("0001_products")))
    out = StringIO()
    call_command("migrate_table", "--plan", stdout=out)
    assert "0001_products" in out.getvalue()
    assert dynamo.client().list_backups(TableName=ddb)["BackupSummaries"] == []

    out = StringIO()
    call_command("migrate_table", stdout=out)
    said = out.getvalue()
    backups = dynamo.client().list_backups(TableName=ddb)["BackupSummaries"]
    assert len(backups) == 1
    assert backups[0]["BackupName"].startswith(f"{ddb}-before-0001_products-")
    assert f"Backup {backups[0]['BackupName']} taken" in said
    assert "Point-in-time recovery is on." in said and "Deletion protection turned on." in said
    assert migrations_pending(table_name=ddb) == []

    dynamo.client().delete_item(TableName=ddb, Key=codec.serialize(keys.migration_key("0001_products")))
    call_command("migrate_table", "--no-backup", stdout=StringIO())
    assert len(dynamo.client().list_backups(TableName=ddb)["BackupSummaries"]) == 1


def test_gunicorn_refuses_to_serve_a_table_that_lacks_a_step_and_names_the_command(local_ddb, dynamodb_local_url,
                                                                                    tmp_path):
    import os
    import subprocess

    from tests.helpers import REPO

    dynamo.client().delete_item(TableName=local_ddb, Key=codec.serialize(keys.migration_key("0001_products")))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DYNAMODB_"))}
    env.update(DJANGO_SETTINGS_MODULE="storefront.settings", DJANGO_SECRET_KEY="tests-only-not-a-secret",
               DYNAMODB_ENDPOINT_URL=dynamodb_local_url, DYNAMODB_TABLE=local_ddb,
               DJANGO_SQLITE_PATH=str(tmp_path / "db.sqlite3"))
    server = subprocess.run(
        [str(REPO / ".venv" / "bin" / "gunicorn"), "storefront.wsgi:application", "--bind", "127.0.0.1:0",
         "--workers", "1"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=120,
    )
    assert server.returncode != 0
    assert "lacks 1 migration step(s) this code needs: 0001_products" in server.stderr
    assert "python manage.py migrate_table" in server.stderr
