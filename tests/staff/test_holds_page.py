"""The product's stock page shows timed holds: held now, released, sold from a hold."""
from decimal import Decimal

import pytest

from catalog import gateway
from catalog.gateway import PurchaseLine
from catalog.gateway.orders import orders
from catalog.gateway.stock.holds import holds_take
from catalog.gateway.stock.releases import holds_release_ended
from tests.helpers import seed, small_catalog

pytestmark = [pytest.mark.dynamodb_local, pytest.mark.django_db]


def test_staff_see_holds_held_now_released_and_sold(local_ddb, settings, staff_client):
    settings.STOCK_HOLD_SECONDS = 600
    data = small_catalog()
    data["products"][6]["stockLevel"] = 10  # product 7, Acme Car Charger
    seed(data)
    charger = PurchaseLine(product_id="7", quantity=2, price=Decimal("29.90"))
    holds_take(customer_id="bob", lines=[charger])
    cats = holds_take(customer_id="cat", lines=[charger])  # ends a second after bob's when taken across one
    page = staff_client.get("/staff/products/7/stock/").content.decode()
    assert "Held now: <strong>2</strong> holds" in page
    orders.order_place(customer_id="bob", customer_name="Bob", order_id=orders.new_order_id(),
                       token=gateway.new_token(), lines=[charger])
    holds_release_ended(now=cats["7"].until)  # cat's hold ended
    page = staff_client.get("/staff/products/7/stock/").content.decode()
    assert "Held now: <strong>0</strong> holds" in page
    assert "Holds released lately" in page and "the hold ended" in page
    assert "Sold from a hold" in page


def test_a_stocktake_during_which_a_hold_became_a_sale_is_refused_and_shown(local_ddb, settings, staff_client):
    """A hold turned into a sale takes no stock (the hold had), so the level a count is made against does not
    move; the units held do. The count form carries both; a count against units no longer held would set the
    stock too high by them, so it is refused like a count that lost to a sale, and shown again."""
    import re

    settings.STOCK_HOLD_SECONDS = 600
    data = small_catalog()
    data["products"][6]["stockLevel"] = 5  # product 7, Acme Car Charger
    seed(data)
    charger = PurchaseLine(product_id="7", quantity=2, price=Decimal("29.90"))
    holds_take(customer_id="bob", lines=[charger])
    page = staff_client.get("/staff/products/7/stock/").content.decode()
    form = {name: re.search(rf'name="{name}" value="([^"]*)"', page).group(1)
            for name in ("token", "seen_level", "seen_reorder_point", "seen_held", "opened_at")}
    assert (form["seen_level"], form["seen_held"]) == ("3", "2")
    orders.order_place(customer_id="bob", customer_name="Bob", order_id=orders.new_order_id(),
                       token=gateway.new_token(), lines=[charger])  # while staff count the 5 on the shelf
    response = staff_client.post("/staff/products/7/stocktake/", {**form, "counted": 5})
    page = response.content.decode()
    assert response.status_code == 409
    assert "Shoppers paying now hold 0 units of it, not 2 as when you started counting" in page
    assert gateway.product_get(product_id="7", consistent=True).stock_level == 3  # not 5: nothing written
    again = {name: re.search(rf'name="{name}" value="([^"]*)"', page).group(1)
             for name in ("token", "seen_level", "seen_reorder_point", "seen_held", "opened_at")}
    assert again["seen_held"] == "0"
    response = staff_client.post("/staff/products/7/stocktake/", {**again, "counted": 3})  # counted again
    assert response.status_code == 302
    assert gateway.product_get(product_id="7", consistent=True).stock_level == 3
