"""Table migrations: the single table's layout evolves in place, in named, ordered steps.

As Django's migrations do for the accounts database, `python manage.py migrate_table` brings an
existing table to the layout this code needs (`schema.py` describes it), and records each step it
applied in the table itself (`MIGRATIONS` / `STEP#<name>`), so every app server and the command
agree on the table's version. A new table (`create_table`) has today's layout and every step marked.

Steps follow expand/contract: a release adds what its code needs (an index, an attribute on existing
items) in a way the code already running ignores, then the new code is deployed; taking away what
older code needs is a later release's step, marked `contract=True`. An app server whose code needs a
step that has not run refuses to start (`catalog/checks.py`), naming the command.

Kinds of step: `AddIndex` (UpdateTable, one index at a time as DynamoDB requires, waiting until it is
ACTIVE and backfilled), `DeleteIndex`, `Backfill` (a parallel Scan, `backfill_scan.py`, each item
rewritten on condition that what it was derived from is unchanged), `Recount`, `EnableTTL`. An
index's projection cannot be changed in place: add the new index under a new name (AddIndex), move
the readers to it in that release's code, and delete the old one in a later release (DeleteIndex,
contract). Each step is idempotent: run again, or on a table that already has what it adds, it
changes nothing.
"""
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from botocore.exceptions import ClientError
from django.conf import settings

from . import keys
from .alerts.alerts import COUNTS_STEP
from .backfill_scan import (
    REWRITE_ATTEMPTS,
    Rewrite,
    capacity_for,
    item_get,
    progress_forget,
    rewrite_item,
    rewrite_of,
    scan_all,
)
from .catalog.entities import Product
from .dynamo.backoff import backoff_pause, conflict_pause
from .dynamo.batches import batch_get, batch_write
from .dynamo.boundary import error_code, translate_errors
from .dynamo.client import client
from .dynamo.codec import deserialize, serialize
from .dynamo.transact import delete, put, transact_write, update
from .errors import CatalogError, CatalogUnavailable
from .orders.entities import PLACED
from .stock.entities import StockAdjustment
from .stock.history import stock_adjustments_all
from .stock.stock import opening_adjustment
from .validate import new_token

TABLE_WAIT_SECONDS = 3600  # an index on a large table takes a while to build (AWS: minutes to hours)
POLL_SECONDS = 0.5


class MigrationRefused(CatalogError):
    """The table cannot be migrated by this code (it is ahead of it, or missing)."""


@dataclass
class Run:
    """What a step needs while it runs: the table, the capacity it may use, how to report."""

    table: str
    capacity_share: float = 0.25
    units_per_second: float | None = None
    segments: int = 4
    say: Callable[[str], None] = print
    progress: Callable | None = None  # progress(total) -> a tqdm-like bar (update(n), close())
    stop: threading.Event = field(default_factory=threading.Event)

    def describe(self):
        with translate_errors():
            return client().describe_table(TableName=self.table)["Table"]


# --- kinds of step -------------------------------------------------------------------------

@dataclass(frozen=True)
class AddIndex:
    """Create index `index` as schema.INDEXES defines it, or, to change an index's projection, under
    a new name with the key attributes of the old one (`key_attributes`) and its own `projected`."""

    name: str
    index: str
    description: str = ""
    contract: bool = False
    key_attributes: tuple | None = None  # (partition, sort) attribute names; default <index>PK, <index>SK
    projected: tuple | None = ()  # with key_attributes: the INCLUDE attributes, None for ALL
    online: bool = False  # the code serves with the step pending (see STEPS)
    rewrites_items = False

    def definitions(self):
        from .schema import index_attribute_definitions, index_definition

        if self.key_attributes is None:
            return index_attribute_definitions(self.index), index_definition(self.index)
        pk, sk = self.key_attributes
        return [{"AttributeName": a, "AttributeType": "S"} for a in (pk, sk)], {
            "IndexName": self.index,
            "KeySchema": [{"AttributeName": pk, "KeyType": "HASH"}, {"AttributeName": sk, "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "ALL"} if self.projected is None
            else {"ProjectionType": "INCLUDE", "NonKeyAttributes": list(self.projected)},
        }

    def apply(self, run):
        if _index_status(run, self.index) is None:
            attributes, definition = self.definitions()
            _update_table(run, AttributeDefinitions=attributes, GlobalSecondaryIndexUpdates=[{"Create": definition}])
            run.say(f"  creating index {self.index}")
        _wait_for(run, lambda: _index_status(run, self.index) == ("ACTIVE", False),
                  f"index {self.index} to be ACTIVE and backfilled")
        return f"index {self.index} is ACTIVE"


@dataclass(frozen=True)
class DeleteIndex:
    name: str
    index: str
    description: str = ""
    contract: bool = True  # older code may still read it
    online: bool = False
    rewrites_items = False

    def apply(self, run):
        status = _index_status(run, self.index)
        if status is not None and status[0] != "DELETING":
            _update_table(run, GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": self.index}}])
        _wait_for(run, lambda: _index_status(run, self.index) is None, f"index {self.index} to be deleted")
        return f"index {self.index} is gone"


@dataclass(frozen=True)
class Backfill:
    """Rewrite the items of `item_types` (none: the untyped items whose PK begins with `pk_prefix`):
    `make_apply(run, capacity)` returns the function that takes one item and returns how many writes
    it made."""

    name: str
    item_types: tuple
    make_apply: Callable
    description: str = ""
    contract: bool = False
    online: bool = False
    pk_prefix: str = ""
    rewrites_items = True

    def apply(self, run):
        description = run.describe()
        capacity = capacity_for(description, share=run.capacity_share, units_per_second=run.units_per_second)
        bar = run.progress(description.get("ItemCount") or None) if run.progress else None
        try:
            tally = scan_all(
                step_name=self.name, item_types=self.item_types, apply=self.make_apply(run, capacity),
                capacity=capacity, segments=run.segments, stop=run.stop, pk_prefix=self.pk_prefix,
                on_page=(lambda scanned, written: bar.update(scanned)) if bar else None,
            )
        finally:
            if bar:
                bar.close()
        progress_forget(self.name)
        return (
            f"{tally.scanned:,} items read, {tally.written:,} written; "
            f"{capacity.reads.total:,.0f} read and {capacity.writes.total:,.0f} write units this run"
        )


@dataclass(frozen=True)
class Recount:
    """Run `function()`, which recounts something from Queries (no Scan) and repairs it."""

    name: str
    function: Callable
    description: str = ""
    contract: bool = False
    online: bool = False
    rewrites_items = True

    def apply(self, run):
        return self.function()


@dataclass(frozen=True)
class EnableTTL:
    name: str
    attribute: str
    description: str = ""
    contract: bool = False
    online: bool = False
    rewrites_items = False

    def apply(self, run):
        with translate_errors():
            current = client().describe_time_to_live(TableName=run.table)["TimeToLiveDescription"]
        on = current.get("TimeToLiveStatus") in ("ENABLED", "ENABLING")
        if on and current.get("AttributeName") == self.attribute:
            return f"TTL already on {self.attribute}"
        with translate_errors():
            client().update_time_to_live(
                TableName=run.table, TimeToLiveSpecification={"Enabled": True, "AttributeName": self.attribute}
            )
        return f"TTL on {self.attribute}"


def _index_status(run, index):
    """(IndexStatus, Backfilling) of an index, or None when the table has no such index."""
    for gsi in run.describe().get("GlobalSecondaryIndexes", []):
        if gsi["IndexName"] == index:
            return gsi["IndexStatus"], bool(gsi.get("Backfilling"))
    return None


def _update_table(run, **changes):
    """UpdateTable, waiting while another index is being built or deleted (one at a time)."""
    deadline = time.monotonic() + TABLE_WAIT_SECONDS
    while True:
        try:
            with translate_errors():
                client().update_table(TableName=run.table, **changes)
            return
        except ClientError as exc:
            busy = error_code(exc) in ("LimitExceededException", "ResourceInUseException")
            if not busy or time.monotonic() > deadline:
                raise
        time.sleep(POLL_SECONDS)


def _wait_for(run, done, what):
    deadline = time.monotonic() + TABLE_WAIT_SECONDS
    while not done():
        if run.stop.is_set():
            raise KeyboardInterrupt
        if time.monotonic() > deadline:
            raise CatalogUnavailable(f"Waited {TABLE_WAIT_SECONDS} s for {what}; run migrate_table again")
        time.sleep(POLL_SECONDS)


# --- today's steps ---------------------------------------------------------------------------

PRODUCT_DERIVED = (
    *(f"{index}{part}" for index in keys.SORT_INDEXES for part in ("PK", "SK")),
    *keys.REORDER_ATTRIBUTES,
)
PRODUCT_SOURCES = ("productId", "name", "price", "brandId", "categoryId", "stockLevel", "reorderPoint")


def _product_keys(run, capacity):
    """A product's sort-index keys (name and price order) and Reorder index keys, from its name,
    price, brand, category, level and reorder point."""
    def derive(item):
        return rewrite_of(item, Product.from_item(item).to_item(), PRODUCT_DERIVED)

    return lambda item: int(rewrite_item(item, derive=derive, depends_on=PRODUCT_SOURCES, capacity=capacity))


TERM_SOURCES = ("name", "price", "brandId", "categoryId", "image")


def _put_terms(item, run, capacity):
    """A product's search term items (one per prefix of each word of its name), those missing or
    different put (BatchWriteItem); then the product is read again, and if another writer renamed
    or repriced it meanwhile, the items just put that no longer belong are deleted and the new ones
    put: a rename's own term changes (the importer's) come after its product write, so whichever
    order the two writers' requests land in, the terms end as the product is."""
    for _attempt in range(20):
        product = Product.from_item(item)
        wanted = {(t["PK"], t["SK"]): t for t in product.term_items()}
        found = {(i["PK"], i["SK"]): i for i in batch_get([{"PK": pk, "SK": sk} for pk, sk in wanted], consistent=True)}
        capacity.reads.spend(len(wanted))  # a consistent read of an item under 4 KB
        missing = [t for k, t in wanted.items() if found.get(k) != t]
        if not missing:
            return 0
        batch_write(puts=missing)
        capacity.writes.spend(len(missing))
        now = item_get({"PK": item["PK"], "SK": item["SK"]}, capacity)
        if now is not None and all(now.get(a) == item.get(a) for a in TERM_SOURCES):
            return len(missing)
        keep = {(t["PK"], t["SK"]) for t in (Product.from_item(now).term_items() if now else [])}
        stale = [{"PK": t["PK"], "SK": t["SK"]} for t in missing if (t["PK"], t["SK"]) not in keep]
        batch_write(deletes=stale)
        capacity.writes.spend(len(stale))
        if now is None:
            return len(missing) + len(stale)
        item = now
    raise CatalogUnavailable(f"Product {item['productId']} kept changing during the backfill; run it again")


def _products(run, capacity):
    """Each product: its list keys (_product_keys), then its search terms (_put_terms)."""
    keys_of = _product_keys(run, capacity)

    def apply(item):
        writes = keys_of(item)
        return writes + _put_terms(item, run, capacity)

    return apply


def _term_counts(run, capacity):
    """Each search term's two count items hold the number of its term items (a Query of the
    term's partition, once a term in this run), moved only when different, on condition that
    nobody moved them meanwhile."""
    done, lock = set(), threading.Lock()

    def apply(item):
        term = item.get("term")
        with lock:
            if term is None or term in done:
                return 0
            done.add(term)
        for _attempt in range(20):
            actual, stored = 0, {}
            params = dict(
                TableName=run.table, ConsistentRead=True, KeyConditionExpression="PK = :pk",
                ProjectionExpression="SK, #t, #c", ExpressionAttributeNames={"#t": "type", "#c": "count"},
                ExpressionAttributeValues=serialize({":pk": keys.term_pk(term)}), ReturnConsumedCapacity="TOTAL",
            )
            while True:
                with translate_errors():
                    response = client().query(**params)
                capacity.spent(response, write=False)
                for found in map(deserialize, response["Items"]):
                    if found.get("type") == "TERM":
                        actual += 1
                    elif found.get("type") == "TERM_COUNT":
                        stored[found["SK"]] = int(found.get("count", 0))
                if "LastEvaluatedKey" not in response:
                    break
                params["ExclusiveStartKey"] = response["LastEvaluatedKey"]
            wrong = [k for k in keys.term_count_keys(term) if stored.get(k["SK"]) != actual]
            if not wrong:
                return 0
            actions = []
            for key in wrong:
                before = stored.get(key["SK"])
                actions.append({"Update": {
                    "TableName": run.table, "Key": serialize({"PK": key["PK"], "SK": key["SK"]}),
                    "UpdateExpression": "SET #t = :t, ByPrice1PK = :ipk, ByPrice1SK = :isk, #c = :n",
                    "ConditionExpression": "attribute_not_exists(#c)" if before is None else "#c = :before",
                    "ExpressionAttributeNames": {"#t": "type", "#c": "count"},
                    "ExpressionAttributeValues": serialize({
                        ":t": "TERM_COUNT", ":ipk": key["ByPrice1PK"], ":isk": key["ByPrice1SK"], ":n": actual,
                        **({":before": before} if before is not None else {}),
                    }),
                }})
            refused = transact_write(actions, request_token=new_token()[:36])
            capacity.writes.spend(2 * len(actions))
            if refused is None:
                return len(actions)
        raise CatalogUnavailable(f"The count of search term {term!r} kept changing; run migrate_table again")

    return apply


STOCK_ADJUSTMENT_DERIVED = (f"{keys.LEDGER}PK", f"{keys.LEDGER}SK", f"{keys.BY_REASON}PK", f"{keys.BY_REASON}SK")


def _stock_adjustment_keys(run, capacity):
    """A stock change's Ledger (by day) and ByReason index keys, from its product, time and reason."""
    def derive(item):
        return rewrite_of(item, StockAdjustment.from_item(item).to_item(), STOCK_ADJUSTMENT_DERIVED)

    sources = ("productId", "adjustmentId", "at", "reason")
    return lambda item: int(rewrite_item(item, derive=derive, depends_on=sources, capacity=capacity))


def _stock_change_and_order_keys(run, capacity):
    by_type = {"STOCK_ADJUSTMENT": _stock_adjustment_keys(run, capacity), "ORDER": _open_order_keys(run, capacity)}
    return lambda item: by_type[item["type"]](item)


def _open_order_keys(run, capacity):
    """An order's OpenOrders index keys while it is placed (orders from before statuses are)."""
    def derive(item):
        wanted = keys.open_order_keys(item["orderId"]) if item.get("status", PLACED) == PLACED else {}
        return rewrite_of(item, wanted, keys.OPEN_ORDER_ATTRIBUTES)

    return lambda item: int(rewrite_item(item, derive=derive, depends_on=("status",), capacity=capacity))


def _order_numbers(run, capacity):
    """An order placed before order numbers (issue 37) gets one: the first of the numbers its ID asks
    for (orders.order_number_for, as a checkout would) that no other order holds, claimed by its
    ORDERNO# item in one transaction with the order's `orderNumber`; and the customer's name and
    email from the customer item, so staff pages name them without asking the accounts database."""
    from .orders.orders import ORDER_NUMBER_TRIES, order_number_for

    def apply(item):
        if item.get("orderNumber"):
            return 0
        with translate_errors():
            response = client().get_item(
                TableName=run.table, Key=serialize(keys.customer_key(item["customerId"])), ConsistentRead=True,
                ProjectionExpression="#n, email", ExpressionAttributeNames={"#n": "name"},
            )
        capacity.reads.spend(1)
        customer = deserialize(response.get("Item", {}))
        named = {a: customer[b] for a, b in (("customerName", "name"), ("customerEmail", "email"))
                 if customer.get(b) and not item.get(a)}
        attempt = 0
        for _try in range(20):
            if attempt >= ORDER_NUMBER_TRIES:
                break
            number = order_number_for(item["orderId"], attempt)
            claim = {**keys.order_number_key(number), "type": "ORDER_NUMBER", "orderNumber": number,
                     "customerId": item["customerId"], "orderId": item["orderId"]}
            values = {":n": number, **{f":{a}": v for a, v in named.items()}}
            refused = transact_write([
                {"Put": {"TableName": run.table, "Item": serialize(claim),
                         "ConditionExpression": "attribute_not_exists(PK)"}},
                {"Update": {
                    "TableName": run.table, "Key": serialize({"PK": item["PK"], "SK": item["SK"]}),
                    "UpdateExpression": "SET orderNumber = :n" + "".join(f", {a} = :{a}" for a in named),
                    "ConditionExpression": "attribute_exists(PK) AND attribute_not_exists(orderNumber)",
                    "ExpressionAttributeValues": serialize(values),
                }},
            ], request_token=new_token()[:36])
            capacity.writes.spend(4)
            if refused is None:
                return 2
            if refused.failed(1):
                return 0  # numbered meanwhile (another run of this step): nothing to do
            if refused.failed(0):
                attempt += 1  # another order holds that number: the next one, as a checkout would
            # else a conflict with another transaction: the same number again
        raise CatalogUnavailable(f"No free order number for order {item['orderId']}; run migrate_table again")

    return apply


def _stock_bands(run, capacity):
    """A product's stock band (`stockBand`, availability.stock_band) from its level, which the v2
    list indexes project; rewritten on condition that the level is unchanged (a sale meanwhile: read
    again and redone)."""
    from catalog.availability import stock_band

    def derive(item):
        wanted = {"stockBand": stock_band(item["stockLevel"])} if item.get("stockLevel") is not None else {}
        return rewrite_of(item, wanted, ("stockBand",))

    return lambda item: int(rewrite_item(item, derive=derive, depends_on=("stockLevel",), capacity=capacity))


def _list_index_steps(first):
    """Issue 32: each of the eight list indexes replaced, one at a time, by its v2 (same key
    attributes, the band projected instead of the level): AddIndex of the new, then DeleteIndex of
    the old (a contract step: code of before reads it), so the table never holds more than one list
    index beyond the eight (DynamoDB's budget of projected attributes, schema.py)."""
    steps = []
    for n, prefix in enumerate(keys.LIST_INDEXES):
        new = keys.list_index(prefix)
        steps.append(AddIndex(f"{first + 2 * n:04d}_index_{new}", new, f"index {new} (stock band, not level)",
                              online=True))
        steps.append(DeleteIndex(f"{first + 2 * n + 1:04d}_drop_{prefix}", prefix,
                                 f"index {prefix} (replaced by {new})", online=True))
    return steps


def implied_opening(level, changes):
    """The level a product had before its first recorded change (`changes` oldest first): the first
    change that records its resulting level, minus the deltas up to it; when none does (sales during
    a rush record none), the level now minus every delta. No changes: the level itself."""
    total = 0
    for change in changes:
        total += change.delta
        if change.resulting_level is not None:
            return change.resulting_level - total
    return level - total


def _opening_stock_entries(run, capacity):
    """A product whose history does not start at 0 gets an `opening` stock change for the level it
    had before the ledger began (implied_opening: its level if it has no history), dated just before
    its first change (or now, if it has none), so its changes add up to its level as an import's do
    today. Written in one transaction with a check that the level is still the one read (a sale
    meanwhile: read again and redo); a product that has its opening change needs none, so running
    again writes nothing. A negative implied opening is a broken history: left for reconcile_stock."""
    def apply(item):
        for _attempt in range(REWRITE_ATTEMPTS):
            product_id, level = item["productId"], item.get("stockLevel")
            changes = list(stock_adjustments_all(product_id=product_id))[::-1]  # consistent, oldest first
            capacity.reads.spend(1 + len(changes) // 8)  # about 0.5 KB a change, 4 KB a read unit
            opening = implied_opening(int(level or 0), changes)
            if opening <= 0:
                return 0
            entry = opening_adjustment(
                product_id=product_id, delta=opening, resulting_level=opening, who="migrate_table",
                at=changes[0].at - timedelta(microseconds=1) if changes else None,
                note="The level before the stock ledger began (table migration 0017)",
            )
            check = {
                "TableName": run.table, "Key": serialize({"PK": item["PK"], "SK": item["SK"]}),
                "ConditionExpression": "attribute_not_exists(stockLevel)" if level is None else "stockLevel = :l",
            }
            if level is not None:
                check["ExpressionAttributeValues"] = serialize({":l": level})
            refused = transact_write([{"ConditionCheck": check}, put(entry.to_item(), if_absent=True)],
                                     request_token=new_token()[:36])
            capacity.writes.spend(6)  # the check, the change (2 each, transactional) and its two index entries
            if refused is None:
                return 1
            item = item_get({"PK": item["PK"], "SK": item["SK"]}, capacity)
            if item is None:  # deleted meanwhile
                return 0
        raise CatalogUnavailable(f"Product {item['productId']} kept changing during the backfill; run it again")

    return apply


BUYER_SOURCES = ("productId", "orderId", *keys.BUYER_ATTRIBUTES)


def _buyer_keys(run, capacity):
    """An order line placed before issue 33 gets its Buyers keys (who bought what) and what the list
    of buyers shows, from its order (one consistent GetItem: the time it was placed, its number, the
    customer's name and email). No Ledger keys: its sale's record is the stock adjustment it had, so
    the stock history and reconcile_stock never count it (entities.is_sale_record)."""
    def derive(item):
        if f"{keys.BUYERS}PK" in item:
            return None  # a sale's record, or done by an earlier run
        customer_id = item["PK"].removeprefix(keys.customer_pk(""))
        order = item_get(keys.order_key(customer_id, item["orderId"]), capacity)
        if order is None:
            return None  # a line without its order: nobody bought it
        at = order["placedAt"]
        wanted = {
            **keys.buyers_keys(item["productId"], at=at, order_id=item["orderId"]), "at": at,
            "customerId": customer_id,
            **{name: order[name] for name in ("orderNumber", "customerName", "customerEmail") if order.get(name)},
        }
        return rewrite_of(item, wanted, tuple(wanted))

    return lambda item: int(rewrite_item(item, derive=derive, depends_on=BUYER_SOURCES, capacity=capacity))


def _open_order_shards(run, capacity):
    """An open order still under the one OpenOrders partition of before issue 33 moves to its shard
    (keys.open_order_keys); on condition that its status and keys are as read (shipped meanwhile: it
    left the index, nothing to move)."""
    def derive(item):
        if item.get(keys.OPEN_ORDER_ATTRIBUTES[0]) != keys.OPEN_ORDERS_LEGACY_PK:
            return None
        return rewrite_of(item, keys.open_order_keys(item["orderId"]), keys.OPEN_ORDER_ATTRIBUTES)

    depends_on = ("status", *keys.OPEN_ORDER_ATTRIBUTES)
    return lambda item: int(rewrite_item(item, derive=derive, depends_on=depends_on, capacity=capacity))


def _alert_counts_on_products(run, capacity):
    """Issue 36's first release counted a product's waiting alerts on an item of its own
    (keys.legacy_alert_count_key); today's code counts them on the product item (keys.ALERTS_WAITING),
    so that a staff stock write knows for free whether to mark alerts due (issue 32). Each count item
    is added onto its product's count and deleted, in one transaction conditional on the count read
    (so a count is never added twice, however often the step is run). An online step: after the
    deploy, no server writes count items, and the new code's own changes are on the product already."""
    def apply(item):
        product_id = item["PK"].removeprefix(keys.LEGACY_ALERT_COUNT_PREFIX)
        for _attempt in range(REWRITE_ATTEMPTS):
            count = int(item.get("waiting", 0))
            gone = delete({"PK": item["PK"], "SK": item["SK"]}, condition="waiting = :w", values={":w": count}) \
                if "waiting" in item else delete({"PK": item["PK"], "SK": item["SK"]},
                                                  condition="attribute_not_exists(waiting)")
            moved = [update(keys.product_key(product_id), f"ADD {keys.ALERTS_WAITING} :w", {":w": count},
                            condition="attribute_exists(PK)")] if count else []
            # A new token each try: the condition on the count read is what makes it apply once.
            refused = transact_write([gone, *moved], request_token=new_token()[:36])
            capacity.writes.spend(2 * (1 + len(moved)))  # transactional: 2 units an item of 1 KB or less
            if refused is None:
                return 1
            if refused.failed(1):  # no such product (products are never deleted): the count goes alone
                if transact_write([gone], request_token=new_token()[:36]) is None:
                    return 1
            elif refused.throttled:
                backoff_pause(_attempt + 1)
            elif refused.conflict:
                conflict_pause()
            item = item_get({"PK": item["PK"], "SK": item["SK"]}, capacity)
            if item is None:  # moved by another run meanwhile
                return 0
        raise CatalogUnavailable(f"The alert count of product {product_id} kept changing; run migrate_table again")

    return apply


def _recount_brands_and_categories():
    from .catalog.counts import counts_recount

    drifts, requests = counts_recount(repair=True)
    return f"{len(drifts)} count(s) set, {requests} requests"


# The seed's layout (PK/SK, GSI1, GSI2) to today's: every step of the releases since. Append new
# steps at the end; never rename or reorder one that has shipped (tables record them by name).
STEPS = [
    Backfill("0001_products", ("PRODUCT",), _products,
             "products: sort-index keys (name, price), Reorder keys and search term items"),
    *(AddIndex(f"{n:04d}_index_{index}", index, f"index {index}")
      for n, index in enumerate(keys.SORT_INDEXES, start=2)),
    Backfill("0008_search_term_counts", ("TERM",), _term_counts, "each search term's count items"),
    Backfill("0009_stock_change_and_order_keys", ("STOCK_ADJUSTMENT", "ORDER"), _stock_change_and_order_keys,
             "stock changes: Ledger and ByReason keys; placed orders: OpenOrders keys"),
    *(AddIndex(f"{n:04d}_index_{index}", index, f"index {index}")
      for n, index in enumerate((keys.LEDGER, keys.BY_REASON, keys.REORDER, keys.OPEN_ORDERS), start=10)),
    Recount("0014_brand_category_counts", _recount_brands_and_categories,
            "product counts on brand and category items (a Query per brand)"),
    EnableTTL("0015_idempotency_ttl", "expiresAt", "expiry (TTL) of idempotency marks"),
    Backfill("0016_order_numbers", ("ORDER",), _order_numbers,
             "orders placed before order numbers: a number each (claimed), the customer's name and email"),
    Backfill("0017_opening_stock_entries", ("PRODUCT",), _opening_stock_entries,
             "products: an opening stock change for the level they had before the ledger, so changes add up"),
    # Issue 32 (lists show a stock band): online steps, run after the code is deployed; the code reads
    # the list indexes it finds (pages.read_query) and derives a missing band from the level.
    Backfill("0018_stock_bands", ("PRODUCT",), _stock_bands, "products: the stock band lists show (stockBand)",
             online=True),
    *_list_index_steps(19),
    # Issue 33 (orders side): a sale's record is its order line, in the Buyers index (who bought what).
    # The index before the code (it writes and reads it); the backfills after it is deployed: until 0036
    # ran, the buyers of before are missing from the buyers page (their sales are in the stock history
    # as they were); until 0037 ran, the open-orders list also reads the one partition of before.
    AddIndex("0035_index_Buyers", keys.BUYERS, f"index {keys.BUYERS} (who bought what)"),
    Backfill("0036_buyer_keys", ("ORDER_LINE",), _buyer_keys,
             "order lines of before: Buyers keys and the order's time, number and customer", online=True),
    Backfill("0037_open_order_shards", ("ORDER",), _open_order_shards,
             f"open orders: moved to their OpenOrders shard (of {keys.OPEN_ORDER_SHARDS})", online=True),
    # Issue 36 (back-in-stock alerts): the queue of waiting alerts and of alert emails due.
    AddIndex("0055_index_AlertQueue", keys.ALERT_QUEUE, "index AlertQueue (back-in-stock alerts)"),
    # Issue 36 (timed holds; names 0065-0074 are kept for its steps): holds by the time they end, which
    # the release job reads. Before the code is deployed (the code writes and reads it); no backfill:
    # a table of before has no holds.
    AddIndex("0065_index_HoldExpiry", keys.HOLD_EXPIRY, "index HoldExpiry (timed holds, by their end)"),
    # Issue 32 (a staff adjustment at 10 write units): the waiting alerts' count on the product item. After
    # the deploy (no server writes the count items of before); until it ran, every staff receipt marks alerts
    # due, whatever the product's count says (alerts.counts_incomplete).
    Backfill(COUNTS_STEP, (), _alert_counts_on_products,
             "back-in-stock alerts: each product's waiting count moved onto its item", online=True,
             pk_prefix=keys.LEGACY_ALERT_COUNT_PREFIX),
]


# --- the record of applied steps ---------------------------------------------------------------

def table_exists(table):
    try:
        with translate_errors():
            client().describe_table(TableName=table)
    except CatalogUnavailable as exc:
        if error_code(exc.__cause__) == "ResourceNotFoundException":
            return False
        raise
    return True


def migrations_applied(*, table=None):
    """{step name: record} of the steps applied to the table (one Query of MIGRATIONS)."""
    table = table or settings.DYNAMODB_TABLE
    params = dict(
        TableName=table, ConsistentRead=True, KeyConditionExpression="PK = :pk AND begins_with(SK, :prefix)",
        ExpressionAttributeValues=serialize({":pk": keys.MIGRATIONS_PK, ":prefix": keys.MIGRATION_STEP_PREFIX}),
    )
    applied = {}
    while True:
        with translate_errors():
            response = client().query(**params)
        for item in map(deserialize, response["Items"]):
            applied[item["name"]] = item
        if "LastEvaluatedKey" not in response:
            return applied
        params["ExclusiveStartKey"] = response["LastEvaluatedKey"]


@dataclass(frozen=True)
class TableState:
    applied: dict
    pending: list  # steps of the code not applied, in order
    unknown: list  # records of steps the table has and the code does not know (a newer release's)

    @property
    def required(self):
        """Pending steps without which this code cannot serve (the others are `online`)."""
        return [s for s in self.pending if not s.online]

    @property
    def version(self):
        """The name of the last step applied that this code knows, or "" (the seed's layout)."""
        known = [name for name in self.applied if name not in {r["name"] for r in self.unknown}]
        return max(known) if known else ""


def table_state(*, table=None, steps=None):
    steps = STEPS if steps is None else steps
    applied = migrations_applied(table=table)
    names = {s.name for s in steps}
    return TableState(
        applied=applied,
        pending=[s for s in steps if s.name not in applied],
        unknown=[r for name, r in sorted(applied.items()) if name not in names],
    )


def migrations_pending(*, table_name=None, steps=None, required=False):
    """Names of the steps this code has that the table has not applied (`required`: only those it
    cannot serve without); CatalogUnavailable when DynamoDB does not answer."""
    state = table_state(table=table_name, steps=steps)
    return [s.name for s in (state.required if required else state.pending)]


def _record(step, table, summary=""):
    item = {
        **keys.migration_key(step.name), "type": "MIGRATION", "name": step.name,
        "description": step.description, "contract": step.contract,
        "appliedAt": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    if summary:
        item["summary"] = summary
    with translate_errors():
        client().put_item(TableName=table, Item=serialize(item))


def migrations_mark_applied(*, table=None, steps=None):
    """Record every step as applied (a new table is created with today's layout)."""
    table = table or settings.DYNAMODB_TABLE
    for step in STEPS if steps is None else steps:
        _record(step, table, "created with this layout")


def migrate(*, steps=None, run, backup=True, plan_only=False, before_deploy=False):
    """Apply the pending steps in order; returns the TableState before. Refuses (MigrationRefused)
    a table that has steps this code does not know. Before the first step that rewrites items a
    backup is taken (table_backup) unless `backup` is false. `before_deploy`: stop at the first
    `online` step (those run once the code is deployed: they may take away what older code reads)."""
    steps = STEPS if steps is None else steps
    state = table_state(table=run.table, steps=steps)
    if state.unknown:
        names = ", ".join(r["name"] for r in state.unknown)
        raise MigrationRefused(
            f"Table {run.table!r} has migration step(s) this code does not know: {names}. It was migrated by a "
            "newer release: run that release (or a newer one), not this one."
        )
    if plan_only:
        return state
    backed_up = not backup
    for step in state.pending:
        if before_deploy and step.online:
            run.say(f"Stopping before {step.name}: it and the steps after it run once this code is deployed.")
            break
        if step.rewrites_items and not backed_up:
            run.say(table_backup(table=run.table, reason=step.name))
            backed_up = True
        run.say(f"Applying {step.name} ({step.description})...")
        summary = step.apply(run)
        _record(step, run.table, summary or "")
        run.say(f"  {step.name}: done ({summary})" if summary else f"  {step.name}: done")
    return state


# --- protection ----------------------------------------------------------------------------------

def table_backup(*, table, reason):
    """An on-demand backup of the table (named after the step about to run); says what it did."""
    name = f"{table}-before-{reason}-{datetime.now(UTC):%Y%m%d%H%M%S}"[:255]
    try:
        with translate_errors():
            arn = client().create_backup(TableName=table, BackupName=name)["BackupDetails"]["BackupArn"]
    except ClientError as exc:
        if error_code(exc) == "UnknownOperationException":
            return "This DynamoDB (DynamoDB Local) takes no backups: none was taken."
        raise
    return f"Backup {name} taken ({arn})."


def table_protect(*, table=None, pitr=True, deletion_protection=True):
    """Turn on point-in-time recovery and deletion protection (each when asked); returns what was
    done, one line each, including what this DynamoDB does not support."""
    table = table or settings.DYNAMODB_TABLE
    said = []
    if deletion_protection:
        with translate_errors():
            described = client().describe_table(TableName=table)["Table"]
        if described.get("DeletionProtectionEnabled"):
            said.append("Deletion protection is on.")
        else:
            try:
                with translate_errors():
                    client().update_table(TableName=table, DeletionProtectionEnabled=True)
                said.append("Deletion protection turned on.")
            except ClientError as exc:
                said.append(f"Deletion protection is not supported here ({error_code(exc)}).")
    if pitr:
        try:
            with translate_errors():
                client().update_continuous_backups(
                    TableName=table, PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True}
                )
            said.append("Point-in-time recovery is on.")
        except ClientError as exc:
            if error_code(exc) != "UnknownOperationException":
                raise
            said.append("Point-in-time recovery is not supported by this DynamoDB (DynamoDB Local): not on.")
    return said


__all__ = [
    "STEPS", "AddIndex", "Backfill", "DeleteIndex", "EnableTTL", "MigrationRefused", "Recount", "Rewrite", "Run",
    "TableState", "migrate", "migrations_applied", "migrations_mark_applied", "migrations_pending", "table_backup",
    "table_protect", "table_state",
]
