"""Backfills: the one place where the shop reads every item of its table (a parallel Scan).

A table migration that adds or rewrites attributes on existing items (`migrations/`) reads the
whole table once: in segments on threads (DynamoDB's parallel Scan), page by page, at a share of
the table's capacity (`Throttle`). Each item is rewritten with a condition on what was read, so a
sale or a staff change made meanwhile is never overwritten: the item is read again and redone.
Where each segment stopped is written after every page (`keys.migration_progress_key`), so a
backfill interrupted anywhere (Ctrl-C, a crash, a timeout) continues there when run again;
redoing the page it was on gives the same result, as every rewrite is derived from the item.

Only `migrate_table` runs this module: no request of a shopper's or a staff page scans.
"""
from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import ClientError

from .. import keys
from ..dynamo import conditions
from ..dynamo.backoff import AGAIN_NOW, Again, retry_optimistic
from ..dynamo.boundary import error_code, translate_errors
from ..dynamo.client import client, table_name
from ..dynamo.codec import Item, deserialize, serialize
from ..dynamo.conditions import Attr, Condition, Key, all_of
from ..errors import CatalogUnavailable

# Items a Scan page asks for (DynamoDB stops a page at 1 MB anyway). Large pages: DynamoDB Local finds each
# page's start by reading its segment from the beginning, so small pages slow a long backfill down as it goes.
# A run stopped part way does at most a page again (each rewrite is conditional: harmless).
PAGE_SIZE = 1000
REWRITE_ATTEMPTS = 20
# A new on-demand table's throughput before DynamoDB adapts (AWS's documentation): the share of the
# capacity a backfill may use is taken of these when the table has no provisioned or maximum throughput.
ON_DEMAND_READ_UNITS = 12_000
ON_DEMAND_WRITE_UNITS = 4_000


class Interrupted(Exception):
    """The backfill was asked to stop; where each segment got to is saved."""


class Throttle:
    """A token bucket of capacity units a second, shared by the segments' threads. Spending may
    run into debt; the spender then sleeps until the debt is paid back."""

    def __init__(self, units_per_second: Any) -> None:
        self.rate = units_per_second
        self.total = 0.0  # units spent, for the step's summary
        self._tokens = units_per_second
        self._at = time.monotonic()
        self._lock = threading.Lock()

    def spend(self, units: float) -> None:
        if not units:
            return
        with self._lock:
            self.total += units
        if not self.rate:
            return
        with self._lock:
            now = time.monotonic()
            self._tokens = min(self.rate, self._tokens + (now - self._at) * self.rate) - units
            self._at = now
            wait = -self._tokens / self.rate if self._tokens < 0 else 0
        if wait:
            time.sleep(wait)


@dataclass
class Capacity:
    """What a backfill may consume: read and write units a second (None: no limit)."""

    reads: Throttle
    writes: Throttle

    def spent(self, response: dict[str, Any], *, write: Any) -> None:
        units = sum(c.get("CapacityUnits", 0) for c in _consumed(response))
        (self.writes if write else self.reads).spend(units or (1 if write else 0.5))


def _consumed(response: dict[str, Any]) -> list[Any]:
    consumed = response.get("ConsumedCapacity") or []
    return consumed if isinstance(consumed, list) else [consumed]


def table_capacity(description: dict[str, Any]) -> tuple[Any | int, Any | int]:
    """(read, write) units a second the table can take: provisioned, or its on-demand maximum, or
    a new on-demand table's throughput."""
    provisioned = description.get("ProvisionedThroughput") or {}
    billing = (description.get("BillingModeSummary") or {}).get("BillingMode", "PROVISIONED")
    if billing == "PROVISIONED" and provisioned.get("ReadCapacityUnits"):
        return provisioned["ReadCapacityUnits"], provisioned["WriteCapacityUnits"]
    limits = description.get("OnDemandThroughput") or {}
    reads = limits.get("MaxReadRequestUnits") or -1
    writes = limits.get("MaxWriteRequestUnits") or -1
    return (reads if reads > 0 else ON_DEMAND_READ_UNITS), (writes if writes > 0 else ON_DEMAND_WRITE_UNITS)


def capacity_for(description: dict[str, Any], *, share: Any = None, units_per_second: Any = None) -> Capacity:
    """A Capacity of `share` (0-1] of the table's, or of `units_per_second` for reads and writes alike."""
    if units_per_second:
        return Capacity(Throttle(units_per_second), Throttle(units_per_second))
    reads, writes = table_capacity(description)
    return Capacity(Throttle(reads * share), Throttle(writes * share))


# --- rewriting one item -------------------------------------------------------------------

@dataclass(frozen=True)
class Rewrite:
    """Attributes to set and to remove on one item."""

    set: dict
    remove: tuple = ()


def rewrite_of(item: dict[str, Any], desired: Any, names: Any) -> Rewrite | None:
    """The Rewrite that makes `item`'s attributes `names` what `desired` says (absent from
    `desired`: removed), or None when they already are."""
    to_set = {n: desired[n] for n in names if n in desired and item.get(n) != desired[n]}
    to_remove = tuple(n for n in names if n not in desired and n in item)
    return Rewrite(to_set, to_remove) if to_set or to_remove else None


def unchanged_condition(item: Item, depends_on: Iterable[str]) -> Condition:
    """The condition that holds while the item is still there and its `depends_on` attributes are as in
    `item`."""
    return all_of(Attr("PK").exists(), *(
        Attr(name).eq(item[name]) if name in item else Attr(name).not_exists() for name in depends_on))


def item_get(key: dict[str, Any], capacity: Any) -> dict[str, Any] | None:
    """The item as it is now (a consistent read), or None."""
    with translate_errors():
        response = client().get_item(
            TableName=table_name(), Key=serialize(key), ConsistentRead=True, ReturnConsumedCapacity="TOTAL"
        )
    capacity.spent(response, write=False)
    return deserialize(response["Item"]) if "Item" in response else None


def rewrite_item(item: dict[str, Any], *, derive: Any, depends_on: Any, capacity: Any) -> bool:
    """Apply `derive(item)` (a Rewrite or None) to the item, on condition that its `depends_on`
    attributes are still as read; when another writer changed them meanwhile, read the item again
    and derive again. Returns True when the item was written."""
    key = {"PK": item["PK"], "SK": item["SK"]}
    found = item

    def attempt(_n: int) -> bool | Again:
        nonlocal found
        change = derive(found)
        if change is None:
            return False
        try:
            with translate_errors():
                response = client().update_item(**_rewrite_params(key, found, change, depends_on))
        except ClientError as exc:
            if error_code(exc) != "ConditionalCheckFailedException":
                raise
            capacity.writes.spend(1)
            fresh = item_get(key, capacity)
            if fresh is None:  # deleted meanwhile: nothing to rewrite
                return False
            found = fresh
            return AGAIN_NOW
        capacity.spent(response, write=True)
        return True

    return retry_optimistic(attempt, tries=REWRITE_ATTEMPTS, busy=CatalogUnavailable(
        f"Item {item['PK']}/{item['SK']} kept changing during the backfill; run it again"))


def _rewrite_params(key: dict[str, Any], item: dict[str, Any], change: Any, depends_on: Any) -> dict[str, Any]:
    """UpdateItem parameters: `change` (a Rewrite) applied to the item, if its `depends_on` are still as read."""
    names: dict[str, str] = {}
    values: Item = {}
    clauses = []
    if change.set:
        names.update({f"#s{i}": n for i, n in enumerate(change.set)})
        values.update({f":s{i}": v for i, v in enumerate(change.set.values())})
        clauses.append("SET " + ", ".join(f"#s{i} = :s{i}" for i in range(len(change.set))))
    if change.remove:
        names.update({f"#r{i}": n for i, n in enumerate(change.remove)})
        clauses.append("REMOVE " + ", ".join(f"#r{i}" for i in range(len(change.remove))))
    return {
        "TableName": table_name(), "Key": serialize(key), "UpdateExpression": " ".join(clauses),
        "ReturnConsumedCapacity": "TOTAL",
        **conditions.expression(condition=unchanged_condition(item, depends_on), names=names, values=values),
    }


# --- the parallel Scan ----------------------------------------------------------------------

@dataclass
class Tally:
    """Items read and written by a backfill, over every segment and run (thread-safe adds)."""

    scanned: int = 0
    written: int = 0

    def __post_init__(self) -> None:
        self._lock = threading.Lock()

    def add(self, scanned: Any, written: Any) -> None:
        with self._lock:
            self.scanned += scanned
            self.written += written


def _progress_records(step_name: str) -> dict[int, Any]:
    """{segment: record} of an interrupted run of this backfill (one Query)."""
    params = dict(
        TableName=table_name(), ConsistentRead=True,
        **conditions.expression(
            key=Key("PK").eq(keys.MIGRATIONS_PK) & Key("SK").begins_with(keys.migration_progress_prefix(step_name))
        ),
    )
    records = {}
    while True:
        with translate_errors():
            response = client().query(**params)
        for item in map(deserialize, response["Items"]):
            records[int(item["segment"])] = item
        if "LastEvaluatedKey" not in response:
            return records
        params["ExclusiveStartKey"] = response["LastEvaluatedKey"]


def _save_progress(step_name: str, segment: int, segments: int, last_key: dict[str, Any], tally: Any) -> None:
    item = {
        **keys.migration_progress_key(step_name, segment),
        "type": "MIGRATION_PROGRESS", "step": step_name, "segment": segment, "segments": segments,
        "done": last_key is None, "scanned": tally[0], "written": tally[1],
    }
    if last_key is not None:
        item["lastKey"] = json.dumps(last_key, sort_keys=True)  # the wire form, as Scan takes it back
    with translate_errors():
        client().put_item(TableName=table_name(), Item=serialize(item))


def progress_forget(step_name: str) -> None:
    """Delete a finished backfill's progress records."""
    for segment in _progress_records(step_name):
        with translate_errors():
            client().delete_item(
                TableName=table_name(), Key=serialize(keys.migration_progress_key(step_name, segment))
            )


def backfill_status(step_name: str) -> tuple[int, int, int] | None:
    """(segments done, segments, items scanned) of an interrupted run, or None if it never started."""
    records = _progress_records(step_name)
    if not records:
        return None
    segments = int(next(iter(records.values()))["segments"])
    return sum(bool(r["done"]) for r in records.values()), segments, sum(int(r["scanned"]) for r in records.values())


def scan_all(
    *, step_name: str, item_types: Any, apply: Any, capacity: Any, segments: int = 4, on_page: Any = None,
    stop: Any = None, pk_prefix: str = ""
) -> Tally:
    """Read every item of `item_types` (items without a type: every one whose PK begins with `pk_prefix`)
    (a parallel Scan of `segments` segments, each on a thread)
    and call `apply(item)` for each; it returns how many writes it made. Continues an interrupted
    run of the same step where each segment stopped (with that run's number of segments).
    `on_page(scanned, written)` after each page; `stop` (a threading.Event) stops at the next item.
    Returns a Tally of this run; raises Interrupted when stopped."""
    records = _progress_records(step_name)
    if records:
        segments = int(next(iter(records.values()))["segments"])
    stop = stop or threading.Event()
    tally = Tally()
    filter_params = _scan_filter(item_types, pk_prefix)

    def segment_run(segment: int) -> None:
        record = records.get(segment, {})
        if record.get("done"):
            return
        counts = [int(record.get("scanned", 0)), int(record.get("written", 0))]
        params = dict(
            TableName=table_name(), Segment=segment, TotalSegments=segments, Limit=PAGE_SIZE,
            ConsistentRead=True, ReturnConsumedCapacity="TOTAL", **filter_params,
        )
        if record.get("lastKey"):
            params["ExclusiveStartKey"] = json.loads(record["lastKey"])
        while True:
            with translate_errors():
                response = client().scan(**params)
            capacity.spent(response, write=False)
            written = 0
            for item in map(deserialize, response["Items"]):
                if stop.is_set():
                    raise Interrupted
                written += apply(item)
            last_key = response.get("LastEvaluatedKey")
            counts[0] += response.get("ScannedCount", 0)
            counts[1] += written
            _save_progress(step_name, segment, segments, last_key, counts)
            tally.add(response.get("ScannedCount", 0), written)
            if on_page:
                on_page(response.get("ScannedCount", 0), written)
            if last_key is None:
                return
            params["ExclusiveStartKey"] = last_key

    _run_segments(segment_run, segments, stop)
    return tally


def _scan_filter(item_types: Any, pk_prefix: str) -> dict[str, Any]:
    """The Scan's filter: the items of `item_types`, or (none given) those whose PK begins with `pk_prefix`."""
    types = sorted(item_types)
    return conditions.expression(filter=Attr("type").is_in(types) if types else Attr("PK").begins_with(pk_prefix))


def _run_segments(segment_run: Any, segments: int, stop: Any) -> None:
    """segment_run(segment) for every segment, each on a thread, until all are done. The first error of one
    stops the others (`stop`) and is raised here; Interrupted when stopped."""
    errors = []

    def guarded(segment: int) -> None:
        try:
            segment_run(segment)
        except Interrupted:
            pass
        except BaseException as exc:  # noqa: BLE001 - raised in the calling thread below
            errors.append(exc)
            stop.set()

    threads = [threading.Thread(target=guarded, args=(s,), name=f"backfill-{s}", daemon=True) for s in range(segments)]
    for thread in threads:
        thread.start()
    try:
        for thread in threads:
            while thread.is_alive():
                thread.join(0.2)
    except BaseException:  # Ctrl-C: the threads stop at their next item; their last pages are saved
        stop.set()
        for thread in threads:
            thread.join()
        raise
    if errors:
        raise errors[0]
    if stop.is_set():
        raise Interrupted
