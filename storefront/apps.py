from django.apps import AppConfig


class StorefrontConfig(AppConfig):
    name = "storefront"
    verbose_name = "The site: settings, health, metrics, traces and logs"

    def ready(self):
        from django.conf import settings

        if settings.TRACING:
            from . import tracing

            tracing.start()
