from django.urls import path

from . import views as staff

urlpatterns = [
    path("", staff.home, name="staff"),
    path("stock/", staff.stock_list, name="staff_stock"),
    path("products/<str:product_id>/stock/", staff.product_stock, name="staff_product_stock"),
    path("products/<str:product_id>/stocktake/", staff.product_stocktake, name="staff_product_stocktake"),
    path("products/<str:product_id>/reorder-point/", staff.product_reorder_point, name="staff_reorder_point"),
    path("products/<str:product_id>/stock-buckets/", staff.product_stock_buckets, name="staff_stock_buckets"),
    path("products/<str:product_id>/stock/history.csv", staff.product_history_csv, name="staff_product_history_csv"),
    path("products/<str:product_id>/buyers/", staff.product_buyers, name="staff_product_buyers"),
    path("reorder/", staff.reorder_list, name="staff_reorder"),
    path("orders/", staff.order_list, name="staff_orders"),
    path("orders/<str:customer_id>/<str:order_id>/", staff.order_detail, name="staff_order"),
    path("receive/", staff.receive, name="staff_receive"),
    path("receive/continue/", staff.receive_continue, name="staff_receive_continue"),
    path("ledger/", staff.ledger, name="staff_ledger"),
    # the catalog editor (catalog editors only)
    path("catalog/", staff.catalog_list, name="staff_catalog"),
    path("catalog/products/new/", staff.catalog_product_new, name="staff_catalog_product_new"),
    path("catalog/products/<str:product_id>/", staff.catalog_product, name="staff_catalog_product"),
    path("catalog/brands/", staff.catalog_brands, name="staff_catalog_brands"),
    path("catalog/categories/", staff.catalog_categories, name="staff_catalog_categories"),
    path("catalog/export.csv", staff.catalog_export, name="staff_catalog_export"),
    path("catalog/import/", staff.catalog_import, name="staff_catalog_import"),
    path("catalog/prices/", staff.catalog_prices, name="staff_catalog_prices"),
]
