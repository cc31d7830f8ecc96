"""A product's stock history, its buyers' streams and the ledger of every stock change by day."""
from __future__ import annotations

import heapq
from collections.abc import Iterator
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any

from .. import keys
from ..dynamo.boundary import translate_errors
from ..dynamo.client import client, table_name
from ..dynamo.codec import Item, deserialize
from ..dynamo.conditions import Key, expression
from ..dynamo.merged import Stream, merged_page
from ..dynamo.pages import KeyRange, query_page
from ..dynamo.threads import SHARD_READERS, in_parallel
from ..errors import InvalidInput
from ..validate import (
    check_id,
    page_size,
)
from .entities import (
    REASONS,
    SOLD,
    StockAdjustment,
    is_sale_record,
)

if TYPE_CHECKING:
    from catalog.gateway.dynamo.pages import Page


# The ledger download covers at most this many days: days x LEDGER_SHARDS Queries at least (31 x 64).
MAX_LEDGER_DAYS = 31


def buyer_streams(product_id: str, *, keep: Any = None) -> list[Any]:
    """The BUYER_SHARDS partitions of a product's order lines in the Buyers index, newest first
    (`keep`: which of them a list shows)."""
    return [
        Stream(KeyRange(index=keys.BUYERS, partition=keys.buyers_pk(product_id, shard), forward=False),
               **({"keep": keep} if keep else {}))
        for shard in range(keys.BUYER_SHARDS)
    ]


def _history_streams(product_id: str, reason: str | None, consistent: bool) -> list[Any]:
    """A product's stock changes (of all reasons, or sales only), newest first: its own partition's
    adjustments (or the ByReason index's sales: those recorded as adjustments) and the sales recorded on
    order lines (is_sale_record: a line whose sale is an adjustment is left out, its adjustment counts)."""
    own = (KeyRange(index=keys.BY_REASON, partition=keys.by_reason_pk(product_id, SOLD), forward=False) if reason
           else KeyRange(partition=keys.product_pk(product_id), prefix=keys.STOCK_PREFIX, forward=False,
                         consistent=consistent))
    return [Stream(own), *buyer_streams(product_id, keep=is_sale_record)]


def stock_history(
    *, product_id: str, reason: str | None = None, after: str | None = None, limit: int | None = None,
    consistent: bool = False
) -> Page[Any]:
    """A product's stock changes, newest first. All of them: its own partition (one Query) merged
    with its sales, which are order lines (BUYER_SHARDS Queries of the Buyers index; merged.py);
    sales only (`reason` "sold"): the ByReason index's (sales recorded as adjustments) merged with the same;
    another `reason`: one Query on the ByReason index. A page is one Query a range not yet done.
    `consistent` includes the latest write of the product's own partition (as product_get's)."""
    check_id("Product", product_id)
    if reason is not None and reason not in REASONS:
        raise InvalidInput(f"Reason must be one of: {', '.join(REASONS)}.")
    size = page_size(limit)
    if reason in (None, SOLD):
        streams = _history_streams(product_id, reason, consistent)
        return merged_page(streams, size=size, after=after, build=StockAdjustment.from_item)
    key_range = KeyRange(index=keys.BY_REASON, partition=keys.by_reason_pk(product_id, reason), forward=False)
    return query_page(key_range, size=size, after=after, build=StockAdjustment.from_item)


def stock_moves_since(*, product_id: str, at: datetime, limit: int | None = 50) -> list[Any]:
    """A product's changes after the stamp `at`, newest first (at most `limit`): what a stocktake shows
    when it lost a race. One Query of its partition (SK BETWEEN STOCK#<at>~ AND STOCK#~, consistent) and
    one of each Buyers shard (BuyersSK > <at>~: its sales since), each at most `limit`; the newest
    `limit` of those (at most 9 x `limit` in memory)."""
    check_id("Product", product_id)
    low, high = keys.stock_history_since(at)
    ranges = [{**expression(key=Key("PK").eq(keys.product_pk(product_id)) & Key("SK").between(low, high)),
               "ConsistentRead": True}]
    pk_name, sk_name = keys.BUYER_ATTRIBUTES
    for shard in range(keys.BUYER_SHARDS):
        ranges.append({**expression(key=Key(pk_name).eq(keys.buyers_pk(product_id, shard))
                                    & Key(sk_name).gt(low.removeprefix(keys.STOCK_PREFIX))),
                       "IndexName": keys.BUYERS})
    found: list[Item] = []

    def send(params: dict[str, Any]) -> None:
        with translate_errors():
            response = client().query(TableName=table_name(), ScanIndexForward=False, Limit=limit, **params)
        found.extend(deserialize(i) for i in response["Items"])

    in_parallel(ranges, send, workers=SHARD_READERS)
    changes = [StockAdjustment.from_item(i) for i in found if i.get("type") != "ORDER_LINE" or is_sale_record(i)]
    return sorted(changes, key=lambda c: (c.stamp, c.adjustment_id), reverse=True)[:limit]



def stock_history_all(*, product_id: str, reason: str | None = None) -> Iterator[StockAdjustment]:
    """Every adjustment of a product (of one reason), newest first, page by page (a generator:
    the CSV download streams it)."""
    after = None
    while True:
        page = stock_history(product_id=product_id, reason=reason, after=after, limit=1000, consistent=reason is None)
        yield from page.items
        if not page.next_cursor:
            return
        after = page.next_cursor


def check_day_range(start: Any, end: Any) -> tuple[date, date]:
    if not isinstance(start, date) or not isinstance(end, date):
        raise InvalidInput("Give a start and an end date.")
    if end < start:
        raise InvalidInput("The end date is before the start date.")
    if (end - start).days + 1 > MAX_LEDGER_DAYS:
        raise InvalidInput(f"At most {MAX_LEDGER_DAYS} days at a time.")
    return start, end


def stock_ledger(*, start: Any, end: Any) -> Iterator[StockAdjustment]:
    """Every stock change of every product from day `start` to day `end` (UTC, inclusive), in
    time order: a generator. Each day is LEDGER_SHARDS partitions of the Ledger index: the first
    Query of each sent at once (SHARD_READERS at a time), then each read on with Queries of up to 1 MB
    in time order and merged (heapq.merge: at most one page of each shard in memory). Cost: at least
    days x LEDGER_SHARDS Queries, plus one per MB of changes."""
    start, end = check_day_range(start, end)
    for offset in range((end - start).days + 1):  # never a day past `end`: 9999-12-31 has none
        day = (start + timedelta(days=offset)).isoformat()
        first: dict[int, Any] = {}

        def send(shard: int, day: Any = day, first: Any = first) -> None:
            first[shard] = _ledger_query(day, shard)

        in_parallel(range(keys.LEDGER_SHARDS), send, workers=SHARD_READERS)
        streams = [_ledger_shard(day, shard, first[shard]) for shard in range(keys.LEDGER_SHARDS)]
        for _sk, item in heapq.merge(*streams, key=lambda pair: pair[0]):
            yield StockAdjustment.from_item(item)


def _ledger_query(day: Any, shard: int, start_key: dict[str, Any] | None = None) -> Any:
    params = {
        "TableName": table_name(), "IndexName": keys.LEDGER,
        **expression(key=Key(f"{keys.LEDGER}PK").eq(keys.ledger_pk(day, shard))),
    }
    if start_key:
        params["ExclusiveStartKey"] = start_key
    with translate_errors():
        return client().query(**params)


def _ledger_shard(day: Any, shard: int, response: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """The items of one Ledger partition in time order, from its first answer `response` on."""
    while True:
        for raw in response["Items"]:
            item = deserialize(raw)
            yield item[f"{keys.LEDGER}SK"], item
        if "LastEvaluatedKey" not in response:
            return
        response = _ledger_query(day, shard, response["LastEvaluatedKey"])
