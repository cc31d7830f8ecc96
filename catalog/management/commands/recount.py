from django.core.management.base import BaseCommand, CommandError

from catalog import names
from catalog.gateway import CatalogUnavailable, counts_recount


class Command(BaseCommand):
    help = (
        "Recount the products of every brand and category (a Query of each brand's products, no Scan), "
        "report the counts that drifted and repair them."
    )

    def add_arguments(self, parser):
        parser.add_argument("--check", action="store_true", help="only report drift; change nothing")

    def handle(self, *args, check=False, **options):
        try:
            drifts, requests = counts_recount(repair=not check)
        except CatalogUnavailable as exc:
            raise CommandError(str(exc)) from exc
        for d in drifts:
            other = "category" if d.kind == "brand" else "brand"
            self.stdout.write(f"{d.kind} {d.owner_id}, {other} {d.other_id}: counted {d.stored}, actually {d.actual}")
        if not drifts:
            self.stdout.write(self.style.SUCCESS(f"Every count is right ({requests} requests)."))
        elif check:
            self.stdout.write(self.style.WARNING(f"{len(drifts)} count(s) drifted; nothing changed (--check)."))
        else:
            names.forget()
            self.stdout.write(
                self.style.SUCCESS(f"{len(drifts)} count(s) drifted and were repaired ({requests} requests).")
            )
