"""The DynamoDB gateway: the only code that talks to the single table or builds its keys.

Its public face is this module: one function per access pattern, typed results (frozen
dataclasses), and the exceptions of `errors`, into which every botocore error is turned.
Modules: `client` (the boto3 client, error boundary, batches, retries), `schema` (the table
definition), `keys` (every key format), `cursor` (signed page cursors), `validate`,
`entities`, `products`, `stock`, `orders`, `importer`, `text` (name order and search terms),
`counts` (recounting the brand and category counts).
"""
from .client import count_requests, reset_client
from .counts import Drift, counts_recount
from .entities import (
    Brand,
    Category,
    Order,
    OrderLine,
    Page,
    Product,
    PurchaseLine,
    StockAdjustment,
    StockChange,
)
from .errors import (
    CatalogError,
    CatalogUnavailable,
    InsufficientStock,
    InvalidCursor,
    InvalidId,
    InvalidInput,
    InvalidQuantity,
    LineProblem,
    NotFound,
    OrderRejected,
    StockBusy,
)
from .orders import MAX_LINES, line_problems, new_order_id, order_get, order_place, orders_by_customer
from .products import (
    SORTS,
    brands_all,
    categories_all,
    check_sort,
    product_get,
    products_by_brand,
    products_by_category,
    products_get_many,
    products_search,
    search_words,
)
from .schema import create_table_request, table_delete, table_ensure
from .stock import stock_decrease, stock_history, stock_increase
from .validate import MAX_QUANTITY, MAX_REASON, check_id, check_quantity, new_token, valid_id

__all__ = [
    "MAX_LINES", "MAX_QUANTITY", "MAX_REASON", "SORTS", "Drift", "check_sort", "counts_recount",
    "products_search", "search_words",
    "Brand", "PurchaseLine", "Category", "Order", "OrderLine", "Page", "Product", "StockAdjustment", "StockChange",
    "CatalogError", "CatalogUnavailable", "InsufficientStock", "InvalidCursor", "InvalidId", "InvalidInput",
    "InvalidQuantity", "LineProblem", "NotFound", "OrderRejected", "StockBusy",
    "brands_all", "categories_all", "check_id", "check_quantity", "count_requests", "create_table_request",
    "line_problems", "valid_id",
    "new_order_id", "new_token", "order_get", "order_place", "orders_by_customer", "product_get",
    "products_by_brand", "products_by_category", "products_get_many", "reset_client", "stock_decrease",
    "stock_history", "stock_increase", "table_delete", "table_ensure",
]
