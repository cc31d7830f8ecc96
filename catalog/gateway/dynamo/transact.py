"""One TransactWriteItems and what its refusal means: the only place that sends a transaction
and reads DynamoDB's cancellation reasons (stock writes and orders both use it)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from botocore.exceptions import ClientError

from .boundary import error_code
from .client import client, table_name
from .codec import deserialize, serialize
from .outcomes import write_outcome

CHECK_FAILED = "ConditionalCheckFailed"
TRANSACTION_ACTIONS = 100  # DynamoDB's limit of actions a transaction
THROTTLED = {"ThrottlingError", "ProvisionedThroughputExceeded"}
# Cancellation reasons that say "not now" rather than "no": the caller may simply try again.
TRY_AGAIN = {None, "None", "TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded"}


def put(item: dict[str, Any], *, if_absent: bool = False, return_old: bool = False) -> dict[str, Any]:
    """A Put action; `if_absent` makes it conditional on no item with that key."""
    action = {"TableName": table_name(), "Item": serialize(item)}
    if if_absent:
        action["ConditionExpression"] = "attribute_not_exists(PK)"
    if return_old:
        action["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD"
    return {"Put": action}


def update(
    key: dict[str, Any], expression: str, values: Any, *, condition: str | None = None, names: Any = None,
    return_old: bool = False
) -> dict[str, Any]:
    """An Update action (`values` plain Python, serialized here)."""
    action = {
        "TableName": table_name(),
        "Key": serialize(key),
        "UpdateExpression": expression,
        "ExpressionAttributeValues": serialize(values),
    }
    if condition:
        action["ConditionExpression"] = condition
    if names:
        action["ExpressionAttributeNames"] = names
    if return_old:
        action["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD"
    return {"Update": action}


def delete(
    key: dict[str, Any], *, condition: str | None = None, values: Any = None, return_old: bool = False
) -> dict[str, Any]:
    """A Delete action, optionally conditional (`values` plain Python, serialized here)."""
    action = {"TableName": table_name(), "Key": serialize(key)}
    if condition:
        action["ConditionExpression"] = condition
    if values:
        action["ExpressionAttributeValues"] = serialize(values)
    if return_old:
        action["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD"
    return {"Delete": action}


@dataclass(frozen=True)
class Refusal:
    """Why DynamoDB refused a transaction. `codes[i]` and `items[i]` belong to action i (the
    item as it was, deserialized, where the action asked for it); `conflict` means another
    transaction was in the way (nothing to read: just try again); `replay` means the same
    ClientRequestToken came with other parameters (the request was applied before)."""

    codes: tuple = ()
    items: tuple = ()
    conflict: bool = False
    replay: bool = False

    def failed(self, index: Any) -> Any:
        return index < len(self.codes) and self.codes[index] == CHECK_FAILED

    @property
    def any_failed(self) -> bool:
        return CHECK_FAILED in self.codes

    @property
    def throttled(self) -> bool:
        """DynamoDB had no capacity for an item: worth trying again after a pause, not at once."""
        return bool(THROTTLED.intersection(self.codes))


def check(key: dict[str, Any], *, condition: str, values: Any) -> dict[str, Any]:
    """A ConditionCheck action: the transaction goes through only if `condition` holds for the item."""
    return {"ConditionCheck": {
        "TableName": table_name(), "Key": serialize(key), "ConditionExpression": condition,
        "ExpressionAttributeValues": serialize(values),
    }}


def transact_write(actions: Any, *, request_token: str) -> Refusal | None:
    """Send the actions as one transaction. Returns None when it was applied, or a Refusal.
    `request_token` (DynamoDB's ClientRequestToken) makes a retried identical request apply once.
    Anything else DynamoDB says becomes the project's exceptions (translate_errors); a lost answer
    is OutcomeUnknown (the transaction may still commit)."""
    try:
        with write_outcome():
            client().transact_write_items(TransactItems=actions, ClientRequestToken=request_token)
    except ClientError as exc:
        code = error_code(exc)
        if code == "IdempotentParameterMismatchException":
            return Refusal(replay=True)
        if code in ("TransactionInProgressException", "TransactionConflictException"):
            return Refusal(conflict=True)
        if code != "TransactionCanceledException":
            raise
        reasons = exc.response.get("CancellationReasons", [])
        codes = tuple(r.get("Code") for r in reasons)
        if CHECK_FAILED not in codes and not set(codes) <= TRY_AGAIN:
            raise  # a malformed request (ValidationError, ...): a bug, not a race
        return Refusal(
            codes=codes,
            items=tuple(deserialize(r["Item"]) if r.get("Item") else None for r in reasons),
            conflict=CHECK_FAILED not in codes,
        )
    return None
