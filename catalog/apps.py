from django.apps import AppConfig


class CatalogConfig(AppConfig):
    name = "catalog"
    verbose_name = "Catalog (DynamoDB)"

    def ready(self):
        from django.core.signals import setting_changed

        from . import checks  # noqa: F401 - registers the table check
        from .gateway import client as dynamo

        setting_changed.connect(dynamo.on_setting_changed)
