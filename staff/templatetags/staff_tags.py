"""`user|may:"staff.edit_catalog"`: whether to show a staff area's links (staff/access.py)."""
from django import template

from staff.access import may as _may

register = template.Library()


@register.filter
def may(user, permission):
    return _may(user, permission)
