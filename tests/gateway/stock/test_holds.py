"""Timed holds on DynamoDB Local: units held while a shopper pays are out of what others
can buy, become the sale when the order is placed, and come back when the hold ends or is cancelled."""
import time
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

import pytest

from catalog import gateway
from catalog.gateway import LineProblem, PurchaseLine, keys
from catalog.gateway.alerts import alerts_due
from catalog.gateway.errors import OrderRejected
from catalog.gateway.stock.holds import holds_of, holds_release, holds_take
from catalog.gateway.stock.reconcile import reconcile_product
from catalog.gateway.stock.releases import holds_all, holds_release_ended, holds_released
from shop.messages import line_problem_text
from tests.helpers import age_hold, level, place, seed, small_catalog, units_counted

pytestmark = pytest.mark.dynamodb_local


@pytest.fixture
def holds_on(settings, local_ddb):
    settings.STOCK_HOLD_SECONDS = 600
    settings.STOCK_HOLD_MAX_UNITS = 5
    return settings


def catalog_with(level, buckets=1):
    data = small_catalog()
    data["products"][6].update(stockLevel=level, stockBuckets=buckets)  # product 7, Acme Car Charger, 29.90
    seed(data)


def line(quantity=1, product_id="7"):
    return PurchaseLine(product_id=product_id, quantity=quantity, price=Decimal("29.90"))


def sales(product_id="7"):
    history = gateway.stock_history(product_id=product_id, limit=100, consistent=True).items
    return [h for h in history if h.reason == "sold"]


def test_two_shoppers_and_the_last_unit(holds_on):
    catalog_with(1)
    held = holds_take(customer_id="ann", lines=[line()])
    assert level("7") == 0  # what others can still buy
    assert reconcile_product(product_id="7") is None  # the held unit is accounted for
    with pytest.raises(OrderRejected) as refused:
        holds_take(customer_id="bob", lines=[line()])
    assert [p.kind for p in refused.value.problems] == [LineProblem.SHORT]
    with pytest.raises(OrderRejected):
        place("bob", [line()])
    # The job before the hold ended leaves it alone; after, the unit is back and alerts are due.
    assert holds_release_ended().holds == 0 and level("7") == 0
    summary = holds_release_ended(now=held["7"].until)
    assert (summary.holds, summary.units) == (1, 1) and level("7") == 1
    assert any(d.product_id == "7" for s in range(keys.ALERT_SHARDS) for d in alerts_due(shard=s))
    assert [(r.customer_id, r.quantity, r.why) for r in holds_released(product_id="7")] == [("ann", 1, "ended")]
    assert holds_release_ended(now=held["7"].until).holds == 0  # released once, never twice
    holds_take(customer_id="bob", lines=[line()])
    order = place("bob", [line()])
    assert level("7") == 0 and [line.quantity for line in order.lines] == [1]
    assert [(-s.delta) for s in sales()] == [1]  # the hold that became a sale is a sale
    assert holds_all(product_id="7") == []
    assert reconcile_product(product_id="7") is None
    with pytest.raises(OrderRejected):  # ann's hold is gone: nothing left for her
        place("ann", [line()])


def test_a_shopper_is_never_blocked_by_their_own_hold(holds_on):
    catalog_with(3)
    first = holds_take(customer_id="ann", lines=[line(3)])
    time.sleep(1.1)
    again = holds_take(customer_id="ann", lines=[line(3)])  # another tab: renewed, not refused
    assert again["7"].until > first["7"].until and again["7"].held_at == first["7"].held_at
    assert level("7") == 0
    holds_take(customer_id="ann", lines=[line(2)])  # fewer: one unit goes back
    assert level("7") == 1 and holds_of(customer_id="ann", product_ids=["7"])["7"].quantity == 2
    place("ann", [line(2)])
    assert level("7") == 1 and reconcile_product(product_id="7") is None


def test_renewals_stop_at_the_cap_and_a_hold_spent_there_goes_back_to_everyone(holds_on):
    holds_on.STOCK_HOLD_MAX_SECONDS = 1200
    catalog_with(3)
    holds_take(customer_id="ann", lines=[line(2)])
    age_hold("ann", "7", 1000)  # opened 1,000 s ago
    capped = holds_take(customer_id="ann", lines=[line(3)])["7"]  # renewed and grown: to the cap, not past it
    assert capped.final() and capped.until == capped.latest_end() and level("7") == 0
    age_hold("ann", "7", 300)  # the cap passed; the release job has not run
    with pytest.raises(OrderRejected) as refused:
        holds_take(customer_id="ann", lines=[line(3)])
    assert [p.kind for p in refused.value.problems] == [LineProblem.ENDED]
    assert level("7") == 3 and holds_all(product_id="7", consistent=True) == []
    assert any(d.product_id == "7" for s in range(keys.ALERT_SHARDS) for d in alerts_due(shard=s))
    assert holds_release_ended().holds == 0  # released once
    holds_take(customer_id="bob", lines=[line(2)])  # others may hold them now; ann cools down
    with pytest.raises(OrderRejected) as refused:
        holds_take(customer_id="ann", lines=[line(3)])
    assert [(p.kind, p.available) for p in refused.value.problems] == [(LineProblem.SHORT, 1),
                                                                       (LineProblem.COOLING, None)]
    assert reconcile_product(product_id="7") is None


def test_an_order_of_more_than_held_uses_the_hold_and_takes_the_rest(holds_on):
    catalog_with(3)
    holds_take(customer_id="ann", lines=[line(2)])
    place("ann", [line(3)])  # one more added after the checkout opened: the last unit, beside her two
    assert level("7") == 0 and holds_all(product_id="7", consistent=True) == []
    assert reconcile_product(product_id="7") is None


def test_a_full_cart_of_shrunk_holds_marks_every_unit_back_due(holds_on):
    """25 lines held 3 each, then 2 each (the renewal: 75 actions with their due marks, and the shopper's count
    of units held), then ordered 1 each from the holds (each line's put-back, record and hold delete, 3 and the
    count: 104 actions with the marks: they follow the order in their own transaction)."""
    holds_on.STOCK_HOLD_MAX_UNITS_PER_SHOPPER = 75
    data = small_catalog()
    data["products"] = [{"productId": f"z{i}", "name": f"Thing {i}", "brandId": "1", "categoryId": "1",
                         "price": "2.50", "stockLevel": 3} for i in range(25)]
    seed(data)

    def cart(n):
        return [PurchaseLine(product_id=f"z{i}", quantity=n, price=Decimal("2.50")) for i in range(25)]

    def due():
        return {d.product_id: d.units for s in range(keys.ALERT_SHARDS) for d in alerts_due(shard=s)}

    holds_take(customer_id="ann", lines=cart(3))
    assert [level(f"z{i}") for i in range(25)] == [0] * 25 and due() == {}
    holds_take(customer_id="ann", lines=cart(2))
    assert [level(f"z{i}") for i in range(25)] == [1] * 25 and due() == {f"z{i}": 1 for i in range(25)}
    order = place("ann", cart(1))
    assert len(order.lines) == 25 and [level(f"z{i}") for i in range(25)] == [2] * 25
    assert due() == {f"z{i}": 2 for i in range(25)}
    assert all(reconcile_product(product_id=f"z{i}") is None for i in range(25))


def test_an_order_of_fewer_than_held_gives_back_the_rest(holds_on):
    catalog_with(3)
    holds_take(customer_id="bob", lines=[line(3)])
    place("bob", [line(2)])  # one fewer (another device): the third goes back
    assert level("7") == 1 and holds_all(product_id="7", consistent=True) == []
    assert reconcile_product(product_id="7") is None


def test_an_order_within_the_hold_needs_no_stock_and_the_release_cannot_double_it(holds_on):
    catalog_with(2)
    held = holds_take(customer_id="ann", lines=[line(2)])
    order = place("ann", [line(2)])
    assert order.total == Decimal("59.80") and level("7") == 0
    # The job runs after the hold's end: the hold became the order, so nothing comes back.
    assert holds_release_ended(now=held["7"].until + 5).holds == 0 and level("7") == 0
    assert reconcile_product(product_id="7") is None


def test_a_cancelled_checkout_releases_at_once(holds_on):
    catalog_with(4)
    holds_take(customer_id="ann", lines=[line(3)])
    assert level("7") == 1
    assert holds_release(customer_id="ann", product_ids=["7"]) == 3
    assert level("7") == 4 and holds_all(product_id="7") == []
    assert [r.why for r in holds_released(product_id="7")] == ["cancelled"]
    assert reconcile_product(product_id="7") is None


def test_a_stocktake_counts_held_units_on_the_shelf(holds_on):
    catalog_with(5)
    holds_take(customer_id="ann", lines=[line(2)])
    change = gateway.stock_count(product_id="7", counted=5, expected_level=3, token=gateway.new_token())
    assert change.level == 3 and change.adjustment.delta == 0  # all there: 3 to sell, 2 held
    change = gateway.stock_count(product_id="7", counted=4, expected_level=3, token=gateway.new_token())
    assert change.level == 2 and change.adjustment.delta == -1  # one missing
    assert reconcile_product(product_id="7") is None


def test_a_hold_sold_between_a_stocktakes_read_and_its_write_refuses_it(holds_on, monkeypatch):
    """The count's write is conditional on each hold it read being unchanged: a hold that becomes a sale in
    between (no level moves) makes it read again, and then it is refused as a count against other holds."""
    from catalog.gateway.errors import StockMoved
    from catalog.gateway.stock import stock as stock_module  # where the count reads the holds

    catalog_with(5)
    holds_take(customer_id="ann", lines=[line(2)])
    real, sold = stock_module.holds_all, []

    def read_then_sell(**kwargs):
        found = real(**kwargs)
        if not sold:
            sold.append(place("ann", [line(2)]))  # ann pays just after the count read her hold
        return found

    monkeypatch.setattr(stock_module, "holds_all", read_then_sell)
    with pytest.raises(StockMoved) as moved:
        gateway.stock_count(product_id="7", counted=5, expected_level=3, expected_held=2, token=gateway.new_token())
    assert (moved.value.level, moved.value.held) == (3, 0) and level("7") == 3
    assert [h.reason for h in gateway.stock_history(product_id="7", consistent=True).items][0] == "sold"


def test_a_saved_count_sent_again_answers_as_then_whatever_is_held_now(holds_on):
    catalog_with(5)
    holds_take(customer_id="ann", lines=[line(2)])
    token = gateway.new_token()
    first = gateway.stock_count(product_id="7", counted=4, expected_level=3, expected_held=2, token=token)
    place("ann", [line(2)])  # ann pays after the count was saved: 0 held now
    again = gateway.stock_count(product_id="7", counted=4, expected_level=3, expected_held=2, token=token)
    assert again.replayed and (again.level, again.adjustment.delta) == (first.level, first.adjustment.delta) == (2, -1)


def test_a_count_that_lost_to_a_new_hold_is_shown_the_units_held_now(holds_on):
    from catalog.gateway.errors import StockMoved

    catalog_with(5)
    holds_take(customer_id="ann", lines=[line(2)])
    holds_take(customer_id="bob", lines=[line(1)])  # while staff count: the level and the units held move
    with pytest.raises(StockMoved) as moved:
        gateway.stock_count(product_id="7", counted=5, expected_level=3, expected_held=2, token=gateway.new_token())
    assert (moved.value.level, moved.value.held) == (2, 3)


def test_one_shopper_cannot_hold_more_than_the_limit(holds_on):
    catalog_with(40)
    with pytest.raises(OrderRejected) as refused:
        holds_take(customer_id="ann", lines=[line(6)])
    assert [p.kind for p in refused.value.problems] == [LineProblem.LIMIT]
    assert "at most 5 of Acme Car Charger" in line_problem_text(refused.value.problems[0])
    assert level("7") == 40


def test_a_crowd_holds_exactly_the_units_there_are(holds_on):
    catalog_with(10)

    def hold(i):
        try:
            holds_take(customer_id=f"c{i}", lines=[line()])
            return True
        except OrderRejected:
            return False

    with ThreadPoolExecutor(max_workers=16) as pool:
        held = sum(pool.map(hold, range(32)))
    assert held == 10 and level("7") == 0 and len(holds_all(product_id="7", consistent=True)) == 10
    assert reconcile_product(product_id="7") is None


def test_a_spread_product_holds_through_a_bucket(holds_on):
    catalog_with(200, buckets=4)
    place("warm", [line()])  # the first sale spreads it
    holds_take(customer_id="ann", lines=[line(3)])
    assert level("7") == 196
    product_item = gateway.product_get(product_id="7", consistent=True)
    assert product_item.spread  # the hold took from a bucket, as a sale does
    place("ann", [line(3)])
    assert level("7") == 196 and reconcile_product(product_id="7") is None


def test_holds_off_the_order_reads_no_hold(settings, local_ddb):
    settings.STOCK_HOLD_SECONDS = 0
    catalog_with(1)
    from catalog.gateway.dynamo.testing import count_requests

    with count_requests() as counter:
        place("ann", [line()])
    assert "BatchGetItem" in counter.operations and counter.operations.count("BatchGetItem") == 1
    assert level("7") == 0


def test_with_holds_on_a_sale_writes_nothing_under_the_products_key_but_its_level(holds_on):
    """Measured on DynamoDB Local (bench/capacity_meter.py: each request's reported units, transactional
    writes twice): opening the checkout and placing a one-line order. Under P#<pid> only the level (taken
    when the hold is, not again); the hold is put and deleted in one of the product's hold partitions (by
    the customer), so a hot product's holds are no hot key."""
    from bench.capacity_meter import CapacityMeter

    catalog_with(50)
    with CapacityMeter() as meter:
        holds_take(customer_id="ann", lines=[line()])
        place("ann", [line()])
    writes = {}
    for c in meter.charges():
        if c.rw == "W" and c.where == "table":
            writes[c.pk] = writes.get(c.pk, 0) + c.units
    product = keys.product_pk("7")
    hold_partition = keys.hold_key("7", "ann")["PK"]
    assert hold_partition.startswith(f"{product}#H#")
    assert writes[product] == 2 and writes[hold_partition] == 4  # the level; the hold put and deleted
    assert sorted(pk for pk in writes if pk.startswith(product)) == sorted([product, hold_partition])


def _table_reads(meter):
    reads = {}
    for c in meter.charges():
        if c.rw == "R" and c.where == "table":
            reads.setdefault(c.pk, []).append(c.units)
    return reads


def test_a_hot_products_buyer_reads_its_buckets_once_at_half_price(holds_on):
    """With holds on, what a buyer of a product spread over 10 buckets reads of its partitions.
    Opening the checkout reads the product and its buckets from any replica (0.5 read units an item: the
    take is conditional, a stale level is refused); placing the order from the hold reads no bucket at all
    (its units are held already) and the product item at 0.5. So the product sells past 2,000 units a
    second (`make capacity --holds 600`) instead of 1,498 when both read every bucket consistently."""
    from bench.capacity_meter import CapacityMeter

    catalog_with(500, buckets=10)
    place("warm", [line()])  # the first sale spreads it
    with CapacityMeter() as opening:
        holds_take(customer_id="ann", lines=[line()])
    with CapacityMeter() as paying:
        place("ann", [line()])
    product, buckets = keys.product_pk("7"), {keys.bucket_pk("7", k) for k in range(10)}
    opened, paid = _table_reads(opening), _table_reads(paying)
    assert opened[product] == [0.5] and {pk: opened[pk] for pk in buckets} == {pk: [0.5] for pk in buckets}
    assert paid[product] == [0.5] and not buckets & set(paid)
    assert level("7") == 498 and reconcile_product(product_id="7") is None


def test_sold_out_is_said_only_after_a_consistent_read(holds_on):
    """The first read may come from any replica; a refusal ("only N left") is confirmed on the latest
    write first, so a replica behind never turns a buyer away."""
    from bench.capacity_meter import CapacityMeter

    catalog_with(2)
    with CapacityMeter() as meter, pytest.raises(OrderRejected) as refused:
        holds_take(customer_id="ann", lines=[line(3)])
    assert refused.value.problems[0].available == 2
    assert sorted(_table_reads(meter)[keys.product_pk("7")]) == [0.5, 1.0]
    with CapacityMeter() as meter, pytest.raises(OrderRejected):
        place("bob", [line(3)])
    assert sorted(_table_reads(meter)[keys.product_pk("7")]) == [0.5, 1.0]
    assert level("7") == 2


def test_releasing_a_hold_of_a_spread_product_leaves_it_spread(holds_on):
    """A shopper who cancels their checkout of a hot product puts its units back onto the product item's
    own units, without gathering its buckets (which would send every other buyer of it onto the exact path
    until the next spread); the total, the alerts due and the ledger stay exact."""
    from catalog.gateway.dynamo.testing import count_requests

    catalog_with(200, buckets=4)
    place("warm", [line()])  # the first sale spreads it
    holds_take(customer_id="ann", lines=[line(3)])
    assert level("7") == 196
    with count_requests() as counter:
        assert holds_release(customer_id="ann", product_ids=["7"]) == 3
    assert counter.operations == ["BatchGetItem", "BatchGetItem", "TransactWriteItems"]  # hold, product, release
    product = gateway.product_get(product_id="7", consistent=True)
    assert product.spread and product.stock_level == 199 and level("7") == 199
    place("bob", [line(2)])  # the buckets still sell
    assert level("7") == 197 and reconcile_product(product_id="7") is None


def test_an_order_of_fewer_than_held_of_a_spread_product_leaves_it_spread(holds_on):
    """The units a shrinking hold gives back go onto the spread product's own units, as a release's do: no
    gather in the shopper's request, the other buyers keep selling from the buckets."""
    catalog_with(200, buckets=4)
    place("warm", [line()])  # the first sale spreads it
    holds_take(customer_id="ann", lines=[line(3)])
    place("ann", [line(1)])  # two of the three held go back
    product = gateway.product_get(product_id="7", consistent=True)
    assert product.spread and level("7") == 198
    assert reconcile_product(product_id="7") is None and not holds_of(customer_id="ann", product_ids=["7"])


def test_one_account_holding_from_many_tabs_at_once_stays_within_its_allowance(holds_on):
    """16 holds of one account at once, each of another product, with an allowance of 8 units: exactly 8 are
    held and the account's count says 8; released at once, it says 0 and the allowance is whole again."""
    holds_on.STOCK_HOLD_MAX_UNITS_PER_SHOPPER = 8
    data = small_catalog()
    data["products"] = [{"productId": f"z{i}", "name": f"Thing {i}", "brandId": "1", "categoryId": "1",
                         "price": "2.50", "stockLevel": 3} for i in range(16)]
    seed(data)
    ids = [f"z{i}" for i in range(16)]

    def hold(pid):
        try:
            holds_take(customer_id="ann", lines=[PurchaseLine(product_id=pid, quantity=1, price=Decimal("2.50"))])
            return pid
        except OrderRejected as exc:
            assert [p.kind for p in exc.problems] == [LineProblem.TOTAL]
            return None

    with ThreadPoolExecutor(max_workers=16) as pool:
        held = [pid for pid in pool.map(hold, ids) if pid]
    assert len(held) == 8 and len(holds_of(customer_id="ann", product_ids=ids)) == 8
    assert units_counted("ann") == 8
    assert sum(level(pid) for pid in ids) == 16 * 3 - 8
    with ThreadPoolExecutor(max_workers=8) as pool:
        assert sum(pool.map(lambda pid: holds_release(customer_id="ann", product_ids=[pid]), held)) == 8
    assert units_counted("ann") == 0 and sum(level(pid) for pid in ids) == 16 * 3
    fresh = [pid for pid in ids if pid not in held][:8]  # other products: no window of hers to wait for
    with ThreadPoolExecutor(max_workers=8) as pool:
        assert all(pool.map(hold, fresh))
    assert units_counted("ann") == 8
