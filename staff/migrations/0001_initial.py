from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = []

    operations = [
        migrations.CreateModel(
            name="StaffAccess",
            fields=[
                ("id", models.AutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
            ],
            options={
                "managed": False,
                "default_permissions": (),
                "permissions": [
                    ("use_warehouse", "Can use the warehouse pages (stock, orders, receiving, ledger)"),
                    ("edit_catalog", "Can edit the catalog (products, prices, pictures, brands, categories)"),
                ],
            },
        ),
    ]
