"""Staff forms: what a stock page accepts, checked before anything reaches the gateway."""
from datetime import UTC, datetime, timedelta

from django import forms

from catalog import gateway, names
from common.numbers import Unreadable, parse_decimal
from storefront.fields import IdField, WholeNumberField

INCREASE = "increase"
DECREASE = "decrease"
EXPIRED = "This form has expired; check it and submit it again."


class FindProductForm(forms.Form):
    """/staff/stock/?product=<id>"""

    product = IdField(what="Product", label="Product ID")


class FindOrderForm(forms.Form):
    """/staff/orders/?number=<order number>: the number a customer reads out (any case, spaces or
    hyphens), or an order's internal ID."""

    number = forms.CharField(
        label="Order number", max_length=64,
        error_messages={"required": "Enter an order number.", "max_length": "An order number is 8 characters."},
    )

    def clean_number(self):
        text = self.cleaned_data["number"].strip()
        number = gateway.order_number_clean(text)
        if number:
            return number
        if gateway.valid_id(text):
            return text  # an internal order ID (a stock change's reference)
        raise forms.ValidationError("An order number is 8 letters and digits, such as K7QM4XPD.")


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


class PageStateForm(forms.Form):
    """A form with hidden fields the page wrote (its token, the level and reorder point it showed,
    when it was opened): one of them wrong means the form was altered or is stale, which the form's
    own errors (where the page shows them) say once: "expired". The field keeps its error too (a
    wrong token is replaced before the form is shown again)."""

    def non_field_errors(self):
        errors = super().non_field_errors()
        hidden_wrong = any(name in self.fields and self.fields[name].widget.is_hidden for name in self.errors)
        if hidden_wrong and EXPIRED not in errors:
            errors = self.error_class([*errors, EXPIRED], error_class="nonfield", renderer=self.renderer)
        return errors


def _seen_reorder_point():
    """The hidden reorder point a stock form showed (empty: none stored); read by the one parser,
    an altered one is the form's "expired" error."""
    return WholeNumberField(
        required=False, min_value=0, max_value=gateway.MAX_REORDER, widget=forms.HiddenInput,
        error_messages={"invalid": EXPIRED, "min_value": EXPIRED, "max_value": EXPIRED},
    )


def _reason_choices(codes):
    return [(code, gateway.REASON_LABELS[code]) for code in codes]


class StockAdjustmentForm(PageStateForm):
    """One stock adjustment. `token` is the idempotency key: a new one on each render of a
    fresh form, so a double click or a resubmission applies the adjustment once. `reason` is a
    code that fits a manual change (`sold` and `cancelled` only come from orders)."""

    action = forms.ChoiceField(
        choices=[(INCREASE, "Increase"), (DECREASE, "Decrease")],
        widget=forms.RadioSelect,
    )
    quantity = WholeNumberField(
        min_value=1, max_value=gateway.MAX_QUANTITY, widget=forms.NumberInput(attrs={"step": 1})
    )
    reason = forms.ChoiceField(
        choices=[("", "Choose a reason")] + _reason_choices(gateway.MANUAL_REASONS), required=False,
        help_text="Received and returned add stock (an increase without a reason is received), damaged removes "
        "it, counted goes either way. Required for a decrease.",
    )
    reference = forms.CharField(
        max_length=gateway.MAX_REFERENCE, required=False, help_text="A purchase order, an order ID… (optional)"
    )
    note = forms.CharField(max_length=gateway.MAX_NOTE, required=False, widget=forms.Textarea(attrs={"rows": 2}))
    token = IdField(
        widget=forms.HiddenInput, error_messages={"required": EXPIRED, "invalid": EXPIRED, "max_length": EXPIRED}
    )
    # The level the page showed: a hint that saves the gateway a read (a wrong one costs a retry).
    # Missing: no hint; unreadable (the form was altered): a form error.
    seen_level = WholeNumberField(
        required=False, min_value=0, max_value=10**15, widget=forms.HiddenInput,
        error_messages={"invalid": EXPIRED, "min_value": EXPIRED, "max_value": EXPIRED},
    )
    # The reorder point the page showed (empty: none stored): a hint too; altered, a form error.
    seen_reorder_point = _seen_reorder_point()

    @classmethod
    def fresh(cls):
        return cls(initial={"action": INCREASE, "reason": gateway.RECEIVED, "token": gateway.new_token()})

    def clean(self):
        cleaned = super().clean()
        action, reason = cleaned.get("action"), cleaned.get("reason")
        if action == INCREASE and not reason and "reason" not in self.errors:
            cleaned["reason"] = reason = gateway.RECEIVED
        if action == DECREASE and not reason and "reason" not in self.errors:
            self.add_error("reason", "Give a reason for a decrease.")
        if action and reason:
            direction = gateway.MANUAL_REASONS[reason]
            if direction and direction != (1 if action == INCREASE else -1):
                kind = "an increase" if direction > 0 else "a decrease"
                self.add_error("reason", f"“{gateway.REASON_LABELS[reason]}” is a reason for {kind}.")
        return cleaned


class StocktakeForm(PageStateForm):
    """A stocktake: the quantity counted, against the level the form showed (`seen_level`, the
    compare-and-set's compare) and the time it was shown (`opened_at`: the moves since)."""

    counted = WholeNumberField(min_value=0, max_value=gateway.MAX_QUANTITY, label="Counted",
                                 widget=forms.NumberInput(attrs={"step": 1}))
    note = forms.CharField(max_length=gateway.MAX_NOTE, required=False)
    token = IdField(
        widget=forms.HiddenInput, error_messages={"required": EXPIRED, "invalid": EXPIRED, "max_length": EXPIRED}
    )
    seen_level = WholeNumberField(
        min_value=0, max_value=10**15, widget=forms.HiddenInput,
        error_messages={"required": EXPIRED, "invalid": EXPIRED, "min_value": EXPIRED, "max_value": EXPIRED},
    )
    seen_reorder_point = _seen_reorder_point()
    # The units held for shoppers when the form was shown (timed holds; empty: holds off or not known).
    seen_held = WholeNumberField(
        required=False, min_value=0, max_value=10**15, widget=forms.HiddenInput,
        error_messages={"invalid": EXPIRED, "min_value": EXPIRED, "max_value": EXPIRED},
    )
    opened_at = forms.CharField(required=False, widget=forms.HiddenInput)

    @classmethod
    def fresh(cls, *, level, reorder_point, held=None):
        return cls(initial=cls.state(level=level, reorder_point=reorder_point, token=gateway.new_token(), held=held))

    @staticmethod
    def state(*, level, reorder_point, token, held=None):
        return {
            "token": token, "seen_level": level, "opened_at": datetime.now(UTC).isoformat(timespec="microseconds"),
            "seen_reorder_point": "" if reorder_point is None else reorder_point,
            "seen_held": "" if held is None else held,
        }

    def clean_opened_at(self):
        """When the form was shown (empty: not known, no moves listed); altered (unreadable, no
        offset, or out of range in UTC, such as year 1 at +01:00): the form's "expired" error."""
        text = self.cleaned_data["opened_at"]
        if not text:
            return None
        try:
            value = datetime.fromisoformat(text)
            if value.tzinfo is None:
                raise ValueError(text)
            return value.astimezone(UTC).isoformat(timespec="microseconds")
        except (ValueError, OverflowError):
            raise forms.ValidationError(EXPIRED, code="invalid") from None


class ReorderPointForm(forms.Form):
    reorder_point = WholeNumberField(
        min_value=0, max_value=gateway.MAX_REORDER, required=False, label="Reorder point",
        help_text="Empty: the shop's default.", widget=forms.NumberInput(attrs={"step": 1}),
    )


class StockBucketsForm(forms.Form):
    stock_buckets = WholeNumberField(
        min_value=1, max_value=gateway.MAX_STOCK_BUCKETS, label="Stock buckets",
        widget=forms.NumberInput(attrs={"step": 1}),
    )


class HistoryFilterForm(forms.Form):
    reason = forms.ChoiceField(required=False, choices=[("", "Every reason")] + _reason_choices(gateway.REASONS))


class ReorderFilterForm(StockListForm):
    """/staff/reorder/?brand=&category=: both optional."""

    def clean(self):
        return forms.Form.clean(self)


class LedgerForm(forms.Form):
    """/staff/ledger/?start=&end=: every stock change of those days (UTC) as CSV."""

    start = forms.DateField(widget=forms.DateInput(attrs={"type": "date"}))
    end = forms.DateField(widget=forms.DateInput(attrs={"type": "date"}))

    @classmethod
    def default(cls):
        today = datetime.now(UTC).date()
        return cls(initial={"start": today - timedelta(days=6), "end": today})

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("start") and cleaned.get("end"):
            try:
                gateway.check_day_range(cleaned["start"], cleaned["end"])
            except gateway.InvalidInput as exc:
                raise forms.ValidationError(str(exc)) from None
        return cleaned


class ReceiveForm(forms.Form):
    file = forms.FileField(label="CSV file", help_text="Header: product_id,quantity,reference")


class OrderActionForm(forms.Form):
    action = forms.ChoiceField(choices=[("ship", "Mark shipped"), ("cancel", "Cancel"), ("refund", "Refund")])
    # A refund's amount in euros (empty: all that is left to refund).
    amount = forms.CharField(required=False, max_length=20, label="Amount to refund (€)")

    def clean_amount(self):
        text = self.cleaned_data.get("amount", "").strip()
        if not text:
            return None
        try:
            return parse_decimal(text, places=2)
        except Unreadable as exc:
            raise forms.ValidationError(f"The amount {exc}.") from None
