"""Form fields every app shares."""
from django import forms

from catalog.gateway import InvalidId, check_id
from common.numbers import Unreadable, parse_whole


class IdField(forms.CharField):
    """The ID of a product, brand, category, order or idempotency key (`what`): the gateway's one
    rule for IDs (check_id), its refusal a form error. `error_messages["invalid"]` replaces the
    gateway's message where the form knows better what to say."""

    def __init__(self, *, what="The", **kwargs):
        self.what = what
        kwargs.setdefault("max_length", 64)
        super().__init__(**kwargs)

    def validate(self, value):
        super().validate(value)
        if value in self.empty_values:
            return
        try:
            check_id(self.what, value)
        except InvalidId as exc:
            raise forms.ValidationError(self.error_messages.get("invalid", str(exc)), code="invalid") from None


class WholeNumberField(forms.IntegerField):
    """A whole number typed in a form, read by the one parser (common.numbers): "²", "①",
    "1e3", "١٢", " " or a hundred digits are the field's "invalid" error, never a 500."""

    def to_python(self, value):
        if value in self.empty_values or (isinstance(value, str) and not value.strip()):
            return None  # blank: "required", or no value
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        try:
            return parse_whole(str(value), minimum=None)
        except Unreadable:
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid") from None
