from django.apps import AppConfig


class PaymentsConfig(AppConfig):
    name = "payments"
    verbose_name = "Card payments"

    def ready(self):
        import logging

        from . import checks  # noqa: F401  (registers the deploy checks)

        # The library logs every request at INFO; the shop logs what it did with them (payments.*).
        logging.getLogger("stripe").setLevel(logging.WARNING)
