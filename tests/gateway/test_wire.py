"""The fast read parser gives exactly what botocore's own parser gives, on real answers."""
import pytest
from botocore.parsers import JSONParser

from catalog.gateway import client as dynamo
from catalog.gateway import codec, keys
from catalog.gateway.wire import FastReadParser


def _answers(operation, **params):
    """The raw HTTP answer of one request, and what each parser makes of it."""
    captured = {}

    def keep(response_dict, **kwargs):
        captured.update(response_dict)

    ddb = dynamo.client()
    ddb.meta.events.register(f"before-parse.dynamodb.{operation}", keep)
    try:
        getattr(ddb, {"Query": "query", "GetItem": "get_item", "BatchGetItem": "batch_get_item"}[operation])(**params)
    finally:
        ddb.meta.events.unregister(f"before-parse.dynamodb.{operation}", keep)
    shape = ddb.meta.service_model.operation_model(operation).output_shape
    response = {"body": captured["body"], "headers": captured["headers"], "status_code": captured["status_code"]}
    return FastReadParser().parse(dict(response), shape), JSONParser().parse(dict(response), shape)


@pytest.mark.parametrize(
    "operation, params",
    [
        ("GetItem", {"Key": {"PK": {"S": "P#1"}, "SK": {"S": "METADATA"}}}),
        ("Query", {"IndexName": keys.list_index(keys.GSI1), "KeyConditionExpression": "GSI1PK = :pk",
                   "ExpressionAttributeValues": {":pk": {"S": "B#3"}}, "Limit": 2}),
        ("BatchGetItem", None),
    ],
)
def test_the_fast_parser_agrees_with_botocores(catalog, operation, params):
    table = dynamo.table_name()
    if operation == "BatchGetItem":
        params = {"RequestItems": {table: {"Keys": [{"PK": {"S": f"P#{i}"}, "SK": {"S": "METADATA"}} for i in (1, 4)]}}}
    else:
        params = {"TableName": table, **params}
    fast, slow = _answers(operation, **params)
    assert fast == slow
    assert fast.get("Item") or fast.get("Items") or fast.get("Responses")


def test_a_binary_attribute_goes_through_botocores_parser(catalog):
    dynamo.client().put_item(
        TableName=dynamo.table_name(), Item={"PK": {"S": "BIN"}, "SK": {"S": "1"}, "blob": {"B": b"\x00\xff"}}
    )
    item = dynamo.client().get_item(TableName=dynamo.table_name(), Key={"PK": {"S": "BIN"}, "SK": {"S": "1"}})["Item"]
    assert item["blob"] == {"B": b"\x00\xff"}  # bytes, as botocore gives them, not base64 text



def test_items_read_directly_are_what_boto3s_deserializer_makes():
    from decimal import Decimal

    from boto3.dynamodb.types import Binary, TypeDeserializer

    item = {
        "name": {"S": "<script>Model 3</script>"}, "price": {"N": "39990.00"}, "stock": {"N": "-0"},
        "big": {"N": "12345678901234567890123456789012345678"}, "flag": {"BOOL": False}, "none": {"NULL": True},
        "attributes": {"M": {"colour": {"S": "red"}, "sizes": {"L": [{"N": "1"}, {"S": "XL"}, {"NULL": True}]}}},
        "tags": {"SS": ["a", "b"]}, "ns": {"NS": ["1", "2.5"]}, "blob": {"B": b"\x00\x01"},
    }
    ours = codec.deserialize(item)
    assert ours == {k: TypeDeserializer().deserialize(v) for k, v in item.items()}
    assert ours["price"] == Decimal("39990.00") and isinstance(ours["blob"], Binary)
    assert ours["attributes"]["sizes"] == [Decimal(1), "XL", None]
