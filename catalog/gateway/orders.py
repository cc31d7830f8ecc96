"""Customers and their orders in the single table, as in the customer-order hierarchy:

    CUSTOMER#<uid> / METADATA                 the customer
    CUSTOMER#<uid> / ORDER#<oid>              an order
    CUSTOMER#<uid> / ORDER#<oid>#ITEM#<pid>   its lines (name, unit price, quantity at purchase)

Order IDs sort by time, so a customer's orders newest first are one Query, ScanIndexForward=False.
Placing an order is one TransactWriteItems: every line's stock decrease (only if the level and the
price are still what was read), a stock adjustment for each, the order, its lines and the customer.
"""
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal

from botocore.exceptions import ClientError
from django.conf import settings

from . import cursor, keys
from .client import client, contended_attempts, deserialize, error_code, serialize, table_name, translate_errors
from .entities import Order, Page, Product
from .errors import InvalidInput, LineProblem, NotFound, OrderRejected, StockBusy
from .products import products_get_many
from .stock import adjustment_item
from .validate import check_id, check_quantity, client_request_token, utc_now

MAX_LINES = 25  # 3 actions a line + 2 keeps a transaction within DynamoDB's 100
ADDRESS_FIELDS = ("name", "street", "postcode", "city", "country")
ADDRESS_MAX_LENGTH = 200


@dataclass(frozen=True)
class CartLine:
    """What the shopper is buying: a product, how many, at the price they saw."""

    product_id: str
    quantity: int
    price: Decimal


def new_order_id():
    """Sorts by time (UTC, microseconds), then 8 random hex digits: 20261122T024500123456-1a2b3c4d."""
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%S%f") + "-" + secrets.token_hex(4)


def _check_lines(lines):
    if not lines:
        raise InvalidInput("The cart is empty.")
    if len(lines) > MAX_LINES:
        raise InvalidInput(f"An order can have at most {MAX_LINES} different products.")
    seen = set()
    for line in lines:
        check_id("Product", line.product_id)
        check_quantity(line.quantity)
        if line.product_id in seen:
            raise InvalidInput(f"Product {line.product_id} is in the order twice.")
        seen.add(line.product_id)


def _problems(lines, products):
    problems = []
    for line in lines:
        product = products.get(line.product_id)
        if product is None:
            problems.append(LineProblem(line.product_id, LineProblem.GONE))
        elif product.price != line.price:
            problems.append(LineProblem(line.product_id, LineProblem.PRICE, name=product.name, price=product.price))
        elif product.stock_level < line.quantity:
            problems.append(
                LineProblem(line.product_id, LineProblem.SHORT, name=product.name, available=product.stock_level)
            )
    return problems


def order_place(*, customer_id, customer_name, order_id, token, lines, customer_email=None, address=None):
    """Place an order in one transaction, or raise OrderRejected and write nothing.

    `order_id` and `token` come from the checkout form: submitting the same form twice
    (double click, retry, Back and resubmit) places one order and answers it both times.
    `address` (name, street, postcode, city, country) is copied onto the order; the customer item
    gets `customer_name` and `customer_email`, so it heals if an earlier customer_put was lost."""
    check_id("Customer", customer_id)
    address = _check_address(address)
    check_id("Order", order_id)
    check_id("Idempotency key", token)
    _check_lines(lines)
    products = None
    for _attempt in contended_attempts():
        if products is None:
            products = products_get_many(product_ids=[line.product_id for line in lines], consistent=True)
        problems = _problems(lines, products)
        if problems:
            placed = _order_or_none(customer_id=customer_id, order_id=order_id)
            if placed is not None:
                return placed  # a replay of an order that took the stock itself
            raise OrderRejected(problems)
        outcome = _transact_order(
            customer_id=customer_id, customer_name=customer_name, order_id=order_id, token=token,
            lines=lines, products=products, at=utc_now(), customer_email=customer_email, address=address,
        )
        if isinstance(outcome, Order):
            return outcome
        if outcome == "replay":
            return order_get(customer_id=customer_id, order_id=order_id)
        # Another buyer got there first; `outcome` holds what changed (or None: read again).
        products = outcome
    raise StockBusy("So many people are buying these right now that your order did not go through; please try again.")


def _transact_order(*, customer_id, customer_name, order_id, token, lines, products, at, customer_email=None,
                    address=None):
    table = table_name()
    stamp = at.isoformat(timespec="microseconds")
    actions = []
    for line in lines:
        current = products[line.product_id].stock_level
        actions.append(
            {
                "Update": {
                    "TableName": table,
                    "Key": serialize(keys.product_key(line.product_id)),
                    "UpdateExpression": "SET stockLevel = :new",
                    "ConditionExpression": "attribute_exists(PK) AND stockLevel = :current AND price = :price",
                    "ExpressionAttributeValues": serialize(
                        {":new": current - line.quantity, ":current": current, ":price": line.price}
                    ),
                    "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
                }
            }
        )
        adjustment = adjustment_item(
            product_id=line.product_id, adjustment_id=order_id, at=at, delta=-line.quantity,
            resulting_level=current - line.quantity, reason=f"Order {order_id}", who=customer_name,
            order_id=order_id,
        )
        actions.append({"Put": {"TableName": table, "Item": serialize(adjustment),
                                "ConditionExpression": "attribute_not_exists(PK)"}})
    total = sum((line.price * line.quantity for line in lines), Decimal("0.00"))
    order_item = {
        **keys.order_key(customer_id, order_id),
        "type": "ORDER",
        "orderId": order_id,
        "customerId": customer_id,
        "placedAt": stamp,
        "total": total,
        "lineCount": len(lines),
        "itemCount": sum(line.quantity for line in lines),
    }
    if address:
        order_item["address"] = address
    order_index = len(actions)
    actions.append({"Put": {"TableName": table, "Item": serialize(order_item),
                            "ConditionExpression": "attribute_not_exists(PK)"}})
    line_items = []
    for line in lines:
        item = {
            **keys.order_line_key(customer_id, order_id, line.product_id),
            "type": "ORDER_LINE",
            "orderId": order_id,
            "productId": line.product_id,
            "productName": products[line.product_id].name,
            "unitPrice": line.price,
            "quantity": line.quantity,
        }
        line_items.append(item)
        actions.append({"Put": {"TableName": table, "Item": serialize(item)}})
    actions.append(
        {
            "Update": {
                "TableName": table,
                "Key": serialize(keys.customer_key(customer_id)),
                "UpdateExpression": "SET #type = :type, customerId = :cid, #name = :name, lastOrderAt = :at"
                + (", email = :email" if customer_email else "") + " ADD orderCount :one",
                "ExpressionAttributeNames": {"#type": "type", "#name": "name"},
                "ExpressionAttributeValues": serialize(
                    {":type": "CUSTOMER", ":cid": customer_id, ":name": customer_name, ":at": stamp, ":one": 1}
                    | ({":email": customer_email} if customer_email else {})
                ),
            }
        }
    )
    levels = tuple(products[line.product_id].stock_level for line in lines)
    try:
        with translate_errors():
            client().transact_write_items(
                TransactItems=actions,
                ClientRequestToken=client_request_token(token, order_id, stamp, levels),
            )
    except ClientError as exc:
        code = error_code(exc)
        if code == "IdempotentParameterMismatchException":
            return "replay"
        if code in ("TransactionInProgressException", "TransactionConflictException"):
            return None
        if code != "TransactionCanceledException":
            raise
        reasons = exc.response.get("CancellationReasons", [])
        codes = [r.get("Code") for r in reasons]
        if len(codes) > order_index and codes[order_index] == "ConditionalCheckFailed":
            return "replay"
        if "ConditionalCheckFailed" not in codes:
            return None  # a conflict with another transaction: read again
        fresh = dict(products)
        for i, line in enumerate(lines):
            if codes[2 * i] == "ConditionalCheckFailed":
                old = reasons[2 * i].get("Item")
                if old is None:
                    fresh.pop(line.product_id, None)  # the product is gone
                else:
                    fresh[line.product_id] = Product.from_item(deserialize(old))
        return fresh
    return Order.from_items(order_item, line_items)


def _check_address(address):
    if address is None:
        return None
    missing = [f for f in ADDRESS_FIELDS if not isinstance(address.get(f), str) or not address[f].strip()]
    if missing:
        raise InvalidInput(f"The delivery address lacks: {', '.join(missing)}.")
    if any(len(address[f]) > ADDRESS_MAX_LENGTH for f in ADDRESS_FIELDS):
        raise InvalidInput(f"A delivery address field is longer than {ADDRESS_MAX_LENGTH} characters.")
    return {f: address[f] for f in ADDRESS_FIELDS}


def customer_put(*, customer_id, name, email):
    """The customer item (CUSTOMER#<uuid>/METADATA) gets the account's name and email: one UpdateItem,
    which keeps what orders wrote there (order count, last order time)."""
    check_id("Customer", customer_id)
    with translate_errors():
        client().update_item(
            TableName=table_name(),
            Key=serialize(keys.customer_key(customer_id)),
            UpdateExpression="SET #type = :type, customerId = :cid, #name = :name, email = :email",
            ExpressionAttributeNames={"#type": "type", "#name": "name"},
            ExpressionAttributeValues=serialize(
                {":type": "CUSTOMER", ":cid": customer_id, ":name": name, ":email": email}
            ),
        )


def order_confirmation_claim(*, customer_id, order_id):
    """Claim the right to send an order's confirmation email: True for the first caller only (one
    conditional UpdateItem on the order), so a replayed or doubled checkout sends no second email,
    on whichever app server it lands."""
    check_id("Customer", customer_id)
    check_id("Order", order_id)
    try:
        with translate_errors():
            client().update_item(
                TableName=table_name(),
                Key=serialize(keys.order_key(customer_id, order_id)),
                UpdateExpression="SET confirmationClaimedAt = :at",
                ConditionExpression="attribute_exists(PK) AND attribute_not_exists(confirmationClaimedAt)",
                ExpressionAttributeValues=serialize({":at": utc_now().isoformat(timespec="microseconds")}),
            )
    except ClientError as exc:
        if error_code(exc) == "ConditionalCheckFailedException":
            return False
        raise
    return True


def _order_or_none(*, customer_id, order_id):
    try:
        return order_get(customer_id=customer_id, order_id=order_id)
    except NotFound:
        return None


def order_get(*, customer_id, order_id):
    """One order with its lines: one Query on the customer's partition."""
    check_id("Customer", customer_id)
    check_id("Order", order_id)
    order_sk = keys.order_key(customer_id, order_id)["SK"]
    with translate_errors():
        response = client().query(
            TableName=table_name(),
            KeyConditionExpression="PK = :pk AND begins_with(SK, :sk)",
            ExpressionAttributeValues=serialize({":pk": keys.customer_pk(customer_id), ":sk": order_sk}),
            ConsistentRead=True,
        )
    items = [deserialize(i) for i in response["Items"]]
    head = next((i for i in items if i["SK"] == order_sk), None)
    if head is None:
        raise NotFound("Order", order_id)
    return Order.from_items(head, [i for i in items if i["SK"].startswith(order_sk + "#ITEM#")])


def orders_by_customer(*, customer_id, after=None, limit=None):
    """A customer's orders with their lines, newest first: one Query a page.

    Newest first, an order's lines come before the order itself (ORDER#b#ITEM#… > ORDER#b);
    a page that ends inside an order leaves that order for the next page."""
    check_id("Customer", customer_id)
    pk = keys.customer_pk(customer_id)
    scope = f"orders:{pk}"
    size = limit or settings.CATALOG_PAGE_SIZE
    params = {
        "TableName": table_name(),
        "KeyConditionExpression": "PK = :pk AND begins_with(SK, :prefix)",
        "ExpressionAttributeValues": serialize({":pk": pk, ":prefix": keys.ORDER_PREFIX}),
        "ScanIndexForward": False,
        "Limit": size * (MAX_LINES + 1) + 1,
    }
    if after is not None:
        params["ExclusiveStartKey"] = serialize(cursor.decode(after, scope=scope, key_names=("PK", "SK")))
    with translate_errors():
        response = client().query(**params)
    orders, lines, last_head = [], [], None
    for item in (deserialize(i) for i in response["Items"]):
        if item.get("type") == "ORDER":
            if len(orders) == size:
                break
            orders.append(Order.from_items(item, [line for line in lines if line["orderId"] == item["orderId"]]))
            lines, last_head = [], item
        else:
            lines.append(item)
    read = sum(len(o.lines) + 1 for o in orders)
    more = "LastEvaluatedKey" in response or len(response["Items"]) > read
    next_cursor = None
    if more and last_head is not None:
        next_cursor = cursor.encode({"PK": last_head["PK"], "SK": last_head["SK"]}, scope=scope)
    return Page(items=orders, next_cursor=next_cursor)
