"""Template filters of the shop's rules (shop/rules.py): stock as a shopper reads it."""
from django import template

from shop import rules

register = template.Library()

register.filter("stock_label", rules.stock_label)
register.filter("stock_class", rules.stock_class)
