"""Every key format of the single table, in one place.

| item             | PK          | SK                        | GSI1PK   | GSI1SK          | GSI2PK   | GSI2SK          |
|------------------|-------------|---------------------------|----------|-----------------|----------|-----------------|
| brand            | BRANDS      | B#<bid>                   |          |                 |          |                 |
| category         | CATEGORIES  | C#<cid>                   |          |                 |          |                 |
| product          | P#<pid>     | METADATA                  | B#<bid>  | C#<cid>#P#<pid> | C#<cid>  | B#<bid>#P#<pid> |
| stock adjustment | P#<pid>     | STOCK#<time>#<aid>        |          |                 |          |                 |
| idempotency mark | P#<pid>     | TOKEN#<token>             |          |                 |          |                 |
| customer         | CUSTOMER#<uid> | METADATA               |          |                 |          |                 |
| order            | CUSTOMER#<uid> | ORDER#<oid>            |          |                 |          |                 |
| order line       | CUSTOMER#<uid> | ORDER#<oid>#ITEM#<pid> |          |                 |          |                 |

Warehouse indexes (sparse: only the items that carry their keys are in them):

| index      | item             | PK                           | SK                              |
|------------|------------------|------------------------------|---------------------------------|
| Ledger     | stock adjustment | LEDGER#<yyyy-mm-dd>#<shard>  | <time>#P#<pid>#<aid>            |
| ByReason   | stock adjustment | P#<pid>#R#<reason code>      | <time>#<aid>                    |
| Reorder    | product at or below its reorder point | REORDER | <level, 10 digits>#P#<pid>   |
| OpenOrders | order with status placed | OPEN_ORDERS          | <oid> (starts with the UTC time)|
"""
import hashlib
import re

ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,64}")

BRANDS_PK = "BRANDS"
CATEGORIES_PK = "CATEGORIES"
PRODUCT_SK = "METADATA"
STOCK_PREFIX = "STOCK#"
TOKEN_PREFIX = "TOKEN#"
ORDER_PREFIX = "ORDER#"
CUSTOMER_SK = "METADATA"

GSI1 = "GSI1"
GSI2 = "GSI2"

# Warehouse indexes; each item's key attributes are "<index>PK" / "<index>SK".
LEDGER = "Ledger"
BY_REASON = "ByReason"
REORDER = "Reorder"
OPEN_ORDERS = "OpenOrders"
# A day's stock changes are spread over this many Ledger partitions (by product ID hash), so a
# busy day is not one hot partition. Changing it would hide the days written before: a constant.
LEDGER_SHARDS = 8
REORDER_PK = "REORDER"
OPEN_ORDERS_PK = "OPEN_ORDERS"


def brand_key(brand_id):
    return {"PK": BRANDS_PK, "SK": f"B#{brand_id}"}


def category_key(category_id):
    return {"PK": CATEGORIES_PK, "SK": f"C#{category_id}"}


def product_pk(product_id):
    return f"P#{product_id}"


def product_key(product_id):
    return {"PK": product_pk(product_id), "SK": PRODUCT_SK}


def product_index_keys(*, product_id, brand_id, category_id):
    """The GSI keys that put a product under its brand (GSI1) and its category (GSI2)."""
    return {
        "GSI1PK": brand_gsi_pk(brand_id),
        "GSI1SK": f"{category_gsi_pk(category_id)}#P#{product_id}",
        "GSI2PK": category_gsi_pk(category_id),
        "GSI2SK": f"{brand_gsi_pk(brand_id)}#P#{product_id}",
    }


def brand_gsi_pk(brand_id):
    return f"B#{brand_id}"


def category_gsi_pk(category_id):
    return f"C#{category_id}"


def brand_in_category_prefix(brand_id):
    """GSI2SK prefix of a brand's products; the trailing '#' keeps B#1 from matching B#10."""
    return f"B#{brand_id}#"


def category_in_brand_prefix(category_id):
    """GSI1SK prefix of a category's products; the trailing '#' keeps C#1 from matching C#10."""
    return f"C#{category_id}#"


def stock_adjustment_key(product_id, *, at, adjustment_id):
    return {"PK": product_pk(product_id), "SK": f"{STOCK_PREFIX}{at}#{adjustment_id}"}


def token_key(product_id, token):
    return {"PK": product_pk(product_id), "SK": f"{TOKEN_PREFIX}{token}"}


def customer_pk(customer_id):
    return f"CUSTOMER#{customer_id}"


def customer_key(customer_id):
    return {"PK": customer_pk(customer_id), "SK": CUSTOMER_SK}


def order_key(customer_id, order_id):
    return {"PK": customer_pk(customer_id), "SK": f"{ORDER_PREFIX}{order_id}"}


def order_line_key(customer_id, order_id, product_id):
    return {"PK": customer_pk(customer_id), "SK": f"{ORDER_PREFIX}{order_id}#ITEM#{product_id}"}


def stock_history_since(product_id, at):
    """The SK bounds of a product's adjustments after `at` (a stamp): BETWEEN these two."""
    return f"{STOCK_PREFIX}{at}~", f"{STOCK_PREFIX}~"


# --- warehouse indexes ------------------------------------------------------------------

def ledger_shard(product_id):
    """Which of a day's Ledger partitions a product's changes go to (stable: sha256 of its ID)."""
    return int(hashlib.sha256(product_id.encode()).hexdigest()[:8], 16) % LEDGER_SHARDS


def ledger_pk(day, shard):
    """`day` is an ISO date (yyyy-mm-dd)."""
    return f"LEDGER#{day}#{shard}"


def ledger_keys(product_id, *, at, adjustment_id):
    return {
        f"{LEDGER}PK": ledger_pk(at[:10], ledger_shard(product_id)),
        f"{LEDGER}SK": f"{at}#P#{product_id}#{adjustment_id}",
    }


def by_reason_pk(product_id, reason):
    return f"{product_pk(product_id)}#R#{reason}"


def by_reason_keys(product_id, reason, *, at, adjustment_id):
    return {f"{BY_REASON}PK": by_reason_pk(product_id, reason), f"{BY_REASON}SK": f"{at}#{adjustment_id}"}


REORDER_ATTRIBUTES = (f"{REORDER}PK", f"{REORDER}SK")


def reorder_keys(product_id, level):
    """The Reorder index keys of a product at `level`: sold-out first, then by level."""
    return {f"{REORDER}PK": REORDER_PK, f"{REORDER}SK": f"{level:010d}#P#{product_id}"}


OPEN_ORDER_ATTRIBUTES = (f"{OPEN_ORDERS}PK", f"{OPEN_ORDERS}SK")


def open_order_keys(order_id):
    return {f"{OPEN_ORDERS}PK": OPEN_ORDERS_PK, f"{OPEN_ORDERS}SK": order_id}
