"""Every key format of the single table, in one place (the items, their keys and indexes, and the access
patterns that read them: docs/table.md)."""
from __future__ import annotations

import hashlib
import re
from decimal import Decimal
from typing import Any

ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,64}")

BRANDS_PK = "BRANDS"
CATEGORIES_PK = "CATEGORIES"
PRODUCT_SK = "METADATA"
STOCK_PREFIX = "STOCK#"
TOKEN_PREFIX = "TOKEN#"
ORDER_PREFIX = "ORDER#"
CUSTOMER_SK = "METADATA"
ORDER_NUMBER_PREFIX, ORDER_NUMBER_SK = "ORDERNO#", "CLAIM"

GSI1, GSI2 = "GSI1", "GSI2"

# Warehouse indexes; each item's key attributes are "<index>PK" / "<index>SK".
LEDGER = "Ledger"
BY_REASON = "ByReason"
REORDER = "Reorder"
OPEN_ORDERS = "OpenOrders"
BUYERS = "Buyers"
REORDER_ATTRIBUTES, OPEN_ORDER_ATTRIBUTES, BUYER_ATTRIBUTES = (
    (f"{index}PK", f"{index}SK") for index in (REORDER, OPEN_ORDERS, BUYERS))
# A day's stock changes spread over this many Ledger partitions (a hash of product and change ID): 10,000 orders
# a second of 3 lines, 2 write units an entry, 1,000 a partition. Only grown, with the reader reading the larger.
LEDGER_SHARDS = 64
# Open orders: 10,000 orders a second, 4 write units each (put, then taken out), over partitions of 1,000.
OPEN_ORDER_SHARDS = 64
# Who bought a product: its sales over this many partitions (by order ID): 2,000 units a second write 250 to each.
BUYER_SHARDS = 8
REORDER_PK = "REORDER"
OPEN_ORDERS_PK = "OPEN_ORDERS"
MIGRATIONS_PK = "MIGRATIONS"
MIGRATION_STEP_PREFIX, MIGRATION_PROGRESS_PREFIX = "STEP#", "PROGRESS#"

# Sorted lists: 1 = a brand's products (and a search term's), 2 = a category's, 3 = a brand's in one category.
BY_NAME = {"brand": "ByName1", "category": "ByName2", "pair": "ByName3"}
BY_PRICE = {"brand": "ByPrice1", "category": "ByPrice2", "pair": "ByPrice3"}
SORT_INDEXES = [*BY_NAME.values(), *BY_PRICE.values()]
# The eight list indexes (GSI1, GSI2, the sort indexes) by their key attributes' prefix, as readers and cursors
# name them; each read as `<prefix>v2` (the stock band projected: schema.py).
LIST_INDEXES = [GSI1, GSI2, *SORT_INDEXES]
LIST_INDEX_SUFFIX = "v2"


def list_index(prefix: str) -> str:
    """The index a list of `prefix`'s key attributes is read from: its v2 name (the warehouse's: `prefix`)."""
    return f"{prefix}{LIST_INDEX_SUFFIX}" if prefix in LIST_INDEXES else prefix


def index_key_prefix(index: Any) -> Any:
    """The prefix of an index's key attribute names: "GSI1" for GSI1 and GSI1v2."""
    base = index.removesuffix(LIST_INDEX_SUFFIX)
    return base if base in LIST_INDEXES else index


def _shard_of(text: str, shards: Any) -> Any:
    """A stable shard number of `text`: sha256, mod `shards`."""
    return int(hashlib.sha256(text.encode()).hexdigest()[:8], 16) % shards


def _index_keys(index: Any, pk: Any, sk: Any) -> dict[str, Any]:
    """An item's key attributes in the index `index`: <index>PK and <index>SK."""
    return {f"{index}PK": pk, f"{index}SK": sk}


NAME_KEY_WIDTH = 64
PRICE_KEY_DIGITS = 11  # import_file.MAX_PRICE has 9 digits before the point: 999,999,999.99 is 11 digits of cents
TERM_PREFIX = "TERM#"
# A search term's count, in the term's partition: "#" sorts before every <name> (letters and digits), so the
# name-ordered Query reads it first; in ByPrice1 "#COUNT" comes first going up and "~COUNT" going down.
TERM_COUNT_LOW = "#COUNT"
TERM_COUNT_HIGH = "~COUNT"

# The readiness probe (/readyz) reads this never written key: a GetItem finding nothing costs 0.5 read units.
PROBE_KEY = {"PK": "PROBE", "SK": "READY"}


def brand_key(brand_id: str) -> dict[str, Any]:
    return {"PK": BRANDS_PK, "SK": f"B#{brand_id}"}

def category_key(category_id: str) -> dict[str, Any]:
    return {"PK": CATEGORIES_PK, "SK": f"C#{category_id}"}

def product_pk(product_id: str) -> str:
    return f"P#{product_id}"

def product_key(product_id: str) -> dict[str, Any]:
    return {"PK": product_pk(product_id), "SK": PRODUCT_SK}

def product_index_keys(*, product_id: str, brand_id: str, category_id: str) -> dict[str, Any]:
    """The GSI keys that put a product under its brand (GSI1) and its category (GSI2)."""
    return {**_index_keys(GSI1, brand_gsi_pk(brand_id), f"{category_gsi_pk(category_id)}#P#{product_id}"),
            **_index_keys(GSI2, category_gsi_pk(category_id), f"{brand_gsi_pk(brand_id)}#P#{product_id}")}


def pair_pk(brand_id: str, category_id: str) -> str:
    return f"B#{brand_id}#C#{category_id}"

def name_key(normalised_name: str) -> str:
    """The sort-key form of a normalised name (text.normalise): cut and padded to a fixed width."""
    return normalised_name[:NAME_KEY_WIDTH].ljust(NAME_KEY_WIDTH)


def price_key(price: Decimal) -> str:
    """9.99 -> "00000000999": the price in cents, zero-padded, so text order is price order."""
    return f"{int(price * 100):0{PRICE_KEY_DIGITS}d}"


def product_sort_keys(
    *, product_id: str, brand_id: str, category_id: str, normalised_name: str, price: Decimal
) -> dict[str, Any]:
    """The six sort indexes' keys: name and price order under brand, category and pair; ties by product ID."""
    by_name = f"{name_key(normalised_name)}#P#{product_id}"
    by_price = f"{price_key(price)}#P#{product_id}"
    out: dict[str, Any] = {}
    for scope, partition in (("brand", brand_gsi_pk(brand_id)), ("category", category_gsi_pk(category_id)),
                             ("pair", pair_pk(brand_id, category_id))):
        out |= _index_keys(BY_NAME[scope], partition, by_name) | _index_keys(BY_PRICE[scope], partition, by_price)
    return out

def term_pk(term: str) -> str:
    return f"{TERM_PREFIX}{term}"

def term_key(term: str, *, product_id: str, normalised_name: str) -> dict[str, Any]:
    return {"PK": term_pk(term), "SK": f"{name_key(normalised_name)}#P#{product_id}"}

def term_index_keys(term: str, *, product_id: str, price: Decimal) -> dict[str, Any]:
    return _index_keys(BY_PRICE["brand"], term_pk(term), f"{price_key(price)}#P#{product_id}")

def term_count_keys(term: str) -> list[Any]:
    """A term's two count items: the first read by name and by price going up, the second by price going down."""
    return [{"PK": term_pk(term), "SK": sk, **_index_keys(BY_PRICE["brand"], term_pk(term), sk)}
            for sk in (TERM_COUNT_LOW, TERM_COUNT_HIGH)]

# --- the catalog editor (docs/catalog-editor.md) ---------------------------------------------
# A hidden product's only list entry is GSI1's HIDDEN partition, by brand and category (no shopper's list reads
# it); each staff change of a product is a record under the product (EDIT#<time>#<id>, newest last); an edit's
# search terms that did not fit its transaction are tasks on a TERMS_PENDING item (catalog/pending_terms.py).
HIDDEN_PK, EDIT_PREFIX, TERMS_PENDING_PK = "HIDDEN", "EDIT#", "TERMS_PENDING"


def hidden_index_keys(*, product_id: str, brand_id: str, category_id: str) -> dict[str, Any]:
    return _index_keys(GSI1, HIDDEN_PK, f"{brand_gsi_pk(brand_id)}#{category_gsi_pk(category_id)}#P#{product_id}")

def product_edit_key(product_id: str, *, at: Any, edit_id: str) -> dict[str, Any]:
    return {"PK": product_pk(product_id), "SK": f"{EDIT_PREFIX}{at}#{edit_id}"}

def terms_pending_key(product_id: str) -> dict[str, Any]:
    return {"PK": TERMS_PENDING_PK, "SK": f"P#{product_id}"}

def brand_gsi_pk(brand_id: str) -> str:
    return f"B#{brand_id}"

def category_gsi_pk(category_id: str) -> str:
    return f"C#{category_id}"

def brand_in_category_prefix(brand_id: str) -> str:
    """GSI2SK prefix of a brand's products; the trailing '#' keeps B#1 from matching B#10."""
    return f"B#{brand_id}#"


def category_in_brand_prefix(category_id: str) -> str:
    """GSI1SK prefix of a category's products; the trailing '#' keeps C#1 from matching C#10."""
    return f"C#{category_id}#"


def stock_adjustment_key(product_id: str, *, at: Any, adjustment_id: str) -> dict[str, Any]:
    return {"PK": product_pk(product_id), "SK": f"{STOCK_PREFIX}{at}#{adjustment_id}"}

def token_key(product_id: str, token: str) -> dict[str, Any]:
    return {"PK": product_pk(product_id), "SK": f"{TOKEN_PREFIX}{token}"}

def customer_pk(customer_id: str) -> str:
    return f"CUSTOMER#{customer_id}"

def customer_key(customer_id: str) -> dict[str, Any]:
    return {"PK": customer_pk(customer_id), "SK": CUSTOMER_SK}

def order_key(customer_id: str, order_id: str) -> dict[str, Any]:
    return {"PK": customer_pk(customer_id), "SK": f"{ORDER_PREFIX}{order_id}"}

def order_line_key(customer_id: str, order_id: str, product_id: str) -> dict[str, Any]:
    return {"PK": customer_pk(customer_id), "SK": f"{ORDER_PREFIX}{order_id}#ITEM#{product_id}"}


# --- stock buckets ---------------------------------------------------------------------
# A spread product (`stockBuckets` K > 1) sells from K bucket items too: its total is its `stockLevel` plus theirs.
BUCKET_SK = "STOCK"
MAX_STOCK_BUCKETS = 100


def bucket_pk(product_id: str, bucket: int) -> str:
    return f"{product_pk(product_id)}#S#{bucket}"

def bucket_key(product_id: str, bucket: int) -> dict[str, Any]:
    return {"PK": bucket_pk(product_id, bucket), "SK": BUCKET_SK}

def order_number_key(number: str) -> dict[str, Any]:
    """The claim item of an order number (people's short reference of an order)."""
    return {"PK": f"{ORDER_NUMBER_PREFIX}{number}", "SK": ORDER_NUMBER_SK}


def stock_history_since(at: Any) -> tuple[str, str]:
    """The SK bounds of a product's adjustments after `at` (a stamp): BETWEEN these two."""
    return f"{STOCK_PREFIX}{at}~", f"{STOCK_PREFIX}~"


# --- warehouse indexes ------------------------------------------------------------------
def ledger_shard(product_id: str, adjustment_id: str) -> int:
    """A change's Ledger partition of its day: a hash of product and change ID (a hot product's spread too)."""
    return _shard_of(f"{product_id}#{adjustment_id}", LEDGER_SHARDS)


def ledger_pk(day: Any, shard: int) -> str:
    """`day` is an ISO date (yyyy-mm-dd)."""
    return f"LEDGER#{day}#{shard}"


def ledger_keys(product_id: str, *, at: Any, adjustment_id: str) -> dict[str, Any]:
    return _index_keys(LEDGER, ledger_pk(at[:10], ledger_shard(product_id, adjustment_id)),
                       f"{at}#P#{product_id}#{adjustment_id}")


def by_reason_pk(product_id: str, reason: str) -> str:
    return f"{product_pk(product_id)}#R#{reason}"

def by_reason_keys(product_id: str, reason: str, *, at: Any, adjustment_id: str) -> dict[str, Any]:
    return _index_keys(BY_REASON, by_reason_pk(product_id, reason), f"{at}#{adjustment_id}")

def reorder_keys(product_id: str, level: int | None) -> dict[str, Any]:
    """The Reorder index keys of a product at `level`: sold-out first, then by level."""
    return _index_keys(REORDER, REORDER_PK, f"{level:010d}#P#{product_id}")


def open_orders_pk(shard: int) -> str:
    return f"{OPEN_ORDERS_PK}#{shard}"

def open_order_keys(order_id: str) -> dict[str, Any]:
    """An open order's OpenOrders keys: its shard is a hash of its ID."""
    return _index_keys(OPEN_ORDERS, open_orders_pk(_shard_of(order_id, OPEN_ORDER_SHARDS)), order_id)


def open_orders_partitions() -> list[Any]:
    """Every partition of the OpenOrders index a reader merges: its OPEN_ORDER_SHARDS shards."""
    return [open_orders_pk(n) for n in range(OPEN_ORDER_SHARDS)]


# --- who bought what -----------------------------------------------------------------------
def buyers_pk(product_id: str, shard: int) -> str:
    return f"{product_pk(product_id)}#B#{shard}"

def buyers_keys(product_id: str, *, at: Any, order_id: str) -> dict[str, Any]:
    """An order line's Buyers keys: its product's shard (a hash of the order ID), newest last."""
    return _index_keys(BUYERS, buyers_pk(product_id, _shard_of(order_id, BUYER_SHARDS)), f"{at}#{order_id}")


# --- back-in-stock alerts ---------------------------------------------------------------
ALERT_QUEUE = "AlertQueue"
ALERT_QUEUE_ATTRIBUTES = (f"{ALERT_QUEUE}PK", f"{ALERT_QUEUE}SK")
# Due products and emails due spread over this many partitions each (a hash of the product or alert ID), all read
# by the job each pass: a big delivery day is not one hot partition. Raised, never lowered while items wait.
ALERT_SHARDS = 8
ALERT_PRODUCT_PREFIX = "P#"


def alert_owner_customer(customer_id: str) -> str:
    return f"C#{customer_id}"

def alert_owner_email(email: str) -> str:
    return "E#" + hashlib.sha256(email.strip().lower().encode()).hexdigest()[:32]

def alert_pk(owner: str) -> str:
    return f"ALERT#{owner}"

def alert_key(owner: str, product_id: str) -> dict[str, Any]:
    return {"PK": alert_pk(owner), "SK": f"{ALERT_PRODUCT_PREFIX}{product_id}"}

def alert_waiting_keys(product_id: str, *, asked_at: Any, alert_id: str) -> dict[str, Any]:
    """AlertQueue keys of a waiting alert: under its product, oldest first."""
    return _index_keys(ALERT_QUEUE, alert_waiting_pk(product_id), f"{asked_at}#{alert_id}")


def alert_waiting_pk(product_id: str) -> str:
    return f"AQ#P#{product_id}"

def alert_outbox_pk(shard: int) -> str:
    return f"AQ#OUT#{shard}"

def alert_outbox_keys(*, asked_at: Any, alert_id: str) -> dict[str, Any]:
    """AlertQueue keys of an alert whose email is due (its confirmation or the alert)."""
    return _index_keys(ALERT_QUEUE, alert_outbox_pk(_shard_of(alert_id, ALERT_SHARDS)), f"{asked_at}#{alert_id}")


# The product item's count of the alerts waiting for it (in no index: a change writes the product item alone).
ALERTS_WAITING = "alertsWaiting"


def alert_due_pk(shard: int) -> str:
    return f"ALERTS_DUE#{shard}"

def alert_due_key(product_id: str) -> dict[str, Any]:
    return {"PK": alert_due_pk(_shard_of(product_id, ALERT_SHARDS)), "SK": f"{ALERT_PRODUCT_PREFIX}{product_id}"}


# --- timed holds -----------------------------------------------------------------------
HOLD_EXPIRY = "HoldExpiry"
HOLD_EXPIRY_ATTRIBUTES = (f"{HOLD_EXPIRY}PK", f"{HOLD_EXPIRY}SK")
# Holds spread over this many HoldExpiry partitions, all read by the release job each pass (raised, never lowered
# while holds wait): every sale puts and deletes an entry (4 write units), so 64 take 16,000 sales a second.
HOLD_SHARDS = 64
HOLD_PREFIX = "HOLD#"
HOLD_LOG_PREFIX = "HOLDLOG#"
HOLD_CAP_PREFIX = "HOLDCAP#"
HOLD_UNITS_SK = "HOLDUNITS"
# A product's holds and their records spread over this many partitions (a hash of the customer): one would
# cap a hot product at 250 sales a second (4 write units a sale); 8 give it 2,000. Readers read every one.
HOLD_KEY_SHARDS = 8


def hold_pk(product_id: str, shard: int) -> str:
    return f"{product_pk(product_id)}#H#{shard}"

def hold_partitions(product_id: str) -> list[Any]:
    """Every partition a product's holds and their records are in."""
    return [hold_pk(product_id, shard) for shard in range(HOLD_KEY_SHARDS)]


def hold_key(product_id: str, customer_id: str) -> dict[str, Any]:
    """A shopper's hold of a product's units (one a shopper and product)."""
    return {"PK": hold_pk(product_id, _shard_of(customer_id, HOLD_KEY_SHARDS)), "SK": f"{HOLD_PREFIX}{customer_id}"}


def holds_pk(shard: int) -> str:
    return f"HOLDS#{shard}"

def hold_expiry_keys(product_id: str, customer_id: str, until: Any) -> dict[str, Any]:
    """A hold's HoldExpiry keys: its shard (a hash of product and customer), then its end (epoch s)."""
    return _index_keys(HOLD_EXPIRY, holds_pk(_shard_of(f"{product_id}#{customer_id}", HOLD_SHARDS)),
                       f"{until:010d}#{product_id}#{customer_id}")


def hold_expiry_before(now: Any) -> str:
    """The HoldExpirySK bound of holds that ended by `now` (epoch s): SK < this."""
    return f"{now + 1:010d}#"


def hold_cap_key(product_id: str, customer_id: str) -> dict[str, Any]:
    """When a released hold was first taken, kept through its cap (STOCK_HOLD_MAX_SECONDS after) and the cool-down
    (STOCK_HOLD_COOLDOWN_SECONDS): a shopper holding again is held only until that cap, not at all in the cool-down."""
    return {"PK": hold_pk(product_id, _shard_of(customer_id, HOLD_KEY_SHARDS)), "SK": f"{HOLD_CAP_PREFIX}{customer_id}"}


def hold_units_key(customer_id: str) -> dict[str, Any]:
    """Units a shopper holds, over every product (STOCK_HOLD_MAX_UNITS_PER_SHOPPER); an order updates it too."""
    return {"PK": customer_pk(customer_id), "SK": HOLD_UNITS_SK}


def hold_log_key(product_id: str, customer_id: str, at: Any) -> dict[str, Any]:
    """The record of a released hold (`at`: the release's time stamp)."""
    return {"PK": hold_pk(product_id, _shard_of(customer_id, HOLD_KEY_SHARDS)),
            "SK": f"{HOLD_LOG_PREFIX}{at}#{customer_id}"}


# --- table migrations -------------------------------------------------------------------
def migration_key(step_name: str) -> dict[str, Any]:
    """The record that a migration step was applied."""
    return {"PK": MIGRATIONS_PK, "SK": f"{MIGRATION_STEP_PREFIX}{step_name}"}


def migration_progress_key(step_name: str, segment: int) -> dict[str, Any]:
    """Where segment `segment` of a backfill's parallel Scan stopped (its LastEvaluatedKey)."""
    return {"PK": MIGRATIONS_PK, "SK": f"{MIGRATION_PROGRESS_PREFIX}{step_name}#{segment:04d}"}


def migration_progress_prefix(step_name: str) -> str:
    return f"{MIGRATION_PROGRESS_PREFIX}{step_name}#"




# --- card payments: a checkout paying, under its order's UTC day (yyyymmdd) and a shard; a provider's event --
PAYMENT_PENDING_SHARDS = 4

def payment_pending_pk(day: str, shard: int) -> str:
    return f"PAYPEND#{day}#{shard}"

def payment_pending_key(order_id: str) -> dict[str, Any]:
    pk = payment_pending_pk(order_id[:8], _shard_of(order_id, PAYMENT_PENDING_SHARDS))
    return {"PK": pk, "SK": f"{ORDER_PREFIX}{order_id}"}

def payment_event_key(event_id: str) -> dict[str, Any]:
    return {"PK": f"PAYEVENT#{event_id}", "SK": "EVENT"}
