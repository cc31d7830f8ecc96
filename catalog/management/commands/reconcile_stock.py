"""manage.py reconcile_stock [PRODUCT_ID]: does the stock history add up to the level?"""
from django.core.management.base import BaseCommand, CommandError

from catalog.gateway import CatalogError, reconcile


class Command(BaseCommand):
    help = (
        "Check that every product's stock history (or one product's) adds up to its stock level: the deltas "
        "of all its changes, the opening one included, sum to the level now (a drifting product is named with "
        "the newest change whose recorded level disagrees). Products are walked brand by brand (GSI1 Queries, "
        "no Scan). Reports any drift and exits 1 when there is some."
    )

    def add_arguments(self, parser):
        parser.add_argument("product_id", nargs="?", help="only this product")

    def handle(self, *args, product_id=None, **options):
        try:
            if product_id:
                results = [(product_id, reconcile.reconcile_product(product_id=product_id))]
            else:
                results = reconcile.reconcile_all()
            checked, drifts = 0, 0
            for _pid, drift in results:
                checked += 1
                if drift is not None:
                    drifts += 1
                    self.stdout.write(self.style.ERROR(f"DRIFT {drift}"))
        except CatalogError as exc:
            raise CommandError(str(exc)) from exc
        if drifts:
            raise CommandError(f"{drifts} of {checked} product(s) drift.", returncode=1)
        self.stdout.write(self.style.SUCCESS(f"{checked} product(s) checked: every history adds up."))
