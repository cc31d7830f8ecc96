"""The product's stock page shows timed holds (issue 36): held now, released, sold from a hold."""
from decimal import Decimal

import pytest

from catalog import gateway
from catalog.gateway import PurchaseLine, orders
from catalog.gateway.holds import holds_release_ended, holds_take
from tests.helpers import seed, small_catalog

pytestmark = [pytest.mark.dynamodb_local, pytest.mark.django_db]


def test_staff_see_holds_held_now_released_and_sold(local_ddb, settings, staff_client):
    settings.STOCK_HOLD_SECONDS = 600
    data = small_catalog()
    data["products"][6]["stockLevel"] = 10  # product 7, Acme Car Charger
    seed(data)
    charger = PurchaseLine(product_id="7", quantity=2, price=Decimal("29.90"))
    held = holds_take(customer_id="bob", lines=[charger])
    holds_take(customer_id="cat", lines=[charger])
    page = staff_client.get("/staff/products/7/stock/").content.decode()
    assert "Held now: <strong>2</strong> holds" in page
    orders.order_place(customer_id="bob", customer_name="Bob", order_id=orders.new_order_id(),
                       token=gateway.new_token(), lines=[charger])
    holds_release_ended(now=held["7"].until)  # cat's hold ended
    page = staff_client.get("/staff/products/7/stock/").content.decode()
    assert "Held now: <strong>0</strong> holds" in page
    assert "Holds released lately" in page and "the hold ended" in page
    assert "Sold from a hold" in page
