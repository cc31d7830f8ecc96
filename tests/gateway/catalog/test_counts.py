"""Product counts on brand and category items (catalog/gateway/catalog/counts.py), on moto: kept by
imports, recounted and repaired by `recount`."""
from io import StringIO

from django.core.management import call_command

from catalog import gateway
from tests.helpers import seed, small_catalog


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
