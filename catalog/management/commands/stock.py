import getpass

from django.core.management.base import BaseCommand, CommandError

from catalog import gateway
from catalog.gateway import CatalogError


def _operator():
    """Who runs the command: the OS user name, recorded with each adjustment."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no user name in the environment nor the password database
        return "unknown"


class Command(BaseCommand):
    help = (
        "Show a product's stock level (one consistent GetItem); --history adds its recent adjustments "
        "(one Query); --add N / --remove N --reason CODE adjust it, recorded with your OS user name."
    )

    def add_arguments(self, parser):
        parser.add_argument("product_id", help="the product's ID")
        change = parser.add_mutually_exclusive_group()
        change.add_argument("--add", type=int, metavar="N", help="a shipment of N arrived")
        change.add_argument("--remove", type=int, metavar="N", help="N left: damage, loss, a correction")
        parser.add_argument(
            "--reason", default="",
            help="why: received or returned (--add, default received), damaged (--remove), counted (either; "
            "required with --remove)",
        )
        parser.add_argument("--reference", default="", help="a purchase order, an order ID... (optional)")
        parser.add_argument("--note", default="", help="a note (optional)")
        parser.add_argument("--history", action="store_true", help="also list the recent adjustments, newest first")

    def handle(self, *args, product_id, add=None, remove=None, reason="", history=False, reference="", note="",
               **options):
        if remove is not None and not reason.strip():
            raise CommandError("Give a --reason for --remove.")
        if reason and add is None and remove is None:
            raise CommandError("--reason goes with --add or --remove.")
        reason = reason.strip()
        if reason and reason not in gateway.MANUAL_REASONS:
            raise CommandError(f"--reason must be one of: {', '.join(gateway.MANUAL_REASONS)}.")
        try:
            product = gateway.product_get(product_id=product_id, consistent=True)
            level = product.stock_level
            if add is not None or remove is not None:
                write = gateway.stock_increase if add is not None else gateway.stock_decrease
                change = write(
                    product_id=product_id, quantity=add if add is not None else remove,
                    token=gateway.new_token(), reason=reason or gateway.RECEIVED, who=_operator(),
                    reference=reference, note=note,
                )
                level = change.level
                delta = change.adjustment.delta
                self.stdout.write(self.style.SUCCESS(f"{'Added' if delta > 0 else 'Removed'} {abs(delta)}."))
            self.stdout.write(f"{product.name} (product {product.product_id}): {level} in stock")
            if history:
                self._history(product_id)
        except CatalogError as exc:
            raise CommandError(str(exc)) from exc

    def _history(self, product_id):
        adjustments = gateway.stock_history(product_id=product_id, consistent=True).items
        if not adjustments:
            self.stdout.write("No adjustments yet.")
        for a in adjustments:
            reason = "".join(f"  {part}" for part in (a.reason, a.reference, a.note) if part)
            self.stdout.write(
                f"{a.at:%Y-%m-%d %H:%M:%S} UTC  {a.delta:+d} -> {a.resulting_level_shown}  {a.who or '-'}{reason}"
            )
