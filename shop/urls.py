from django.urls import path

from . import views

urlpatterns = [
    path("cart/", views.cart_view, name="cart"),
    path("cart/add/", views.cart_add, name="cart_add"),
    path("cart/update/", views.cart_update, name="cart_update"),
    path("cart/remove/", views.cart_remove, name="cart_remove"),
    path("checkout/", views.checkout, name="checkout"),
    path("account/", views.account, name="account"),
    path("account/orders/", views.order_list, name="orders"),
    path("account/orders/<str:order_id>/", views.order_detail, name="order"),
]
