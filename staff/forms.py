"""Staff forms: what a stock page accepts, checked before anything reaches the gateway."""
from django import forms

from catalog import gateway, names
from storefront.fields import IdField, WholeNumberField

INCREASE = "increase"
DECREASE = "decrease"
EXPIRED = "This form has expired; check it and submit it again."


class FindProductForm(forms.Form):
    """/staff/stock/?product=<id>"""

    product = IdField(what="Product", label="Product ID")


class StockListForm(forms.Form):
    """/staff/stock/?brand=<id>&category=<id>: a brand's or a category's products (or both)."""

    brand = forms.ChoiceField(required=False)
    category = forms.ChoiceField(required=False)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["brand"].choices = [("", "Any brand")] + [(b.brand_id, b.name) for b in names.brands()]
        self.fields["category"].choices = [("", "Any category")] + [
            (c.category_id, c.name) for c in names.categories()
        ]

    def clean(self):
        cleaned = super().clean()
        if not (cleaned.get("brand") or cleaned.get("category")) and not self.errors:
            raise forms.ValidationError("Choose a brand or a category.")
        return cleaned


class StockAdjustmentForm(forms.Form):
    """One stock adjustment. `token` is the idempotency key: a new one on each render of a
    fresh form, so a double click or a resubmission applies the adjustment once."""

    action = forms.ChoiceField(
        choices=[(INCREASE, "Increase: a shipment arrived"), (DECREASE, "Decrease: damage, loss or a correction")],
        widget=forms.RadioSelect,
    )
    quantity = WholeNumberField(
        min_value=1, max_value=gateway.MAX_QUANTITY, widget=forms.NumberInput(attrs={"step": 1})
    )
    reason = forms.CharField(
        max_length=gateway.MAX_REASON, required=False, help_text="Required for a decrease."
    )
    token = IdField(
        widget=forms.HiddenInput, error_messages={"required": EXPIRED, "invalid": EXPIRED, "max_length": EXPIRED}
    )
    # The level the page showed: a hint that saves the gateway a read (a wrong one costs a retry).
    # Missing: no hint; unreadable (the form was altered): a form error.
    seen_level = WholeNumberField(
        required=False, min_value=0, max_value=10**15, widget=forms.HiddenInput,
        error_messages={"invalid": EXPIRED, "min_value": EXPIRED, "max_value": EXPIRED},
    )

    @classmethod
    def fresh(cls):
        return cls(initial={"action": INCREASE, "token": gateway.new_token()})

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("action") == DECREASE and not cleaned.get("reason"):
            self.add_error("reason", "Give a reason for a decrease.")
        return cleaned
