"""Idempotency keys and order IDs reused for another request are refused, naming the first; a write
whose answer was lost is OutcomeUnknown (it may have been applied), and sending it again is safe;
a cursor signed for a list but naming a key outside it is refused before any request."""
import contextlib
import json
from decimal import Decimal

import boto3
import pytest
from botocore.exceptions import ClientError, ReadTimeoutError
from django.conf import settings

from catalog import gateway
from catalog.gateway import IdempotencyConflict, InvalidCursor, OutcomeUnknown, PurchaseLine, keys
from catalog.gateway import client as dynamo
from catalog.gateway.dynamo.pages import KeyRange
from catalog.gateway.dynamo.testing import count_requests
from tests.helpers import history, level

pytestmark = pytest.mark.django_db


class AnswerLost:
    """DynamoDB applies the request (sent on the side, to the same moto), then its answer is lost
    on the way back: a read timeout where botocore would have read the response."""

    def __init__(self, operation):
        self.operation = operation
        self.times = 0

    def __call__(self, request, **kwargs):
        if request.headers.get("X-Amz-Target", b"").decode().endswith(self.operation):
            self.times += 1
            params = json.loads(request.body)
            side = boto3.client("dynamodb", region_name=settings.AWS_REGION)
            with contextlib.suppress(ClientError):
                side.transact_write_items(**{k: v for k, v in params.items() if k != "ClientRequestToken"})
            raise ReadTimeoutError(endpoint_url="http://dynamodb")

    def __enter__(self):
        dynamo.client().meta.events.register("before-send.dynamodb", self, unique_id="answer-lost")
        return self

    def __exit__(self, *exc):
        dynamo.client().meta.events.unregister("before-send.dynamodb", unique_id="answer-lost")


# --- stock: the same key with another request -----------------------------------------------

SHIPMENT_17 = {"reason": "received", "reference": "Shipment 17"}
SHIPMENT = {"reason": "received", "reference": "Shipment"}


def test_the_same_key_with_another_change_is_refused_and_names_the_first(catalog):
    gateway.stock_increase(product_id="4", quantity=1, token="k1", **SHIPMENT_17, who="ann")
    with pytest.raises(IdempotencyConflict) as refused:
        gateway.stock_increase(product_id="4", quantity=50, token="k1", **SHIPMENT_17, who="ann")
    message = str(refused.value)
    assert "+1 by ann" in message and "Shipment 17" in message and "Nothing was changed" in message
    assert level("4") == 13 and [h.reason for h in history("4")] == ["received", "opening"]


@pytest.mark.parametrize(
    "other",
    [
        {"quantity": 1, "reason": "returned", "reference": "Shipment 17", "who": "ann", "write": "increase"},
        {"quantity": 1, "reason": "received", "reference": "Shipment 18", "who": "ann", "write": "increase"},
        {"quantity": 1, "reason": "received", "reference": "Shipment 17", "note": "wet box", "who": "ann",
         "write": "increase"},
        {"quantity": 1, "reason": "received", "reference": "Shipment 17", "who": "bob", "write": "increase"},
        {"quantity": 1, "reason": "counted", "reference": "Shipment 17", "who": "ann", "write": "decrease"},
    ],
    ids=["other-reason", "other-reference", "other-note", "other-person", "decrease"],
)
def test_any_difference_in_the_request_is_a_conflict(catalog, other):
    gateway.stock_increase(product_id="4", quantity=1, token="k1", **SHIPMENT_17, who="ann")
    write = gateway.stock_increase if other.pop("write") == "increase" else gateway.stock_decrease
    with pytest.raises(IdempotencyConflict):
        write(product_id="4", token="k1", **other)
    assert level("4") == 13


def test_an_identical_replay_still_answers_as_the_first_time(catalog):
    first = gateway.stock_increase(product_id="4", quantity=3, token="k2", **SHIPMENT, who="ann")
    again = gateway.stock_increase(product_id="4", quantity=3, token="k2", **SHIPMENT, who="ann",
                                   expected_level=12)
    assert again.replayed and again.level == first.level == 15 and again.adjustment == first.adjustment
    assert level("4") == 15 and [h.reason for h in history("4")] == ["received", "opening"]


def test_a_conflicting_decrease_on_sold_out_stock_names_the_first_too(catalog):
    gateway.stock_decrease(product_id="8", quantity=1, token="k3", reason="damaged", who="ann")  # stock 1 -> 0
    with pytest.raises(IdempotencyConflict) as refused:
        gateway.stock_decrease(product_id="8", quantity=5, token="k3", reason="damaged", who="ann")
    assert "-1 by ann" in str(refused.value)


# --- orders: the same order ID and key with other lines -------------------------------------

def _place(lines, *, order_id="20261123T000000000000-abc", token="t1"):
    return gateway.order_place(customer_id="7", customer_name="alice", order_id=order_id, token=token, lines=lines)


def test_an_order_id_reused_with_other_lines_is_refused_and_names_the_order(catalog):
    _place([PurchaseLine(product_id="4", quantity=2, price=Decimal("899.00"))])
    with pytest.raises(IdempotencyConflict) as refused:
        _place([PurchaseLine(product_id="4", quantity=5, price=Decimal("899.00"))])
    assert "2 × Pixel 9" in str(refused.value) and "Nothing was ordered" in str(refused.value)
    assert level("4") == 10


def test_an_order_id_reused_with_another_key_is_refused(catalog):
    lines = [PurchaseLine(product_id="4", quantity=2, price=Decimal("899.00"))]
    _place(lines)
    with pytest.raises(IdempotencyConflict):
        _place(lines, token="t2")
    assert _place(lines).order_id == "20261123T000000000000-abc"  # the identical request answers the order
    assert level("4") == 10


def test_order_ids_are_unique_and_not_guessable():
    ids = {gateway.new_order_id() for _ in range(1000)}
    assert len(ids) == 1000
    assert all(gateway.valid_id(i) and len(i.split("-")[1]) == 20 for i in ids)  # 80 random bits each


# --- a lost answer ---------------------------------------------------------------------------

def test_a_stock_write_whose_answer_was_lost_is_outcome_unknown_and_safe_to_send_again(catalog):
    with AnswerLost("TransactWriteItems"), pytest.raises(OutcomeUnknown):
        gateway.stock_increase(product_id="4", quantity=5, token="k4", **SHIPMENT, who="ann",
                               expected_level=12)
    assert level("4") == 17  # it was applied
    again = gateway.stock_increase(product_id="4", quantity=5, token="k4", **SHIPMENT, who="ann",
                                   expected_level=12)
    assert again.replayed and again.level == 17 and level("4") == 17
    assert [h.reason for h in history("4")] == ["received", "opening"]


def test_an_order_whose_answer_was_lost_is_outcome_unknown_and_placing_it_again_answers_it(catalog):
    lines = [PurchaseLine(product_id="4", quantity=2, price=Decimal("899.00"))]
    with AnswerLost("TransactWriteItems"), pytest.raises(OutcomeUnknown):
        _place(lines)
    order = _place(lines)
    assert order.order_id == "20261123T000000000000-abc" and level("4") == 10
    assert len(gateway.orders_by_customer(customer_id="7").items) == 1


def test_a_write_never_sent_is_plainly_unavailable_not_unknown(catalog, settings):
    with gateway.request_budget(seconds=0), pytest.raises(gateway.CatalogUnavailable) as failed:
        gateway.stock_increase(product_id="4", quantity=5, token="k5", expected_level=12)
    assert not isinstance(failed.value, OutcomeUnknown)
    assert isinstance(failed.value, gateway.BudgetExceeded)
    assert level("4") == 12


# --- a signed cursor naming a key outside its list ------------------------------------------

def test_a_signed_cursor_with_a_key_outside_its_list_is_refused_before_any_request(catalog):
    brand_3_cars = KeyRange(
        index=keys.GSI1, partition=keys.brand_gsi_pk("3"), prefix=keys.category_in_brand_prefix("1")
    )
    product_10 = {**keys.product_key("3"), **keys.product_index_keys(product_id="3", brand_id="3", category_id="10")}
    other_brand = {**keys.product_key("4"), **keys.product_index_keys(product_id="4", brand_id="2", category_id="1")}
    for key in (product_10, other_brand):
        forged = brand_3_cars.encode(key)  # signed with the project's key for this very list
        with count_requests() as counter, pytest.raises(InvalidCursor):
            gateway.products_by_brand(brand_id="3", category_id="1", after=forged)
        assert counter.total == 0


def test_a_browse_page_with_such_a_cursor_is_a_400(catalog, client):
    brand_3 = KeyRange(index=keys.GSI1, partition=keys.brand_gsi_pk("3"))
    forged = brand_3.encode({**keys.product_key("4"), **keys.product_index_keys(
        product_id="4", brand_id="2", category_id="3")})
    response = client.get("/brands/3/", {"after": forged})
    assert response.status_code == 400
    assert "This page link is invalid" in response.content.decode()
