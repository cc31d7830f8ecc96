from django.apps import AppConfig


class PaymentsConfig(AppConfig):
    name = "payments"
    verbose_name = "Card payments"

    def ready(self):
        import logging

        from django.conf import settings

        from . import checks  # noqa: F401  (registers the deploy checks)

        if settings.SHOP_PAYMENTS == "stripe":
            import stripe  # noqa: F401  (as the process starts, not within a shopper's first payment)

        # The library logs every request at INFO; the shop logs what it did with them (payments.*).
        logging.getLogger("stripe").setLevel(logging.WARNING)
