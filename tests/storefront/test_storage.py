"""Production static files: hashed names from the manifest, each URL worked out once."""
import re

import pytest
from django.contrib.staticfiles.storage import staticfiles_storage
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


def test_a_new_collectstatic_in_the_same_process_gives_the_new_files_url(tmp_path, settings):
    source = tmp_path / "source"
    source.mkdir()
    settings.STATICFILES_DIRS = [source]
    settings.STATIC_ROOT = tmp_path / "collected"
    settings.STORAGES = {**settings.STORAGES, "staticfiles": {"BACKEND": "storefront.storage.StaticStorage"}}
    urls = []
    for colour in ("red", "blue"):
        (source / "theme.css").write_text(f"body {{ color: {colour}; }}")
        call_command("collectstatic", interactive=False, verbosity=0)
        urls.append(staticfiles_storage.url("theme.css"))
    assert urls[0] != urls[1]
    assert (settings.STATIC_ROOT / urls[1].removeprefix("/static/")).read_text() == "body { color: blue; }"
