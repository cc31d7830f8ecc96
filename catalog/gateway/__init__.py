"""The DynamoDB gateway: the only code that talks to the single table or builds its keys.

Its public face is this module: what the apps use, one function per access pattern, typed results
(frozen dataclasses), and the exceptions of `errors`, into which every botocore error is turned. Views,
commands and middleware import from here only (.importlinter); tests may reach further in.

Layout, lowest first (each imports only those below it):
- `keys` (every key format), `errors`, `validate` (IDs, quantities, texts), `lines` (purchase-line
  checks and LineProblem);
- `dynamo/`: reaching DynamoDB (client, boundary, outcomes, budget, backoff, batches, threads, codec,
  wire, telemetry, transact, pages, merged, cursor; `testing` for tests and benchmarks);
- `catalog/`: products, brands, categories (entities, products, text, counts);
- `alerts/`: back-in-stock alerts;
- `stock/`: levels and the ledger (stock, entities), taking units (takes: the Take Protocol), buckets,
  holds and their limits, receiving, reconcile;
- `orders/` (orders, entities) and `catalog/importer` (the catalog import);
- `table/`: the table's definition (schema), its migrations (runner, steps) and their backfills.
"""
from .alerts import (
    FAILED,
    MAX_EMAIL,
    AlertRefused,
    alert_ask,
    alert_cancel,
    alert_confirm,
    alert_counts,
    alert_get,
    alert_give_up,
    alert_lease,
    alert_mark_sent,
    alerts_claim,
    alerts_due,
    alerts_of_owner,
    alerts_outbox,
)
from .catalog import importer
from .catalog.bulk import Applied, Planned, plan_apply, plan_price_change, plan_products, products_every
from .catalog.counts import counts_recount
from .catalog.editor import (
    EDITABLE,
    ProductChanged,
    ProductEdit,
    ProductExists,
    brand_save,
    category_save,
    product_create,
    product_history,
    product_update,
    products_hidden,
)
from .catalog.entities import Brand, Category, Product
from .catalog.import_file import MAX_ATTRIBUTES, check_product
from .catalog.pending_terms import terms_pending_all
from .catalog.products import (
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
from .catalog.text import MAX_QUERY, MIN_TERM, fold, has_control_characters
from .dynamo import budget, client, codec
from .dynamo.budget import BudgetExceeded, request_budget
from .dynamo.client import table_name
from .dynamo.pages import Page
from .dynamo.telemetry import tallying
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
from .keys import MAX_STOCK_BUCKETS
from .lines import MAX_LINES, LineProblem, line_problems
from .orders.customers import ADDRESS_FIELDS, customer_put
from .orders.entities import Order, OrderLine, Payment, PurchaseLine
from .orders.fulfilment import order_cancel, order_ship, orders_open, product_buyers, product_buyers_all
from .orders.lookup import order_get_by_id, order_get_by_number
from .orders.numbers import order_number_clean, order_number_for
from .orders.orders import (
    new_order_id,
    order_confirmation_claim,
    order_get,
    order_place,
    orders_by_customer,
)
from .payments import entities as payment_states
from .payments.entities import PendingPayment
from .payments.events import payment_event_claim, payment_event_handled, payment_event_release
from .payments.orders import order_payment_update
from .payments.pending import (
    payment_pending_findable,
    payment_pending_get,
    payment_pending_intent,
    payment_pending_put,
    payment_pending_settle,
    payments_pending,
)
from .stock import receiving, reconcile
from .stock.buckets import stock_set_buckets
from .stock.entities import MANUAL_REASONS, REASON_LABELS, REASONS, RECEIVED, Sale, StockAdjustment, StockChange
from .stock.history import (
    MAX_LEDGER_DAYS,
    check_day_range,
    stock_history,
    stock_history_all,
    stock_ledger,
    stock_moves_since,
)
from .stock.holds import holds_enabled, holds_release, holds_take
from .stock.releases import holds_all, holds_release_ended, holds_released, units_held
from .stock.reorder import product_set_reorder_point, products_to_reorder
from .stock.stock import stock_count, stock_decrease, stock_increase
from .table import create_table_request, table_ensure
from .validate import (
    MAX_NOTE,
    MAX_QUANTITY,
    MAX_REFERENCE,
    MAX_REORDER,
    check_id,
    new_token,
    valid_id,
)

__all__ = [
    "budget", "client", "codec", "keys",  # modules the apps configure or read keys with
    "importer", "receiving", "reconcile",  # the catalog import, receiving files and reconciling (commands, staff)
    "table_name", "tallying", "fold", "has_control_characters",
    "holds_all", "holds_enabled", "holds_release", "holds_release_ended", "holds_released", "holds_take",
    "units_held",
    "terms_pending_all",  # an edit's search terms left pending (run_stock_jobs)
    "FAILED", "MAX_EMAIL", "AlertRefused", "alert_ask", "alert_cancel", "alert_confirm", "alert_counts", "alert_get",
    "alert_give_up", "alert_lease", "alert_mark_sent", "alerts_claim", "alerts_due", "alerts_of_owner",
    "alerts_outbox",
    "ADDRESS_FIELDS", "MAX_LINES", "MAX_QUANTITY", "MAX_NOTE", "MAX_REFERENCE", "MAX_REORDER", "MAX_LEDGER_DAYS",
    "MANUAL_REASONS", "REASON_LABELS", "REASONS",
    "RECEIVED", "OrderStatusRefused", "StockMoved",
    "check_day_range", "order_cancel", "order_ship", "orders_open", "product_set_reorder_point",
    "products_to_reorder", "stock_count", "stock_history_all", "stock_ledger", "stock_moves_since",
    "check_sort", "counts_recount", "MAX_QUERY", "MIN_TERM",
    "products_search", "search_words", "with_stock_levels",
    "Brand", "PurchaseLine", "Category", "Order", "OrderLine", "Page", "Product", "StockAdjustment", "StockChange",
    "CatalogError", "CatalogUnavailable", "InsufficientStock", "InvalidCursor", "InvalidId", "InvalidInput",
    "InvalidQuantity", "LineProblem", "NotFound", "OrderRejected", "StockBusy",
    "BudgetExceeded", "IdempotencyConflict", "OutcomeUnknown", "request_budget",
    "brands_all", "categories_all", "check_id", "create_table_request",
    "customer_put", "line_problems", "new_order_id", "new_token", "order_confirmation_claim", "order_get",
    "order_get_by_id", "order_get_by_number", "order_number_clean", "order_number_for",
    "order_place", "orders_by_customer", "product_get", "valid_id",
    "products_by_brand", "products_by_category", "products_get_many", "stock_decrease",
    "stock_history", "stock_increase", "table_ensure",
    "Sale", "product_buyers", "product_buyers_all",  # who bought what
    "MAX_STOCK_BUCKETS", "stock_set_buckets",
    # the staff catalog editor
    "EDITABLE", "ProductChanged", "ProductEdit", "ProductExists", "brand_save", "category_save", "product_create",
    "product_history", "product_update", "products_hidden",
    "Applied", "Planned", "plan_apply", "plan_price_change", "plan_products", "products_every", "check_product",
    "MAX_ATTRIBUTES",
    # card payments: checkouts waiting for their payment, the payment on an order, the provider's events
    "Payment", "PendingPayment", "payment_states", "order_payment_update", "payment_event_claim",
    "payment_event_release", "payment_pending_get", "payment_pending_intent", "payment_pending_put",
    "payment_pending_settle", "payments_pending", "payment_event_handled", "payment_pending_findable",
]
