"""Condition expressions from boto3's Attr and Key (catalog/gateway/dynamo/conditions.py), as the client API
takes them."""
from decimal import Decimal

import pytest

from catalog.gateway.dynamo.conditions import Attr, Key, all_of, expression


def test_a_condition_with_the_update_expressions_own_placeholders():
    params = expression(condition=Attr("status").eq("waiting") & Attr("price").gte(Decimal("9.90")),
                        names={"#s": "status"}, values={":new": 3})
    assert params == {
        "ConditionExpression": "(#n0 = :v0 AND #n1 >= :v1)",
        "ExpressionAttributeNames": {"#s": "status", "#n0": "status", "#n1": "price"},
        "ExpressionAttributeValues": {":new": {"N": "3"}, ":v0": {"S": "waiting"}, ":v1": {"N": "9.90"}},
    }


def test_key_and_filter_share_the_placeholders_and_empty_maps_are_left_out():
    params = expression(key=Key("PK").eq("B#1") & Key("SK").begins_with("P#"), filter=Attr("brandId").eq("3"))
    assert params["KeyConditionExpression"] == "(#n0 = :v0 AND begins_with(#n1, :v1))"
    assert params["FilterExpression"] == "#n2 = :v2"
    assert expression(condition=Attr("PK").exists()) == {
        "ConditionExpression": "attribute_exists(#n0)", "ExpressionAttributeNames": {"#n0": "PK"}}


def test_all_of_leaves_out_what_is_none_and_a_clash_is_refused():
    assert all_of(None, None) is None
    assert expression(condition=all_of(Attr("a").eq(1), None))["ConditionExpression"] == "#n0 = :v0"
    with pytest.raises(ValueError, match="placeholders used twice"):
        expression(condition=Attr("a").eq(1), values={":v0": 2})
