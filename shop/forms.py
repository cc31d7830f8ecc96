from allauth.account import forms as allauth_forms
from allauth.account.adapter import get_adapter
from allauth.account.fields import PasswordField
from allauth.account.internal.flows.reauthentication import reauthenticate_by_password
from allauth.account.models import EmailAddress
from allauth.core import context
from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.core.exceptions import ValidationError
from django.core.validators import MaxLengthValidator
from django.forms import BoundField
from django_countries import countries

from catalog.gateway import ADDRESS_FIELDS, has_control_characters
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


def no_control_characters(value):
    if has_control_characters(value):
        raise ValidationError("Use letters, digits, spaces and punctuation only.")


def _text(label, max_length, **kwargs):
    return forms.CharField(
        label=label, max_length=max_length, validators=[no_control_characters],
        error_messages={"required": f"Enter the {label.lower()}.",
                        "max_length": f"The {label.lower()} can be at most {max_length} characters."},
        **kwargs,
    )


class CountryField(forms.ChoiceField):
    """An ISO 3166-1 alpha-2 code (the list django-countries keeps up to date), in either case."""

    def __init__(self, **kwargs):
        super().__init__(choices=[("", "Choose a country")] + list(countries), **kwargs)

    def to_python(self, value):
        return super().to_python(value).strip().upper()


class DescribedBoundField(BoundField):
    """A field whose aria-describedby names its error message as well as its help text (Django 5.2
    names the help text only); the template gives them the IDs `<id>_error` and `<id>_helptext`."""

    def build_widget_attrs(self, attrs, widget=None):
        attrs = super().build_widget_attrs(attrs, widget)
        if self.errors and self.auto_id:
            described = [f"{self.auto_id}_error"] + ([f"{self.auto_id}_helptext"] if self.help_text else [])
            attrs["aria-describedby"] = " ".join(described)
        return attrs


class AddressForm(forms.Form):
    bound_field_class = DescribedBoundField

    name = _text("Name", 100, widget=forms.TextInput(attrs={"autocomplete": "name"}))
    street = _text("Street", 200, widget=forms.TextInput(attrs={"autocomplete": "street-address"}))
    postcode = forms.RegexField(
        label="Postcode", max_length=12, regex=r"^[A-Za-z0-9](?:[A-Za-z0-9 -]{0,10}[A-Za-z0-9])?$",
        widget=forms.TextInput(attrs={"autocomplete": "postal-code"}),
        error_messages={"required": "Enter the postcode.",
                        "max_length": "The postcode can be at most 12 characters.",
                        "invalid": "A postcode has letters, digits, spaces and hyphens only."},
    )
    city = _text("City", 100, widget=forms.TextInput(attrs={"autocomplete": "address-level2"}))
    country = CountryField(
        label="Country", widget=forms.Select(attrs={"autocomplete": "country"}),
        error_messages={"required": "Choose the country.",
                        "invalid_choice": "Choose a country from the list (a two-letter ISO code such as DE)."},
    )

    def address(self):
        return {field: self.cleaned_data[field] for field in ADDRESS_FIELDS}


class CheckoutForm(AddressForm):
    # Issued by the server (shop/checkout.py): hidden inputs, never a box a shopper sees or types in.
    order_id = IdField(widget=forms.HiddenInput)
    token = IdField(widget=forms.HiddenInput)

    def hidden_fields_valid(self):
        return not any(name in self.errors for name in ("order_id", "token"))


def _name_field():
    return forms.CharField(label="Name", max_length=150, required=False, validators=[no_control_characters],
                           help_text="Optional: how we address you in emails and on orders.",
                           widget=forms.TextInput(attrs={"autocomplete": "name"}))


class SignUpForm(allauth_forms.SignupForm):
    """allauth's sign-up (email, username, password1, password2) with the shop's optional name."""

    bound_field_class = DescribedBoundField

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["name"] = _name_field()
        self.fields["email"].max_length = 254
        self.fields["email"].validators.append(MaxLengthValidator(254))
        self.fields["email"].widget.attrs["maxlength"] = 254

    def try_save(self, request):
        """A taken address is answered as a new one (allauth mails its owner instead): its password is
        hashed too, so that both cost one hash and nobody tells them apart by the answer's time."""
        if self.account_already_exists:
            make_password(self.cleaned_data.get("password1"))
        return super().try_save(request)


class AccountForm(forms.ModelForm):
    """The name, on the account page (the email address changes on allauth's email page)."""

    bound_field_class = DescribedBoundField

    name = _name_field()

    class Meta:
        model = get_user_model()
        fields = ("name",)


def _column_length(model, name: str) -> int:
    return model._meta.get_field(name).max_length


def _cap(field: forms.CharField, max_length: int) -> None:
    """At most `max_length` characters (the database column's): longer is a form error, never a query."""
    field.max_length = max_length
    field.validators.append(MaxLengthValidator(max_length))
    field.widget.attrs["maxlength"] = max_length


def email_length() -> int:
    """The longest address both tables keep (254: the user's email and allauth's EmailAddress)."""
    return min(_column_length(get_user_model(), "email"), _column_length(EmailAddress, "email"))


class CappedEmailMixin:
    """allauth's email forms, with the address no longer than the database takes."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _cap(self.fields["email"], email_length())


class AddEmailForm(CappedEmailMixin, allauth_forms.AddEmailForm):
    """allauth's email change, with the account's password in every submission: a session alone (even
    one that re-authenticated a few minutes ago, ACCOUNT_REAUTHENTICATION_TIMEOUT) does not move the
    account to another address, where a password reset would then take it over. The right password counts
    as allauth's re-authentication, so the change goes on without a second ask."""

    password = PasswordField(label="Your password", autocomplete="current-password")

    def clean_password(self) -> str:
        password = self.cleaned_data["password"]
        if not get_adapter().reauthenticate(self.user, password):
            raise get_adapter().validation_error("incorrect_password")
        reauthenticate_by_password(context.request)
        return password


class ChangeEmailForm(CappedEmailMixin, allauth_forms.ChangeEmailForm):
    pass


class ResetPasswordForm(CappedEmailMixin, allauth_forms.ResetPasswordForm):
    pass


class RequestLoginCodeForm(CappedEmailMixin, allauth_forms.RequestLoginCodeForm):
    pass


class SignInForm(allauth_forms.LoginForm):
    """allauth's sign-in (`login`: email or username; `password`), labelled as the shop labels it."""

    bound_field_class = DescribedBoundField

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _cap(self.fields["login"], max(email_length(), _column_length(get_user_model(), "username")))
        self.fields["login"].label = "Username or email"
        self.fields["login"].widget.attrs.update(autocomplete="username", autofocus=True)
        self.fields["password"].help_text = ""  # allauth's "Forgot your password?" link: its own line on the page
