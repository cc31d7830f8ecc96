"""Form fields every app shares."""
from django import forms

from catalog.gateway import InvalidId, check_id


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
