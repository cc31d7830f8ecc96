"""The table's side of card payments: a checkout paying (written before the payment, settled once), the
payment on an order (only forward), the provider's events (claimed once); each one request."""
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from catalog import gateway
from catalog.gateway import OrderStatusRefused, Payment, PendingPayment, PurchaseLine
from catalog.gateway.dynamo.testing import count_requests


def checkout(order_id=None, **fields):
    return PendingPayment(
        order_id=order_id or gateway.new_order_id(), customer_id="c-1", token="t-1",
        lines=(PurchaseLine(product_id="4", quantity=2, price=Decimal("899.00")),), amount=179800, currency="EUR",
        created_at=datetime.now(UTC), address={"name": "Alice", "city": "Berlin"}, **fields)


def test_a_checkout_paying_is_written_read_and_settled_once(ddb):
    pending = checkout()
    with count_requests() as counter:
        assert gateway.payment_pending_put(pending=pending) is None
        assert gateway.payment_pending_put(pending=replace(pending, intent_key="k2")).intent_key == ""  # the one before
        got = gateway.payment_pending_get(order_id=pending.order_id)
    assert counter.operations == ["PutItem", "PutItem", "GetItem"]
    assert got.lines == pending.lines and got.amount == 179800 and got.address == pending.address
    assert got.intent_key == "k2" and got.status == "pending"
    got = gateway.payment_pending_intent(pending=got, intent_id="pi_1")
    assert gateway.payment_pending_settle(pending=got, status="placed", intent_id="pi_1") is True
    assert gateway.payment_pending_settle(pending=got, status="voided") is False  # settled before
    assert gateway.payment_pending_get(order_id=pending.order_id).status == "placed"
    with pytest.raises(OrderStatusRefused):
        gateway.payment_pending_put(pending=pending)  # paid again after its order was placed


def test_reconcile_lists_only_checkouts_still_pending_and_old_enough(ddb):
    waiting, settled = checkout(), checkout()
    gateway.payment_pending_put(pending=replace(waiting, created_at=datetime.now(UTC) - timedelta(minutes=5)))
    gateway.payment_pending_put(pending=settled)
    gateway.payment_pending_settle(pending=settled, status="voided")
    with count_requests() as counter:
        found = list(gateway.payments_pending(older_than_seconds=60))
    assert [p.order_id for p in found] == [waiting.order_id]
    assert counter.operations == ["Query"] * 36  # 9 days of 4 shards, never a Scan


def test_an_orders_payment_only_moves_forward(catalog):
    authorised = Payment(intent_id="pi_1", status="authorised", currency="EUR", authorised=89900)
    order = gateway.order_place(customer_id="c-1", customer_name="Alice", order_id=gateway.new_order_id(),
                                token=gateway.new_token(), payment=authorised,
                                lines=[PurchaseLine(product_id="4", quantity=1, price=Decimal("899.00"))])
    assert order.payment == authorised
    captured = replace(authorised, status="captured", captured=89900)
    assert gateway.order_payment_update(customer_id="c-1", order_id=order.order_id, payment=captured) is True
    assert gateway.order_payment_update(customer_id="c-1", order_id=order.order_id, payment=authorised) is False
    part = replace(captured, status="partially_refunded", refunded=100)
    assert gateway.order_payment_update(customer_id="c-1", order_id=order.order_id, payment=part) is True
    more = replace(part, refunded=500)
    assert gateway.order_payment_update(customer_id="c-1", order_id=order.order_id, payment=more) is True
    assert gateway.order_payment_update(customer_id="c-1", order_id=order.order_id, payment=part) is False
    other = replace(more, intent_id="pi_2", status="refunded")
    assert gateway.order_payment_update(customer_id="c-1", order_id=order.order_id, payment=other) is False
    got = gateway.order_get(customer_id="c-1", order_id=order.order_id).payment
    assert (got.status, got.captured, got.refunded) == ("partially_refunded", 89900, 500)


def test_an_event_is_claimed_once_and_can_be_given_back(ddb):
    assert gateway.payment_event_claim(event_id="evt_1", event_type="charge.refunded") is True
    assert gateway.payment_event_claim(event_id="evt_1", event_type="charge.refunded") is False
    gateway.payment_event_release(event_id="evt_1")
    assert gateway.payment_event_claim(event_id="evt_1", event_type="charge.refunded") is True
