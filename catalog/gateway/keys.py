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
"""
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
