"""Sort orders, counts, search terms and pictures (issue 14), on moto."""
from io import StringIO

import pytest
from django.core.management import call_command

from catalog import gateway
from catalog.gateway.catalog import importer
from catalog.gateway.dynamo.testing import count_requests
from tests.helpers import items_in_partition, seed, small_catalog


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


def test_counts_after_import_and_a_reimport_that_moves_products(ddb):
    data = small_catalog()
    seed(data)
    tesla = {b.brand_id: b for b in gateway.brands_all()}["3"]
    assert tesla.category_counts == {"1": 2, "10": 1} and tesla.product_count == 3
    cars = {c.category_id: c for c in gateway.categories_all()}["1"]
    assert cars.brand_counts == {"3": 2, "10": 1}
    data["products"][0]["brandId"] = "10"  # Model 3 to Acme
    data["products"][1]["categoryId"] = "2"  # Model Y to Boats
    seed(data)
    seed(data)  # importing the same file again changes nothing
    brands = {b.brand_id: b for b in gateway.brands_all()}
    categories = {c.category_id: c for c in gateway.categories_all()}
    assert brands["3"].category_counts == {"2": 1, "10": 1}
    assert brands["10"].category_counts == {"1": 2, "2": 1, "10": 1}
    assert categories["1"].brand_counts == {"10": 2}
    assert categories["2"].brand_counts == {"3": 1, "10": 1}


def test_recount_reports_and_repairs_drift(ddb):
    seed()
    gateway.counts_recount(repair=True)
    from catalog.gateway.dynamo.client import client, table_name
    from catalog.gateway.dynamo.codec import serialize

    client().update_item(
        TableName=table_name(), Key=serialize({"PK": "BRANDS", "SK": "B#3"}),
        UpdateExpression="SET categoryCounts.#c = :n", ExpressionAttributeNames={"#c": "1"},
        ExpressionAttributeValues=serialize({":n": 7}),
    )
    out = StringIO()
    call_command("recount", "--check", stdout=out)
    assert "brand 3, category 1: counted 7, actually 2" in out.getvalue()
    assert {b.brand_id: b for b in gateway.brands_all()}["3"].category_counts["1"] == 7
    out = StringIO()
    call_command("recount", stdout=out)
    assert "repaired" in out.getvalue()
    assert {b.brand_id: b for b in gateway.brands_all()}["3"].category_counts == {"1": 2, "10": 1}
    out = StringIO()
    call_command("recount", stdout=out)
    assert "Every count is right" in out.getvalue()


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


def test_images_are_validated_by_the_importer(ddb, settings):
    settings.PRODUCT_IMAGE_HOSTS = ["img.example.com"]
    data = small_catalog()
    data["products"][0]["image"] = "https://img.example.com/model3.jpg"
    data["products"][1]["image"] = "img/demo/cars.svg"
    data["products"][2]["image"] = "http://insecure.example.com/a.png"
    data["products"][3]["image"] = "../secrets.png"
    data["products"][4]["image"] = "img/missing.png"
    with pytest.raises(importer.ImportInvalid) as err:
        importer.import_catalog(data)
    assert [p.split(":")[0] for p in err.value.problems] == [
        "products[2].image", "products[3].image", "products[4].image"
    ]
    for p in data["products"][2:5]:
        del p["image"]
    seed(data)
    assert gateway.product_get(product_id="1").image == "https://img.example.com/model3.jpg"
    assert gateway.products_by_brand(brand_id="3").items[1].image == "img/demo/cars.svg"
