"""The one definition of the table: the app, the tests and `create_table` all use it; and what
is done to the table as a whole (create, protect, back up, delete)."""
from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from botocore.exceptions import ClientError
from django.conf import settings

from .. import keys
from ..dynamo.boundary import error_code, translate_errors
from ..dynamo.client import client, read
from ..dynamo.codec import serialize
from ..errors import CatalogUnavailable

# What a product list shows, projected into every list index (INCLUDE): GSI1 and GSI2 (the seed's
# order) and the six sort indexes (keys.SORT_INDEXES: name and price order under a brand, a
# category and a brand+category pair), each under its v2 name (keys.list_index). The stock band
# (`stockBand`, availability.stock_band), not the exact level: a sale inside a band changes nothing
# projected, so DynamoDB writes no list index entry. Search term items use ByPrice1v2 too
# (they carry no stock at all: a sale never writes them).
LIST_ATTRIBUTES = [
    "type",
    "productId",
    "name",
    "stockBand",
    "price",
    "brandId",
    "categoryId",
    "image",
    "count",  # a search term's count item (read by the price-ordered search from ByPrice1v2)
]
# What the warehouse indexes project. A stock change (the Ledger CSV, the history by reason) and an
# open order (with its customer, whose partition holds the order) are shown whole: ALL, which
# also keeps them out of DynamoDB's limit on INCLUDE attributes (PROJECTED_ATTRIBUTE_LIMIT). A
# product on the reorder list: what the list shows.
REORDER_ATTRIBUTES = ["type", "productId", "name", "stockLevel", "reorderPoint", "brandId", "categoryId"]
WAREHOUSE_INDEXES = {
    keys.LEDGER: None,  # ALL
    keys.BY_REASON: None,
    keys.REORDER: REORDER_ATTRIBUTES,
    keys.OPEN_ORDERS: None,
    keys.BUYERS: None,  # who bought a product (order lines): shown whole, as the Ledger's
}

# AWS counts the NonKeyAttributes of every INCLUDE index, summed over the indexes, against 100 a
# table; DynamoDB Local allows 20 distinct names. A new index that projects INCLUDE must fit both,
# also part way through migrate_table (tests/gateway/table/test_migrations.py counts the later steps):
# 8 x 9 + 7 = 79; 11 distinct names.
PROJECTED_ATTRIBUTE_LIMIT = 100
LOCAL_DISTINCT_PROJECTED_LIMIT = 20

# Idempotency marks expire after this many seconds (DynamoDB TTL on `expiresAt`).
TTL_ATTRIBUTE = "expiresAt"


# Every index of the table, in the order a new table lists them: name -> projected attributes
# (None: ALL). An index added later is added to a table by a migration step (migrations/steps.py).
INDEXES = {
    **{keys.list_index(prefix): LIST_ATTRIBUTES for prefix in keys.LIST_INDEXES},
    **WAREHOUSE_INDEXES,
    # Back-in-stock alerts (keys.py): waiting alerts of a product and emails due. ALL: an
    # alert is small, and ALL stays out of the INCLUDE limit (PROJECTED_ATTRIBUTE_LIMIT).
    keys.ALERT_QUEUE: None,
    # Timed holds: holds by the time they end, for the release job. ALL: a hold is small.
    keys.HOLD_EXPIRY: None,
}


def index_definition(name: str) -> dict[str, Any]:
    """The GlobalSecondaryIndexes entry of index `name` (keys `<prefix>PK`, `<prefix>SK`,
    keys.index_key_prefix)."""
    projected = INDEXES[name]
    prefix = keys.index_key_prefix(name)
    return {
        "IndexName": name,
        "KeySchema": [
            {"AttributeName": f"{prefix}PK", "KeyType": "HASH"},
            {"AttributeName": f"{prefix}SK", "KeyType": "RANGE"},
        ],
        "Projection": {"ProjectionType": "ALL"} if projected is None
        else {"ProjectionType": "INCLUDE", "NonKeyAttributes": list(projected)},
    }


def index_attribute_definitions(name: str) -> list[Any]:
    prefix = keys.index_key_prefix(name)
    return [{"AttributeName": f"{prefix}{part}", "AttributeType": "S"} for part in ("PK", "SK")]


def create_table_request(table_name: str, *, indexes: Any = None) -> dict[str, Any]:
    """The CreateTable request for the single table, as boto3 takes it (`indexes`: the names of
    INDEXES to create; all of them unless given)."""
    indexes = list(INDEXES) if indexes is None else list(indexes)
    return {
        "TableName": table_name,
        "BillingMode": "PAY_PER_REQUEST",
        "KeySchema": [
            {"AttributeName": "PK", "KeyType": "HASH"},
            {"AttributeName": "SK", "KeyType": "RANGE"},
        ],
        "AttributeDefinitions": [
            {"AttributeName": "PK", "AttributeType": "S"},
            {"AttributeName": "SK", "AttributeType": "S"},
            *{d["AttributeName"]: d for name in indexes for d in index_attribute_definitions(name)}.values(),
        ],
        "GlobalSecondaryIndexes": [index_definition(name) for name in indexes],
    }


def table_create(table_name: str, *, wait: bool = True) -> str:
    """Create the table unless it exists (with TTL on); wait until it is ACTIVE. Returns "created" or
    "exists". What a new table records of its migrations is the runner's (table.table_ensure)."""
    ddb = client()
    with translate_errors():
        try:
            ddb.describe_table(TableName=table_name)
            outcome = "exists"
        except ClientError as exc:
            if error_code(exc) != "ResourceNotFoundException":
                raise
            ddb.create_table(**create_table_request(table_name))
            outcome = "created"
        if wait or outcome == "created":
            ddb.get_waiter("table_exists").wait(TableName=table_name, WaiterConfig={"Delay": 1, "MaxAttempts": 120})
    if outcome == "created":
        table_set_ttl(table_name, enabled=True)
    return outcome


def table_exists(table: Any) -> bool:
    try:
        with translate_errors():
            client().describe_table(TableName=table)
    except CatalogUnavailable as exc:
        if error_code(exc.__cause__) == "ResourceNotFoundException":
            return False
        raise
    return True


def table_set_ttl(table_name: str, *, enabled: bool) -> None:
    """Turn DynamoDB's expiry of items on `expiresAt` (TTL) on or off. The app's tables have it on;
    the benchmark turns it off on its own tables while it measures (DynamoDB Local's sweep stops
    every read of the instance for a while; AWS's runs beside them)."""
    with translate_errors():
        client().update_time_to_live(
            TableName=table_name,
            TimeToLiveSpecification={"Enabled": enabled, "AttributeName": TTL_ATTRIBUTE},
        )


def table_delete(table_name: str) -> None:
    """Delete the table (tests and benchmarks); missing is fine."""
    with translate_errors():
        try:
            client().delete_table(TableName=table_name)
        except ClientError as exc:
            if error_code(exc) != "ResourceNotFoundException":
                raise


def table_ping(*, table_name: str) -> None:
    """One GetItem of the probe key (keys.PROBE_KEY, never written), the way the shopper's reads go
    (client.read): the table answers, within the request's budget; CatalogUnavailable if not."""
    with translate_errors():
        read("GetItem", {"TableName": table_name, "Key": serialize(keys.PROBE_KEY), "ProjectionExpression": "PK"})


# --- protection ----------------------------------------------------------------------------------

def table_backup(*, table: Any, reason: str) -> str:
    """An on-demand backup of the table (named after the step about to run); says what it did."""
    name = f"{table}-before-{reason}-{datetime.now(UTC):%Y%m%d%H%M%S}"[:255]
    try:
        with translate_errors():
            arn = client().create_backup(TableName=table, BackupName=name)["BackupDetails"]["BackupArn"]
    except ClientError as exc:
        if error_code(exc) == "UnknownOperationException":
            return "This DynamoDB (DynamoDB Local) takes no backups: none was taken."
        raise
    return f"Backup {name} taken ({arn})."


def table_protect(*, table: Any = None, pitr: bool = True, deletion_protection: bool = True) -> list[str]:
    """Turn on point-in-time recovery and deletion protection (each when asked); returns what was
    done, one line each, including what this DynamoDB does not support."""
    table = table or settings.DYNAMODB_TABLE
    said = []
    if deletion_protection:
        with translate_errors():
            described = client().describe_table(TableName=table)["Table"]
        if described.get("DeletionProtectionEnabled"):
            said.append("Deletion protection is on.")
        else:
            try:
                with translate_errors():
                    client().update_table(TableName=table, DeletionProtectionEnabled=True)
                said.append("Deletion protection turned on.")
            except ClientError as exc:
                said.append(f"Deletion protection is not supported here ({error_code(exc)}).")
    if pitr:
        try:
            with translate_errors():
                client().update_continuous_backups(
                    TableName=table, PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True}
                )
            said.append("Point-in-time recovery is on.")
        except ClientError as exc:
            if error_code(exc) != "UnknownOperationException":
                raise
            said.append("Point-in-time recovery is not supported by this DynamoDB (DynamoDB Local): not on.")
    return said
