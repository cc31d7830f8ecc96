"""The catalog editor's forms: a product (its attributes a formset, prefix `attributes`), a brand or a
category, the list's filters, a CSV upload and a price change by percent. A product's fields are checked
by the catalog import's own rules (gateway.check_product), so the editor and the importer agree."""
import re
from decimal import Decimal

from django import forms

from catalog import gateway, names
from catalog.pictures import PictureField
from common.numbers import Unreadable, parse_decimal
from storefront.fields import IdField

MAX_PERCENT = Decimal("1000")
# The import's names of a product's fields -> the form's.
FIELD_OF = {"productId": "product_id", "name": "name", "brandId": "brand_id", "categoryId": "category_id",
            "price": "price", "stockLevel": "stock_level", "description": "description"}
WHOLE, DECIMAL = re.compile(r"-?[1-9][0-9]{0,17}|0"), re.compile(r"-?(?:[1-9][0-9]{0,17}|0)\.[0-9]{1,10}")


def attribute_value(text):
    """What staff type as an attribute's value, as the catalog keeps it: a whole number, a decimal,
    true/false, or text (so an attribute imported as a number stays one when its form is saved)."""
    if WHOLE.fullmatch(text):
        return int(text)
    if DECIMAL.fullmatch(text):
        return Decimal(text)
    return {"true": True, "false": False}.get(text, text)


def shown_value(value):
    """An attribute's value as its form field shows it (attribute_value reads it back the same)."""
    return {True: "true", False: "false"}.get(value, str(value)) if isinstance(value, bool) else str(value)


def problem_text(problem, path):
    """An import rule's message ("product.price: '1,2' is not a price ...") without its path."""
    return problem.split(": ", 1)[1] if problem.startswith(path) and ": " in problem else problem


def _brand_choices():
    return [("", "Choose a brand")] + [(b.brand_id, b.name) for b in names.brands()]


def _category_choices():
    return [("", "Choose a category")] + [(c.category_id, c.name) for c in names.categories()]


class AttributeForm(forms.Form):
    name = forms.CharField(required=False, max_length=64, label="Name")
    value = forms.CharField(required=False, max_length=500, label="Value")

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("value") and not cleaned.get("name"):
            self.add_error("name", "Give the value a name, or clear the value.")
        return cleaned


AttributeFormSet = forms.formset_factory(AttributeForm, extra=3, max_num=gateway.MAX_ATTRIBUTES,
                                         validate_max=True)


def attribute_formset(data=None, attributes=None):
    initial = [{"name": k, "value": shown_value(v)} for k, v in (attributes or {}).items()]
    return AttributeFormSet(data, initial=initial or None, prefix="attributes")


class ProductForm(forms.Form):
    """What staff may change of a product: everything but its ID and its stock."""

    name = forms.CharField(max_length=200)
    brand_id = forms.ChoiceField(label="Brand")
    category_id = forms.ChoiceField(label="Category")
    price = forms.CharField(max_length=20, help_text="In euros, such as 19.99.")
    description = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 5}), max_length=2000)
    published = forms.BooleanField(required=False, label="Shown in the shop",
                                   help_text="Clear it to hide the product: no list, count or search shows it.")
    image = PictureField(required=False, label="Picture")
    version = forms.IntegerField(widget=forms.HiddenInput, min_value=0)

    def __init__(self, *args, attributes=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["brand_id"].choices = _brand_choices()
        self.fields["category_id"].choices = _category_choices()
        self.attributes = attributes  # the bound AttributeFormSet

    def raw_product(self):
        """The product as the import file would give it, for gateway.check_product."""
        data = self.cleaned_data
        attributes = {}
        for row in self.attributes.cleaned_data if self.attributes.is_valid() else []:
            if row.get("name"):
                attributes[row["name"].strip()] = attribute_value(row.get("value", "").strip())
        return {"productId": data.get("product_id", "placeholder"), "name": data.get("name"),
                "brandId": data.get("brand_id"), "categoryId": data.get("category_id"),
                "price": data.get("price", "").strip(), "description": data.get("description", ""),
                "attributes": attributes, "stockLevel": data.get("stock_level") or 0}

    def clean(self):
        cleaned = super().clean()
        if self.errors or not self.attributes.is_valid():
            return cleaned
        product, problems = gateway.check_product(
            self.raw_product(), path="product", brand_ids=[c for c, _ in self.fields["brand_id"].choices if c],
            category_ids=[c for c, _ in self.fields["category_id"].choices if c])
        for problem in problems:
            field = problem.split(":", 1)[0].removeprefix("product.").split(".", 1)[0]
            self.add_error(FIELD_OF.get(field) if FIELD_OF.get(field) in self.fields else None,
                           problem_text(problem, f"product.{field}"))
        cleaned["product"] = product
        return cleaned


class NewProductForm(ProductForm):
    product_id = IdField(what="Product", label="Product ID")
    stock_level = forms.IntegerField(min_value=0, max_value=gateway.MAX_QUANTITY, initial=0,
                                     label="Opening stock level")
    version = forms.IntegerField(widget=forms.HiddenInput, required=False)

    field_order = ["product_id", "name", "brand_id", "category_id", "price", "stock_level"]


class NameForm(forms.Form):
    """Create a brand or category (`create`), or rename one."""

    entity_id = IdField(what="ID", label="ID")
    name = forms.CharField(max_length=200)
    create = forms.BooleanField(required=False, widget=forms.HiddenInput)

    def clean_name(self):
        name = self.cleaned_data["name"].strip()
        if gateway.has_control_characters(name):
            raise forms.ValidationError("Use one line of letters, digits, spaces and punctuation.")
        return name


class CatalogListForm(forms.Form):
    """/staff/catalog/?brand=&category=&q=&hidden=: one list, one Query a page."""

    brand = forms.ChoiceField(required=False)
    category = forms.ChoiceField(required=False)
    q = forms.CharField(required=False, max_length=gateway.MAX_QUERY, label="Name starts with")
    hidden = forms.BooleanField(required=False, label="Hidden products only")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["brand"].choices = [("", "Any brand")] + _brand_choices()[1:]
        self.fields["category"].choices = [("", "Any category")] + _category_choices()[1:]

    def clean(self):
        cleaned = super().clean()
        q = (cleaned.get("q") or "").strip()
        if q and (cleaned.get("brand") or cleaned.get("category") or cleaned.get("hidden")):
            raise forms.ValidationError("Search by name alone, or choose a brand or a category.")
        if q and gateway.search_words(q)[1] is None:
            self.add_error("q", f"Type at least {gateway.MIN_TERM} letters or digits.")
        if cleaned.get("hidden") and cleaned.get("category") and not cleaned.get("brand"):
            raise forms.ValidationError("Hidden products are listed by brand: choose a brand, or none.")
        cleaned["q"] = q
        return cleaned


class UploadForm(forms.Form):
    file = forms.FileField(label="CSV file", help_text="UTF-8, with a header row; as the export writes it.")


class PriceChangeForm(forms.Form):
    """A price change by percent for a brand's or a category's products."""

    brand = forms.ChoiceField(required=False)
    category = forms.ChoiceField(required=False)
    percent = forms.CharField(max_length=12, help_text="Such as 5 for 5% more, or -10 for 10% less.")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["brand"].choices = [("", "No brand")] + _brand_choices()[1:]
        self.fields["category"].choices = [("", "No category")] + _category_choices()[1:]

    def clean_percent(self):
        text = self.cleaned_data["percent"].strip()
        negative = text.startswith("-")
        try:
            value = parse_decimal(text.lstrip("-+"), maximum=MAX_PERCENT, places=2)
        except Unreadable:
            raise forms.ValidationError("A percentage such as 5 or -10 (at most 2 decimals).") from None
        value = -value if negative else value
        if value <= -100 or value == 0:
            raise forms.ValidationError("A change above -100% that is not 0.")
        return value

    def clean(self):
        cleaned = super().clean()
        if bool(cleaned.get("brand")) == bool(cleaned.get("category")) and not self.errors:
            raise forms.ValidationError("Choose a brand or a category (one of them).")
        return cleaned
