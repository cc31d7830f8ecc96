from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.forms import BoundField

from storefront.fields import IdField

from .rules import MAX_LINE_QUANTITY


class ProductForm(forms.Form):
    product_id = IdField(error_messages={"invalid": "That product ID is not valid."})


class QuantityForm(ProductForm):
    quantity = forms.IntegerField(
        min_value=1,
        max_value=MAX_LINE_QUANTITY,
        error_messages={
            "required": "Enter a quantity.",
            "invalid": "The quantity must be a whole number.",
            "min_value": "The quantity must be at least 1.",
            "max_value": f"At most {MAX_LINE_QUANTITY} of one product.",
        },
    )


class CheckoutForm(forms.Form):
    order_id = IdField()
    token = IdField()


class DescribedBoundField(BoundField):
    """A field whose aria-describedby names its error message as well as its help text (Django 5.2
    names the help text only); the template gives them the IDs `<id>_error` and `<id>_helptext`."""

    def build_widget_attrs(self, attrs, widget=None):
        attrs = super().build_widget_attrs(attrs, widget)
        if self.errors and self.auto_id:
            described = [f"{self.auto_id}_error"] + ([f"{self.auto_id}_helptext"] if self.help_text else [])
            attrs["aria-describedby"] = " ".join(described)
        return attrs


class SignUpForm(UserCreationForm):
    bound_field_class = DescribedBoundField

    class Meta(UserCreationForm.Meta):
        fields = ("username",)
