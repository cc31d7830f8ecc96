import json

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from catalog.gateway.errors import CatalogUnavailable
from catalog.gateway.schema import create_table_request, table_ensure


class Command(BaseCommand):
    help = "Create the catalog's DynamoDB table (with GSI1 and GSI2) if it is missing, and wait until it is ACTIVE."

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
        except CatalogUnavailable as exc:
            raise CommandError(f"{exc} at {where}") from exc
        if outcome == "created":
            self.stdout.write(self.style.SUCCESS(f"Created table {name!r} at {where}; it is ACTIVE."))
        else:
            self.stdout.write(f"Table {name!r} already exists at {where}; nothing to do.")
