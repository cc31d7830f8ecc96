"""Template filters of the shop: stock as a shopper and as staff read it (catalog/availability.py),
country names, lockout durations."""
from django import template
from django_countries import countries

from catalog import availability

register = template.Library()

register.filter("stock_label", availability.stock_label)
register.filter("stock_class", availability.stock_class)
register.filter("reorder_state", availability.reorder_state)


@register.filter
def country_name(code):
    """DE → Germany (the ISO 3166 name django-countries keeps); an unknown code as it is."""
    return countries.name(code) or code


@register.filter
def minutes(delta):
    """A timedelta as whole minutes, at least 1: "15 minutes"."""
    total = max(1, round(delta.total_seconds() / 60))
    return f"{total} minute{'s' if total != 1 else ''}"
