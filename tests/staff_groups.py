"""Staff accounts in the staff groups (staff/models.py: Warehouse for the stock pages, Catalog editors for the
catalog editor); tests/helpers.py makes them available beside its other helpers."""


WAREHOUSE, CATALOG_EDITORS = "Warehouse", "Catalog editors"  # the staff groups (staff/migrations/0002)


def join(user, *groups):
    """`user` made a member of the named staff groups (WAREHOUSE, CATALOG_EDITORS); returns the user. The groups
    are the data migration's; a transactional test's database was emptied since, so they are made again here."""
    from django.contrib.auth.models import Group, Permission

    permissions = {WAREHOUSE: "use_warehouse", CATALOG_EDITORS: "edit_catalog"}
    for name in groups:
        group, created = Group.objects.get_or_create(name=name)
        if created:
            group.permissions.add(Permission.objects.get(content_type__app_label="staff", codename=permissions[name]))
        user.groups.add(group)
    return user


def warehouse_staff(user):
    """A staff user of the warehouse (its stock pages): a member of "Warehouse"."""
    return join(user, WAREHOUSE)
