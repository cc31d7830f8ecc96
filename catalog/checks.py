"""The table check: an app server whose code needs a table migration that has not run says so
at start, as Django does for unapplied migrations, instead of serving wrong pages.

Tagged `database` like Django's own checks that reach a database: `manage.py check --database
default` and `manage.py migrate` run it; `storefront/wsgi.py` runs it when a server starts
(`refuse_outdated_table`). Plain `manage.py check` does not reach DynamoDB.
"""
import logging

from django.conf import settings
from django.core import checks
from django.core.exceptions import ImproperlyConfigured

log = logging.getLogger(__name__)

MIGRATE = "Run: python manage.py migrate_table (see the README, Upgrading)."


@checks.register(checks.Tags.database, "dynamodb")
def table_is_current(app_configs=None, databases=None, **kwargs):
    if not databases:
        return []
    return table_problems()


def table_problems():
    """Errors when the table lacks steps this code needs, or has a newer release's steps that
    take away what this code needs; warnings when DynamoDB cannot be asked (the server still
    starts, and answers 503 until it can), the table has a newer release's additions, or it lacks
    only `online` steps (applied by migrate_table after this code is deployed: it serves meanwhile)."""
    from catalog.gateway import CatalogUnavailable, note_table_state, request_budget
    from catalog.gateway.migrations import table_exists, table_state

    table = settings.DYNAMODB_TABLE
    try:
        with request_budget(seconds=settings.DYNAMODB_WRITE_BUDGET):  # a server's start may wait that long
            if not table_exists(table):
                return [checks.Warning(
                    f"DynamoDB table {table!r} does not exist.", hint="Run: python manage.py create_table",
                    id="catalog.W002",
                )]
            state = table_state(table=table)
    except CatalogUnavailable as exc:
        return [checks.Warning(f"Could not read the table's migrations: {exc}.", id="catalog.W001")]
    note_table_state([s.name for s in state.pending])
    problems = []
    if state.required:
        names = ", ".join(s.name for s in state.required)
        problems.append(checks.Error(
            f"DynamoDB table {table!r} lacks {len(state.required)} migration step(s) this code needs: {names}.",
            hint=MIGRATE, id="catalog.E001",
        ))
    online = [s.name for s in state.pending if s.online]
    if online and not state.required:
        problems.append(checks.Warning(
            f"DynamoDB table {table!r} has {len(online)} migration step(s) to apply that this code serves without "
            f"meanwhile: {', '.join(online)}.", hint=MIGRATE, id="catalog.W004",
        ))
    contract = [r["name"] for r in state.unknown if r.get("contract")]
    if contract:
        problems.append(checks.Error(
            f"DynamoDB table {table!r} was migrated by a newer release past what this code can serve: "
            f"{', '.join(contract)}.", hint="Deploy that release (or a newer one).", id="catalog.E002",
        ))
    elif state.unknown:
        problems.append(checks.Warning(
            f"DynamoDB table {table!r} has a newer release's additions "
            f"({', '.join(r['name'] for r in state.unknown)}); this code ignores them.", id="catalog.W003",
        ))
    return problems


def refuse_outdated_table():
    """At a server's start: raise ImproperlyConfigured on an error of the table check (the worker
    does not boot, and its log names the command); log the warnings."""
    problems = table_problems()
    for problem in problems:
        if problem.is_serious():
            raise ImproperlyConfigured(f"{problem.msg} {problem.hint or ''}".strip())
        log.warning("%s %s", problem.msg, problem.hint or "")
