import json

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from catalog.gateway.errors import CatalogUnavailable
from catalog.gateway.table import create_table_request, table_ensure, table_protect


class Command(BaseCommand):
    help = (
        "Create the catalog's DynamoDB table with this code's layout if it is missing (at the baseline, every "
        "later table migration marked as applied), wait until it is ACTIVE, and turn on point-in-time recovery "
        "and deletion protection."
    )
    requires_system_checks = []  # the table check (catalog/checks.py) asks for the table this makes

    def add_arguments(self, parser):
        parser.add_argument("--print", action="store_true", help="print the CreateTable request as JSON instead")

    def handle(self, *args, **options):
        name = settings.DYNAMODB_TABLE
        if options["print"]:
            self.stdout.write(json.dumps(create_table_request(name), indent=2))
            return
        where = settings.DYNAMODB_ENDPOINT_URL or f"AWS DynamoDB in {settings.AWS_REGION}"
        try:
            outcome = table_ensure(name)
            protection = table_protect(
                table=name, pitr=settings.DYNAMODB_PITR, deletion_protection=settings.DYNAMODB_DELETION_PROTECTION
            )
        except CatalogUnavailable as exc:
            raise CommandError(f"{exc} at {where}") from exc
        if outcome == "created":
            self.stdout.write(self.style.SUCCESS(f"Created table {name!r} at {where}; it is ACTIVE."))
        else:
            self.stdout.write(
                f"Table {name!r} already exists at {where}: nothing created (python manage.py migrate_table "
                "brings an older one up to date)."
            )
        for line in protection:
            self.stdout.write(line)
