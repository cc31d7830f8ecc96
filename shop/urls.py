from django.urls import path

from . import alert_views, paid, views

urlpatterns = [
    path("cart/", views.cart_view, name="cart"),
    path("cart/add/", views.cart_add, name="cart_add"),
    path("cart/update/", views.cart_update, name="cart_update"),
    path("cart/remove/", views.cart_remove, name="cart_remove"),
    path("checkout/", views.checkout, name="checkout"),
    path("checkout/release/", views.checkout_release, name="checkout_release"),
    path("checkout/paid/", paid.checkout_paid, name="checkout_paid"),
    path("account/", views.account, name="account"),
    path("account/orders/", views.order_list, name="orders"),
    path("account/orders/<str:order_id>/", views.order_detail, name="order"),
    # Back-in-stock alerts
    path("products/<str:product_id>/notify/", alert_views.notify, name="product_notify"),
    path("alerts/confirm/<str:token>/", alert_views.confirm, name="alert_confirm"),
    path("alerts/unsubscribe/<str:token>/", alert_views.unsubscribe, name="alert_unsubscribe"),
    path("account/alerts/<str:product_id>/cancel/", alert_views.cancel, name="alert_cancel"),
]
