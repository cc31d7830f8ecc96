"""Staff pages, signed-in staff with a second factor only (staff/decorators.py), by area: stock,
orders, reports, receiving, and the catalog editor (catalog, catalog_names, catalog_files). staff/urls.py
routes to the views named here."""
from ..decorators import staff_required
from .catalog import catalog_list, catalog_product, catalog_product_new
from .catalog_files import catalog_export, catalog_import, catalog_prices
from .catalog_names import catalog_brands, catalog_categories
from .orders import order_detail, order_list, product_buyers
from .receiving import receive, receive_continue
from .reports import ledger, product_history_csv, reorder_list
from .stock import (
    home,
    product_reorder_point,
    product_stock,
    product_stock_buckets,
    product_stocktake,
    stock_list,
)

__all__ = [
    "home", "ledger", "order_detail", "order_list", "product_buyers", "product_history_csv", "product_reorder_point",
    "product_stock", "product_stock_buckets", "product_stocktake", "receive", "receive_continue", "reorder_list",
    "staff_required", "stock_list",
    "catalog_brands", "catalog_categories", "catalog_export", "catalog_import", "catalog_list", "catalog_prices",
    "catalog_product", "catalog_product_new",
]
