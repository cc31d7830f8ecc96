"""Table migrations: the machinery (runner.py) and the steps (steps.py)."""
from .runner import (
    AddIndex,
    Backfill,
    Baseline,
    DeleteIndex,
    EnableTTL,
    MigrationRefused,
    Recount,
    Run,
    TableState,
    migrate,
    migrations_applied,
    migrations_mark_applied,
    migrations_pending,
    table_state,
)
from .steps import BASELINE, BASELINE_COMMIT, STEPS

__all__ = [
    "BASELINE", "BASELINE_COMMIT", "STEPS", "AddIndex", "Backfill", "Baseline", "DeleteIndex", "EnableTTL",
    "MigrationRefused", "Recount", "Run", "TableState", "migrate", "migrations_applied", "migrations_mark_applied",
    "migrations_pending", "table_state",
]
