"""Stock writes (patterns 4, 5) and a product's stock history: optimistic, exact and idempotent."""
import time

from botocore.exceptions import ClientError

from . import cursor, keys
from .client import client, contended_attempts, deserialize, error_code, serialize, table_name, translate_errors
from .entities import Page, StockAdjustment, StockChange
from .errors import InsufficientStock, InvalidInput, StockBusy
from .products import product_get
from .validate import (
    MAX_REASON,
    MAX_WHO,
    check_id,
    check_quantity,
    check_text,
    client_request_token,
    page_size,
    utc_now,
)

# How long an idempotency key is remembered (the TOKEN# mark's TTL).
TOKEN_TTL_SECONDS = 7 * 24 * 3600


def stock_increase(*, product_id, quantity, token, reason="", who="", expected_level=None):
    """Pattern 5: a shipment arrived. Returns the new level (a StockChange).

    `expected_level`, the level the caller last saw (say, on the page the staff member
    submitted), saves the read before the write: when it is still right the write is one
    TransactWriteItems. It is only a hint: a stale one costs one more attempt, never a wrong level."""
    return _change_stock(
        product_id=product_id, delta=check_quantity(quantity), token=token, reason=reason, who=who,
        expected_level=expected_level,
    )


def stock_decrease(*, product_id, quantity, token, reason="", who="", expected_level=None):
    """Pattern 4: stock left (a sale, damage, a correction). Never below zero: raises
    InsufficientStock, changing nothing, when `quantity` is more than is in stock (read
    consistently, whatever `expected_level` said). `expected_level` as for stock_increase."""
    return _change_stock(
        product_id=product_id, delta=-check_quantity(quantity), token=token, reason=reason, who=who,
        expected_level=expected_level,
    )



def _change_stock(*, product_id, delta, token, reason, who, expected_level):
    check_id("Product", product_id)
    check_id("Idempotency key", token)
    reason = check_text("Reason", reason, MAX_REASON)
    who = check_text("Who", who, MAX_WHO)
    if expected_level is not None and (
        isinstance(expected_level, bool) or not isinstance(expected_level, int) or expected_level < 0
    ):
        raise InvalidInput("The expected stock level must be a whole number, 0 or more.")
    # The level the next attempt is conditional on, and whether DynamoDB told it (not a hint).
    current, known = expected_level, False
    for _attempt in contended_attempts():
        if current is None or (current + delta < 0 and not known):  # never refuse on a hint
            current, known = product_get(product_id=product_id, consistent=True).stock_level, True
        if current + delta < 0:
            # A key used already answers as it did then, even if stock has run out since.
            replay = _replay_of_used_token(product_id=product_id, token=token)
            if replay is not None:
                return replay
            raise InsufficientStock(product_id, available=current, requested=-delta)
        outcome = _apply_stock_change(
            product_id=product_id, current=current, delta=delta, token=token, reason=reason, who=who, at=utc_now()
        )
        if isinstance(outcome, StockChange):
            return outcome
        # Someone else changed the stock first (or the hint was stale): try again from the
        # level DynamoDB returned with the refusal.
        current, known = outcome, outcome is not None
    raise StockBusy(f"Stock of product {product_id} is changing too often right now; try again.")


def adjustment_item(*, product_id, adjustment_id, at, delta, resulting_level, reason, who, order_id=None):
    stamp = at.isoformat(timespec="microseconds")
    item = {
        **keys.stock_adjustment_key(product_id, at=stamp, adjustment_id=adjustment_id),
        "type": "STOCK_ADJUSTMENT",
        "productId": product_id,
        "adjustmentId": adjustment_id,
        "at": stamp,
        "delta": delta,
        "resultingLevel": resulting_level,
        "reason": reason,
        "who": who,
    }
    if order_id:
        item["orderId"] = order_id
    return item


def _token_item(*, product_id, token, adjustment):
    return {
        **keys.token_key(product_id, token),
        "type": "IDEMPOTENCY_KEY",
        "adjustment": {k: v for k, v in adjustment.items() if k not in ("PK", "SK")},
        "expiresAt": int(time.time()) + TOKEN_TTL_SECONDS,
    }


def _apply_stock_change(*, product_id, current, delta, token, reason, who, at):
    """One TransactWriteItems: the product's level goes from `current` to `current + delta`
    (only if it still is `current`), the adjustment is recorded, and the idempotency key is
    marked as used. Returns the StockChange, or the level found instead of `current`
    (None if unknown) when another write got there first."""
    new_level = current + delta
    adjustment = adjustment_item(
        product_id=product_id, adjustment_id=token, at=at, delta=delta,
        resulting_level=new_level, reason=reason, who=who,
    )
    table = table_name()
    transact_items = [
        {
            "Update": {
                "TableName": table,
                "Key": serialize(keys.product_key(product_id)),
                "UpdateExpression": "SET stockLevel = :new",
                "ConditionExpression": "attribute_exists(PK) AND stockLevel = :current",
                "ExpressionAttributeValues": serialize({":new": new_level, ":current": current}),
                "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
            }
        },
        {
            "Put": {
                "TableName": table,
                "Item": serialize(adjustment),
                "ConditionExpression": "attribute_not_exists(PK)",
            }
        },
        {
            "Put": {
                "TableName": table,
                "Item": serialize(_token_item(product_id=product_id, token=token, adjustment=adjustment)),
                "ConditionExpression": "attribute_not_exists(PK)",
                "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
            }
        },
    ]
    try:
        with translate_errors():
            client().transact_write_items(
                TransactItems=transact_items,
                # The same request retried (by botocore, after a lost answer) applies once.
                ClientRequestToken=client_request_token(token, product_id, current, adjustment["at"]),
            )
    except ClientError as exc:
        code = error_code(exc)
        if code in ("TransactionInProgressException", "TransactionConflictException"):
            return None
        if code != "TransactionCanceledException":
            raise
        reasons = [r.get("Code") for r in exc.response.get("CancellationReasons", [])]
        if len(reasons) == 3 and reasons[2] == "ConditionalCheckFailed":
            return _replayed(product_id=product_id, token=token, reason=exc.response["CancellationReasons"][2])
        if reasons and reasons[0] == "ConditionalCheckFailed":
            old = exc.response["CancellationReasons"][0].get("Item")
            if old is not None:
                level = deserialize(old).get("stockLevel")
                return int(level) if level is not None else None
            return None
        if "TransactionConflict" in reasons:
            return None
        raise
    return StockChange(product_id=product_id, level=new_level, adjustment=StockAdjustment.from_item(adjustment))


def _replayed(*, product_id, token, reason):
    """The idempotency key was used already: answer what the first write answered."""
    item = reason.get("Item")
    if item is None:
        return _replay_of_used_token(product_id=product_id, token=token)
    return _replay_of(product_id=product_id, item=item)


def _replay_of_used_token(*, product_id, token):
    """The first answer of a write made with this idempotency key, or None if it is unused."""
    with translate_errors():
        item = client().get_item(
            TableName=table_name(), Key=serialize(keys.token_key(product_id, token)), ConsistentRead=True
        ).get("Item")
    return _replay_of(product_id=product_id, item=item) if item is not None else None


def _replay_of(*, product_id, item):
    adjustment = StockAdjustment.from_item(deserialize(item)["adjustment"])
    return StockChange(product_id=product_id, level=adjustment.resulting_level, adjustment=adjustment, replayed=True)



def stock_history(*, product_id, after=None, limit=None, consistent=False):
    """A product's stock adjustments, newest first: one Query on its own partition.
    `consistent` includes the latest write (as product_get's)."""
    check_id("Product", product_id)
    size = page_size(limit)
    pk = keys.product_pk(product_id)
    scope = f"history:{pk}"
    params = {
        "TableName": table_name(),
        "KeyConditionExpression": "PK = :pk AND begins_with(SK, :prefix)",
        "ExpressionAttributeValues": serialize({":pk": pk, ":prefix": keys.STOCK_PREFIX}),
        "ScanIndexForward": False,
        "ConsistentRead": consistent,
        "Limit": size + 1,
    }
    if after is not None:
        params["ExclusiveStartKey"] = serialize(cursor.decode(after, scope=scope, key_names=("PK", "SK")))
    with translate_errors():
        response = client().query(**params)
    items = [deserialize(i) for i in response["Items"]]
    next_key = None
    if len(items) > size:
        items = items[:size]
        next_key = {"PK": items[-1]["PK"], "SK": items[-1]["SK"]}
    return Page(
        items=[StockAdjustment.from_item(i) for i in items],
        next_cursor=cursor.encode(next_key, scope=scope) if next_key else None,
    )

