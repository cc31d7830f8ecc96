"""manage.py run_stock_jobs [--loop SECONDS]: the stock jobs that run without a shopper's request."""
import signal
import time

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from catalog.gateway import CatalogError, holds_release_ended, terms_pending_all
from payments.reconcile import reconcile
from shop.stock_alerts import send_due_alerts


class Command(BaseCommand):
    help = (
        "One pass of the stock jobs: timed holds that ended are released (their units back in stock); "
        "back-in-stock alerts that are due are claimed (oldest ask first, at most "
        "the units that came in plus STOCK_ALERT_MARGIN) and their emails sent, with the guests' confirmation "
        "emails. --loop SECONDS runs a pass every SECONDS until stopped (as `make run` does). Safe to run "
        "several at once and to stop at any moment: nothing is lost or sent twice (see the README)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--loop", type=float, metavar="SECONDS",
                            help="keep running: a pass, then a pause of SECONDS, until stopped")

    def handle(self, *args, loop=None, **options):
        self.verbosity = options.get("verbosity", 1)
        if loop is not None and loop <= 0:
            raise CommandError("--loop takes a number of seconds, more than 0.")
        if loop is None:
            try:
                self.one_pass()
            except CatalogError as exc:
                raise CommandError(str(exc)) from exc
            return
        stopping = []
        # SIGTERM (a container stopping, `make run`'s Ctrl-C) ends the loop after the pass under way.
        before = signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
        try:
            while not stopping:
                try:
                    self.one_pass()
                except CatalogError as exc:
                    # DynamoDB out of reach: say so, and carry on with the next pass (no restart needed).
                    self.stderr.write(f"run_stock_jobs: pass failed, next in {loop:g} s: {exc}")
                deadline = time.monotonic() + loop
                while not stopping and time.monotonic() < deadline:
                    time.sleep(min(0.5, max(0.0, deadline - time.monotonic())))
        finally:
            signal.signal(signal.SIGTERM, before)

    def one_pass(self):
        # Timed holds that ended go back to the stock first, so that the units a released hold returns
        # are due to alerts in the same pass.
        released = holds_release_ended()
        if released.holds or self.verbosity > 1:
            self.stdout.write(str(released))
        # A staff edit's search terms it left pending (a crash between its transactions) written.
        terms = terms_pending_all()
        if terms or self.verbosity > 1:
            self.stdout.write(f"{terms} pending search term task(s) done")
        summary = send_due_alerts()
        if summary.claimed or summary.sent or summary.failed or self.verbosity > 1:
            self.stdout.write(str(summary))
        # Card payments whose order is not placed yet: placed now, or their authorisation voided.
        if settings.SHOP_PAYMENTS != "off":
            payments = reconcile()
            if payments.placed or payments.voided or payments.failed or self.verbosity > 1:
                self.stdout.write(str(payments))
