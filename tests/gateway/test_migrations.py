"""Table migrations on DynamoDB Local: a table of the seed's layout, with orders, customers and
stock history in it, brought to today's layout in place, with nothing lost (migrate_table)."""
import re
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
from catalog.gateway import backfill_scan, codec, keys, migrations, schema
from catalog.gateway import client as dynamo
from catalog.gateway.catalog.products import (
    brands_all,
    product_get,
    products_by_brand,
    products_by_category,
    products_search,
)
from catalog.gateway.dynamo import pages
from catalog.gateway.dynamo.testing import count_requests
from catalog.gateway.errors import NotFound
from catalog.gateway.migrations import STEPS, AddIndex, DeleteIndex, Run, migrate, migrations_pending
from catalog.gateway.orders.entities import PurchaseLine
from catalog.gateway.orders.fulfilment import order_cancel, order_ship, orders_open
from catalog.gateway.orders.orders import order_place
from catalog.gateway.stock.entities import StockAdjustment
from catalog.gateway.stock.history import stock_history_all, stock_ledger
from catalog.gateway.stock.reorder import product_set_reorder_point, products_to_reorder
from catalog.gateway.stock.stock import stock_decrease, stock_increase
from tests.helpers import as_before_issue_33, seed, small_catalog

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


# What migration 0036 gives an order line of before: its Buyers keys, its order's time, number and customer
# (no Ledger keys, no level: its sale's record is the adjustment).
BUYER_KEYS_BACKFILLED = (*keys.BUYER_ATTRIBUTES, "at", "customerId", "customerName", "customerEmail", "orderNumber")


def as_migrated(items):
    """Today's `items` as a table of the seed's layout holds them after migrate_table."""
    return as_before_issue_33(items, keep=BUYER_KEYS_BACKFILLED)


def make_seed_layout_copy(source, target):
    """A table of the seed's layout (PK/SK, GSI1, GSI2) holding `source`'s items as the seed's code
    would have left them: no sort, warehouse or search items or keys, no counts on brands and categories,
    sales recorded as stock adjustments (as_before_issue_33)."""
    dynamo.client().create_table(**schema.create_table_request(target, indexes=[keys.GSI1, keys.GSI2]))
    dynamo.client().get_waiter("table_exists").wait(TableName=target)
    for item in as_before_issue_33(all_items(source)).values():
        if item.get("type") in ("TERM", "TERM_COUNT", "ORDER_NUMBER") or is_opening(item):
            continue  # (imports wrote no opening stock changes before 0017)
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

    # Every item as today's code would have written it: orders, customers, history, levels, counts, terms,
    # and each product's opening stock change (its level at the import, first in its history), so its
    # history adds up to its level.
    after = all_items(table)
    assert without_openings(after) == without_openings(as_migrated(before))
    assert openings(after) == openings(as_migrated(before)) and len(openings(after)) == 7  # product 3 is at 0
    assert "0017_opening_stock_entries" in said
    reconciled = StringIO()
    call_command("reconcile_stock", stdout=reconciled)
    assert "8 product(s) checked: every history adds up." in reconciled.getvalue()
    described = dynamo.client().describe_table(TableName=table)["Table"]
    assert sorted(i["IndexName"] for i in described["GlobalSecondaryIndexes"]) == sorted(schema.INDEXES)
    assert described["DeletionProtectionEnabled"] is True
    ttl = dynamo.client().describe_time_to_live(TableName=table)["TimeToLiveDescription"]
    assert ttl["TimeToLiveStatus"] == "ENABLED" and ttl["AttributeName"] == "expiresAt"

    # What the pages read, the same on the migrated table as on today's.
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
            # (the opening changes are compared above: 0017 wrote its own)
            [c.adjustment_id for c in stock_ledger(start=since, end=today_utc) if c.reason != "opening"],
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
    assert all_items(table) == after


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
    assert set(after) == {k for k, v in without_openings(as_before_issue_33(before)).items()
                          if v.get("type") not in ("TERM", "TERM_COUNT", "ORDER_NUMBER")}
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
    assert without_openings(all_items(table)) == without_openings(as_migrated(before))
    assert openings(all_items(table)) == openings(as_migrated(before))
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


# --- issue 32: list indexes that project the stock band ------------------------------------------

PRE_BAND_STEPS = [step for step in STEPS if not step.online]
BAND_STEPS = [step for step in STEPS if step.online]
# List pages of every kind of list index (brand, category, pair; seed order, by name, by price, a
# search by price); the small catalog's levels 70, 12, 40 ("In stock"), 5, 3, 2, 1 ("Only N left") and 0.
LIST_PAGES = ["/brands/3/", "/brands/2/?sort=name", "/brands/10/?sort=-price", "/categories/1/",
              "/categories/3/?sort=price", "/categories/1/?brand=10", "/brands/3/?category=1&sort=name",
              "/search/?q=acme&sort=price"]


def badges(html):
    """[(name, badge)] of a list page's cards, in order."""
    cards = re.findall(r'<li class="card">.*?</li>', html, re.S)
    return [(re.search(r'class="card-title">(.*?)<', c).group(1), re.search(r'class="badge [^"]*">(.*?)<', c).group(1))
            for c in cards]


def shown(client):
    return {url: badges(client.get(url).content.decode()) for url in LIST_PAGES}


@pytest.fixture
def pre_band_table(today, settings):
    """The same shop on a table of the layout before issue 32 (the eight list indexes under their old
    names, projecting the exact level; no stock bands; every earlier step recorded)."""
    source, items = today
    target = f"preband-{uuid.uuid4().hex[:10]}"
    # With the indexes of the steps recorded below (PRE_BAND_STEPS: every step that is not online,
    # 0055_index_AlertQueue and 0065_index_HoldExpiry of issue 36 too).
    indexes = [*keys.LIST_INDEXES, *schema.WAREHOUSE_INDEXES, keys.ALERT_QUEUE, keys.HOLD_EXPIRY]
    dynamo.client().create_table(**schema.create_table_request(target, indexes=indexes))
    dynamo.client().get_waiter("table_exists").wait(TableName=target)
    for item in all_items(source).values():
        item.pop("stockBand", None)
        dynamo.client().put_item(TableName=target, Item=codec.serialize(item))
    migrations.migrations_mark_applied(table=target, steps=PRE_BAND_STEPS)
    pages._old_index_until.clear()  # this process has not met the table before
    settings.DYNAMODB_TABLE = target
    yield target, items
    pages._old_index_until.clear()
    dynamo.client().update_table(TableName=target, DeletionProtectionEnabled=False)
    dynamo.client().delete_table(TableName=target)


def test_a_shop_of_before_the_stock_bands_serves_the_same_badges_at_every_step_of_its_upgrade(
    pre_band_table, today, settings, client,
):
    table, before = pre_band_table
    settings.DYNAMODB_TABLE = today[0]
    expected = shown(client)
    assert ("Model 3", "In stock") in expected["/brands/3/"] and ("Model Y", "Only 3 left") in expected["/brands/3/"]
    assert any(badge == "Sold out" for page in expected.values() for _name, badge in page)
    settings.DYNAMODB_TABLE = table

    # The new code starts on it (the steps left are online ones) and serves it as it is.
    assert [p.id for p in table_problems()] == ["catalog.W004"]
    refuse_outdated_table()
    assert shown(client) == expected
    for n in range(1, len(BAND_STEPS) + 1):  # then one step at a time, as migrate_table goes
        migrate(steps=PRE_BAND_STEPS + BAND_STEPS[:n], run=Run(table=table, say=lambda line: None), backup=False)
        assert shown(client) == expected, f"after {BAND_STEPS[n - 1].name}"
        if BAND_STEPS[n - 1].name == "0018_stock_bands":
            assert all(all_items(table)[("P#2", "METADATA")].get(a) == 3 for a in ("stockLevel", "stockBand"))

    # Orders, history and levels kept: every item as today's code wrote it, and today's indexes.
    assert all_items(table) == before
    described = dynamo.client().describe_table(TableName=table)["Table"]
    assert sorted(i["IndexName"] for i in described["GlobalSecondaryIndexes"]) == sorted(schema.INDEXES)
    assert migrations_pending(table_name=table) == [] and table_problems() == []
    assert [o.order_id for o in orders_open().items] == [o.order_id for o in orders_open_on(today[0])]

    client.get("/")  # the names, cached as on a busy site
    for url in LIST_PAGES[:-1]:  # a search adds its BatchGetItem of levels
        with count_requests() as counter:
            assert client.get(url).status_code == 200
        assert counter.operations == ["Query"], url


def orders_open_on(table):
    from django.conf import settings

    here = settings.DYNAMODB_TABLE
    settings.DYNAMODB_TABLE = table
    try:
        return orders_open().items
    finally:
        settings.DYNAMODB_TABLE = here


def test_a_list_page_reads_the_old_index_while_the_new_one_is_missing_and_asks_once_a_while(pre_band_table, client):
    client.get("/")
    with count_requests() as counter:
        first = client.get("/brands/3/").content.decode()
    assert counter.operations == ["Query", "Query"]  # GSI1v2 refused, then GSI1
    with count_requests() as counter:
        again = client.get("/brands/3/").content.decode()
    assert counter.operations == ["Query"] and badges(again) == badges(first)
    assert ("Model Y", "Only 3 left") in badges(first)


def test_no_step_takes_the_table_past_dynamodbs_limits_on_projected_attributes():
    """From the seed's layout (GSI1, GSI2) through every step: AWS's 100 INCLUDE attributes summed over
    the indexes, DynamoDB Local's 20 distinct names, at every point; at the end, today's indexes."""
    indexes = {name: schema.index_definition(name)["Projection"] for name in (keys.GSI1, keys.GSI2)}
    for step in STEPS:
        if isinstance(step, AddIndex):
            indexes[step.index] = step.definitions()[1]["Projection"]
        elif isinstance(step, DeleteIndex):
            indexes.pop(step.index)
        included = [a for p in indexes.values() if p["ProjectionType"] == "INCLUDE" for a in p["NonKeyAttributes"]]
        assert len(included) <= schema.PROJECTED_ATTRIBUTE_LIMIT, step.name
        assert len(set(included)) <= schema.LOCAL_DISTINCT_PROJECTED_LIMIT, step.name
    assert indexes == {name: schema.index_definition(name)["Projection"] for name in schema.INDEXES}


def test_before_deploy_applies_what_the_new_code_needs_to_start_and_stops_at_the_online_steps(pre_band_table):
    table, _before = pre_band_table
    dynamo.client().delete_item(TableName=table, Key=codec.serialize(keys.migration_key("0016_order_numbers")))
    assert [p.id for p in table_problems()] == ["catalog.E001"]  # a new server would not start
    out = StringIO()
    call_command("migrate_table", "--before-deploy", stdout=out)
    said = out.getvalue()
    assert "Applying 0016_order_numbers" in said and "Stopping before 0018_stock_bands" in said
    assert migrations_pending(table_name=table) == [step.name for step in BAND_STEPS]
    assert [p.id for p in table_problems()] == ["catalog.W004"]  # it starts now; the old indexes are still there
    names = {i["IndexName"] for i in dynamo.client().describe_table(TableName=table)["Table"]["GlobalSecondaryIndexes"]}
    assert set(keys.LIST_INDEXES) <= names


def test_opening_stock_entries_make_every_history_add_up_and_survive_an_interruption(local_ddb, monkeypatch):
    """0017 on a shop imported before opening stock changes: each product gets the level it had before
    its first change (its level, if it has none; nothing for one at 0), first in its history; a sale
    during a rush (no resulting level) is counted; an interrupted run goes on and writes none twice."""
    seed()
    shop_history()  # a sale of 2 of product 1, a shipped sale of 4, a cancelled order of 7, staff on 5 and 6
    for item in as_before_issue_33(all_items(local_ddb)).values():  # sales recorded as before issue 33
        dynamo.client().put_item(TableName=local_ddb, Item=codec.serialize(item))
    rush = StockAdjustment(product_id="8", adjustment_id="rush", at=datetime.now(UTC), delta=-1,
                           resulting_level=None, reason="sold", order_id="20260101T000000000000-rush")
    dynamo.client().put_item(TableName=local_ddb, Item=codec.serialize(rush.to_item()))
    dynamo.client().update_item(  # the rush sale's own decrement: 1 -> 0
        TableName=local_ddb, Key=codec.serialize(keys.product_key("8")), UpdateExpression="SET stockLevel = :l",
        ExpressionAttributeValues=codec.serialize({":l": 0}))
    for key, item in all_items(local_ddb).items():
        if is_opening(item):
            dynamo.client().delete_item(TableName=local_ddb, Key=codec.serialize({"PK": key[0], "SK": key[1]}))
    dynamo.client().delete_item(TableName=local_ddb,
                                Key=codec.serialize(keys.migration_key("0017_opening_stock_entries")))
    out = StringIO()
    with pytest.raises(CommandError, match="7 of 8 product"):  # all but product 3, imported sold out
        call_command("reconcile_stock", stdout=out)
    assert "DRIFT product 2: the stock level is 3, but the product has no stock changes" in out.getvalue()

    monkeypatch.setattr(backfill_scan, "PAGE_SIZE", 2)
    real, written = migrations.transact_write, []

    def crashing(actions, **kwargs):
        if len(written) == 3:
            raise Crash("the machine went away")
        written.append(actions)
        return real(actions, **kwargs)

    monkeypatch.setattr(migrations, "transact_write", crashing)
    with pytest.raises(Crash):
        migrate(run=Run(table=local_ddb, segments=2, say=lambda line: None), backup=False)
    assert migrations_pending(table_name=local_ddb) == ["0017_opening_stock_entries"]
    monkeypatch.setattr(migrations, "transact_write", real)
    migrate(run=Run(table=local_ddb, say=lambda line: None), backup=False)
    assert migrations_pending(table_name=local_ddb) == []

    # What staff read at the start of each history: the level imported (small catalog), before every change.
    imported = {p["productId"]: p["stockLevel"] for p in small_catalog()["products"]}
    for product_id, stock in imported.items():
        changes = list(stock_history_all(product_id=product_id))
        if stock == 0:
            assert not any(c.reason == "opening" for c in changes), product_id
            continue
        assert [(c.reason, c.delta, c.resulting_level) for c in changes[-1:]] == [("opening", stock, stock)], product_id
        assert [c.reason for c in changes].count("opening") == 1 and changes[-1].who == "migrate_table"
        assert sum(c.delta for c in changes) == product_get(product_id=product_id, consistent=True).stock_level
    out = StringIO()
    call_command("reconcile_stock", stdout=out)
    assert "8 product(s) checked: every history adds up." in out.getvalue()

    # Run again (as a table made before steps were recorded would): nothing more to write.
    items = all_items(local_ddb)
    dynamo.client().delete_item(TableName=local_ddb,
                                Key=codec.serialize(keys.migration_key("0017_opening_stock_entries")))
    migrate(run=Run(table=local_ddb, say=lambda line: None), backup=False)
    assert all_items(local_ddb) == items


def test_a_sale_while_the_opening_entry_is_written_is_kept_and_counted(local_ddb, monkeypatch):
    seed()
    for key, item in all_items(local_ddb).items():
        if is_opening(item):
            dynamo.client().delete_item(TableName=local_ddb, Key=codec.serialize({"PK": key[0], "SK": key[1]}))
    real, sold = migrations.transact_write, []

    def sale_first(actions, **kwargs):
        if not sold and '"P#4"' in repr(actions[0]).replace("'", '"'):
            sold.append(stock_decrease(product_id="4", quantity=1, token=uuid.uuid4().hex, reason="sold"))
        return real(actions, **kwargs)

    dynamo.client().delete_item(TableName=local_ddb,
                                Key=codec.serialize(keys.migration_key("0017_opening_stock_entries")))
    monkeypatch.setattr(migrations, "transact_write", sale_first)
    migrate(run=Run(table=local_ddb, say=lambda line: None), backup=False)  # 0017 alone is pending
    assert sold
    changes = list(stock_history_all(product_id="4"))
    assert [(c.reason, c.delta, c.resulting_level) for c in changes] == [("sold", -1, 11), ("opening", 12, 12)]
    call_command("reconcile_stock", stdout=StringIO())


def test_waiting_alert_counts_of_before_move_onto_their_products_once(local_ddb):
    """0075 on a shop of issue 36's first release, where a product's waiting alerts were counted on an item of
    their own: each count is added onto the product item (where the code counts alerts asked since the deploy)
    and the old item goes; run again, nothing changes."""
    from catalog.gateway.alerts import alerts
    from catalog.gateway.alerts.alerts import alert_ask
    from tests.helpers import alert_count

    seed()
    alert_ask(product_id="3", email="ann@example.com", customer_id="c1")  # asked after the deploy
    for product_id, waiting in (("3", 2), ("8", 1), ("5", 0)):
        dynamo.client().put_item(TableName=local_ddb, Item=codec.serialize(
            {**keys.legacy_alert_count_key(product_id), "waiting": waiting}))
    step = alerts.COUNTS_STEP

    def run_step():
        dynamo.client().delete_item(TableName=local_ddb, Key=codec.serialize(keys.migration_key(step)))
        assert migrations_pending(table_name=local_ddb) == [step]
        migrate(run=Run(table=local_ddb, say=lambda line: None), backup=False)
        assert not any(dynamo.client().get_item(TableName=local_ddb, Key=codec.serialize(
            keys.legacy_alert_count_key(pid))).get("Item") for pid in ("3", "8", "5", "1", "999"))

    run_step()
    assert [alert_count(product_id=pid) for pid in ("3", "8", "5", "1")] == [3, 1, 0, 0]
    # Run again, with odd leftovers: a count item without a count, one of a product that does not exist.
    for key in (keys.legacy_alert_count_key("1"), {**keys.legacy_alert_count_key("999"), "waiting": 2}):
        dynamo.client().put_item(TableName=local_ddb, Item=codec.serialize(key))
    run_step()
    assert [alert_count(product_id=pid) for pid in ("3", "8", "5", "1")] == [3, 1, 0, 0]
    with pytest.raises(NotFound):
        product_get(product_id="999")  # no stub product was made
