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
]
