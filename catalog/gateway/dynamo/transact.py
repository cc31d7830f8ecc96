"""One TransactWriteItems and what its refusal means: the only place that sends a transaction
and reads DynamoDB's cancellation reasons (stock writes and orders both use it)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from botocore.exceptions import ClientError

from .boundary import error_code
from .client import client, table_name
from .codec import Item, deserialize, serialize
from .conditions import Condition, expression
from .outcomes import write_outcome

CHECK_FAILED = "ConditionalCheckFailed"
TRANSACTION_ACTIONS = 100  # DynamoDB's limit of actions a transaction
THROTTLED = {"ThrottlingError", "ProvisionedThroughputExceeded"}
# One action of a TransactWriteItems: {"Put" | "Update" | "Delete" | "ConditionCheck": its parameters}.
Action = dict[str, Any]
# Cancellation reasons that say "not now" rather than "no": the caller may simply try again.
TRY_AGAIN = {None, "None", "TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded"}


def put(
    item: Item, *, if_absent: bool = False, return_old: bool = False, condition: Condition | None = None
) -> Action:
    """A Put action; `if_absent` makes it conditional on no item with that key, `condition` on that
    condition (Attr: dynamo.conditions)."""
    action: dict[str, Any] = {"TableName": table_name(), "Item": serialize(item)}
    if if_absent:
        action["ConditionExpression"] = "attribute_not_exists(PK)"
    if condition is not None:
        action.update(expression(condition=condition))
    if return_old:
        action["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD"
    return {"Put": action}


def update(
    key: Item, update_expression: str, values: Item, *, condition: Condition | None = None,
    names: dict[str, str] | None = None, return_old: bool = False
) -> Action:
    """An Update action (`values` plain Python, serialized here): the UpdateExpression `update_expression` with its
    placeholders (`values`, `names`), conditional on `condition` (Attr: dynamo.conditions)."""
    action: dict[str, Any] = {"TableName": table_name(), "Key": serialize(key), "UpdateExpression": update_expression}
    action.update(expression(condition=condition, names=names, values=values))
    if return_old:
        action["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD"
    return {"Update": action}


def delete(key: Item, *, condition: Condition | None = None, return_old: bool = False) -> Action:
    """A Delete action, optionally conditional (Attr: dynamo.conditions)."""
    action: dict[str, Any] = {"TableName": table_name(), "Key": serialize(key)}
    if condition is not None:
        action.update(expression(condition=condition))
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


def check(key: Item, *, condition: Condition) -> Action:
    """A ConditionCheck action: the transaction goes through only if `condition` holds for the item (Attr:
    dynamo.conditions)."""
    action: dict[str, Any] = {"TableName": table_name(), "Key": serialize(key), **expression(condition=condition)}
    return {"ConditionCheck": action}


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
