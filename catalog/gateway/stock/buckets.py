"""Stock buckets: a hot product's stock over K items of their own partitions.

One item takes about 1,000 write units a second, so a product whose every sale writes its own item
sells at most a few hundred units a second. A product with `stockBuckets` K > 1 is in one of three
states (`stockSpread` on its product item):

- spread ("spread"): its units are in K bucket items P#<pid>#S#<k> / STOCK (k = 0 .. K-1; the product
  item keeps what was left over, its `reserve`, usually 0). Each bucket carries a copy of the price
  and reorder point a sale is conditional on. A sale takes from one bucket chosen at random,
  relatively, only while that bucket keeps its share of the take floor (ceil(take_floor / K)): K
  buckets each at or above their share keep the total at or above take_floor, so the band and the
  Reorder index (on the product item, which no sale writes) stay right. A bucket that is short is
  left for another.
- gathered (no `stockSpread`): every unit on the product item, whose `stockLevel` is then the
  exact total. Every exact write (a sale near the edge, "sold out", a staff change or stocktake, a
  cancellation, a new reorder point, price or K by import) works on it as on a K = 1 product
  (takes.stock_level_update is conditional on the product being gathered).
- gathering ("gathering"): units move from the buckets back to the product item, one bucket a
  transaction (the total never changes); sales may still take from buckets; nothing adds to one.

The total is always the product item's `stockLevel` plus its buckets' (products.with_buckets).
Moves between the product item and its buckets change no total and write no ledger entry, so the
ledger still adds up to the total (reconcile_stock). A sale that finds no bucket able to serve it
gathers, then sells on the exact path ("sold out" is only ever said from a gathered product, read
consistently); a gathered product with enough units is spread again at its next sale: the refill
of low buckets from the others and from receipts (which land on the product item, exactly).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from botocore.exceptions import ClientError

from .. import keys
from ..catalog.entities import Product
from ..catalog.products import bucket_levels, product_get
from ..dynamo import conditions
from ..dynamo.backoff import AGAIN, AGAIN_NOW, AGAIN_SOON, Again, retry_optimistic
from ..dynamo.boundary import error_code, translate_errors
from ..dynamo.client import client, read, table_name
from ..dynamo.codec import deserialize, serialize
from ..dynamo.conditions import Attr, all_of
from ..dynamo.transact import transact_write, update
from ..errors import InvalidInput, NotFound, StockBusy
from ..validate import check_id, new_token
from .takes import GATHERED, GATHERING, SPREAD, reorder_condition, share
from .takes import servable as _servable

# Bucket writes a transaction beside the product item's (DynamoDB allows 100 actions).
CHUNK = 99
# A move of one bucket's units to the product item is tried this often against sales before the
# gather reads every bucket again.
MOVE_ATTEMPTS = 8


def check_buckets(value: Any) -> int:
    """`stockBuckets`: a whole number from 1 to MAX_STOCK_BUCKETS."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= keys.MAX_STOCK_BUCKETS:
        raise InvalidInput(f"Stock buckets must be a whole number from 1 to {keys.MAX_STOCK_BUCKETS}.")
    return value



def bucketed(product: Product) -> bool:
    return (product.stock_buckets or 1) > 1 or product.spread is not None



def _spreadable(product: Product, quantity: int) -> bool:
    """Whether a gathered product has enough to spread: each bucket would get its share and two
    such lines, so the sale that spreads it is served from a bucket and the next few too."""
    count, level = product.stock_buckets or 1, product.stock_level
    return count > 1 and not product.spread and level is not None and level // count >= share(product) + 2 * quantity


# --- making products ready for a sale's take (takes.sale_take) ------------------------------


def settle_for_sale(
    products: Mapping[str, Product], lines: Any, *, consistent: bool = True
) -> dict[str, Any]:
    """{product_id: Product}, each line's bucketed product made ready for sale_take: spread with a
    bucket (as read) that can serve the line, or gathered and read consistently (the exact path, and
    an exact "sold out"). Gathers or spreads where needed; other products are left as they are.
    `consistent`: whether `products` were read consistently; if not, a product whose buckets look
    unable to serve is read again consistently before it is gathered (a stale read never gathers)."""
    fresh = dict(products)
    for line in lines:
        product = fresh.get(line.product_id)
        if product is None or not bucketed(product) or product.price != line.price:
            continue
        fresh[line.product_id] = _settle(product, line.quantity, confirmed=consistent)
    return fresh


def _settle(product: Product, quantity: int, *, confirmed: bool = True) -> Product:
    """`product` made ready for a sale of `quantity` (settle_for_sale): each try reads, gathers or spreads
    it, and the next starts from the product that left."""
    def attempt(_n: int) -> Product | Again:
        nonlocal product, confirmed
        if product.spread:
            if product.bucket_levels is not None and _servable(product, quantity):
                return product
            if product.bucket_levels is None or not confirmed:
                product, confirmed = _read(product.product_id), True
                return AGAIN
            product = stock_gather(product_id=product.product_id)
        if _spreadable(product, quantity):
            spread = _spread(product)
            product = spread if spread is not None else _read(product.product_id)
            return AGAIN
        return product

    return retry_optimistic(attempt, busy=StockBusy(product_id=product.product_id))


# --- moves between the product item and its buckets (the total never changes) ---------------

def _read(product_id: str) -> Product:
    """The product (with its buckets' levels, if spread), read consistently."""
    return product_get(product_id=product_id, consistent=True)


def _product_item(product_id: str) -> Product:
    with translate_errors():
        response = read("GetItem", {
            "TableName": table_name(), "Key": serialize(keys.product_key(product_id)), "ConsistentRead": True,
        })
    if "Item" not in response:
        raise NotFound("Product", product_id)
    return Product.from_item(deserialize(response["Item"]))


def _set_state(product_id: str, state: str | None, *, expected: str) -> bool:
    """Move the product item from state `expected` to `state` (None: gathered). False if it was not
    in `expected`."""
    expression = "REMOVE stockSpread" if state is None else "SET stockSpread = :n"
    try:
        with translate_errors():
            client().update_item(
                TableName=table_name(), Key=serialize(keys.product_key(product_id)), UpdateExpression=expression,
                **conditions.expression(condition=Attr("stockSpread").eq(expected),
                                        values=None if state is None else {":n": state}),
            )
    except ClientError as exc:
        if error_code(exc) != "ConditionalCheckFailedException":
            raise
        return False
    return True


def stock_gather(*, product_id: str) -> Product:
    """Bring every unit of a product's buckets back to its product item and leave it gathered (its
    stockLevel the exact total): the product item goes to "gathering", each bucket's units move in a
    transaction of their own (relative, so sales taking meanwhile only make it try again with the
    level DynamoDB returns), and once every bucket reads 0 the product is gathered. Returns the
    Product, read consistently. Safe to run twice at once, or to resume after a crash."""
    check_id("Product", product_id)
    return retry_optimistic(lambda _n: _gather_step(product_id), busy=StockBusy(product_id=product_id))


def _gather_step(product_id: str) -> Product | Again:
    """One step of stock_gather: the gathered Product, or AGAIN once a step was made (or refused)."""
    product = _product_item(product_id)
    if not product.spread:
        return product
    if product.spread == SPREAD and not _set_state(product_id, GATHERING, expected=SPREAD):
        return AGAIN
    levels = bucket_levels([product], consistent=True)[product_id]
    full = [(bucket, level) for bucket, level in enumerate(levels) if level > 0]
    if not full:  # nothing adds to a bucket while gathering: 0 stays 0
        _set_state(product_id, None, expected=GATHERING)
        return AGAIN
    for bucket, level in full:
        _move_to_item(product_id, bucket, level)
    return AGAIN


def _move_to_item(product_id: str, bucket: int, level: int | None) -> None:
    """Move `level` units (what the bucket was read at) from a bucket to the product item, while it is
    gathering; a sale in between makes it try again with the level DynamoDB returns. After MOVE_ATTEMPTS
    tries the gather reads every bucket again."""
    def attempt(_n: int) -> None | Again:
        nonlocal level
        refusal = transact_write(
            [
                update(keys.product_key(product_id), "ADD stockLevel :n", {":n": level},
                       condition=Attr("stockSpread").eq(GATHERING)),
                update(keys.bucket_key(product_id, bucket), "SET stockLevel = stockLevel - :n", {":n": level},
                       condition=Attr("stockLevel").gte(level), return_old=True),
            ],
            request_token=new_token()[:36],
        )
        if refusal is None or refusal.failed(0):
            return None  # moved; or the product is no longer gathering (another gatherer finished)
        if not refusal.failed(1):
            return AGAIN_SOON
        old = refusal.items[1]
        level = int(old.get("stockLevel", 0)) if old else 0
        return None if level <= 0 else AGAIN_NOW

    retry_optimistic(attempt, busy=lambda: None, tries=MOVE_ATTEMPTS)


def _spread(product: Product) -> Product | None:
    """Spread a gathered product's units (as read) evenly over its K buckets, each with a copy of the
    price and reorder point a sale is conditional on; the product item keeps none. One transaction a
    CHUNK of buckets; the first also conditional on the product as read (level, K, price, reorder
    point, gathered). Returns the product as spread, or None if it had changed."""
    count, total = product.stock_buckets or 1, product.stock_level or 0  # gathered: its item holds the total
    base, extra = divmod(total, count)
    amounts = [base + (1 if bucket < extra else 0) for bucket in range(count)]
    terms: dict[str, Any] = {":price": product.price}
    if product.reorder_point is not None:
        terms[":rp"] = product.reorder_point
    rest = total
    for start in range(0, count, CHUNK):
        chunk = range(start, min(count, start + CHUNK))
        left = rest - sum(amounts[bucket] for bucket in chunk)
        if start == 0:  # the product as read
            condition = all_of(Attr("stockLevel").eq(rest), GATHERED, Attr("stockBuckets").eq(count),
                               Attr("price").eq(product.price), reorder_condition(product.reorder_point))
        else:
            condition = Attr("stockLevel").eq(rest) & Attr("stockSpread").eq(SPREAD)
        actions = [update(keys.product_key(product.product_id), "SET stockLevel = :left, stockSpread = :s",
                          {":left": left, ":s": SPREAD}, condition=condition)]
        for bucket in chunk:
            expression = ("SET #t = :t, productId = :pid, stockLevel = if_not_exists(stockLevel, :z) + :n, "
                          "price = :price")
            expression += ", reorderPoint = :rp" if product.reorder_point is not None else " REMOVE reorderPoint"
            actions.append(update(
                keys.bucket_key(product.product_id, bucket), expression,
                {":t": "STOCK_BUCKET", ":pid": product.product_id, ":z": 0, ":n": amounts[bucket], **terms},
                names={"#t": "type"},
            ))
        if transact_write(actions, request_token=new_token()[:36]) is not None:
            return None if start == 0 else _read(product.product_id)
        rest = left
    return dataclasses.replace(product, spread=SPREAD, reserve=rest, bucket_levels=tuple(amounts), stock_level=total)


def stock_set_buckets(*, product_id: str, buckets: Any) -> Product:
    """Change a product's K (staff): gather it, then set `stockBuckets` on the gathered product item
    (the buckets are all empty then); its next sale spreads it over the new K. The total never
    changes. Returns the Product."""
    check_id("Product", product_id)
    check_buckets(buckets)
    if _product_item(product_id).stock_buckets == buckets:
        return _read(product_id)  # nothing to change (and nothing to gather)
    return retry_optimistic(lambda _n: _set_buckets_once(product_id, buckets), busy=StockBusy(product_id=product_id))


def _set_buckets_once(product_id: str, buckets: int) -> Product | Again:
    """One try of stock_set_buckets: the Product, or AGAIN when a sale spread it meanwhile (gather again)."""
    product = stock_gather(product_id=product_id)
    if product.stock_buckets == buckets:
        return product
    expression = "REMOVE stockBuckets" if buckets == 1 else "SET stockBuckets = :k"
    try:
        with translate_errors():
            client().update_item(
                TableName=table_name(), Key=serialize(keys.product_key(product_id)),
                UpdateExpression=expression,
                **conditions.expression(condition=Attr("PK").exists() & GATHERED,
                                        values={":k": buckets} if buckets > 1 else None),
            )
    except ClientError as exc:
        if error_code(exc) != "ConditionalCheckFailedException":
            raise
        return AGAIN
    return dataclasses.replace(product, stock_buckets=buckets)


def gathered_products(products: Mapping[str, Product]) -> dict[str, Any]:
    """{product_id: Product} with each product whose stock is spread gathered first (stock_gather):
    for exact writes of several products in one transaction (a cancellation puts units back)."""
    return {pid: stock_gather(product_id=pid) if p.spread else p for pid, p in products.items()}


def gathered(product: Product) -> Product:
    """`product` (None: nothing to do), gathered on its item if its stock is spread over buckets
    (stock_gather, which reads it again): an exact write needs the total in one place."""
    if product is None or not product.spread:
        return product
    return stock_gather(product_id=product.product_id)
