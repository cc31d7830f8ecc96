"""The catalog's data access layer: one function per access pattern of the single table.

| # | access pattern                | function                                        | request                   |
|---|-------------------------------|-------------------------------------------------|---------------------------|
| 1 | all brands                    | brands_all()                                    | Query PK=BRANDS           |
| 2 | all categories                | categories_all()                                | Query PK=CATEGORIES       |
| 3 | product by id                 | product_get(product_id=)                        | GetItem P#<pid>/METADATA  |
| 4 | decrease stock                | stock_decrease(product_id=, quantity=, ...)     | TransactWriteItems        |
| 5 | increase stock                | stock_increase(product_id=, quantity=, ...)     | TransactWriteItems        |
| 6 | products by brand             | products_by_brand(brand_id=)                    | Query GSI1                |
| 7 | products by brand + category  | products_by_brand(brand_id=, category_id=)      | Query GSI1 begins_with    |
| 8 | products by category          | products_by_category(category_id=)              | Query GSI2                |
| 9 | products by category + brand  | products_by_category(category_id=, brand_id=)   | Query GSI2 begins_with    |
|   | stock history                 | stock_history(product_id=)                      | Query P#<pid> STOCK#      |

Every function validates its input before sending anything, returns typed objects, and
raises only the exceptions of `catalog.errors`.
"""
import hashlib
import time
import uuid
from datetime import UTC, datetime

from botocore.exceptions import ClientError
from django.conf import settings

from . import cursor, keys
from .dynamo import (
    BATCH_GET_SIZE,
    batch_get,
    client,
    contended_attempts,
    deserialize,
    error_code,
    serialize,
    table_name,
    translate_errors,
)
from .entities import Brand, Category, Page, Product, StockAdjustment, StockChange
from .errors import (
    InsufficientStock,
    InvalidId,
    InvalidInput,
    InvalidQuantity,
    NotFound,
    StockBusy,
)

MAX_QUANTITY = 1_000_000
MAX_REASON = 200
MAX_WHO = 150
# How long an idempotency key is remembered (the TOKEN# mark's TTL).
TOKEN_TTL_SECONDS = 7 * 24 * 3600


# --- validation -------------------------------------------------------------------------

def check_id(what, value):
    if not keys.valid_id(value):
        raise InvalidId(what, value)
    return value


def check_quantity(quantity):
    if isinstance(quantity, bool) or not isinstance(quantity, int):
        raise InvalidQuantity("Quantity must be a whole number.")
    if not 1 <= quantity <= MAX_QUANTITY:
        raise InvalidQuantity(f"Quantity must be between 1 and {MAX_QUANTITY:,}.")
    return quantity


def _page_size(limit):
    size = settings.CATALOG_PAGE_SIZE if limit is None else limit
    if not isinstance(size, int) or not 1 <= size <= 1000:
        raise ValueError("page size must be 1 to 1000")
    return size


# --- brands and categories (patterns 1, 2) ----------------------------------------------

def _query_all(**params):
    """Every item of a Query, following LastEvaluatedKey (pagination aside, one request)."""
    items = []
    with translate_errors():
        while True:
            response = client().query(TableName=table_name(), **params)
            items.extend(deserialize(i) for i in response["Items"])
            if "LastEvaluatedKey" not in response:
                return items
            params["ExclusiveStartKey"] = response["LastEvaluatedKey"]


def brands_all():
    """Pattern 1: every brand, by name."""
    items = _query_all(
        KeyConditionExpression="PK = :pk", ExpressionAttributeValues=serialize({":pk": keys.BRANDS_PK})
    )
    return sorted((Brand.from_item(i) for i in items), key=lambda b: (b.name.casefold(), b.brand_id))


def categories_all():
    """Pattern 2: every category, by name."""
    items = _query_all(
        KeyConditionExpression="PK = :pk", ExpressionAttributeValues=serialize({":pk": keys.CATEGORIES_PK})
    )
    return sorted((Category.from_item(i) for i in items), key=lambda c: (c.name.casefold(), c.category_id))


# --- one product (pattern 3) ------------------------------------------------------------

def product_get(*, product_id, consistent=False):
    """Pattern 3: the product with all its attributes. `consistent` reads the latest write."""
    check_id("Product", product_id)
    with translate_errors():
        response = client().get_item(
            TableName=table_name(), Key=serialize(keys.product_key(product_id)), ConsistentRead=consistent
        )
    if "Item" not in response:
        raise NotFound("Product", product_id)
    return Product.from_item(deserialize(response["Item"]))


def products_get_many(*, product_ids, consistent=False):
    """Several products by id in one BatchGetItem (at most 100): {product_id: Product}.
    Unknown ids are simply absent."""
    ids = list(dict.fromkeys(check_id("Product", pid) for pid in product_ids))
    if len(ids) > BATCH_GET_SIZE:
        raise ValueError(f"at most {BATCH_GET_SIZE} products at once")
    items = batch_get([keys.product_key(pid) for pid in ids], consistent=consistent)
    return {p.product_id: p for p in (Product.from_item(i) for i in items)}


# --- product lists (patterns 6 to 9) ----------------------------------------------------

def _list_products(*, index, partition, prefix, after, limit):
    size = _page_size(limit)
    pk_name, sk_name = f"{index}PK", f"{index}SK"
    key_names = ("PK", "SK", pk_name, sk_name)
    scope = f"{index}:{partition}:{prefix or ''}"
    condition = f"{pk_name} = :pk"
    values = {":pk": partition}
    if prefix:
        condition += f" AND begins_with({sk_name}, :prefix)"
        values[":prefix"] = prefix
    params = {
        "TableName": table_name(),
        "IndexName": index,
        "KeyConditionExpression": condition,
        "ExpressionAttributeValues": serialize(values),
        # One more than a page tells whether there is a next page without a second request.
        "Limit": size + 1,
    }
    if after is not None:
        start = cursor.decode(after, scope=scope, key_names=key_names)
        params["ExclusiveStartKey"] = serialize(start)
    with translate_errors():
        response = client().query(**params)
    items = [deserialize(i) for i in response["Items"]]
    next_key = None
    if len(items) > size:
        items = items[:size]
        next_key = {k: items[-1][k] for k in key_names}
    elif "LastEvaluatedKey" in response and items:
        # DynamoDB stopped early (1 MB page): carry on from where it stopped.
        next_key = deserialize(response["LastEvaluatedKey"])
    return Page(
        items=[Product.from_item(i) for i in items],
        next_cursor=cursor.encode(next_key, scope=scope) if next_key else None,
    )


def products_by_brand(*, brand_id, category_id=None, after=None, limit=None):
    """Patterns 6 and 7: a brand's products, optionally in one category (GSI1)."""
    check_id("Brand", brand_id)
    if category_id is not None:
        check_id("Category", category_id)
    return _list_products(
        index=keys.GSI1,
        partition=keys.brand_gsi_pk(brand_id),
        prefix=keys.category_in_brand_prefix(category_id) if category_id is not None else None,
        after=after,
        limit=limit,
    )


def products_by_category(*, category_id, brand_id=None, after=None, limit=None):
    """Patterns 8 and 9: a category's products, optionally of one brand (GSI2)."""
    check_id("Category", category_id)
    if brand_id is not None:
        check_id("Brand", brand_id)
    return _list_products(
        index=keys.GSI2,
        partition=keys.category_gsi_pk(category_id),
        prefix=keys.brand_in_category_prefix(brand_id) if brand_id is not None else None,
        after=after,
        limit=limit,
    )


# --- stock writes (patterns 4, 5) -------------------------------------------------------

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


def new_token():
    """A fresh idempotency key for one stock write (a form render, a command run)."""
    return uuid.uuid4().hex


def utc_now():
    return datetime.now(UTC)


def client_request_token(*parts):
    """DynamoDB's ClientRequestToken (at most 36 characters) for one exact request."""
    return hashlib.sha256("|".join(str(p) for p in parts).encode()).hexdigest()[:36]


def _check_text(what, value, limit):
    if not isinstance(value, str):
        raise InvalidInput(f"{what} must be text.")
    value = value.strip()
    if len(value) > limit:
        raise InvalidInput(f"{what} must be at most {limit} characters.")
    return value


def _change_stock(*, product_id, delta, token, reason, who, expected_level):
    check_id("Product", product_id)
    check_id("Idempotency key", token)
    reason = _check_text("Reason", reason, MAX_REASON)
    who = _check_text("Who", who, MAX_WHO)
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


# --- stock history ----------------------------------------------------------------------

def stock_history(*, product_id, after=None, limit=None, consistent=False):
    """A product's stock adjustments, newest first: one Query on its own partition.
    `consistent` includes the latest write (as product_get's)."""
    check_id("Product", product_id)
    size = _page_size(limit)
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
