from django import forms
from django.contrib.auth.forms import UserCreationForm

from catalog.gateway.keys import ID_PATTERN

from .cart import MAX_LINE_QUANTITY

ID_REGEX = rf"^{ID_PATTERN.pattern}$"


class ProductForm(forms.Form):
    product_id = forms.RegexField(regex=ID_REGEX, error_messages={"invalid": "That product ID is not valid."})


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
    order_id = forms.RegexField(regex=ID_REGEX)
    token = forms.RegexField(regex=ID_REGEX)


class SignUpForm(UserCreationForm):
    class Meta(UserCreationForm.Meta):
        fields = ("username",)
