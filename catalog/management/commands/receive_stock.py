"""manage.py receive_stock FILE.csv: receive a shipment of many products from the shell."""
import getpass

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from catalog.gateway import CatalogError, receiving


class Command(BaseCommand):
    help = (
        "Receive a shipment from a CSV file with the header product_id,quantity,reference. The whole file is "
        "checked first (every problem listed by line; nothing is written if there is one); then each line is "
        "its own idempotent 'received' change, so running the same file again (after an interruption, say) "
        "applies no line twice. Exits non-zero when the file is refused."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="the CSV file")
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")

    def handle(self, *args, file, no_progress=False, **options):
        try:
            with open(file, "rb") as f:
                content = f.read(receiving.MAX_FILE_BYTES + 1)
        except OSError as exc:
            raise CommandError(f"{file}: cannot read: {exc.strerror}") from None
        try:
            receipt = receiving.validate(content)
        except receiving.ReceiptInvalid as exc:
            for problem in exc.problems:
                self.stderr.write(f"{file}: {problem}")
            raise CommandError(str(exc)) from None
        except CatalogError as exc:
            raise CommandError(str(exc)) from exc
        try:
            who = getpass.getuser()
        except (KeyError, OSError):
            who = "unknown"
        bar = tqdm(total=len(receipt.lines), unit="line", disable=no_progress, file=self.stderr._out)
        try:
            result = receiving.receive_lines(receipt, who=who, progress=bar.update)
        except CatalogError as exc:
            raise CommandError(f"{exc} Run the same file again to carry on: no line is applied twice.") from exc
        finally:
            bar.close()
        self.stdout.write(self.style.SUCCESS(
            f"{len(receipt.lines)} line(s): {result.applied} received now ({result.units} units, "
            f"{len(result.products)} product(s)), {result.replayed} received before."
        ))
