import sys

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from catalog.gateway import CatalogUnavailable, brands_all, importer


class _Progress:
    """The import's stages, each with a tqdm bar on a terminal (a line each otherwise, as in a log),
    so the first `make run` shows what it is doing for the minute the demo catalog takes."""

    UNITS = {"products": "product", "search terms": "item", "term counts": "count"}

    def __init__(self, out):
        self.out = out
        self.bar = None
        self.tty = sys.stdout.isatty()

    def stage(self, name, total):
        self.close()
        if not total:
            return
        if not self.tty:
            self.out.write(f"Writing {total} {name}…")
            return
        self.bar = tqdm(total=total, desc=f"Writing {name}", unit=self.UNITS.get(name, "item"), file=sys.stdout,
                        leave=True, dynamic_ncols=True)

    def update(self, n):
        if self.bar is not None:
            self.bar.update(n)

    def close(self):
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Command(BaseCommand):
    help = "Import brands, categories and products from a JSON catalog file into DynamoDB."

    def add_arguments(self, parser):
        parser.add_argument("path", nargs="?", help="the catalog JSON file")
        parser.add_argument("--demo", action="store_true", help="import the demo catalog shipped with the project")
        parser.add_argument(
            "--reset-stock",
            action="store_true",
            help="also overwrite the stock level of products that already exist (normally kept)",
        )
        parser.add_argument(
            "--if-empty", action="store_true", help="do nothing if the table already has brands (first-run set-up)"
        )

    def handle(self, *args, path=None, demo=False, reset_stock=False, if_empty=False, **options):
        if bool(path) == bool(demo):
            raise CommandError("Give a catalog file, or --demo (not both).")
        if if_empty:
            try:
                has_catalog = bool(brands_all())
            except CatalogUnavailable as exc:
                raise CommandError(str(exc)) from exc
            if has_catalog:
                self.stdout.write("The table already has a catalog; nothing imported.")
                return
        source = importer.DEMO_CATALOG if demo else path
        try:
            data = importer.load(source)
            with _Progress(self.stdout) as progress:
                result = importer.import_catalog(
                    data, reset_stock=reset_stock, progress=progress.update, stage=progress.stage
                )
        except importer.ImportInvalid as exc:
            for problem in exc.problems:
                self.stderr.write(problem)
            raise CommandError(f"{len(exc.problems)} problem(s) found in {source}; nothing was written.") from exc
        except CatalogUnavailable as exc:
            raise CommandError(str(exc)) from exc
        requests = ", ".join(f"{n} {op}" for op, n in sorted(result.requests.items())) or "none"
        self.stdout.write(
            self.style.SUCCESS(
                f"Imported {result.brands} brands, {result.categories} categories, "
                f"{result.products_created} new and {result.products_updated} updated products, "
                f"{result.stock_entries} opening stock change(s) "
                f"({'stock levels reset' if reset_stock else 'existing stock levels kept'}; requests: {requests})."
            )
        )
