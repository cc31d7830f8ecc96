"""The two staff groups and their permissions: "Warehouse" (staff.use_warehouse) and "Catalog editors"
(staff.edit_catalog). Staff who used the warehouse pages before the groups existed keep them: every staff
account is put in "Warehouse"; catalog editors are chosen by hand (the admin, or `manage.py shell`)."""
from django.db import migrations

GROUPS = {"Warehouse": ("use_warehouse", "Can use the warehouse pages (stock, orders, receiving, ledger)"),
          "Catalog editors": ("edit_catalog", "Can edit the catalog (products, prices, pictures, brands, categories)")}


def create_groups(apps, schema_editor):
    ContentType = apps.get_model("contenttypes", "ContentType")
    Permission = apps.get_model("auth", "Permission")
    Group = apps.get_model("auth", "Group")
    User = apps.get_model("shop", "User")
    # Permissions are made after all migrations (post_migrate); the groups need them now.
    content_type, _ = ContentType.objects.get_or_create(app_label="staff", model="staffaccess")
    for group_name, (codename, name) in GROUPS.items():
        permission, _ = Permission.objects.get_or_create(content_type=content_type, codename=codename,
                                                         defaults={"name": name})
        group, _ = Group.objects.get_or_create(name=group_name)
        group.permissions.add(permission)
    warehouse = Group.objects.get(name="Warehouse")
    for user in User.objects.filter(is_staff=True):
        user.groups.add(warehouse)


def remove_groups(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name__in=GROUPS).delete()


class Migration(migrations.Migration):

    dependencies = [
        ("staff", "0001_initial"),
        ("shop", "0003_user_session_epoch"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(create_groups, remove_groups)]
