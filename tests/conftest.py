"""Fixtures: a catalog table on moto (fast) or on DynamoDB Local (real behaviour), built from
the same table definition the app uses, and a small catalog to fill it with."""
import copy
import uuid
from pathlib import Path

import pytest
from django.core.cache import cache
from moto import mock_aws

from catalog import dynamo, importer
from catalog.table import table_delete, table_ensure
from tools import dynamodb_local

# A small catalog. Brand and category IDs 1 and 10 both exist: prefix queries must keep them apart.
SMALL_CATALOG = {
    "brands": [
        {"brandId": "1", "name": "Microsoft"},
        {"brandId": "2", "name": "Google"},
        {"brandId": "3", "name": "Tesla"},
        {"brandId": "10", "name": "Acme"},
    ],
    "categories": [
        {"categoryId": "1", "name": "Cars"},
        {"categoryId": "2", "name": "Boats"},
        {"categoryId": "3", "name": "Phones"},
        {"categoryId": "10", "name": "Chargers"},
    ],
    "products": [
        {"productId": "1", "name": "Model 3", "brandId": "3", "categoryId": "1", "price": "39990.00",
         "stockLevel": 70, "description": "Electric sedan.", "attributes": {"range_km": 510, "seats": 5}},
        {"productId": "2", "name": "Model Y", "brandId": "3", "categoryId": "1", "price": "44990.00",
         "stockLevel": 3, "description": "Electric SUV.", "attributes": {"range_km": 533, "awd": True}},
        {"productId": "3", "name": "Wall Connector", "brandId": "3", "categoryId": "10", "price": "475.00",
         "stockLevel": 0, "description": "Home charger.", "attributes": {"kw": 11.5}},
        {"productId": "4", "name": "Pixel 9", "brandId": "2", "categoryId": "3", "price": "899.00",
         "stockLevel": 12, "description": "Phone.", "attributes": {"storage_gb": 128, "color": "Obsidian"}},
        {"productId": "5", "name": "Surface Duo", "brandId": "1", "categoryId": "3", "price": "1399.99",
         "stockLevel": 5, "description": "Folding phone.", "attributes": {}},
        {"productId": "6", "name": "Acme Jet Boat", "brandId": "10", "categoryId": "2", "price": "15000.00",
         "stockLevel": 2, "description": "Fast.", "attributes": {"length_m": 5.2}},
        {"productId": "7", "name": "Acme Car Charger", "brandId": "10", "categoryId": "10", "price": "29.90",
         "stockLevel": 40, "description": "12 V.", "attributes": {}},
        {"productId": "8", "name": "Acme Roadster", "brandId": "10", "categoryId": "1", "price": "9999.00",
         "stockLevel": 1, "description": "Tiny car.", "attributes": {}},
    ],
}


def small_catalog():
    return copy.deepcopy(SMALL_CATALOG)


def seed(data=None):
    """Fill the current table through the project's own import path."""
    return importer.import_catalog(data if data is not None else small_catalog())


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def ddb(settings):
    """An empty catalog table on moto."""
    with mock_aws():
        settings.DYNAMODB_ENDPOINT_URL = None
        settings.DYNAMODB_TABLE = "catalog-test"
        dynamo.reset_client()
        table_ensure(settings.DYNAMODB_TABLE)
        yield settings.DYNAMODB_TABLE
    dynamo.reset_client()


@pytest.fixture
def catalog(ddb):
    """The small catalog on moto."""
    seed()
    return small_catalog()


@pytest.fixture(scope="session")
def dynamodb_local_url(tmp_path_factory):
    """DynamoDB Local for the whole session: started here, stopped at the end."""
    try:
        log = open(tmp_path_factory.mktemp("ddb") / "dynamodb-local.log", "wb")
        process, url = dynamodb_local.start(log=log)
    except dynamodb_local.Missing as exc:
        pytest.fail(f"DynamoDB Local is needed for this test: {exc}")
    yield url
    dynamodb_local.stop(process)
    log.close()


@pytest.fixture
def local_ddb(settings, dynamodb_local_url):
    """An empty catalog table of its own on DynamoDB Local."""
    settings.DYNAMODB_ENDPOINT_URL = dynamodb_local_url
    settings.DYNAMODB_TABLE = f"t-{uuid.uuid4().hex[:12]}"
    dynamo.reset_client()
    table_ensure(settings.DYNAMODB_TABLE)
    yield settings.DYNAMODB_TABLE
    table_delete(settings.DYNAMODB_TABLE)
    dynamo.reset_client()


@pytest.fixture
def local_catalog(local_ddb):
    seed()
    return small_catalog()


def items_in_partition(pk):
    """Every item of one partition (to check what a write left behind)."""
    response = dynamo.client().query(
        TableName=dynamo.table_name(),
        KeyConditionExpression="PK = :pk",
        ExpressionAttributeValues=dynamo.serialize({":pk": pk}),
        ConsistentRead=True,
    )
    return [dynamo.deserialize(i) for i in response["Items"]]


REPO = Path(__file__).resolve().parent.parent


# --- real browser ---------------------------------------------------------------------------

CHROMIUM = "/usr/bin/chromium"
SCREENSHOTS = REPO / "var" / "screenshots"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def chromium():
    """Debian's Chromium driven by Playwright (never a browser Playwright downloads)."""
    import os

    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs it (apt-get install chromium)")
    # Playwright's sync API runs an event loop in this thread; the tests' own ORM calls are safe.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(chromium):
    context = chromium.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    page.set_default_timeout(10_000)
    yield page
    context.close()


def screenshot(page, name):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)
