"""The fast read of answers gives exactly what botocore's own parser gives, on real answers."""
import boto3
import pytest

from catalog.gateway import client as dynamo
from catalog.gateway import codec, keys
from catalog.gateway.dynamo import wire


def _plain_client():
    """A boto3 client to the same table, without the gateway's event handlers."""
    app = dynamo.client()
    return boto3.session.Session().client(
        "dynamodb", endpoint_url=app.meta.endpoint_url, region_name=app.meta.region_name,
        aws_access_key_id="local", aws_secret_access_key="local",
    )


def _without_metadata(answer):
    return {k: v for k, v in answer.items() if k != "ResponseMetadata"}


@pytest.mark.parametrize(
    "operation, params",
    [
        ("get_item", {"Key": {"PK": {"S": "P#1"}, "SK": {"S": "METADATA"}}}),
        ("query", {"IndexName": keys.list_index(keys.GSI1), "KeyConditionExpression": "GSI1PK = :pk",
                   "ExpressionAttributeValues": {":pk": {"S": "B#3"}}, "Limit": 2}),
        ("batch_get_item", None),
    ],
)
def test_the_fast_read_agrees_with_botocores_parser(catalog, operation, params):
    table = dynamo.table_name()
    if operation == "batch_get_item":
        params = {"RequestItems": {table: {"Keys": [{"PK": {"S": f"P#{i}"}, "SK": {"S": "METADATA"}} for i in (1, 4)]}}}
    else:
        params = {"TableName": table, **params}
    taken = []

    def body_left(response_dict, **kwargs):  # registered after the gateway's handler: sees what it left
        taken.append(response_dict["body"])

    app = dynamo.client()
    app.meta.events.register("before-parse.dynamodb", body_left)
    try:
        fast = getattr(app, operation)(**params)
    finally:
        app.meta.events.unregister("before-parse.dynamodb", body_left)
    slow = getattr(_plain_client(), operation)(**params)
    assert taken == [b"{}"]  # botocore's parser was left nothing to walk
    assert _without_metadata(fast) == _without_metadata(slow)
    assert fast.get("Item") or fast.get("Items") or fast.get("Responses")
    assert fast["ResponseMetadata"]["HTTPStatusCode"] == 200 and fast["ResponseMetadata"]["RequestId"]


def test_an_error_answer_is_botocores(catalog):
    from botocore.exceptions import ClientError

    with pytest.raises(ClientError) as raised:
        dynamo.client().query(TableName=dynamo.table_name() + "-missing", KeyConditionExpression="PK = :p",
                              ExpressionAttributeValues={":p": {"S": "x"}})
    assert raised.value.response["Error"]["Code"] == "ResourceNotFoundException"


def test_a_binary_attribute_goes_through_botocores_parser(catalog):
    dynamo.client().put_item(
        TableName=dynamo.table_name(), Item={"PK": {"S": "BIN"}, "SK": {"S": "1"}, "blob": {"B": b"\x00\xff"}}
    )
    item = dynamo.client().get_item(TableName=dynamo.table_name(), Key={"PK": {"S": "BIN"}, "SK": {"S": "1"}})["Item"]
    assert item["blob"] == {"B": b"\x00\xff"}  # bytes, as botocore gives them, not base64 text


def test_the_handler_leaves_other_answers_alone():
    answer = {"status_code": 400, "body": b'{"__type":"x"}', "headers": {}}
    customized = {}
    wire.before_parse(response_dict=answer, customized_response_dict=customized)
    assert answer["body"] == b'{"__type":"x"}' and customized == {}


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
