"""`python manage.py migrate_table`: bring the DynamoDB table to the layout this code needs, in place."""
import sys

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from catalog.gateway.errors import CatalogUnavailable
from catalog.gateway.table import table_exists, table_protect
from catalog.gateway.table.migrations import STEPS, MigrationRefused, Run, migrate, table_state


class Command(BaseCommand):
    help = (
        "Apply the table migrations this code needs (catalog/gateway/table/migrations/steps.py), in order, on the "
        "live table; resumable. --plan lists them and writes nothing. A table made by a release before the "
        "baseline is refused: that release's migrate_table brings it there first (docs/upgrading.md)."
    )
    requires_system_checks = []  # the table check (catalog/checks.py) would refuse the very thing this fixes

    def add_arguments(self, parser):
        parser.add_argument("--plan", action="store_true", help="list the pending steps; write nothing")
        parser.add_argument("--before-deploy", action="store_true",
                            help="apply only the steps the new code needs to start; stop at the first online step "
                            "(run without it once every server runs the new code)")
        parser.add_argument("--no-backup", action="store_true",
                            help="skip the on-demand backup taken before the first step that rewrites items")
        parser.add_argument("--capacity-share", type=float, default=settings.DYNAMODB_MIGRATION_CAPACITY_SHARE,
                            help="share (0-1] of the table's capacity a backfill may use (default %(default)s)")
        parser.add_argument("--units-per-second", type=float, default=None,
                            help="capacity units a second a backfill may use (instead of --capacity-share)")
        parser.add_argument("--segments", type=int, default=settings.DYNAMODB_MIGRATION_SEGMENTS,
                            help="parallel Scan segments (threads) of a backfill (default %(default)s)")

    def handle(self, *args, plan=False, no_backup=False, capacity_share=None, units_per_second=None,
               segments=None, before_deploy=False, **options):
        table = settings.DYNAMODB_TABLE
        if not 0 < capacity_share <= 1:
            raise CommandError("--capacity-share must be more than 0 and at most 1.")
        if units_per_second is not None and units_per_second <= 0:
            raise CommandError("--units-per-second must be more than 0.")
        if not 1 <= segments <= 64:
            raise CommandError("--segments must be a whole number from 1 to 64.")
        run = Run(
            table=table, capacity_share=capacity_share, units_per_second=units_per_second, segments=segments,
            say=self.stdout.write,
            progress=lambda total: tqdm(
                total=total, unit="items", desc="  items", file=sys.stderr, disable=None, mininterval=0.5
            ),
        )
        try:
            if not table_exists(table):
                raise CommandError(f"Table {table!r} does not exist: python manage.py create_table makes it "
                                   "with this code's layout.")
            if plan:
                return self._plan(table)
            state = migrate(steps=STEPS, run=run, backup=not no_backup, before_deploy=before_deploy)
            for line in self._protect(table):
                self.stdout.write(line)
            after = table_state(table=table, steps=STEPS)
        except MigrationRefused as exc:
            raise CommandError(str(exc)) from exc
        except CatalogUnavailable as exc:
            raise CommandError(f"{exc}: nothing more was changed; run migrate_table again to continue.") from exc
        except KeyboardInterrupt:
            raise CommandError("Interrupted: run migrate_table again to continue where it stopped.") from None
        if not state.pending:
            self.stdout.write("No migrations to apply: the table is up to date.")
        self.stdout.write(self.style.SUCCESS(f"Table {table!r} is at version {after.version}."))

    def _plan(self, table):
        state = table_state(table=table, steps=STEPS)
        if state.behind:
            raise CommandError(state.behind)
        if state.unknown:
            names = ", ".join(r["name"] for r in state.unknown)
            raise CommandError(f"Table {table!r} has migration step(s) this code does not know: {names}.")
        if not state.pending:
            self.stdout.write("No migrations to apply: the table is up to date.")
        for step in state.pending:
            rewrites = " (rewrites items: backup first)" if step.rewrites_items else ""
            online = " (online: after the deploy)" if step.online else ""
            self.stdout.write(f"  {step.name}: {step.description}{rewrites}{online}")
        self.stdout.write(f"Table {table!r} is at version {state.version}.")

    def _protect(self, table):
        return table_protect(
            table=table, pitr=settings.DYNAMODB_PITR, deletion_protection=settings.DYNAMODB_DELETION_PROTECTION
        )
