"""Condition expressions, written with boto3's condition objects (`Attr` for an item's attributes, `Key`
for a Query's key: boto3.dynamodb.conditions) and sent through the client API.

boto3's ConditionExpressionBuilder writes the expression and its placeholders (#n0, :v0, ...: every
attribute name is a placeholder, so reserved words such as `status`, `name` or `type` need no care);
the values are serialized here (TypeSerializer, codec.serialize), as the client API wants them. An
UpdateExpression's own placeholders (`names`, `values`) go in the same maps; a clash is a bug."""
from __future__ import annotations

from typing import Any, TypeAlias

from boto3.dynamodb.conditions import Attr, ConditionBase, ConditionExpressionBuilder, Key

from .codec import serialize

__all__ = ["Attr", "Condition", "Key", "expression", "all_of"]

# A condition built with Attr or Key (&, |, ~ combine them).
Condition: TypeAlias = ConditionBase


def all_of(*conditions: Condition | None) -> Condition | None:
    """The conditions joined with AND (None: no condition), those that are None left out."""
    present = [condition for condition in conditions if condition is not None]
    if not present:
        return None
    joined: Condition = present[0]
    for condition in present[1:]:
        joined = joined & condition
    return joined


def expression(
    *, condition: Condition | None = None, key: Condition | None = None, filter: Condition | None = None,
    names: dict[str, str] | None = None, values: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Request parameters: ConditionExpression (`condition`), KeyConditionExpression (`key`) and
    FilterExpression (`filter`), those given, with ExpressionAttributeNames and ExpressionAttributeValues
    (serialized) of theirs and of the request's own expression (`names`, `values`: plain Python), each
    map left out when empty (DynamoDB refuses an empty one)."""
    builder = ConditionExpressionBuilder()
    params: dict[str, Any] = {}
    all_names, all_values = dict(names or {}), dict(values or {})
    for field, built_from, is_key in (("KeyConditionExpression", key, True), ("ConditionExpression", condition, False),
                                      ("FilterExpression", filter, False)):
        if built_from is None:
            continue
        built = builder.build_expression(built_from, is_key_condition=is_key)
        params[field] = built.condition_expression
        _merge(all_names, built.attribute_name_placeholders)
        _merge(all_values, built.attribute_value_placeholders)
    if all_names:
        params["ExpressionAttributeNames"] = all_names
    if all_values:
        params["ExpressionAttributeValues"] = serialize(all_values)
    return params


def _merge(into: dict[str, Any], more: dict[str, Any]) -> None:
    clash = into.keys() & more.keys()
    if clash:
        raise ValueError(f"placeholders used twice: {sorted(clash)}")
    into.update(more)
