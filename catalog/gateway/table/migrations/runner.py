"""Table migrations: the single table's layout evolves in place, in named, ordered steps.

As Django's migrations do for the accounts database, `python manage.py migrate_table` brings an
existing table to the layout this code needs (`schema.py` describes it), and records each step it
applied in the table itself (`MIGRATIONS` / `STEP#<name>`), so every app server and the command
agree on the table's version. The steps are in `steps.py`; this module is the machinery.

The first step is a `Baseline`: the layout a named release's `migrate_table` leaves. This code does
not carry the steps that lead there; a table not at the baseline is refused, with the release to run
first. A new table (`table_ensure`) is created at the baseline, with every later step marked.

Steps follow expand/contract: a release adds what its code needs (an index, an attribute on existing
items) in a way the code already running ignores, then the new code is deployed; taking away what
older code needs is a later release's step, marked `contract=True`. An app server whose code needs a
step that has not run refuses to start (`catalog/checks.py`), naming the command.

Kinds of step: `AddIndex` (UpdateTable, one index at a time as DynamoDB requires, waiting until it is
ACTIVE and backfilled), `DeleteIndex`, `Backfill` (a parallel Scan, `backfill_scan.py`, each item
rewritten on condition that what it was derived from is unchanged), `Recount`, `EnableTTL`. An
index's projection cannot be changed in place: add the new index under a new name (AddIndex), move
the readers to it in that release's code, and delete the old one in a later release (DeleteIndex,
contract). Each step is idempotent: run again, or on a table that already has what it adds, it
changes nothing.
"""
from __future__ import annotations
from typing import Any, Sequence
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from botocore.exceptions import ClientError
from django.conf import settings

from ... import keys
from ...dynamo.boundary import error_code, translate_errors
from ...dynamo.client import client
from ...dynamo.codec import deserialize, serialize
from ...dynamo.conditions import Key, expression
from ...errors import CatalogError, CatalogUnavailable
from ..backfill_scan import capacity_for, progress_forget, scan_all
from ..schema import index_attribute_definitions, index_definition, table_backup

TABLE_WAIT_SECONDS = 3600  # an index on a large table takes a while to build (AWS: minutes to hours)
POLL_SECONDS = 0.5


class MigrationRefused(CatalogError):
    """The table cannot be migrated by this code (it is ahead of it, or missing)."""


@dataclass
class Run:
    """What a step needs while it runs: the table, the capacity it may use, how to report."""

    table: str
    capacity_share: float = 0.25
    units_per_second: float | None = None
    segments: int = 4
    say: Callable[[str], None] = print
    progress: Callable | None = None  # progress(total) -> a tqdm-like bar (update(n), close())
    stop: threading.Event = field(default_factory=threading.Event)

    def describe(self) -> Any:
        with translate_errors():
            return client().describe_table(TableName=self.table)["Table"]


# --- kinds of step -------------------------------------------------------------------------

@dataclass(frozen=True)
class Baseline:
    """The layout that release `commit` (its `migrate_table`) leaves a table at. A table is at it when
    it has this step's record (created at it) or a record of each of that release's steps (`steps`,
    their names: brought there by that release's migrate_table, which records each as applied). This
    code cannot bring a table there: apply() refuses, naming the release to run first."""

    name: str
    commit: str
    steps: tuple
    description: str = ""
    contract: bool = False
    online: bool = False
    rewrites_items = False

    def applied_in(self, applied: Any) -> bool:
        return self.name in applied or all(name in applied for name in self.steps)

    def refusal(self, table: Any, applied: Any) -> str:
        """What is said of a table that is not at the baseline (its records: `applied`)."""
        missing = [name for name in self.steps if name not in applied]
        if len(missing) == len(self.steps):
            found = "it has no record of the baseline's migration steps"
        else:
            shown = ", ".join(missing[:5]) + (", ..." if len(missing) > 5 else "")
            found = f"it lacks {len(missing)} of the baseline's {len(self.steps)} migration steps ({shown})"
        return (
            f"Table {table!r} was made by a release before the baseline, release {self.commit}: {found}. "
            f"Run that release's migrate_table on it first (git checkout {self.commit}; python manage.py "
            "migrate_table), then this release's. See docs/upgrading.md."
        )

    def apply(self, run: Any) -> None:
        raise MigrationRefused(self.refusal(run.table, migrations_applied(table=run.table)))


@dataclass(frozen=True)
class AddIndex:
    """Create index `index` as schema.INDEXES defines it, or, to change an index's projection, under
    a new name with the key attributes of the old one (`key_attributes`) and its own `projected`."""

    name: str
    index: str
    description: str = ""
    contract: bool = False
    key_attributes: tuple | None = None  # (partition, sort) attribute names; default <index>PK, <index>SK
    projected: tuple | None = ()  # with key_attributes: the INCLUDE attributes, None for ALL
    online: bool = False  # the code serves with the step pending (see STEPS)
    rewrites_items = False

    def definitions(self) -> tuple[Any, Any] | tuple[list[dict[str, Any]], dict[str, list[dict[str, Any]] | str | dict[str, str] | dict[str, Sequence[Any]]]]:
        if self.key_attributes is None:
            return index_attribute_definitions(self.index), index_definition(self.index)
        pk, sk = self.key_attributes
        return [{"AttributeName": a, "AttributeType": "S"} for a in (pk, sk)], {
            "IndexName": self.index,
            "KeySchema": [{"AttributeName": pk, "KeyType": "HASH"}, {"AttributeName": sk, "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "ALL"} if self.projected is None
            else {"ProjectionType": "INCLUDE", "NonKeyAttributes": list(self.projected)},
        }

    def apply(self, run: Any) -> str:
        if _index_status(run, self.index) is None:
            attributes, definition = self.definitions()
            _update_table(run, AttributeDefinitions=attributes, GlobalSecondaryIndexUpdates=[{"Create": definition}])
            run.say(f"  creating index {self.index}")
        _wait_for(run, lambda: _index_status(run, self.index) == ("ACTIVE", False),
                  f"index {self.index} to be ACTIVE and backfilled")
        return f"index {self.index} is ACTIVE"


@dataclass(frozen=True)
class DeleteIndex:
    name: str
    index: str
    description: str = ""
    contract: bool = True  # older code may still read it
    online: bool = False
    rewrites_items = False

    def apply(self, run: Any) -> str:
        status = _index_status(run, self.index)
        if status is not None and status[0] != "DELETING":
            _update_table(run, GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": self.index}}])
        _wait_for(run, lambda: _index_status(run, self.index) is None, f"index {self.index} to be deleted")
        return f"index {self.index} is gone"


@dataclass(frozen=True)
class Backfill:
    """Rewrite the items of `item_types` (none: the untyped items whose PK begins with `pk_prefix`):
    `make_apply(run, capacity)` returns the function that takes one item and returns how many writes
    it made."""

    name: str
    item_types: tuple
    make_apply: Callable
    description: str = ""
    contract: bool = False
    online: bool = False
    pk_prefix: str = ""
    rewrites_items = True

    def apply(self, run: Any) -> str:
        description = run.describe()
        capacity = capacity_for(description, share=run.capacity_share, units_per_second=run.units_per_second)
        bar = run.progress(description.get("ItemCount") or None) if run.progress else None
        try:
            tally = scan_all(
                step_name=self.name, item_types=self.item_types, apply=self.make_apply(run, capacity),
                capacity=capacity, segments=run.segments, stop=run.stop, pk_prefix=self.pk_prefix,
                on_page=(lambda scanned, written: bar.update(scanned)) if bar else None,
            )
        finally:
            if bar:
                bar.close()
        progress_forget(self.name)
        return (
            f"{tally.scanned:,} items read, {tally.written:,} written; "
            f"{capacity.reads.total:,.0f} read and {capacity.writes.total:,.0f} write units this run"
        )


@dataclass(frozen=True)
class Recount:
    """Run `function()`, which recounts something from Queries (no Scan) and repairs it."""

    name: str
    function: Callable
    description: str = ""
    contract: bool = False
    online: bool = False
    rewrites_items = True

    def apply(self, run: Any) -> Any:
        return self.function()


@dataclass(frozen=True)
class EnableTTL:
    name: str
    attribute: str
    description: str = ""
    contract: bool = False
    online: bool = False
    rewrites_items = False

    def apply(self, run: Any) -> str:
        with translate_errors():
            current = client().describe_time_to_live(TableName=run.table)["TimeToLiveDescription"]
        on = current.get("TimeToLiveStatus") in ("ENABLED", "ENABLING")
        if on and current.get("AttributeName") == self.attribute:
            return f"TTL already on {self.attribute}"
        with translate_errors():
            client().update_time_to_live(
                TableName=run.table, TimeToLiveSpecification={"Enabled": True, "AttributeName": self.attribute}
            )
        return f"TTL on {self.attribute}"


def _index_status(run: Any, index: Any) -> tuple[Any, bool] | None:
    """(IndexStatus, Backfilling) of an index, or None when the table has no such index."""
    for gsi in run.describe().get("GlobalSecondaryIndexes", []):
        if gsi["IndexName"] == index:
            return gsi["IndexStatus"], bool(gsi.get("Backfilling"))
    return None


def _update_table(run: Any, **changes: Any) -> None:
    """UpdateTable, waiting while another index is being built or deleted (one at a time)."""
    deadline = time.monotonic() + TABLE_WAIT_SECONDS
    while True:
        try:
            with translate_errors():
                client().update_table(TableName=run.table, **changes)
            return
        except ClientError as exc:
            busy = error_code(exc) in ("LimitExceededException", "ResourceInUseException")
            if not busy or time.monotonic() > deadline:
                raise
        time.sleep(POLL_SECONDS)


def _wait_for(run: Any, done: Any, what: str) -> None:
    deadline = time.monotonic() + TABLE_WAIT_SECONDS
    while not done():
        if run.stop.is_set():
            raise KeyboardInterrupt
        if time.monotonic() > deadline:
            raise CatalogUnavailable(f"Waited {TABLE_WAIT_SECONDS} s for {what}; run migrate_table again")
        time.sleep(POLL_SECONDS)


# --- the record of applied steps ---------------------------------------------------------------

def migrations_applied(*, table: Any = None) -> dict[str, Any]:
    """{step name: record} of the steps applied to the table (one Query of MIGRATIONS)."""
    table = table or settings.DYNAMODB_TABLE
    params = dict(
        TableName=table, ConsistentRead=True,
        **expression(key=Key("PK").eq(keys.MIGRATIONS_PK) & Key("SK").begins_with(keys.MIGRATION_STEP_PREFIX)),
    )
    applied = {}
    while True:
        with translate_errors():
            response = client().query(**params)
        for item in map(deserialize, response["Items"]):
            applied[item["name"]] = item
        if "LastEvaluatedKey" not in response:
            return applied
        params["ExclusiveStartKey"] = response["LastEvaluatedKey"]


def _is_applied(step: Any, applied: Any) -> bool:
    return step.applied_in(applied) if isinstance(step, Baseline) else step.name in applied


@dataclass(frozen=True)
class TableState:
    applied: dict
    pending: list  # steps of the code not applied, in order
    unknown: list  # records of steps the table has and the code does not know (a newer release's)
    behind: str = ""  # what is said of a table not at the baseline ("" when it is)
    version: str = ""  # the name of the last step of the code's applied, or "" (none is)

    @property
    def required(self) -> list[Any]:
        """Pending steps without which this code cannot serve (the others are `online`)."""
        return [s for s in self.pending if not s.online]


def table_state(*, steps: Any, table: Any = None) -> TableState:
    """Where the table stands against `steps` (steps.STEPS: a Baseline, then the later steps)."""
    table = table or settings.DYNAMODB_TABLE
    applied = migrations_applied(table=table)
    known = {s.name for s in steps} | {name for s in steps if isinstance(s, Baseline) for name in s.steps}
    done = [s.name for s in steps if _is_applied(s, applied)]
    pending = [s for s in steps if not _is_applied(s, applied)]
    behind = next((s.refusal(table, applied) for s in pending if isinstance(s, Baseline)), "")
    return TableState(
        applied=applied, pending=pending,
        unknown=[r for name, r in sorted(applied.items()) if name not in known],
        behind=behind, version=done[-1] if done else "",
    )


def migrations_pending(*, steps: Any, table_name: str | None = None, required: bool = False) -> list[Any]:
    """Names of the steps this code has that the table has not applied (`required`: only those it
    cannot serve without); CatalogUnavailable when DynamoDB does not answer."""
    state = table_state(table=table_name, steps=steps)
    return [s.name for s in (state.required if required else state.pending)]


def _record(step: Any, table: Any, summary: str = "") -> None:
    item = {
        **keys.migration_key(step.name), "type": "MIGRATION", "name": step.name,
        "description": step.description, "contract": step.contract,
        "appliedAt": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    if summary:
        item["summary"] = summary
    with translate_errors():
        client().put_item(TableName=table, Item=serialize(item))


def migrations_mark_applied(*, steps: Any, table: Any = None) -> None:
    """Record every step as applied: a new table is created with the layout of the last of them (its
    Baseline's one record says it is at the baseline)."""
    table = table or settings.DYNAMODB_TABLE
    for step in steps:
        _record(step, table, "created with this layout")


def migrate(*, steps: Any, run: Any, backup: bool = True, plan_only: bool = False, before_deploy: bool = False) -> TableState:
    """Apply the pending steps in order; returns the TableState before. Refuses (MigrationRefused)
    a table that is not at the baseline, or has steps this code does not know. Before the first step
    that rewrites items a backup is taken (table_backup) unless `backup` is false. `before_deploy`:
    stop at the first `online` step (those run once the code is deployed: they may take away what
    older code reads)."""
    state = table_state(table=run.table, steps=steps)
    if state.behind:
        raise MigrationRefused(state.behind)
    if state.unknown:
        names = ", ".join(r["name"] for r in state.unknown)
        raise MigrationRefused(
            f"Table {run.table!r} has migration step(s) this code does not know: {names}. It was migrated by a "
            "newer release: run that release (or a newer one), not this one."
        )
    if plan_only:
        return state
    backed_up = not backup
    for step in state.pending:
        if before_deploy and step.online:
            run.say(f"Stopping before {step.name}: it and the steps after it run once this code is deployed.")
            break
        if step.rewrites_items and not backed_up:
            run.say(table_backup(table=run.table, reason=step.name))
            backed_up = True
        run.say(f"Applying {step.name} ({step.description})...")
        summary = step.apply(run)
        _record(step, run.table, summary or "")
        run.say(f"  {step.name}: done ({summary})" if summary else f"  {step.name}: done")
    return state


__all__ = [
    "AddIndex", "Backfill", "Baseline", "DeleteIndex", "EnableTTL", "MigrationRefused", "Recount", "Run",
    "TableState", "migrate", "migrations_applied", "migrations_mark_applied", "migrations_pending", 
    "table_state",
]
