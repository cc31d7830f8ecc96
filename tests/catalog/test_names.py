"""Brand and category names: one read per CATALOG_NAMES_TTL, and the cache is the one source."""
from django.core.cache import cache

from catalog import context_processors, names
from catalog.gateway import Brand, CatalogUnavailable
from catalog.gateway.dynamo.testing import count_requests


def test_names_are_read_once_while_the_cache_holds_them(catalog):
    with count_requests() as counter:
        first = [b.name for b in names.brands()]
        again = [b.name for b in names.brands()]
        assert names.brand("3").name == "Tesla" and names.brand_names()["2"] == "Google"
    assert first == again == ["Acme", "Google", "Microsoft", "Tesla"]
    assert counter.operations == ["Query"]


def test_a_cleared_cache_means_the_names_are_read_again(catalog):
    names.brands()
    cache.clear()  # what the entry's expiry does, or a restart of a shared cache
    with count_requests() as counter:
        assert [b.name for b in names.brands()] == ["Acme", "Google", "Microsoft", "Tesla"]
    assert counter.operations == ["Query"]


def test_names_another_process_put_in_the_cache_are_used_without_a_request(catalog):
    assert names.brand_names()["3"] == "Tesla"
    renamed = [Brand(brand_id="3", name="Tesla Motors")]
    # What another server does after its copy expired: a new list under a new stamp.
    cache.set_many({names.BRANDS_KEY: ("from-elsewhere", renamed), f"{names.BRANDS_KEY}:stamp": "from-elsewhere"}, 60)
    with count_requests() as counter:
        assert names.brand_names() == {"3": "Tesla Motors"}
        assert names.brand("3").name == "Tesla Motors"
    assert counter.total == 0


def test_a_stamp_that_is_not_the_values_own_means_the_names_are_read_again(catalog):
    names.brands()
    # Two processes refilled the cache at once: one's stamp beside the other's value.
    cache.set_many({names.BRANDS_KEY: ("one", [Brand(brand_id="3", name="Stale")]), f"{names.BRANDS_KEY}:stamp": "two"})
    with count_requests() as counter:
        assert names.brand("3").name == "Tesla"
    assert counter.operations == ["Query"]


def _menu_links(html, kind):
    start = html.index(f"<summary>{kind}</summary>")
    return html[start:html.index("</details>", start)]


def test_the_header_menus_are_made_once_and_again_when_the_names_change(catalog, client):
    renders = []
    real = context_processors._render_menus

    def counting(brands, categories):
        renders.append(1)
        return real(brands, categories)

    context_processors._render_menus = counting
    try:
        first, second = client.get("/contact/").content.decode(), client.get("/returns/").content.decode()
        assert len(renders) == 1
        assert 'href="/brands/3/">Tesla</a>' in _menu_links(first, "Brands") == _menu_links(second, "Brands")
        # Another process read the names anew and a brand had been renamed.
        cache.set_many({names.BRANDS_KEY: ("new", [Brand(brand_id="3", name="Tesla <Motors>")]),
                        f"{names.BRANDS_KEY}:stamp": "new"})
        menu = _menu_links(client.get("/contact/").content.decode(), "Brands")
    finally:
        context_processors._render_menus = real
    assert len(renders) == 2
    assert 'href="/brands/3/">Tesla &lt;Motors&gt;</a>' in menu and "Acme" not in menu


def test_the_header_keeps_its_menus_empty_while_the_names_cannot_be_read(catalog, client, monkeypatch):
    def unavailable():
        raise CatalogUnavailable()

    monkeypatch.setattr(names.gateway, "brands_all", unavailable)
    html = client.get("/contact/").content.decode()
    assert "Tesla" not in _menu_links(html, "Brands") and "All brands" in html
    monkeypatch.undo()
    assert 'href="/brands/3/">Tesla</a>' in _menu_links(client.get("/contact/").content.decode(), "Brands")
