"""The page types the benchmark measures (PAGES: a path over the catalog's IDs, and headers; wrk, pyperf and
the request counts all read this list) and what each costs in DynamoDB requests."""

import html
import re
import time
from dataclasses import dataclass, field

from django.core.cache import cache

from catalog.gateway.dynamo.testing import count_requests

from .catalog_data import FEATURED_BRAND, FEATURED_CATEGORY
from .flows import django_client


@dataclass(frozen=True)
class PageType:
    name: str
    path: str  # formatted with the IDs of `ids()`: {brand}, {category}, {product}, {next_url}
    headers: dict = field(default_factory=dict)
    note: str = ""


PAGES = [
    PageType("home", "/", note="brands and categories, from the name cache while it is warm"),
    PageType("brand", "/brands/{brand}/"),
    PageType("brand_category", "/brands/{brand}/?category={category}"),
    PageType("category_brand", "/categories/{category}/?brand={brand}"),
    PageType("brand_name", "/brands/{brand}/?sort=name", note="sort index ByName1"),
    PageType("brand_price", "/brands/{brand}/?sort=price", note="sort index ByPrice1"),
    PageType("brand_price_desc", "/brands/{brand}/?sort=-price", note="ByPrice1 read backwards"),
    PageType("search", "/search/?q=pro", note="one-word search: one Query of TERM#pro"),
    PageType("product", "/products/{product}/"),
    PageType("load_more", "{next_url}", headers={"HX-Request": "true"}, note="HTMX fragment: the brand page's page 2"),
]

NEXT_URL = re.compile(r'hx-get="([^"]*[?&](?:amp;)?after=[^"]*)"')


def next_url(page_html):
    """The "Load more" link of a browse page (the cursor is signed; take it from the page)."""
    match = NEXT_URL.search(page_html)
    if not match:
        raise RuntimeError("the brand page has no Load more link: the catalog is too small for the bench")
    return html.unescape(match.group(1))


def ids(first_brand_page_html):
    return {
        "brand": FEATURED_BRAND,
        "category": FEATURED_CATEGORY,
        "product": "1",
        "next_url": next_url(first_brand_page_html),
    }


def render(client, page, page_ids):
    headers = {f"HTTP_{k.upper().replace('-', '_')}": v for k, v in page.headers.items()}
    path = page.path.format(**page_ids)
    response = client.get(path, **headers)
    if not 200 <= response.status_code < 300:
        raise RuntimeError(f"{page.name} {path}: HTTP {response.status_code}")
    return response


def discover_ids(client=None, *, patience=120.0, log=print):
    """The IDs of the measured pages, from the first brand page. Right after a large import
    DynamoDB Local once took longer than the page's read budget to answer (cause not found), and
    the 503 stopped a full run. That first page is asked again while it is a 503, for up to
    `patience` seconds, and how long it took is logged."""
    client = client or django_client()
    started = time.monotonic()
    while True:
        response = client.get(f"/brands/{FEATURED_BRAND}/")
        if response.status_code == 200:
            break
        waited = time.monotonic() - started
        if response.status_code != 503 or waited > patience:
            raise RuntimeError(f"brand page: HTTP {response.status_code} (after {waited:.0f} s)")
        time.sleep(2)
    waited = time.monotonic() - started
    if waited > 1:
        log(f"the first brand page answered after {waited:.1f} s (503 before that)")
    return ids(response.content.decode())


def measure_costs(page_ids, pages=PAGES):
    """{page: {"cold": ..., "warm": ...}}: the DynamoDB requests of a render with a cold name cache and with a
    warm one (the steady state), rendered in-process with the Django test client."""
    client, costs = django_client(), {}
    for page in pages:
        cache.clear()
        costs[page.name] = {}
        for state in ("cold", "warm"):
            with count_requests() as counter:
                render(client, page, page_ids)
            ops = {op: counter.operations.count(op) for op in sorted(set(counter.operations))}
            costs[page.name][state] = {"requests": counter.total, "operations": ops}
    return costs
