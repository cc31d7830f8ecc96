from django import template
from django_countries import countries

register = template.Library()


@register.filter
def country_name(code):
    """DE → Germany (the ISO 3166 name django-countries keeps); an unknown code as it is."""
    return countries.name(code) or code


@register.filter
def minutes(delta):
    """A timedelta as whole minutes, at least 1: "15 minutes"."""
    total = max(1, round(delta.total_seconds() / 60))
    return f"{total} minute{'s' if total != 1 else ''}"
