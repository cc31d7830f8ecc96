"""The DynamoDB gateway: the only code that talks to the single table or builds its keys.

Its public face is this module: one function per access pattern, typed results (frozen
dataclasses), and the exceptions of `errors`, into which every botocore error is turned.
Modules: `client` (the boto3 client, error boundary, batches, retries), `budget` (a web request's
DynamoDB time budget), `schema` (the table
definition), `keys` (every key format), `cursor` (signed page cursors), `validate`,
`entities`, `products`, `stock`, `orders`, `importer`, `text` (name order and search terms),
`counts` (recounting the brand and category counts).
"""
from .budget import BudgetExceeded, request_budget
from .client import count_requests, reset_client
from .counts import Drift, counts_recount
from .entities import (
    CANCELLED,
    COUNTED,
    DAMAGED,
    MANUAL_REASONS,
    OPENING,
    PLACED,
    REASON_LABELS,
    REASONS,
    RECEIVED,
    RETURNED,
    SHIPPED,
    SOLD,
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
    NotFound,
    OrderRejected,
    OrderStatusRefused,
    OutcomeUnknown,
    StockBusy,
    StockMoved,
)
from .orders import (
    ADDRESS_FIELDS,
    MAX_LINES,
    LineProblem,
    customer_put,
    line_problems,
    new_order_id,
    order_cancel,
    order_confirmation_claim,
    order_get,
    order_get_by_id,
    order_get_by_number,
    order_number_clean,
    order_number_for,
    order_place,
    order_ship,
    orders_by_customer,
    orders_open,
)
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
    with_stock_levels,
)
from .schema import create_table_request, table_delete, table_ensure
from .stock import (
    MAX_LEDGER_DAYS,
    check_day_range,
    product_set_reorder_point,
    products_to_reorder,
    stock_count,
    stock_decrease,
    stock_history,
    stock_history_all,
    stock_increase,
    stock_ledger,
    stock_moves_since,
)
from .validate import (
    MAX_NOTE,
    MAX_QUANTITY,
    MAX_REFERENCE,
    MAX_REORDER,
    check_id,
    check_quantity,
    new_token,
    valid_id,
)

__all__ = [
    "ADDRESS_FIELDS", "MAX_LINES", "MAX_QUANTITY", "MAX_NOTE", "MAX_REFERENCE", "MAX_REORDER", "MAX_LEDGER_DAYS",
    "CANCELLED", "COUNTED", "DAMAGED", "MANUAL_REASONS", "OPENING", "PLACED", "REASON_LABELS", "REASONS",
    "RECEIVED", "RETURNED", "SHIPPED", "SOLD", "OrderStatusRefused", "StockMoved",
    "check_day_range", "order_cancel", "order_ship", "orders_open", "product_set_reorder_point",
    "products_to_reorder", "stock_count", "stock_history_all", "stock_ledger", "stock_moves_since",
    "SORTS", "Drift", "check_sort", "counts_recount",
    "products_search", "search_words", "with_stock_levels",
    "Brand", "PurchaseLine", "Category", "Order", "OrderLine", "Page", "Product", "StockAdjustment", "StockChange",
    "CatalogError", "CatalogUnavailable", "InsufficientStock", "InvalidCursor", "InvalidId", "InvalidInput",
    "InvalidQuantity", "LineProblem", "NotFound", "OrderRejected", "StockBusy",
    "BudgetExceeded", "IdempotencyConflict", "OutcomeUnknown", "request_budget",
    "brands_all", "categories_all", "check_id", "check_quantity", "count_requests", "create_table_request",
    "customer_put", "line_problems", "new_order_id", "new_token", "order_confirmation_claim", "order_get",
    "order_get_by_id", "order_get_by_number", "order_number_clean", "order_number_for",
    "order_place", "orders_by_customer", "product_get", "valid_id",
    "products_by_brand", "products_by_category", "products_get_many", "reset_client", "stock_decrease",
    "stock_history", "stock_increase", "table_delete", "table_ensure",
]
