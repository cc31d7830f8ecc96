"""Which staff areas an account may use (staff/models.py: the warehouse's and the catalog editor's permissions):
one query a request for both, kept on the user object, for the views' check (staff/decorators.py) and the
links the header and the staff menu show. A superuser may use both; an account that is not active staff, none."""
from django.contrib.auth.models import Permission
from django.db.models import Q

from .models import CATALOG, WAREHOUSE

AREAS = frozenset({WAREHOUSE, CATALOG})


def staff_areas(user):
    """The staff permissions ("staff.use_warehouse", "staff.edit_catalog") `user` has, itself or by its groups."""
    if not (user.is_authenticated and user.is_active and user.is_staff):
        return frozenset()
    if user.is_superuser:
        return AREAS
    areas = getattr(user, "_staff_areas", None)
    if areas is None:
        codenames = Permission.objects.filter(Q(user=user) | Q(group__user=user), content_type__app_label="staff")
        areas = user._staff_areas = frozenset(f"staff.{c}" for c in codenames.values_list("codename", flat=True))
    return areas


def may(user, permission):
    return permission in staff_areas(user)
