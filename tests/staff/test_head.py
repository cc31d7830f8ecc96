"""HEAD is answered as GET on the staff pages that also take a POST (an order, receiving a shipment):
the status and headers of a GET, no body, nothing written."""
import pytest

from catalog import gateway
from tests.helpers import buy

pytestmark = pytest.mark.django_db


@pytest.fixture
def order_path(catalog, django_user_model):
    alice = django_user_model.objects.create_user("alice", email="alice@example.com", password="pw")
    order = buy(alice, "4")
    return f"/staff/orders/{alice.customer_key_id}/{order.order_id}/"


def test_head_on_an_order_is_answered_as_get(staff_client, order_path):
    get = staff_client.get(order_path)
    head = staff_client.head(order_path)
    assert (get.status_code, head.status_code) == (200, 200)
    assert head["Content-Type"] == get["Content-Type"] and head.content == b""
    order_id = order_path.rstrip("/").rsplit("/", 1)[1]
    assert gateway.order_get_by_id(order_id=order_id).status == "placed"  # neither shipped nor cancelled


def test_head_on_receiving_is_answered_as_get(staff_client, catalog):
    get = staff_client.get("/staff/receive/")
    head = staff_client.head("/staff/receive/")
    assert (get.status_code, head.status_code) == (200, 200)
    assert head["Content-Type"] == get["Content-Type"] and head.content == b""
