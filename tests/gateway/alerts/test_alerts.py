"""Back-in-stock alerts in the gateway (moto): asking, the due mark a stock write leaves, the claim
that never gives out more than units + margin, oldest first, and leases on the emails."""
import time

import pytest

from catalog import gateway
from catalog.gateway import keys
from catalog.gateway.alerts import (
    AlertRefused,
    alert_ask,
    alerts_claim,
    alerts_outbox,
    asking,
    claiming,
    marks,
    sending,
)
from catalog.gateway.dynamo import backoff
from catalog.gateway.errors import InvalidInput, NotFound
from catalog.gateway.stock.buckets import stock_set_buckets
from tests.helpers import alert_count

SOLD_OUT = "3"  # small catalog: Home charger, stock 0


def ask(n, product_id=SOLD_OUT):
    """n signed-in shoppers ask, one after the other (so in this order)."""
    return [alert_ask(product_id=product_id, email=f"s{i}@example.com", customer_id=f"cust-{i}").alert
            for i in range(n)]


def receive(product_id, quantity, token=None):
    return gateway.stock_increase(product_id=product_id, quantity=quantity, token=token or gateway.new_token())


def outbox():
    return [a for shard in range(keys.ALERT_SHARDS) for a in alerts_outbox(shard=shard)]


def due_pass(margin):
    return sum(alerts_claim(product_id=due.product_id, margin=margin)
               for shard in range(keys.ALERT_SHARDS) for due in claiming.alerts_due(shard=shard))


def test_a_signed_in_ask_waits_at_once_and_is_counted(catalog):
    outcome = alert_ask(product_id=SOLD_OUT, email="ann@example.com", customer_id="c1")
    assert outcome.state == "waiting" and outcome.waiting == 0
    assert alert_count(product_id=SOLD_OUT) == 1
    again = alert_ask(product_id=SOLD_OUT, email="ann@example.com", customer_id="c1")
    assert again.state == "already" and alert_count(product_id=SOLD_OUT) == 1


def test_a_guest_ask_is_pending_until_confirmed(catalog):
    outcome = alert_ask(product_id=SOLD_OUT, email="Guest@Example.com")
    assert outcome.state == "pending" and alert_count(product_id=SOLD_OUT) == 0
    assert [a.alert_id for a in outbox()] == [outcome.alert.alert_id]  # its confirmation is due
    confirmed = asking.alert_confirm(owner=outcome.alert.owner, product_id=SOLD_OUT, alert_id=outcome.alert.alert_id)
    assert confirmed.status == "waiting" and alert_count(product_id=SOLD_OUT) == 1
    # Confirming twice counts once.
    asking.alert_confirm(owner=outcome.alert.owner, product_id=SOLD_OUT, alert_id=outcome.alert.alert_id)
    assert alert_count(product_id=SOLD_OUT) == 1


def test_asking_for_a_product_in_stock_or_unknown_or_with_a_bad_email_is_refused(catalog):
    with pytest.raises(AlertRefused):
        alert_ask(product_id="1", email="ann@example.com", customer_id="c1")
    with pytest.raises(NotFound):
        alert_ask(product_id="999", email="ann@example.com", customer_id="c1")
    with pytest.raises(InvalidInput):
        alert_ask(product_id=SOLD_OUT, email="not-an-address")
    assert alert_count(product_id="1") == 0 and alert_count(product_id=SOLD_OUT) == 0


def test_an_owner_has_at_most_the_cap_of_confirmed_alerts(catalog, monkeypatch):
    monkeypatch.setattr(asking, "MAX_ALERTS_PER_OWNER", 1)
    gateway.stock_decrease(product_id="8", quantity=1, token=gateway.new_token())  # Roadster sold out too
    alert_ask(product_id=SOLD_OUT, email="ann@example.com", customer_id="c1")
    with pytest.raises(AlertRefused, match="already has 1 alerts"):
        alert_ask(product_id="8", email="ann@example.com", customer_id="c1")
    # A guest's asks are pending until confirmed: only confirming counts, and only the owner has the link.
    first = alert_ask(product_id=SOLD_OUT, email="bob@example.com").alert
    second = alert_ask(product_id="8", email="bob@example.com").alert
    asking.alert_confirm(owner=first.owner, product_id=SOLD_OUT, alert_id=first.alert_id)
    with pytest.raises(AlertRefused, match="already has 1 alerts"):
        asking.alert_confirm(owner=second.owner, product_id="8", alert_id=second.alert_id)
    assert asking.alert_get(owner=second.owner, product_id="8", alert_id=second.alert_id).status == "pending"


def all_due():
    return [(d.product_id, d.units) for s in range(keys.ALERT_SHARDS) for d in claiming.alerts_due(shard=s)]


def test_a_receipt_marks_the_product_due_while_alerts_wait_and_a_sale_never(catalog):
    gateway.stock_decrease(product_id="1", quantity=1, token=gateway.new_token())
    receive("1", 1)  # in stock, nobody waits for it: no due item (a staff adjustment's 10 write units)
    assert all_due() == []
    ask(1)
    receive(SOLD_OUT, 2)
    # The stock page was shown before the alert was asked: its write, made on "nobody waits", is refused
    # and made again with the due mark.
    gateway.stock_increase(product_id=SOLD_OUT, quantity=1, token=gateway.new_token(), expected_level=2)
    assert all_due() == [(SOLD_OUT, 3)]
    assert gateway.product_get(product_id=SOLD_OUT).stock_level == 3


def test_units_plus_margin_oldest_first_and_each_once(catalog):
    asked = ask(6)
    receive(SOLD_OUT, 2)
    assert due_pass(margin=1) == 3
    claimed = sorted(outbox(), key=lambda a: a.asked_at)
    assert [a.alert_id for a in claimed] == [a.alert_id for a in asked[:3]]
    assert alert_count(product_id=SOLD_OUT) == 3
    assert due_pass(margin=1) == 0  # the same units are never given out again
    receive(SOLD_OUT, 1)
    assert due_pass(margin=1) == 2  # one more unit (plus the margin): the next two in line
    assert alert_count(product_id=SOLD_OUT) == 1


def test_units_sold_again_before_the_job_ran_send_nothing(catalog):
    ask(2)
    receive(SOLD_OUT, 1)
    gateway.stock_decrease(product_id=SOLD_OUT, quantity=1, token=gateway.new_token(), reason="damaged")
    assert due_pass(margin=3) == 0 and alert_count(product_id=SOLD_OUT) == 2


def test_a_cancelled_alert_is_skipped_and_not_counted(catalog):
    first, second = ask(2)
    assert asking.alert_cancel(owner=first.owner, product_id=SOLD_OUT) is not None
    assert alert_count(product_id=SOLD_OUT) == 1
    receive(SOLD_OUT, 1)
    assert due_pass(margin=0) == 1
    assert [a.alert_id for a in outbox()] == [second.alert_id]


def test_a_lease_is_one_job_at_a_time_and_runs_out(catalog):
    ask(1)
    receive(SOLD_OUT, 1)
    due_pass(margin=0)
    [alert] = outbox()
    now = time.time()
    leased = sending.alert_lease(alert, now=now)
    assert leased is not None
    assert sending.alert_lease(alert, now=now + 1) is None  # another job while the lease runs
    again = sending.alert_lease(alert, now=now + sending.LEASE_SECONDS + 1)  # the first job stopped
    assert again is not None
    assert sending.alert_mark_sent(leased) is False  # the stale lease cannot mark it
    assert sending.alert_mark_sent(again) is True
    assert outbox() == []


def test_a_cancelled_order_marks_its_products_due(catalog):
    order = gateway.order_place(
        customer_id="c9", customer_name="Cy", order_id=gateway.new_order_id(), token=gateway.new_token(),
        lines=[gateway.PurchaseLine(product_id="8", quantity=1, price=gateway.product_get(product_id="8").price)],
    )
    ask(1, product_id="8")
    gateway.order_cancel(customer_id="c9", order_id=order.order_id)
    assert due_pass(margin=0) == 1


def test_due_marks_after_a_full_transaction_are_tried_again_and_never_fail_the_stock_write(catalog, monkeypatch):
    """A stock write with too many actions for its due marks (a 25-line cancellation, an order from bigger
    holds) sends the marks right after it: another transaction in the way is waited out (the same token), and
    DynamoDB unavailable then is logged, never raised: the stock write stands."""
    from catalog.gateway.dynamo.transact import TRANSACTION_ACTIONS, Refusal
    from catalog.gateway.errors import CatalogUnavailable

    sent = []
    answers = iter([None, Refusal(conflict=True), None])

    def fake(actions, *, request_token):
        sent.append(request_token)
        return next(answers)

    monkeypatch.setattr(marks, "transact_write", fake)
    monkeypatch.setattr(backoff, "conflict_pause", lambda: None)
    stock = [{"Update": {}}] * TRANSACTION_ACTIONS
    due = [marks.alert_due_action(SOLD_OUT, 1)]
    assert marks.transact_write_marking_due(stock, due, request_token="stock", due_token="marks") is None
    assert sent == ["stock", "marks", "marks"]

    def down(actions, *, request_token):
        if request_token == "marks":
            raise CatalogUnavailable("DynamoDB is down")

    monkeypatch.setattr(marks, "transact_write", down)
    assert marks.transact_write_marking_due(stock, due, request_token="stock", due_token="marks") is None


def test_units_that_come_in_while_an_alert_is_asked_or_confirmed_still_reach_it(catalog):
    """An ask that read the product sold out just before units came in is refused as in stock; a guest
    confirming after the job gave those units out (to nobody: nobody waited) is marked due at once."""
    seen = gateway.product_get(product_id=SOLD_OUT)  # sold out when the shopper looked
    guest = alert_ask(product_id=SOLD_OUT, email="guest@example.com", product=seen).alert  # pending
    receive(SOLD_OUT, 2)  # a receipt of a sold-out product marks it due without asking
    assert all_due() == [(SOLD_OUT, 2)]
    assert due_pass(margin=0) == 0 and all_due() == []  # nobody was waiting
    with pytest.raises(AlertRefused, match="is in stock"):
        alert_ask(product_id=SOLD_OUT, email="ann@example.com", customer_id="c1", product=seen)
    assert alert_count(product_id=SOLD_OUT) == 0
    confirmed = asking.alert_confirm(owner=guest.owner, product_id=SOLD_OUT, alert_id=guest.alert_id)
    assert confirmed.status == "waiting" and alert_count(product_id=SOLD_OUT) == 1
    assert all_due() == [(SOLD_OUT, 1)]
    assert due_pass(margin=0) == 1 and alert_count(product_id=SOLD_OUT) == 0


def test_an_alert_for_a_product_spread_over_buckets_is_marked_due_when_units_are_in_them(catalog):
    """A spread product's item holds none of its units (they are in its buckets): confirming an alert for it
    cannot tell from the item that it is sold out, so the confirm marks it due; the job then gives it a unit
    if the buckets have one (and nothing if they have none)."""
    guest = alert_ask(product_id=SOLD_OUT, email="guest@example.com").alert
    receive(SOLD_OUT, 100)
    due_pass(margin=0)  # nobody was waiting: nothing claimed
    stock_set_buckets(product_id=SOLD_OUT, buckets=4)
    gateway.order_place(  # a sale spreads it over its buckets
        customer_id="c9", customer_name="Cy", order_id=gateway.new_order_id(), token=gateway.new_token(),
        lines=[gateway.PurchaseLine(product_id=SOLD_OUT, quantity=1,
                                    price=gateway.product_get(product_id=SOLD_OUT).price)])
    assert gateway.product_get(product_id=SOLD_OUT).spread
    asking.alert_confirm(owner=guest.owner, product_id=SOLD_OUT, alert_id=guest.alert_id)
    assert all_due() == [(SOLD_OUT, 1)] and due_pass(margin=0) == 1


def test_a_confirm_waits_out_another_transaction_on_the_product(catalog, monkeypatch):
    """The count is on the product's item, which sales write too: a confirm that meets another transaction
    tries again after a pause, and a guest whose confirm could not be made is told so (503), not "on"."""
    from catalog.gateway.dynamo.transact import Refusal

    guest = alert_ask(product_id=SOLD_OUT, email="guest@example.com").alert
    real, busy = asking.transact_write, [Refusal(conflict=True)]
    monkeypatch.setattr(asking, "transact_write", lambda actions, **kw: busy.pop() if busy else real(actions, **kw))
    monkeypatch.setattr(backoff, "CONTENDED_WRITE_SECONDS", 0.05)
    assert asking.alert_confirm(owner=guest.owner, product_id=SOLD_OUT, alert_id=guest.alert_id).status == "waiting"
    assert alert_count(product_id=SOLD_OUT) == 1


def hide(product_id, published):
    product = gateway.product_get(product_id=product_id, consistent=True)
    gateway.product_update(product_id=product_id, version=product.version, who="eve", changes={"published": published})


def test_a_hidden_products_alerts_are_not_claimed_until_it_is_shown_again(catalog):
    ask(3)
    hide(SOLD_OUT, False)
    receive(SOLD_OUT, 2)
    assert due_pass(margin=0) == 0 and outbox() == []
    assert due_pass(margin=0) == 0 and alert_count(product_id=SOLD_OUT) == 3  # the due item is gone
    hide(SOLD_OUT, True)  # shown again, with its 2 units: its alerts are due as after a receipt
    assert due_pass(margin=0) == 2 and len(outbox()) == 2 and alert_count(product_id=SOLD_OUT) == 1


def test_an_allowance_left_over_is_not_claimed_once_the_product_is_hidden(catalog, monkeypatch):
    ask(3)
    receive(SOLD_OUT, 3)
    monkeypatch.setattr(claiming, "CLAIM_BATCH", 1)
    monkeypatch.setattr(claiming, "_claim", lambda *args: False)  # claiming refused: the allowance is left
    monkeypatch.setattr(claiming, "CLAIM_REFUSALS", 0)
    monkeypatch.setattr(claiming, "conflict_pause", lambda: None)
    assert due_pass(margin=0) == 0
    monkeypatch.undo()
    hide(SOLD_OUT, False)
    assert due_pass(margin=0) == 0 and outbox() == [] and alert_count(product_id=SOLD_OUT) == 3
