from django import forms
from django.contrib.auth.forms import UserCreationForm

from storefront.fields import IdField, WholeNumberField

from .rules import MAX_LINE_QUANTITY


class ProductForm(forms.Form):
    product_id = IdField(error_messages={"invalid": "That product ID is not valid."})


class QuantityForm(ProductForm):
    quantity = WholeNumberField(
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


class SignUpForm(UserCreationForm):
    class Meta(UserCreationForm.Meta):
        fields = ("username",)
