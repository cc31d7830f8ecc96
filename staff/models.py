"""Who may use which staff pages: Django permissions (no table of their own) and the two groups that hold
them, "Warehouse" (stock, orders, receiving, the ledger) and "Catalog editors" (the catalog editor). A
superuser has both; staff pages also need staff status and a second factor (staff/decorators.py)."""
from django.db import models

WAREHOUSE_GROUP = "Warehouse"
CATALOG_EDITORS_GROUP = "Catalog editors"
# As user.has_perm() names them.
WAREHOUSE = "staff.use_warehouse"
CATALOG = "staff.edit_catalog"


class StaffAccess(models.Model):
    """Holds the staff permissions only (unmanaged: no table)."""

    class Meta:
        managed = False
        default_permissions = ()
        permissions = [
            ("use_warehouse", "Can use the warehouse pages (stock, orders, receiving, ledger)"),
            ("edit_catalog", "Can edit the catalog (products, prices, pictures, brands, categories)"),
        ]

    def __str__(self):
        return "staff access"
