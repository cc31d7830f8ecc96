"""manage.py reconcile_payments: settle the checkouts whose payment was asked for but whose order is not placed."""
from django.core.management.base import BaseCommand, CommandError

from catalog.gateway import CatalogError
from payments.reconcile import ABANDON_SECONDS, GRACE_SECONDS, reconcile


class Command(BaseCommand):
    help = (
        "Checkouts paying by card whose order is not placed (a crash or DynamoDB down after the authorisation; a "
        "shopper who never finished 3-D Secure): an authorisation becomes its order if the stock is still there, "
        "else it is voided (nothing charged); a payment never authorised is given up after an hour. Safe to run "
        "any time and several at once (run_stock_jobs runs it every pass)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--grace", type=int, default=GRACE_SECONDS, metavar="SECONDS",
                            help=f"leave checkouts younger than this to the browser (default {GRACE_SECONDS})")
        parser.add_argument("--abandon", type=int, default=ABANDON_SECONDS, metavar="SECONDS",
                            help=f"give up payments not authorised after this long (default {ABANDON_SECONDS})")

    def handle(self, *args, grace, abandon, **options):
        try:
            summary = reconcile(grace_seconds=grace, abandon_seconds=abandon)
        except CatalogError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(str(summary))
