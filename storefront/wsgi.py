"""WSGI entry point for gunicorn."""
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "storefront.settings")

application = get_wsgi_application()

# A table that lacks a migration this code needs: refuse to serve (the log names the command).
from catalog.checks import refuse_outdated_table  # noqa: E402 - needs the settings configured above

refuse_outdated_table()
