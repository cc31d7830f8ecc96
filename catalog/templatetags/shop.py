from decimal import Decimal

from django import template
from django.conf import settings

register = template.Library()


@register.filter
def money(value):
    """€1,299.00"""
    if value is None or value == "":
        return ""
    return f"€{Decimal(value):,.2f}"


@register.filter
def stock_label(level):
    """The stock level as a shopper understands it."""
    level = int(level)
    if level <= 0:
        return "Sold out"
    if level < settings.LOW_STOCK_THRESHOLD:
        return f"Only {level} left"
    return "In stock"


@register.filter
def stock_class(level):
    level = int(level)
    if level <= 0:
        return "sold-out"
    if level < settings.LOW_STOCK_THRESHOLD:
        return "low"
    return "in-stock"


@register.filter
def attribute_name(name):
    """range_km -> Range km"""
    return str(name).replace("_", " ").strip().capitalize()


@register.filter
def attribute_value(value):
    if value is True:
        return "Yes"
    if value is False:
        return "No"
    return value


@register.filter
def lookup(mapping, key):
    """{{ names|lookup:product.brand_id }}"""
    try:
        return mapping.get(key, key)
    except AttributeError:
        return key
