"""Order numbers people can read out: short, unambiguous, unique per shop, claimed in the
order's own transaction, and the way staff open an order."""
from datetime import UTC, datetime
from decimal import Decimal

import pytest

from catalog import gateway
from catalog.gateway import PurchaseLine, keys
from catalog.gateway.dynamo.testing import count_requests
from catalog.gateway.dynamo.transact import put, transact_write
from catalog.gateway.errors import InvalidInput, NotFound
from catalog.gateway.orders import orders
from tests.helpers import items_in_partition


def place(customer="7", order_id=None, token=None, email="ann@example.com"):
    return orders.order_place(
        customer_id=customer, customer_name="Ann Smith", customer_email=email,
        order_id=order_id or orders.new_order_id(), token=token or gateway.new_token(),
        lines=[PurchaseLine("4", 1, Decimal("899.00"))],
    )


def claim(number):
    return items_in_partition(keys.order_number_key(number)["PK"])


def test_an_order_gets_a_short_number_of_unmistakable_symbols_and_it_is_claimed_for_it(catalog):
    order = place()
    assert len(order.number) == 8 and set(order.number) <= set("23456789ABCDEFGHJKMNPQRSTVWXYZ")
    assert not set(order.number) & set("01OIL")  # nothing read out wrongly on the phone
    saved = gateway.order_get(customer_id="7", order_id=order.order_id)
    assert saved.number == order.number and saved.reference == order.number
    (held,) = claim(order.number)
    assert (held["customerId"], held["orderId"]) == ("7", order.order_id)


def test_the_order_keeps_who_placed_it(catalog):
    order = place()
    saved = gateway.order_get(customer_id="7", order_id=order.order_id)
    assert (saved.customer_name, saved.customer_email) == ("Ann Smith", "ann@example.com")
    (listed,) = gateway.orders_open().items  # the staff list needs no read of the customer
    assert (listed.customer_name, listed.customer_email) == ("Ann Smith", "ann@example.com")
    assert listed.number == order.number


def test_staff_open_an_order_by_its_number_as_typed_with_one_getitem_and_one_query(catalog):
    order = place()
    typed = f" {order.number[:4].lower()}-{order.number[4:]} "
    with count_requests() as counted:
        found = gateway.order_get_by_number(number=typed)
    assert found.order_id == order.order_id
    assert sorted(counted.operations) == ["GetItem", "Query"]


def test_an_unknown_or_malformed_number_is_refused(catalog):
    with pytest.raises(NotFound):
        gateway.order_get_by_number(number="ZZZZ2222")
    with pytest.raises(InvalidInput):
        gateway.order_get_by_number(number="K7QM4XP0")  # 0 is never in a number


def test_a_resubmitted_checkout_keeps_its_one_number(catalog):
    order_id, token = orders.new_order_id(), gateway.new_token()
    first = place(order_id=order_id, token=token)
    again = place(order_id=order_id, token=token)
    assert again.number == first.number == orders.order_number_for(order_id, 0)
    assert claim(orders.order_number_for(order_id, 1)) == []  # no second number was claimed
    assert gateway.product_get(product_id="4", consistent=True).stock_level == 11


def test_a_number_another_order_holds_is_not_taken_the_next_one_is(catalog):
    order_id = orders.new_order_id()
    taken = orders.order_number_for(order_id, 0)
    transact_write([put({**keys.order_number_key(taken), "customerId": "9", "orderId": "someone-else"},
                        if_absent=True)], request_token="setup-claim")
    order = place(order_id=order_id)
    assert order.number == orders.order_number_for(order_id, 1)
    assert claim(taken)[0]["orderId"] == "someone-else"  # the other order keeps its number
    # A stock change names only the order ID: staff still find the order through its claims.
    assert gateway.order_get_by_id(order_id=order_id).number == order.number


def test_a_sale_in_the_history_names_its_customer_and_number(catalog):
    order = place()
    sale, _opening = gateway.stock_history(product_id="4").items
    assert (sale.customer_id, sale.order_number, sale.order_id) == ("7", order.number, order.order_id)


def test_an_order_without_a_number_is_shown_by_its_id_and_found_by_none(catalog):
    old = gateway.Order(order_id=orders.new_order_id(), customer_id="7", placed_at=datetime(2026, 1, 2, tzinfo=UTC),
                        total=Decimal("1.00"))
    transact_write([put(old.to_item())], request_token="old-order")
    saved = gateway.order_get(customer_id="7", order_id=old.order_id)
    assert saved.number == "" and saved.reference == old.order_id
    with pytest.raises(NotFound):
        gateway.order_get_by_id(order_id=old.order_id)
