"""The table's one definition (catalog/gateway/table/schema.py) and `create_table`, on moto."""
import json
from io import StringIO

from django.core.management import call_command

from catalog.gateway.table import create_table_request, schema


def test_create_table_prints_the_one_definition(ddb):
    out = StringIO()
    call_command("create_table", "--print", stdout=out)
    request = json.loads(out.getvalue())
    indexes = {i["IndexName"]: i for i in request["GlobalSecondaryIndexes"]}
    lists = ("GSI1", "GSI2", "ByName1", "ByPrice1", "ByName2", "ByPrice2", "ByName3", "ByPrice3")
    assert set(indexes) == {f"{name}v2" for name in lists} | {"Ledger", "ByReason", "Reorder", "OpenOrders",
                                                              "AlertQueue", "Buyers", "HoldExpiry"}
    for name in lists:
        index = indexes[f"{name}v2"]
        assert [k["AttributeName"] for k in index["KeySchema"]] == [f"{name}PK", f"{name}SK"]
        assert index["Projection"]["ProjectionType"] == "INCLUDE"
        projected = set(index["Projection"]["NonKeyAttributes"])
        # A list shows the stock band; the exact level is only on the product item.
        assert {"type", "name", "stockBand", "productId", "price"} <= projected and "stockLevel" not in projected
    assert request["BillingMode"] == "PAY_PER_REQUEST"


def test_the_table_definition_fits_dynamodbs_limit_on_projected_attributes():
    """AWS refuses a CreateTable whose INCLUDE indexes project more than 100 attributes in all
    (summed over the indexes); DynamoDB Local more than 20 distinct ones."""
    included = [
        name
        for index in create_table_request("t")["GlobalSecondaryIndexes"]
        if index["Projection"]["ProjectionType"] == "INCLUDE"
        for name in index["Projection"]["NonKeyAttributes"]
    ]
    assert len(included) <= schema.PROJECTED_ATTRIBUTE_LIMIT
    assert len(set(included)) <= schema.LOCAL_DISTINCT_PROJECTED_LIMIT


def test_create_table_is_safe_to_run_again(ddb, settings):
    settings.DYNAMODB_TABLE = "another"
    out = StringIO()
    call_command("create_table", stdout=out)
    assert "Created table 'another'" in out.getvalue()
    out = StringIO()
    call_command("create_table", stdout=out)
    assert "already exists" in out.getvalue()
