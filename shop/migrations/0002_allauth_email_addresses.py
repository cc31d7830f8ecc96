"""Accounts on django-allauth: every existing account with an email address gets
allauth's EmailAddress row for it, primary and verified. Verified, because the address has been the
account's way back in all along (password reset links went there), so confirming it again would add
a step for every shopper and take nothing from an attacker. Accounts without an address get none."""
from django.db import migrations


def email_addresses(apps, schema_editor):
    User = apps.get_model("shop", "User")
    EmailAddress = apps.get_model("account", "EmailAddress")
    have = set(EmailAddress.objects.values_list("user_id", flat=True))
    EmailAddress.objects.bulk_create(
        [
            EmailAddress(user_id=pk, email=email.strip().lower(), primary=True, verified=True)
            for pk, email in User.objects.exclude(email="").values_list("pk", "email").iterator()
            if pk not in have
        ],
        batch_size=500,
    )


class Migration(migrations.Migration):
    dependencies = [
        ("shop", "0001_user"),
        ("account", "0009_emailaddress_unique_primary_email"),
    ]

    operations = [migrations.RunPython(email_addresses, migrations.RunPython.noop)]
