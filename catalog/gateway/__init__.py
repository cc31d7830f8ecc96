"""The DynamoDB gateway: the only code that talks to the single table or builds its keys.

Its public face is this module: one function per access pattern, typed results (frozen
dataclasses), and the exceptions of `errors`, into which every botocore error is turned.
Modules: `client` (the boto3 client, error boundary, batches, retries), `budget` (a web request's
DynamoDB time budget), `schema` (the table
definition), `keys` (every key format), `cursor` (signed page cursors), `validate`,
`entities`, `products`, `stock`, `orders`, `importer`.
"""
from .budget import BudgetExceeded, request_budget
from .client import count_requests, reset_client
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
    IdempotencyConflict,
    InsufficientStock,
    InvalidCursor,
    InvalidId,
    InvalidInput,
    InvalidQuantity,
    LineProblem,
    NotFound,
    OrderRejected,
    OutcomeUnknown,
    StockBusy,
)
from .orders import (
    MAX_LINES,
    customer_put,
    line_problems,
    new_order_id,
    order_confirmation_claim,
    order_get,
    order_place,
    orders_by_customer,
)
from .products import (
    brands_all,
    categories_all,
    product_get,
    products_by_brand,
    products_by_category,
    products_get_many,
)
from .schema import create_table_request, table_delete, table_ensure
from .stock import stock_decrease, stock_history, stock_increase
from .validate import MAX_QUANTITY, MAX_REASON, check_id, check_quantity, new_token, valid_id

__all__ = [
    "MAX_LINES", "MAX_QUANTITY", "MAX_REASON",
    "Brand", "PurchaseLine", "Category", "Order", "OrderLine", "Page", "Product", "StockAdjustment", "StockChange",
    "CatalogError", "CatalogUnavailable", "InsufficientStock", "InvalidCursor", "InvalidId", "InvalidInput",
    "InvalidQuantity", "LineProblem", "NotFound", "OrderRejected", "StockBusy",
    "BudgetExceeded", "IdempotencyConflict", "OutcomeUnknown", "request_budget",
    "brands_all", "categories_all", "check_id", "check_quantity", "count_requests", "create_table_request",
    "customer_put", "line_problems", "new_order_id", "new_token", "order_confirmation_claim", "order_get",
    "order_place", "orders_by_customer", "product_get", "valid_id",
    "products_by_brand", "products_by_category", "products_get_many", "reset_client", "stock_decrease",
    "stock_history", "stock_increase", "table_delete", "table_ensure",
]
