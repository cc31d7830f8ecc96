from django.shortcuts import render

from . import gateway


def home(request):
    return render(request, "catalog/home.html", {"brands": gateway.brands_all(), "categories": gateway.categories_all()})
