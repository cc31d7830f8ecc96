"""The catalog import (catalog/gateway/catalog/importer.py) and its command, on moto."""
import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from catalog import gateway
from catalog.gateway import client as dynamo
from catalog.gateway import importer
from catalog.gateway.dynamo.testing import count_requests
from catalog.gateway.errors import NotFound
from tests.helpers import seed, small_catalog


def write_json(tmp_path, data, name="catalog.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def test_demo_catalog_feels_like_a_shop(ddb):
    call_command("import_catalog", "--demo", stdout=StringIO())
    brands, categories = gateway.brands_all(), gateway.categories_all()
    assert len(brands) >= 12 and len(categories) >= 8
    assert {"Microsoft", "Google", "Tesla"} <= {b.name for b in brands}
    assert {"Cars", "Boats", "Phones"} <= {c.name for c in categories}
    total = 0
    for brand in brands:
        after = None
        while True:
            page = gateway.products_by_brand(brand_id=brand.brand_id, after=after, limit=100)
            total += len(page.items)
            after = page.next_cursor
            if after is None:
                break
    assert total >= 300


def test_a_bad_file_lists_every_problem_with_its_path_and_writes_nothing(ddb, tmp_path):
    data = small_catalog()
    data["products"][4]["brandId"] = "99"
    data["products"][1]["price"] = "12.345"
    data["products"][2]["stockLevel"] = -1
    data["products"][3]["name"] = ""
    data["products"][5]["attributes"] = {"nested": {"no": 1}}
    data["brands"][1]["brandId"] = "not ok"
    err = StringIO()
    with pytest.raises(CommandError, match="nothing was written"):
        call_command("import_catalog", str(write_json(tmp_path, data)), stdout=StringIO(), stderr=err)
    problems = err.getvalue()
    assert 'products[4].brandId: unknown brand "99"' in problems
    assert "products[1].price" in problems
    assert "products[2].stockLevel" in problems
    assert "products[3].name" in problems
    assert "products[5].attributes.nested" in problems
    assert "brands[1].brandId" in problems
    assert gateway.brands_all() == [] and gateway.categories_all() == []
    with pytest.raises(NotFound):
        gateway.product_get(product_id="1")


@pytest.mark.parametrize("bad", ["Wall\r\nBcc: x@example.com", "Wall\nConnector", "Wall\tConnector",
                                 "Wall\x85Connector", "Wall\u200bConnector"])
def test_control_characters_in_names_are_refused_naming_the_entry(ddb, tmp_path, bad):
    """As the shop's own name fields: a product name goes into an alert email's subject."""
    data = small_catalog()
    data["products"][2]["name"] = bad
    data["brands"][0]["name"] = bad
    data["products"][0]["attributes"] = {"colour": bad}
    err = StringIO()
    with pytest.raises(CommandError, match="nothing was written"):
        call_command("import_catalog", str(write_json(tmp_path, data)), stdout=StringIO(), stderr=err)
    problems = err.getvalue()
    assert f'products[2].name: the name of product "3", {bad!r}, has a control character' in problems
    assert f'brands[0].name: the name of brand "1", {bad!r}, has a control character' in problems
    assert "products[0].attributes.'colour': has a control character" in problems
    with pytest.raises(NotFound):
        gateway.product_get(product_id="3")
    data = small_catalog()
    data["products"][2]["name"] = "Wall Connector – Gen 3 (11 kW, ümlaut, emoji 🔌)"
    seed(data)  # punctuation, accents and symbols are fine
    assert gateway.product_get(product_id="3").name == data["products"][2]["name"]


def test_not_json_is_a_clear_error(ddb, tmp_path):
    path = tmp_path / "broken.json"
    path.write_text("{oops")
    err = StringIO()
    with pytest.raises(CommandError):
        call_command("import_catalog", str(path), stdout=StringIO(), stderr=err)
    assert "not valid JSON" in err.getvalue()


def test_duplicate_ids_are_problems(ddb):
    data = small_catalog()
    data["products"].append(dict(data["products"][0]))
    with pytest.raises(importer.ImportInvalid) as raised:
        importer.import_catalog(data)
    assert any("duplicate ID '1'" in p for p in raised.value.problems)


def test_products_may_reference_brands_already_in_the_table(ddb):
    seed()
    extra = {"products": [{"productId": "50", "name": "Model S", "brandId": "3", "categoryId": "1",
                           "price": "89990", "stockLevel": 4}]}
    importer.import_catalog(extra)
    assert gateway.product_get(product_id="50").brand_id == "3"


def test_importing_again_updates_everything_but_stock(ddb):
    seed()
    gateway.stock_decrease(product_id="1", quantity=20, token="sale", reason="sold")
    data = small_catalog()
    data["products"][0].update(name="Model 3 Highland", price="41990.00", categoryId="10", stockLevel=999)
    result = importer.import_catalog(data)
    product = gateway.product_get(product_id="1")
    assert (product.name, str(product.price), product.stock_level) == ("Model 3 Highland", "41990.00", 50)
    # its index keys moved with it
    assert "1" in [p.product_id for p in gateway.products_by_brand(brand_id="3", category_id="10").items]
    assert "1" not in [p.product_id for p in gateway.products_by_category(category_id="1").items]
    assert (result.products_created, result.products_updated) == (0, 8)
    # the level is kept, so no stock change: the import's opening one and the sale
    changes = gateway.stock_history(product_id="1").items
    assert [(h.reason, h.delta) for h in changes] == [("sold", -20), ("opening", 70)]
    assert result.stock_entries == 0


def test_an_import_opens_each_new_products_history_with_its_level(ddb):
    result = seed()
    assert result.stock_entries == 7  # product 3 comes in sold out: nothing to open with
    [opening] = gateway.stock_history(product_id="1").items
    assert (opening.reason, opening.delta, opening.resulting_level, opening.who) == ("opening", 70, 70, "import")
    assert opening.reason_label == "Opening stock (set by import)"
    assert [h.reason for h in gateway.stock_history(product_id="1", reason="opening").items] == ["opening"]
    assert gateway.stock_history(product_id="3").items == []


def test_reset_stock_overwrites_stock_on_purpose(ddb, tmp_path):
    seed()
    gateway.stock_decrease(product_id="1", quantity=20, token="sale", reason="sold")
    out = StringIO()
    call_command("import_catalog", str(write_json(tmp_path, small_catalog())), "--reset-stock", stdout=out)
    assert gateway.product_get(product_id="1").stock_level == 70
    assert "stock levels reset" in out.getvalue()
    # the reset is in the history as an opening change of the difference; unchanged levels have none
    reset, sale, opening = gateway.stock_history(product_id="1").items
    assert [(h.reason, h.delta, h.resulting_level) for h in (reset, sale, opening)] == [
        ("opening", 20, 70), ("sold", -20, 50), ("opening", 70, 70)]
    assert "reset" in reset.note and "1 opening stock change(s)" in out.getvalue()
    assert len(gateway.stock_history(product_id="4").items) == 1


def test_a_reset_import_keeps_the_alerts_waiting_and_marks_its_units_due_for_them(ddb):
    """A product's waiting back-in-stock alerts are counted on its item: an import with reset stock keeps the
    count, and the units it brings are marked due for them."""
    from catalog.gateway import keys
    from catalog.gateway.alerts import alert_ask, claiming
    from tests.helpers import alert_count

    seed()
    alert_ask(product_id="3", email="ann@example.com", customer_id="c1")  # product 3 is sold out
    data = small_catalog()
    data["products"][2]["stockLevel"] = 4
    importer.import_catalog(data, reset_stock=True)
    assert alert_count(product_id="3") == 1 and gateway.product_get(product_id="3").stock_level == 4
    # The units it brought reach the waiting shopper, as a receipt's would.
    due = [(d.product_id, d.units) for s in range(keys.ALERT_SHARDS) for d in claiming.alerts_due(shard=s)]
    assert due == [("3", 4)] and claiming.alerts_claim(product_id="3", margin=0) == 1


def test_writes_go_in_transactions_of_100_and_batches_of_25(ddb):
    data = small_catalog()
    data["products"] = [
        {"productId": f"b{i}", "name": f"Thing {i}", "brandId": "1", "categoryId": "1", "price": "1.00",
         "stockLevel": 1}
        for i in range(60)
    ]
    with count_requests() as counter:
        result = importer.import_catalog(data)
    # 8 brands and categories one UpdateItem each (their counts kept); one BatchGetItem to find
    # existing products; 60 products, each with its opening stock change, and the two counts they
    # move in two transactions (at most 100 actions each); their search terms ("th", "thi", "thin",
    # "thing" and the two-digit numbers) 25 a BatchWriteItem
    terms = sum(len(p.term_items()) for p in importer.validate(data)[2])
    assert counter.operations.count("TransactWriteItems") == 2 and result.stock_entries == 60
    assert counter.operations.count("BatchWriteItem") == -(-terms // 25)
    assert counter.operations.count("BatchGetItem") == 1
    assert "Scan" not in counter.operations
    assert result.products_created == 60


def test_unprocessed_items_are_retried(ddb, monkeypatch):
    ddb_client = dynamo.client()
    real = ddb_client.batch_write_item
    calls = []

    def flaky(RequestItems):
        calls.append(1)
        if len(calls) == 1:  # DynamoDB took none of the first batch
            return {"UnprocessedItems": RequestItems}
        return real(RequestItems=RequestItems)

    monkeypatch.setattr(ddb_client, "batch_write_item", flaky)
    importer.import_catalog(small_catalog())
    assert len(gateway.brands_all()) == 4
    assert len(calls) >= 3


def test_import_command_reports_counts(ddb, tmp_path):
    out = StringIO()
    call_command("import_catalog", str(write_json(tmp_path, small_catalog())), stdout=out)
    assert "4 brands, 4 categories, 8 new and 0 updated products" in out.getvalue()


def test_import_needs_a_file_or_demo(ddb):
    with pytest.raises(CommandError):
        call_command("import_catalog", stdout=StringIO())


def test_if_empty_skips_a_table_that_has_a_catalog(ddb):
    seed()
    gateway.stock_decrease(product_id="1", quantity=20, token="sale", reason="sold")
    out = StringIO()
    call_command("import_catalog", "--demo", "--if-empty", stdout=out)
    assert "already has a catalog" in out.getvalue()
    assert gateway.product_get(product_id="1").name == "Model 3"


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
