"""Production static files: hashed names from the manifest, each URL worked out once."""
import re

import pytest
from django.core.management import call_command
from django.template import engines

from storefront.storage import StaticStorage


@pytest.fixture
def collected(tmp_path, settings):
    settings.STATIC_ROOT = tmp_path
    settings.STORAGES = {**settings.STORAGES, "staticfiles": {"BACKEND": "storefront.storage.StaticStorage"}}
    call_command("collectstatic", interactive=False, verbosity=0)
    return tmp_path


def test_a_page_links_the_hashed_file_collectstatic_wrote(collected):
    html = engines["django"].from_string("{% load static %}{% static 'css/site.css' %}").render()
    match = re.fullmatch(r"/static/css/site\.([0-9a-f]{12})\.css", html)
    assert match and (collected / "css" / f"site.{match.group(1)}.css").is_file()


def test_the_same_url_twice_and_a_missing_file_is_still_an_error(collected):
    storage = StaticStorage()
    assert storage.url("css/site.css") == storage.url("css/site.css") != "/static/css/site.css"
    for _ in range(2):  # not remembered as a URL
        with pytest.raises(ValueError):
            storage.url("css/missing.css")
