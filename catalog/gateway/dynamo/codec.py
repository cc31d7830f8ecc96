"""Items between Python values and DynamoDB's wire format (what boto3's TypeSerializer and
TypeDeserializer do, with the common tags read directly)."""
from __future__ import annotations

from typing import Any

from boto3.dynamodb.types import DYNAMODB_CONTEXT, TypeDeserializer, TypeSerializer

# An item (or a key, or an expression's values) as plain Python values: str, Decimal, int, dict, list, ...
Item = dict[str, Any]
# The same in DynamoDB's wire format ({"S": ...}, {"N": ...}, ...), as the client API sends and returns it.
WireItem = dict[str, dict[str, Any]]

_serializer = TypeSerializer()
_deserializer = TypeDeserializer()
_decimal = DYNAMODB_CONTEXT.create_decimal


def serialize(item: Item) -> WireItem:
    return {k: _serializer.serialize(v) for k, v in item.items()}


def deserialize(item: WireItem) -> Item:
    """An item from DynamoDB's wire format to Python values, exactly as boto3's TypeDeserializer
    makes them (tests/gateway/dynamo/test_wire.py), with the common tags (S, N, M, L) read directly."""
    return {k: _value(v) for k, v in item.items()}


def _value(value: Any) -> dict[str, Any] | list[Any]:
    if "S" in value:
        return value["S"]
    if "N" in value:
        return _decimal(value["N"])
    if "M" in value:
        return {k: _value(v) for k, v in value["M"].items()}
    if "L" in value:
        return [_value(v) for v in value["L"]]
    return _deserializer.deserialize(value)  # BOOL, NULL, sets, binary
