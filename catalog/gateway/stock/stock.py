"""Stock writes (patterns 4, 5) and a product's stock history: optimistic, exact and idempotent.

A write reads the level (or takes the caller's hint), then one transaction sets the new level only
if the level is still the one read, records the adjustment in the product's partition and marks
the idempotency key as used. A lost race is tried again from the level DynamoDB returns.
"""
import heapq
import time
from datetime import date, timedelta

from botocore.exceptions import ClientError

from .. import keys
from ..alerts.alerts import alert_due_action, marks_due
from ..catalog.entities import Product, reorder_index_keys
from ..catalog.products import product_get
from ..dynamo.backoff import contended_attempts
from ..dynamo.boundary import error_code, translate_errors
from ..dynamo.client import client, table_name
from ..dynamo.codec import deserialize, serialize
from ..dynamo.merged import Stream, merged_page
from ..dynamo.pages import KeyRange, query_page
from ..dynamo.threads import SHARD_READERS, in_parallel
from ..dynamo.transact import put, transact_write
from ..errors import IdempotencyConflict, InsufficientStock, InvalidInput, StockBusy, StockMoved
from ..validate import (
    MAX_NOTE,
    MAX_REFERENCE,
    MAX_REORDER,
    MAX_WHO,
    check_id,
    check_quantity,
    check_text,
    client_request_token,
    new_token,
    page_size,
    utc_now,
)
from .buckets import stock_gather
from .entities import (
    COUNTED,
    DAMAGED,
    MANUAL_REASONS,
    OPENING,
    REASONS,
    RECEIVED,
    SOLD,
    IdempotencyMark,
    StockAdjustment,
    StockChange,
    is_sale_record,
)
from .holds import holds_enabled
from .releases import hold_unchanged, holds_all
from .takes import GATHERED, reorder_condition, stock_level_update

# How long an idempotency key is remembered (the TOKEN# mark's TTL).
TOKEN_TTL_SECONDS = 7 * 24 * 3600
# A stocktake's transaction: the change's 4 actions and a ConditionCheck a hold read (DynamoDB: 100).
MAX_HOLDS_CHECKED = 96
# The ledger download covers at most this many days: days x LEDGER_SHARDS Queries at least (31 x 64).
MAX_LEDGER_DAYS = 31
# What a caller that does not know a product's reorder point passes (the write then assumes the
# default; a wrong guess costs one more attempt, never a wrong index).
UNKNOWN = object()


def check_reason(reason, *, direction):
    """`reason` must be a code of REASONS that fits the direction of the change (+1 in, -1 out)."""
    if reason not in REASONS:
        raise InvalidInput(f"Reason must be one of: {', '.join(REASONS)}.")
    allowed = MANUAL_REASONS.get(reason, {"sold": -1, "cancelled": 1}.get(reason))
    if allowed not in (0, direction):
        raise InvalidInput(f"“{reason}” is not a reason for {'an increase' if direction > 0 else 'a decrease'}.")
    return reason


def stock_increase(*, product_id, quantity, token, reason=RECEIVED, who="", reference="", note="",
                   expected_level=None, expected_reorder_point=UNKNOWN):
    """Pattern 5: stock came in (received, returned, counted, cancelled). Returns the new level
    (a StockChange).

    `expected_level` (and `expected_reorder_point`), what the caller last saw (say, on the page
    the staff member submitted), saves the read before the write: when it is still right the
    write is one TransactWriteItems. It is only a hint: a stale one costs one more attempt, never a
    wrong level."""
    return _change_stock(
        product_id=product_id, delta=check_quantity(quantity), token=token,
        reason=check_reason(reason, direction=1), who=who, reference=reference, note=note,
        expected_level=expected_level, expected_reorder_point=expected_reorder_point,
    )


def stock_decrease(*, product_id, quantity, token, reason=DAMAGED, who="", reference="", note="",
                   expected_level=None, expected_reorder_point=UNKNOWN):
    """Pattern 4: stock left (damaged, counted, sold). Never below zero: raises
    InsufficientStock, changing nothing, when `quantity` is more than is in stock (read
    consistently, whatever `expected_level` said). `expected_level` as for stock_increase."""
    return _change_stock(
        product_id=product_id, delta=-check_quantity(quantity), token=token,
        reason=check_reason(reason, direction=-1), who=who, reference=reference, note=note,
        expected_level=expected_level, expected_reorder_point=expected_reorder_point,
    )


def _check_level_hint(expected_level):
    if expected_level is not None and (
        isinstance(expected_level, bool) or not isinstance(expected_level, int) or expected_level < 0
    ):
        raise InvalidInput("The expected stock level must be a whole number, 0 or more.")


def _texts(*, token, who, reference, note):
    check_id("Idempotency key", token)
    return {
        "who": check_text("Who", who, MAX_WHO),
        "reference": check_text("Reference", reference, MAX_REFERENCE),
        "note": check_text("Note", note, MAX_NOTE),
    }


def _change_stock(*, product_id, delta, token, reason, who, reference, note, expected_level, expected_reorder_point):
    check_id("Product", product_id)
    texts = _texts(token=token, who=who, reference=reference, note=note)
    _check_level_hint(expected_level)
    # What the key is used for: the same key with another request is refused (IdempotencyConflict).
    request = _request(delta=delta, reason=reason, **texts)
    # The level (and stored reorder point) the next attempt is conditional on, and whether
    # DynamoDB told it (not a hint).
    current, known = expected_level, False
    reorder_point = None if expected_reorder_point is UNKNOWN else expected_reorder_point
    waiting = 0  # back-in-stock alerts waiting, as last read (none until a read says otherwise)
    for _attempt in contended_attempts():
        if current is None or (current + delta < 0 and not known):  # never refuse on a hint
            product = _gathered(product_get(product_id=product_id, consistent=True))
            current, reorder_point, known = product.stock_level, product.reorder_point, True
            waiting = product.alerts_waiting
        if current + delta < 0:
            # A key used already answers as it did then, even if stock has run out since.
            replay = _replay_of_used_token(product_id=product_id, token=token, request=request)
            if replay is not None:
                return replay
            raise InsufficientStock(product_id, available=current, requested=-delta)
        outcome = _apply_stock_change(
            product_id=product_id, current=current, reorder_point=reorder_point, delta=delta, token=token,
            reason=reason, at=utc_now(), alerts_waiting=waiting, **texts,
        )
        if isinstance(outcome, _UsedToken):  # the first answer again, if this is the same request
            outcome = outcome.replay(product_id=product_id, token=token, request=request)
        if isinstance(outcome, StockChange):
            return outcome
        # Someone else changed the stock first (or the hint was stale): try again from the
        # product as DynamoDB returned it with the refusal.
        if outcome is None or outcome.spread:  # unknown, or spread over buckets: gather, read again
            _gathered(outcome)
            current, known = None, False
        else:
            current, reorder_point, known = outcome.stock_level, outcome.reorder_point, True
            waiting = outcome.alerts_waiting
    raise StockBusy(product_id=product_id)


def stock_count(*, product_id, counted, expected_level, token, who="", reference="", note="",
                expected_reorder_point=UNKNOWN, expected_held=None):
    """A stocktake: `counted` were found, against the level `expected_level` the count was
    started from. Records a `counted` change of the difference (0 too: the count is in the
    history) only if the stock is still `expected_level` (compare-and-set); otherwise writes
    nothing and raises StockMoved with the level now. The same `token` again answers as the
    first time. With timed holds on, `counted` is every unit on the shelf, held ones too: the units
    held now (a Query of each hold partition) are not part of the level, so the difference is taken
    without them; the count was made against `expected_held` held units (None: not known), and units
    held since (a hold that became a sale takes no level) make it StockMoved too. The write is
    conditional on each hold read being unchanged, so none can become a sale in between."""
    check_id("Product", product_id)
    texts = _texts(token=token, who=who, reference=reference, note=note)
    if isinstance(counted, bool) or not isinstance(counted, int) or not 0 <= counted <= 10**9:
        raise InvalidInput("The counted quantity must be a whole number, 0 or more.")
    if expected_level is None:
        raise InvalidInput("A count needs the level it was started from.")
    _check_level_hint(expected_level)
    if expected_held is not None:
        _check_level_hint(expected_held)
    reorder_point = None if expected_reorder_point is UNKNOWN else expected_reorder_point
    waiting = 0  # back-in-stock alerts waiting, as last read
    for _attempt in contended_attempts():
        held, unchanged, problem = _held_on_the_shelf(product_id, counted)
        basis = held if expected_held is None else expected_held  # the units held the count is made against
        request = _request(delta=counted - basis - expected_level, reason=COUNTED, **texts)
        if problem is not None or held != basis:
            # A count saved already answers as it did then, whatever is held now.
            replay = _replay_of_used_token(product_id=product_id, token=token, request=request)
            if replay is not None:
                return replay
            if problem is not None:
                raise problem
            level = _gathered(product_get(product_id=product_id, consistent=True)).stock_level
            raise StockMoved(product_id, level, held=held)
        outcome = _apply_stock_change(
            product_id=product_id, current=expected_level, reorder_point=reorder_point,
            delta=request["delta"], token=token, reason=COUNTED, at=utc_now(), checks=unchanged,
            alerts_waiting=waiting, **texts,
        )
        if isinstance(outcome, _UsedToken):  # the first answer again, if this is the same count
            outcome = outcome.replay(product_id=product_id, token=token, request=request)
        if isinstance(outcome, StockChange):
            return outcome
        if outcome is None or outcome.spread:
            outcome = _gathered(product_get(product_id=product_id, consistent=True))
        if outcome.stock_level != expected_level:
            held_now = _held_on_the_shelf(product_id, counted)[0] if expected_held is not None else None
            raise StockMoved(product_id, outcome.stock_level, held=held_now)
        # Only the reorder point was guessed wrong (or a hold changed, or alerts wait).
        reorder_point, waiting = outcome.reorder_point, outcome.alerts_waiting
    raise StockBusy(product_id=product_id)


def _held_on_the_shelf(product_id, counted):
    """(units, checks, problem): the units of the product held while shoppers pay (timed holds, issue 36; 0
    when holds are off), on the shelf, so in a count, but out of the level; a ConditionCheck for each hold
    read, that it still holds its units at the write; and the InvalidInput to raise, if any: fewer counted
    than are held, or more shoppers holding it than a transaction can check (a count in a drop)."""
    if not holds_enabled():
        return 0, [], None
    holds = holds_all(product_id=product_id)
    held = sum(hold.quantity for hold in holds)
    if len(holds) > MAX_HOLDS_CHECKED:
        return held, [], InvalidInput(f"{len(holds)} shoppers are paying for this product right now, too many for "
                                      "a count to hold still: count again when fewer are. Nothing was changed.")
    if counted < held:
        return held, [], InvalidInput(f"{held} units are held for shoppers paying now, more than the {counted} "
                                      "counted: count again (held units are on the shelf too). Nothing was changed.")
    return held, [hold_unchanged(hold) for hold in holds], None


def _gathered(product):
    """`product` (None: nothing to do), gathered on its item if its stock is spread over buckets
    (buckets.stock_gather, which reads it again): an exact write needs the total in one place."""
    if product is None or not product.spread:
        return product
    return stock_gather(product_id=product.product_id)


def _apply_stock_change(*, product_id, current, reorder_point, delta, token, reason, who, reference, note, at,
                        checks=(), alerts_waiting=0):
    """One TransactWriteItems: the product's level goes from `current` to `current + delta`
    (only if it still is `current` and its reorder point `reorder_point`: the Reorder index key
    follows), the adjustment is recorded, and the idempotency key is marked as used. Units that come
    in mark the product's back-in-stock alerts due if `alerts_waiting` (as last read) says some wait
    or the product was sold out; otherwise the write is conditional on none waiting (an alert asked
    meanwhile refuses it, and the next try, with the product as returned, marks them): a receipt for
    a product in stock that nobody waits for writes no due item (issue 32: a staff adjustment costs
    10 write units). Returns the StockChange; _UsedToken when the idempotency key was used before; or
    the Product as found instead (None if unknown: read it again) when another write got there first."""
    adjustment = StockAdjustment(
        product_id=product_id, adjustment_id=token, at=at, delta=delta,
        resulting_level=current + delta, reason=reason, who=who, reference=reference, note=note,
    )
    mark = IdempotencyMark(adjustment=adjustment, token=token, expires_at=int(time.time()) + TOKEN_TTL_SECONDS)
    marking = marks_due(delta, waiting=alerts_waiting, level_before=current)
    none_waiting = ({"extra_condition": f" AND (attribute_not_exists({keys.ALERTS_WAITING}) OR "
                                        f"{keys.ALERTS_WAITING} < :one)", "extra_values": {":one": 1}}
                    if delta > 0 and not marking else {})
    refusal = transact_write(
        [
            stock_level_update(
                product_id=product_id, current=current, new=adjustment.resulting_level, reorder_point=reorder_point,
                **none_waiting,
            ),
            put(adjustment.to_item(), if_absent=True),
            put(mark.to_item(), if_absent=True, return_old=True),
            *([alert_due_action(product_id, delta)] if marking else []),  # back-in-stock alerts (issue 36)
            *checks,  # a stocktake's: each hold it read is unchanged
        ],
        # The same request retried (by botocore, after a lost answer) applies once.
        request_token=client_request_token(token, product_id, current, reorder_point, adjustment.stamp),
    )
    if refusal is None:
        return StockChange(product_id=product_id, level=adjustment.resulting_level, adjustment=adjustment)
    if refusal.failed(2):  # the idempotency key was used already
        return _UsedToken(refusal.items[2])
    if refusal.failed(0) and refusal.items[0] is not None:
        return Product.from_item(refusal.items[0])
    return None  # a conflict, or the product's state unknown: read again


class _UsedToken:
    """The idempotency key's mark as DynamoDB returned it (None: read it)."""

    def __init__(self, item):
        self.item = item

    def replay(self, *, product_id, token, request):
        """The first answer again, if `request` is the one the key was first used for."""
        if self.item is not None:
            return _replay_of(product_id=product_id, item=self.item, request=request)
        return _replay_of_used_token(product_id=product_id, token=token, request=request)


def opening_adjustment(*, product_id, delta, resulting_level, at=None, who="import", note=""):
    """The `opening` stock change that an import (or migration 0017) writes beside a level it sets,
    so that every level is the sum of its product's changes: a new product's level, the difference
    a re-import with reset stock makes, or the level a product had before the ledger began."""
    return StockAdjustment(
        product_id=product_id, adjustment_id=new_token(), at=at or utc_now(), delta=delta,
        resulting_level=resulting_level, reason=OPENING, who=who, note=note,
    )


def _request(*, delta, reason, who, reference, note):
    """What an idempotency key is used for: the same key with another request is refused."""
    return {"delta": delta, "reason": reason, "who": who, "reference": reference, "note": note}



def _replay_of_used_token(*, product_id, token, request):
    """The first answer of a write made with this idempotency key, or None if it is unused."""
    with translate_errors():
        item = client().get_item(
            TableName=table_name(), Key=serialize(keys.token_key(product_id, token)), ConsistentRead=True
        ).get("Item")
    return _replay_of(product_id=product_id, item=deserialize(item), request=request) if item is not None else None


def _replay_of(*, product_id, item, request):
    """The first answer again, if `request` (_request) is the request the key was
    first used for; IdempotencyConflict, naming that first request, if it is not."""
    adjustment = IdempotencyMark.from_item(item).adjustment
    first = _request(delta=adjustment.delta, reason=adjustment.reason, who=adjustment.who,
                     reference=adjustment.reference, note=adjustment.note)
    if first != request:
        described = describe_adjustment(adjustment)
        raise IdempotencyConflict(
            f"This form was already used for another change of product {product_id}: {described}. "
            "Nothing was changed this time.",
            first=described,
        )
    return StockChange(product_id=product_id, level=adjustment.resulting_level, adjustment=adjustment, replayed=True)


def describe_adjustment(adjustment):
    """"+1 by ann at 2026-11-23 09:30:00 UTC (Received (shipment), Shipment 17)"."""
    text = f"{adjustment.delta:+d} by {adjustment.who or 'someone'} at {adjustment.at:%Y-%m-%d %H:%M:%S} UTC"
    why = ", ".join(part for part in (adjustment.reason_label, adjustment.reference) if part)
    return text + (f" ({why})" if why else "")


# --- reorder point --------------------------------------------------------------------------

def product_set_reorder_point(*, product_id, reorder_point):
    """Set a product's reorder point (None: back to LOW_STOCK_THRESHOLD). One conditional
    UpdateItem, on the level and reorder point read, that also puts the product in or out of the
    Reorder index; a stock write in between is retried from the product DynamoDB returns."""
    check_id("Product", product_id)
    if reorder_point is not None and (
        isinstance(reorder_point, bool) or not isinstance(reorder_point, int) or not 0 <= reorder_point <= MAX_REORDER
    ):
        raise InvalidInput(f"The reorder point must be a whole number from 0 to {MAX_REORDER:,}.")
    product = _gathered(product_get(product_id=product_id, consistent=True))
    for _attempt in contended_attempts():
        params = _reorder_point_update(product, reorder_point)
        try:
            with translate_errors():
                response = client().update_item(
                    TableName=table_name(), ReturnValuesOnConditionCheckFailure="ALL_OLD", ReturnValues="ALL_NEW",
                    **params,
                )
        except ClientError as exc:
            if error_code(exc) != "ConditionalCheckFailedException":
                raise
            old = exc.response.get("Item")
            if old is None:
                product = product_get(product_id=product_id, consistent=True)  # NotFound if gone
            else:
                product = _gathered(Product.from_item(deserialize(old)))
            continue
        return Product.from_item(deserialize(response["Attributes"]))
    raise StockBusy(product_id=product_id)


def _reorder_point_update(product, reorder_point):
    """UpdateItem parameters: set the reorder point and the Reorder index keys that follow from
    it, if the product's level and reorder point are still those of `product`."""
    pk, sk = keys.REORDER_ATTRIBUTES
    index_keys = reorder_index_keys(product.product_id, product.stock_level, reorder_point)
    sets, removes, values = [], [], {":level": product.stock_level}
    if reorder_point is None:
        removes.append("reorderPoint")
    else:
        sets.append("reorderPoint = :newrp")
        values[":newrp"] = reorder_point
    if index_keys:
        sets += [f"{pk} = :rpk", f"{sk} = :rsk"]
        values.update({":rpk": index_keys[pk], ":rsk": index_keys[sk]})
    else:
        removes += [pk, sk]
    if product.reorder_point is not None:
        values[":rp"] = product.reorder_point
    expression = " ".join(part for part in (
        "SET " + ", ".join(sets) if sets else "", "REMOVE " + ", ".join(removes) if removes else "") if part)
    return {
        "Key": serialize(keys.product_key(product.product_id)),
        "UpdateExpression": expression,
        "ConditionExpression": "attribute_exists(PK) AND stockLevel = :level AND "
        + reorder_condition(product.reorder_point) + GATHERED,
        "ExpressionAttributeValues": serialize(values),
    }


def products_to_reorder(*, brand_id=None, category_id=None, after=None, limit=None):
    """Products at or below their reorder point, sold-out first (then by level, then ID): one
    Query a page of the sparse Reorder index (one partition). A brand or category filter is a
    FilterExpression on the same Query: a page reads at most `limit + 1` index items and shows
    those that match, so a filtered page can be short (the cursor carries on)."""
    if brand_id is not None:
        check_id("Brand", brand_id)
    if category_id is not None:
        check_id("Category", category_id)
    filters = {name: value for name, value in (("brandId", brand_id), ("categoryId", category_id)) if value}
    key_range = KeyRange(index=keys.REORDER, partition=keys.REORDER_PK, filters=tuple(sorted(filters.items())))
    return query_page(key_range, size=page_size(limit), after=after, build=Product.from_item)


# --- history ----------------------------------------------------------------------------

def buyer_streams(product_id, *, keep=None):
    """The BUYER_SHARDS partitions of a product's order lines in the Buyers index, newest first
    (`keep`: which of them a list shows)."""
    return [
        Stream(KeyRange(index=keys.BUYERS, partition=keys.buyers_pk(product_id, shard), forward=False),
               **({"keep": keep} if keep else {}))
        for shard in range(keys.BUYER_SHARDS)
    ]


def _history_streams(product_id, reason, consistent):
    """A product's stock changes (of all reasons, or sales only), newest first: its own partition's
    adjustments (or the ByReason index's sales of before issue 33) and the sales recorded on order
    lines since (is_sale_record: a line of before is left out, its adjustment counts)."""
    own = (KeyRange(index=keys.BY_REASON, partition=keys.by_reason_pk(product_id, SOLD), forward=False) if reason
           else KeyRange(partition=keys.product_pk(product_id), prefix=keys.STOCK_PREFIX, forward=False,
                         consistent=consistent))
    return [Stream(own), *buyer_streams(product_id, keep=is_sale_record)]


def stock_history(*, product_id, reason=None, after=None, limit=None, consistent=False):
    """A product's stock changes, newest first. All of them: its own partition (one Query) merged
    with its sales, which are order lines (BUYER_SHARDS Queries of the Buyers index; merged.py);
    sales only (`reason` "sold"): the ByReason index's (sales of before issue 33) merged with the same;
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


def stock_moves_since(*, product_id, at, limit=50):
    """A product's changes after the stamp `at`, newest first (at most `limit`): what a stocktake shows
    when it lost a race. One Query of its partition (SK BETWEEN STOCK#<at>~ AND STOCK#~, consistent) and
    one of each Buyers shard (BuyersSK > <at>~: its sales since), each at most `limit`; the newest
    `limit` of those (at most 9 x `limit` in memory)."""
    check_id("Product", product_id)
    low, high = keys.stock_history_since(at)
    ranges = [({":pk": keys.product_pk(product_id), ":low": low, ":high": high},
               {"KeyConditionExpression": "PK = :pk AND SK BETWEEN :low AND :high", "ConsistentRead": True})]
    sk_name = keys.BUYER_ATTRIBUTES[1]
    for shard in range(keys.BUYER_SHARDS):
        ranges.append(({":pk": keys.buyers_pk(product_id, shard), ":low": low.removeprefix(keys.STOCK_PREFIX)},
                       {"KeyConditionExpression": f"{keys.BUYER_ATTRIBUTES[0]} = :pk AND {sk_name} > :low",
                        "IndexName": keys.BUYERS}))
    found = []

    def send(job):
        values, params = job
        with translate_errors():
            response = client().query(TableName=table_name(), ExpressionAttributeValues=serialize(values),
                                      ScanIndexForward=False, Limit=limit, **params)
        found.extend(deserialize(i) for i in response["Items"])

    in_parallel(ranges, send, workers=SHARD_READERS)
    changes = [StockAdjustment.from_item(i) for i in found if i.get("type") != "ORDER_LINE" or is_sale_record(i)]
    return sorted(changes, key=lambda c: (c.stamp, c.adjustment_id), reverse=True)[:limit]


def stock_adjustments_all(*, product_id):
    """Every adjustment in a product's own partition (no sale recorded on an order line), newest first,
    consistent: what a table of before issue 33 holds (migration 0017 reads it, before the Buyers index)."""
    key_range = KeyRange(partition=keys.product_pk(product_id), prefix=keys.STOCK_PREFIX, forward=False,
                         consistent=True)
    after = None
    while True:
        page = query_page(key_range, size=1000, after=after, build=StockAdjustment.from_item)
        yield from page.items
        if not page.next_cursor:
            return
        after = page.next_cursor


def stock_history_all(*, product_id, reason=None):
    """Every adjustment of a product (of one reason), newest first, page by page (a generator:
    the CSV download streams it)."""
    after = None
    while True:
        page = stock_history(product_id=product_id, reason=reason, after=after, limit=1000, consistent=reason is None)
        yield from page.items
        if not page.next_cursor:
            return
        after = page.next_cursor


def check_day_range(start, end):
    if not isinstance(start, date) or not isinstance(end, date):
        raise InvalidInput("Give a start and an end date.")
    if end < start:
        raise InvalidInput("The end date is before the start date.")
    if (end - start).days + 1 > MAX_LEDGER_DAYS:
        raise InvalidInput(f"At most {MAX_LEDGER_DAYS} days at a time.")
    return start, end


def stock_ledger(*, start, end):
    """Every stock change of every product from day `start` to day `end` (UTC, inclusive), in
    time order: a generator. Each day is LEDGER_SHARDS partitions of the Ledger index: the first
    Query of each sent at once (SHARD_READERS at a time), then each read on with Queries of up to 1 MB
    in time order and merged (heapq.merge: at most one page of each shard in memory). Cost: at least
    days x LEDGER_SHARDS Queries, plus one per MB of changes. A day of before issue 33 has changes in
    its first LEDGER_SHARDS_BEFORE shards only: the others are empty (0.5 read units a Query)."""
    start, end = check_day_range(start, end)
    for offset in range((end - start).days + 1):  # never a day past `end`: 9999-12-31 has none
        day = (start + timedelta(days=offset)).isoformat()
        first = {}

        def send(shard, day=day, first=first):
            first[shard] = _ledger_query(day, shard)

        in_parallel(range(keys.LEDGER_SHARDS), send, workers=SHARD_READERS)
        streams = [_ledger_shard(day, shard, first[shard]) for shard in range(keys.LEDGER_SHARDS)]
        for _sk, item in heapq.merge(*streams, key=lambda pair: pair[0]):
            yield StockAdjustment.from_item(item)


def _ledger_query(day, shard, start_key=None):
    params = {
        "TableName": table_name(), "IndexName": keys.LEDGER,
        "KeyConditionExpression": f"{keys.LEDGER}PK = :pk",
        "ExpressionAttributeValues": serialize({":pk": keys.ledger_pk(day, shard)}),
    }
    if start_key:
        params["ExclusiveStartKey"] = start_key
    with translate_errors():
        return client().query(**params)


def _ledger_shard(day, shard, response):
    """The items of one Ledger partition in time order, from its first answer `response` on."""
    while True:
        for raw in response["Items"]:
            item = deserialize(raw)
            yield item[f"{keys.LEDGER}SK"], item
        if "LastEvaluatedKey" not in response:
            return
        response = _ledger_query(day, shard, response["LastEvaluatedKey"])
