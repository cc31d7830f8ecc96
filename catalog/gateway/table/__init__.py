"""The single table: its definition and what is done to it as a whole (schema.py), its migrations
(migrations/: the runner and the steps) and the one Scan, a migration's backfill (backfill_scan.py)."""
from __future__ import annotations

from .migrations import STEPS, migrations_mark_applied
from .schema import (
    create_table_request,
    table_backup,
    table_create,
    table_delete,
    table_exists,
    table_ping,
    table_protect,
    table_set_ttl,
)


def table_ensure(table_name: str, *, wait: bool = True) -> str:
    """Create the table unless it exists; wait until it is ACTIVE. Returns "created" or "exists".
    A new table is created at the last step's layout: every step is recorded as applied (the
    baseline's one record, then each later step's)."""
    outcome = table_create(table_name, wait=wait)
    if outcome == "created":
        migrations_mark_applied(table=table_name, steps=STEPS)
    return outcome


__all__ = [
    "create_table_request", "table_backup", "table_create", "table_delete", "table_ensure", "table_exists",
    "table_ping", "table_protect", "table_set_ttl",
]
