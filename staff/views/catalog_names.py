"""The catalog editor's brands and categories pages: each with its product count (from the count maps the
brand and category items keep, read with the list: one Query), a form to create one and one to rename."""
from django.contrib import messages
from django.shortcuts import redirect, render

from catalog import gateway, names
from catalog.gateway import InvalidInput, NotFound

from ..catalog_forms import NameForm
from ..decorators import READ_AND_POST, staff_view
from ..models import CATALOG

KINDS = {
    "brand": {"list": gateway.brands_all, "save": gateway.brand_save, "id": "brand_id", "url": "staff_catalog_brands",
              "title": "Brands", "one": "brand", "shop_url": "brand"},
    "category": {"list": gateway.categories_all, "save": gateway.category_save, "id": "category_id",
                 "url": "staff_catalog_categories", "title": "Categories", "one": "category", "shop_url": "category"},
}


def _names_page(request, kind):
    spec = KINDS[kind]
    status = 200
    form = NameForm(request.POST or None) if request.method == "POST" else NameForm(initial={"create": True})
    if request.method == "POST":
        status = 400
        if form.is_valid():
            data = form.cleaned_data
            try:
                spec["save"](**{spec["id"]: data["entity_id"]}, name=data["name"], create=data["create"])
            except (InvalidInput, NotFound) as exc:
                form.add_error("entity_id", f"{exc}.")
            else:
                names.forget()  # this process's lists show it at once; others within the names cache's time
                done = "created" if data["create"] else "renamed"
                messages.success(request, f"The {spec['one']} {data['name']} was {done}.")
                return redirect(spec["url"])
    entities = spec["list"]()
    rows = [(getattr(e, spec["id"]), e.name, e.product_count) for e in entities]
    return render(request, "staff/catalog/names.html",
                  {"form": form, "rows": rows, "kind": kind, "spec": spec}, status=status)


@staff_view(READ_AND_POST, permission=CATALOG, htmx=False)
def catalog_brands(request):
    return _names_page(request, "brand")


@staff_view(READ_AND_POST, permission=CATALOG, htmx=False)
def catalog_categories(request):
    return _names_page(request, "category")
