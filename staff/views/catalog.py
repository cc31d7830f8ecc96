"""The catalog editor's product pages (catalog editors only, staff/models.py): the list (one Query a page,
by brand, category, name or hidden), a new product, and a product's form with its change history. A save is
written only over the version the form showed; if someone saved first, the form comes back (409) with
their values and says so."""
import dataclasses

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render

from catalog import gateway, names
from catalog.gateway import InvalidInput, ProductChanged, ProductExists
from catalog.pictures import picture_checked
from storefront.http import optional_param, partial_template, query_string

from ..catalog_forms import CatalogListForm, NewProductForm, ProductForm, attribute_formset
from ..decorators import READ, READ_AND_POST, staff_view
from ..models import CATALOG

FIELD_LABELS = {"name": "Name", "brand_id": "Brand", "category_id": "Category", "price": "Price",
                "description": "Description", "attributes": "Attributes", "image": "Picture", "published": "Shown"}


@staff_view(READ, permission=CATALOG)
def catalog_list(request):
    """Products by brand (GSI1), category (GSI2), name (the search terms) or hidden ones (GSI1's HIDDEN):
    one Query a page, "Load more" for the next (a cursor)."""
    form = CatalogListForm(request.GET if {"brand", "category", "q", "hidden"} & set(request.GET) else None)
    context = {"form": form, "page": None, "after": optional_param(request, "after"), "next_url": None}
    status = 200
    if form.is_bound and not form.is_valid():
        status = 400
    elif form.is_bound:
        choice = form.cleaned_data
        brand, category, q, hidden = choice["brand"] or None, choice["category"] or None, choice["q"], choice["hidden"]
        after = context["after"]
        if hidden:
            page = gateway.products_hidden(brand_id=brand, category_id=category, after=after)
        elif q:
            page = gateway.products_search(query=q, sort="name", after=after, levels=False)
        elif brand:
            page = gateway.products_by_brand(brand_id=brand, category_id=category, sort="name", after=after)
        else:
            page = gateway.products_by_category(category_id=category, sort="name", after=after)
        more = query_string(brand=brand, category=category, q=q, hidden="on" if hidden else "", after=page.next_cursor)
        context.update(page=page, brand_names=names.brand_names(), category_names=names.category_names(),
                       next_url=request.path + more if page.next_cursor else None)
    template = partial_template(request, "staff/catalog/list.html", "rows" if context["after"] else None)
    return render(request, template, context, status=status)


def _who(request):
    return request.user.get_username()


def _product_context(form, attributes, product=None, **extra):
    history = gateway.product_history(product_id=product.product_id).items if product is not None else []
    return {"form": form, "attributes": attributes, "product": product, "history": history,
            "field_labels": FIELD_LABELS, "brand_names": names.brand_names(),
            "category_names": names.category_names(), **extra}


def _picture(form, product_id):
    """The uploaded picture checked and named (a Picture, stored only once the product is written), or None;
    a refusal is the form's error."""
    upload = form.cleaned_data.get("image")
    if not upload:
        return None
    try:
        return picture_checked(product_id=product_id, upload=upload)
    except ValidationError as error:
        form.add_error("image", error)
        return None


@staff_view(READ_AND_POST, permission=CATALOG, htmx=False)
def catalog_product_new(request):
    attributes = attribute_formset(request.POST if request.method == "POST" else None)
    form = NewProductForm(request.POST or None, request.FILES or None, attributes=attributes,
                          initial={"published": True, "stock_level": 0})
    if request.method != "POST":
        return render(request, "staff/catalog/product_new.html", _product_context(form, attributes))
    if form.is_valid():
        product = form.cleaned_data["product"]
        picture = _picture(form, product.product_id)
        if not form.errors:
            product = dataclasses.replace(product, image=picture.image if picture else "",
                                          published=form.cleaned_data["published"])
            try:
                gateway.product_create(product=product, who=_who(request))
            except ProductExists:
                form.add_error("product_id", "A product with this ID exists already.")
            except InvalidInput as exc:
                form.add_error(None, str(exc))
            else:
                if picture:
                    picture.store()
                messages.success(request, f"{product.name} was created.")
                return redirect("staff_catalog_product", product_id=product.product_id)
    return render(request, "staff/catalog/product_new.html", _product_context(form, attributes), status=400)


def _form_for(product, data=None, files=None):
    attributes = attribute_formset(data, product.attributes)
    initial = {"name": product.name, "brand_id": product.brand_id, "category_id": product.category_id,
               "price": f"{product.price:.2f}", "description": product.description, "published": product.published,
               "version": product.version}
    return ProductForm(data, files, attributes=attributes, initial=initial), attributes


@staff_view(READ_AND_POST, permission=CATALOG, htmx=False)
def catalog_product(request, product_id):
    """GET: the product's form and its change history (newest first). POST: save it (a 400 and nothing
    written if a field is wrong; a 409 with the current values if someone saved first)."""
    gateway.check_id("Product", product_id)
    if request.method != "POST":
        product = gateway.product_get(product_id=product_id)
        form, attributes = _form_for(product)
        return render(request, "staff/catalog/product.html", _product_context(form, attributes, product))
    attributes = attribute_formset(request.POST)
    form = ProductForm(request.POST, request.FILES, attributes=attributes)
    if form.is_valid():
        new = form.cleaned_data["product"]
        changes = {"name": new.name, "brand_id": new.brand_id, "category_id": new.category_id, "price": new.price,
                   "description": new.description, "attributes": new.attributes,
                   "published": form.cleaned_data["published"]}
        picture = _picture(form, product_id)
        if picture:
            changes["image"] = picture.image
        if not form.errors:
            try:
                gateway.product_update(product_id=product_id, version=form.cleaned_data["version"],
                                       who=_who(request), changes=changes)
            except ProductChanged as exc:
                return _changed_meanwhile(request, exc.current)
            except InvalidInput as exc:
                form.add_error(None, str(exc))
            else:
                if picture:
                    picture.store()
                messages.success(request, "Saved.")
                return redirect("staff_catalog_product", product_id=product_id)
    product = gateway.product_get(product_id=product_id)  # the page around the form (an unknown ID: 404)
    return render(request, "staff/catalog/product.html", _product_context(form, attributes, product), status=400)


def _changed_meanwhile(request, current):
    """Someone saved the product since this form was shown: nothing was written; the form shows their
    values (and their version) to edit again."""
    form, attributes = _form_for(current)
    context = _product_context(form, attributes, current, conflict=True)
    return render(request, "staff/catalog/product.html", context, status=409)

