"""Catalog reads on moto (catalog/gateway/catalog/products.py): brands, categories, one product, product
lists and their pages, sort orders and search."""
from decimal import Decimal

import pytest

from catalog import gateway
from catalog.gateway.catalog.entities import Brand, Category, Product
from catalog.gateway.dynamo.testing import count_requests
from catalog.gateway.errors import InvalidCursor, InvalidId, NotFound
from tests.helpers import items_in_partition, seed, small_catalog


def ids(page):
    return sorted(p.product_id for p in page.items)


# --- patterns 1 and 2 -------------------------------------------------------------------

def test_all_brands_are_typed_and_sorted_by_name(catalog):
    brands = gateway.brands_all()
    assert brands == [
        Brand("10", "Acme"), Brand("2", "Google"), Brand("1", "Microsoft"), Brand("3", "Tesla"),
    ]


def test_all_categories(catalog):
    assert [c.name for c in gateway.categories_all()] == ["Boats", "Cars", "Chargers", "Phones"]
    assert Category("10", "Chargers") in gateway.categories_all()


# --- pattern 3 --------------------------------------------------------------------------

def test_product_by_id_carries_its_free_form_attributes(catalog):
    product = gateway.product_get(product_id="1")
    assert product == Product(
        product_id="1", name="Model 3", brand_id="3", category_id="1", price=Decimal("39990.00"),
        stock_level=70, description="Electric sedan.", attributes={"range_km": 510, "seats": 5},
    )
    assert gateway.product_get(product_id="3").attributes == {"kw": 11.5}


def test_unknown_product_is_not_found(catalog):
    with pytest.raises(NotFound):
        gateway.product_get(product_id="999")


@pytest.mark.parametrize("bad", ["", "a b", "../1", "x" * 65, "1#2", None, 7, "é"])
def test_malformed_ids_are_rejected_before_any_request(catalog, bad):
    with count_requests() as counter:
        with pytest.raises(InvalidId):
            gateway.product_get(product_id=bad)
        with pytest.raises(InvalidId):
            gateway.products_by_brand(brand_id=bad)
        with pytest.raises(InvalidId):
            gateway.products_by_category(category_id=bad)
        if bad is not None:  # None there means "no brand filter"
            with pytest.raises(InvalidId):
                gateway.products_by_category(category_id="1", brand_id=bad)
    assert counter.total == 0


# --- patterns 6 to 9 --------------------------------------------------------------------

def test_products_by_brand(catalog):
    assert ids(gateway.products_by_brand(brand_id="3")) == ["1", "2", "3"]


def test_products_by_brand_and_category_keeps_category_1_apart_from_10(catalog):
    assert ids(gateway.products_by_brand(brand_id="3", category_id="1")) == ["1", "2"]
    assert ids(gateway.products_by_brand(brand_id="3", category_id="10")) == ["3"]
    assert ids(gateway.products_by_brand(brand_id="10", category_id="1")) == ["8"]


def test_products_by_category(catalog):
    assert ids(gateway.products_by_category(category_id="1")) == ["1", "2", "8"]
    assert ids(gateway.products_by_category(category_id="10")) == ["3", "7"]


def test_products_by_category_and_brand_keeps_brand_1_apart_from_10(catalog):
    assert ids(gateway.products_by_category(category_id="3", brand_id="1")) == ["5"]
    assert ids(gateway.products_by_category(category_id="1", brand_id="10")) == ["8"]
    assert ids(gateway.products_by_category(category_id="1", brand_id="1")) == []


def test_list_items_show_what_a_list_needs(catalog):
    (product,) = gateway.products_by_category(category_id="3", brand_id="2").items
    # The stock band (12 in stock: above the low-stock threshold of 5), not the exact level.
    assert (product.name, product.price, product.stock_band, product.brand_id) == (
        "Pixel 9", Decimal("899.00"), 6, "2",
    )
    assert product.stock_level is None


def test_a_list_shows_the_band_a_stock_write_leaves(catalog):
    def band(product_id):
        return {p.product_id: p.stock_band for p in gateway.products_by_brand(brand_id="3").items}[product_id]

    level = gateway.product_get(product_id="1").stock_level  # 70
    gateway.stock_decrease(product_id="1", quantity=level - 6, token=gateway.new_token(), reason="damaged")
    assert band("1") == 6  # 6 left: still "In stock"
    gateway.stock_decrease(product_id="1", quantity=1, token=gateway.new_token(), reason="damaged")
    assert band("1") == 5  # "Only 5 left"
    gateway.stock_decrease(product_id="1", quantity=5, token=gateway.new_token(), reason="damaged")
    assert band("1") == 0  # sold out
    gateway.stock_increase(product_id="1", quantity=40, token=gateway.new_token())
    assert band("1") == 6


def test_unknown_brand_has_no_products(catalog):
    page = gateway.products_by_brand(brand_id="404")
    assert page.items == [] and page.next_cursor is None


# --- pagination -------------------------------------------------------------------------

def _many(n, brand="3", category="1"):
    data = {
        "brands": [{"brandId": brand, "name": "Tesla"}],
        "categories": [{"categoryId": category, "name": "Cars"}],
        "products": [
            {"productId": f"p{i:03d}", "name": f"Car {i}", "brandId": brand, "categoryId": category,
             "price": "1.00", "stockLevel": 1}
            for i in range(n)
        ],
    }
    seed(data)


def _walk(fetch):
    seen, after, pages = [], None, 0
    while True:
        page = fetch(after)
        pages += 1
        seen.extend(p.product_id for p in page.items)
        if page.next_cursor is None:
            return seen, pages
        after = page.next_cursor


@pytest.mark.parametrize("total,size,pages", [(30, 7, 5), (28, 7, 4), (7, 7, 1), (1, 7, 1)])
def test_walking_every_page_returns_every_product_once(ddb, total, size, pages):
    _many(total)
    seen, walked = _walk(lambda after: gateway.products_by_brand(brand_id="3", after=after, limit=size))
    assert sorted(seen) == [f"p{i:03d}" for i in range(total)]
    assert walked == pages  # no empty trailing page when the total is a multiple of the size


def test_page_size_comes_from_settings(ddb, settings):
    settings.CATALOG_PAGE_SIZE = 5
    _many(12)
    page = gateway.products_by_category(category_id="1")
    assert len(page.items) == 5 and page.next_cursor


def test_tampered_cursor_is_rejected_without_a_request(ddb):
    _many(10)
    cursor = gateway.products_by_brand(brand_id="3", limit=3).next_cursor
    tampered = cursor[:-3] + ("AAA" if not cursor.endswith("AAA") else "BBB")
    with count_requests() as counter:
        for bad in (tampered, "garbage", "", "x" * 5000):
            with pytest.raises(InvalidCursor):
                gateway.products_by_brand(brand_id="3", after=bad, limit=3)
    assert counter.total == 0


def test_a_cursor_from_another_list_is_rejected(ddb):
    _many(10)
    cursor = gateway.products_by_brand(brand_id="3", limit=3).next_cursor
    with pytest.raises(InvalidCursor):
        gateway.products_by_brand(brand_id="4", after=cursor, limit=3)
    with pytest.raises(InvalidCursor):
        gateway.products_by_brand(brand_id="3", category_id="1", after=cursor, limit=3)
    with pytest.raises(InvalidCursor):
        gateway.products_by_category(category_id="1", after=cursor, limit=3)


# --- sort orders ------------------------------------------------------------------------------

def _ids(page):
    return [p.product_id for p in page]


def priced_catalog():
    """Brand 2 / category 3: prices 100.00, 9.99, 10.00 and a tie at 10.00; names out of order."""
    data = small_catalog()
    data["products"] += [
        {"productId": "p1", "name": "zeta phone", "brandId": "2", "categoryId": "3", "price": "100.00"},
        {"productId": "p2", "name": "Alpha", "brandId": "2", "categoryId": "3", "price": "9.99"},
        {"productId": "p3", "name": "Älpha mini", "brandId": "2", "categoryId": "3", "price": "10.00"},
        {"productId": "p0", "name": "Beta", "brandId": "2", "categoryId": "3", "price": "10.00"},
    ]
    return data


@pytest.mark.parametrize(
    "sort, expected",
    [
        ("price", ["p2", "p0", "p3", "p1", "4"]),
        ("-price", ["4", "p1", "p3", "p0", "p2"]),
        ("name", ["p2", "p3", "p0", "4", "p1"]),
    ],
)
def test_each_sort_order_on_a_brand_a_category_and_the_pair(ddb, sort, expected):
    seed(priced_catalog())
    # 9.99 < 10.00 < 100.00 < 899.00; ties by product ID (p0 before p3); accents ignored by name
    for read in (
        lambda **kw: gateway.products_by_brand(brand_id="2", **kw),
        lambda **kw: gateway.products_by_category(category_id="3", brand_id="2", **kw),
        lambda **kw: gateway.products_by_brand(brand_id="2", category_id="3", **kw),
    ):
        assert _ids(read(sort=sort)) == expected


def test_paging_across_a_tie_returns_each_product_once(ddb):
    seed(priced_catalog())
    seen, after = [], None
    while True:
        page = gateway.products_by_brand(brand_id="2", sort="price", after=after, limit=2)
        seen += _ids(page)
        if not page.next_cursor:
            break
        after = page.next_cursor
    assert seen == ["p2", "p0", "p3", "p1", "4"]


def test_a_cursor_of_one_order_does_not_open_another(ddb):
    seed(priced_catalog())
    cursor = gateway.products_by_brand(brand_id="2", sort="price", limit=2).next_cursor
    with pytest.raises(gateway.InvalidCursor):
        gateway.products_by_brand(brand_id="2", sort="-price", after=cursor, limit=2)
    with pytest.raises(gateway.InvalidInput):
        gateway.products_by_brand(brand_id="2", sort="cheapest")


def test_a_price_change_moves_the_product_in_the_price_order(ddb):
    data = priced_catalog()
    seed(data)
    data["products"][-1]["price"] = "1.00"  # p0 Beta
    seed(data)
    assert _ids(gateway.products_by_brand(brand_id="2", sort="price"))[0] == "p0"


# --- search -----------------------------------------------------------------------------------

def _search(query, **kw):
    return gateway.products_search(query=query, **kw)


def test_search_by_word_prefix_accent_and_case(ddb):
    data = small_catalog()
    data["products"].append({"productId": "e1", "name": "Audi e-tron GT", "brandId": "3", "categoryId": "1",
                             "price": "99000.00"})
    data["products"].append({"productId": "e2", "name": "Škoda Enyaq", "brandId": "3", "categoryId": "1",
                             "price": "45000.00"})
    seed(data)
    assert _ids(_search("aud")) == ["e1"]
    assert _ids(_search("E-TRON")) == ["e1"]
    assert _ids(_search("tron")) == ["e1"]
    assert _ids(_search("skoda")) == ["e2"]
    assert _ids(_search("ŠKO")) == ["e2"]
    assert [p.name for p in _search("model")] == ["Model 3", "Model Y"]
    assert _search("model").total == 2
    assert _ids(_search("zzz")) == [] and _search("zzz").total == 0
    # Term items carry no stock level: it is read with the page (one BatchGetItem), for the badges.
    assert [p.stock_level for p in _search("model")] == [70, 3]


def test_search_with_several_words_intersects(ddb):
    seed()
    assert [p.name for p in _search("acme car")] == ["Acme Car Charger"]
    assert [p.name for p in _search("model y")] == ["Model Y"]
    assert _ids(_search("acme phone")) == []


def test_search_sorts_and_pages(ddb):
    data = small_catalog()
    data["products"] = [
        {"productId": f"g{i}", "name": f"Gadget {i}", "brandId": "2", "categoryId": "3", "price": f"{10 - i}.00"}
        for i in range(7)
    ]
    seed(data)
    assert _ids(_search("gadget", sort="price")) == [f"g{i}" for i in range(6, -1, -1)]
    assert _ids(_search("gadget", sort="-price")) == [f"g{i}" for i in range(7)]
    assert _search("gadget", sort="-price").total == 7
    seen, after = [], None
    while True:
        page = _search("gad", after=after, limit=3)
        seen += _ids(page)
        if not page.next_cursor:
            break
        after = page.next_cursor
    assert seen == [f"g{i}" for i in range(7)]


def test_a_renamed_product_is_no_longer_found_by_its_old_name(ddb):
    data = small_catalog()
    seed(data)
    data["products"][0]["name"] = "Roadster"
    seed(data)
    assert [p.name for p in _search("model")] == ["Model Y"] and _search("model").total == 1
    assert _ids(_search("roadster")) == ["8", "1"] or sorted(_ids(_search("roadster"))) == ["1", "8"]
    assert [i for i in items_in_partition("TERM#model") if i.get("productId") == "1"] == []


def test_a_one_word_search_is_one_query_and_too_short_is_refused(ddb):
    seed()
    with count_requests() as counter:
        _search("model", sort="-price")
    assert counter.operations == ["Query", "BatchGetItem"]  # the matches, then their stock levels
    with count_requests() as counter:
        assert _search("zzz").items == []
    assert counter.operations == ["Query"]  # nothing found: no stock to read
    with pytest.raises(gateway.InvalidInput), count_requests() as counter:
        _search("m")
    assert counter.operations == []
    assert _ids(_search("model " * 500)) == ["1", "2"]  # cut, never an error
