from django.urls import path

from . import views

urlpatterns = [
    path("", views.home, name="home"),
    path("brands/<str:brand_id>/", views.brand_detail, name="brand"),
    path("categories/<str:category_id>/", views.category_detail, name="category"),
    path("products/<str:product_id>/", views.product_detail, name="product"),
    path("search/", views.search, name="search"),
    path("placeholder/<str:initial>-<int:colour>.svg", views.placeholder, name="placeholder"),
]
