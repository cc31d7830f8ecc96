"""Template filters of the shop: stock as a shopper and as staff read it (catalog/availability.py),
country names, what prices include and delivery costs."""
from django import template
from django.conf import settings
from django_countries import countries

from catalog import availability
from payments.money import from_cents
from shop import rules

register = template.Library()

register.filter("stock_label", availability.stock_label)
register.filter("stock_class", availability.stock_class)
register.filter("reorder_state", availability.reorder_state)


@register.filter
def country_name(code):
    """DE → Germany (the ISO 3166 name django-countries keeps); an unknown code as it is."""
    return countries.name(code) or code


@register.simple_tag
def vat_note():
    """"incl. VAT" or "plus VAT", as SHOP_PRICES_INCLUDE_VAT says: beside a price."""
    return rules.vat_note()


@register.simple_tag
def delivery_note():
    """The shop's sentence on delivery costs and times (SHOP_DELIVERY_NOTE)."""
    return settings.SHOP_DELIVERY_NOTE


@register.filter
def described(field):
    """A form field's widget whose aria-describedby names its error and help text (the IDs
    registration/_form_fields.html gives them: `<id>_error`, `<id>_helptext`), for any form,
    allauth's included."""
    ids = [f"{field.auto_id}_{part}" for part, shown in (("error", field.errors), ("helptext", field.help_text))
           if shown]
    if not ids or not field.auto_id:
        return field
    return field.as_widget(attrs={"aria-describedby": " ".join(ids)})


@register.filter
def cents(value):
    """An amount in cents (a card payment's, as Stripe counts) as the shop's Decimal, for `money`."""
    return from_cents(value or 0)


PAYMENT_LABELS = {"authorised": "Authorised: charged when your order ships", "captured": "Paid",
                  "refunded": "Refunded", "partially_refunded": "Partly refunded",
                  "voided": "Voided: nothing was charged", "failed": "Failed"}


@register.filter
def payment_label(status):
    return PAYMENT_LABELS.get(status, status)
