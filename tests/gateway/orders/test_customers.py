"""The customer item and an order's address (catalog/gateway/orders/customers.py), on moto."""
import pytest

from catalog import gateway
from catalog.gateway.dynamo.testing import count_requests
from catalog.gateway.errors import InvalidInput
from catalog.gateway.orders import orders
from tests.gateway.orders.test_orders import line, stock
from tests.helpers import items_in_partition

ADDRESS = {"name": "Ann", "street": "Main St 1", "postcode": "10115", "city": "Berlin", "country": "DE"}


def test_customer_put_keeps_what_orders_wrote_and_orders_set_name_and_email(catalog):
    orders.order_place(customer_id="c-1", customer_name="Ann", customer_email="ann@example.com",
                       order_id=orders.new_order_id(), token=gateway.new_token(), lines=[line("4")], address=ADDRESS)
    with count_requests() as counter:
        gateway.customer_put(customer_id="c-1", name="Ann Other", email="ann.other@example.com")
    assert counter.operations == ["UpdateItem"]
    (item,) = [i for i in items_in_partition("CUSTOMER#c-1") if i["SK"] == "METADATA"]
    assert (item["name"], item["email"], item["orderCount"], item["customerId"]) == (
        "Ann Other", "ann.other@example.com", 1, "c-1")


def test_an_order_keeps_a_copy_of_the_address(catalog):
    order = orders.order_place(customer_id="c-1", customer_name="Ann", order_id=orders.new_order_id(),
                               token=gateway.new_token(), lines=[line("4")], address=ADDRESS)
    assert order.address == ADDRESS
    assert orders.order_get(customer_id="c-1", order_id=order.order_id).address == ADDRESS
    assert orders.orders_by_customer(customer_id="c-1").items[0].address == ADDRESS


@pytest.mark.parametrize("address", [{**ADDRESS, "city": ""}, {**ADDRESS, "street": "x" * 201},
                                     {k: v for k, v in ADDRESS.items() if k != "country"}])
def test_an_incomplete_or_overlong_address_writes_nothing(catalog, address):
    with pytest.raises(InvalidInput):
        orders.order_place(customer_id="c-1", customer_name="Ann", order_id=orders.new_order_id(),
                           token=gateway.new_token(), lines=[line("4")], address=address)
    assert items_in_partition("CUSTOMER#c-1") == [] and stock("4") == 12
