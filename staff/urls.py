from django.urls import path

from . import views as staff

urlpatterns = [
    path("", staff.home, name="staff"),
    path("stock/", staff.stock_list, name="staff_stock"),
    path("products/<str:product_id>/stock/", staff.product_stock, name="staff_product_stock"),
]
