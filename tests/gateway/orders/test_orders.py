"""Orders in the customer's partition: placing one transaction, reading them back."""
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from decimal import Decimal

import pytest

from bench.capacity_meter import CapacityMeter
from catalog import gateway
from catalog.gateway import LineProblem, PurchaseLine, keys
from catalog.gateway.alerts import alerts_due
from catalog.gateway.dynamo.testing import count_requests
from catalog.gateway.errors import InvalidInput, NotFound, OrderRejected
from catalog.gateway.orders import orders
from catalog.gateway.orders.orders import order_place
from shop.messages import line_problem_text
from tests.helpers import items_in_partition, seed, small_catalog


def line(product_id, quantity=1, price=None):
    price = price if price is not None else gateway.product_get(product_id=product_id).price
    return PurchaseLine(product_id=product_id, quantity=quantity, price=Decimal(price))


def place(lines, customer="7", order_id=None, token=None):
    return orders.order_place(
        customer_id=customer, customer_name=f"user{customer}", order_id=order_id or orders.new_order_id(),
        token=token or gateway.new_token(), lines=lines,
    )


def stock(product_id):
    return gateway.product_get(product_id=product_id, consistent=True).stock_level


def sales(product_id):
    """A product's sales, newest first (its history's `sold` changes)."""
    return [h for h in gateway.stock_history(product_id=product_id).items if h.reason == "sold"]


def test_an_order_takes_stock_records_sales_and_keeps_lines(catalog):
    order = place([line("1", 2), line("4", 3)])
    assert (stock("1"), stock("4")) == (68, 9)
    assert order.total == Decimal("39990.00") * 2 + Decimal("899.00") * 3
    saved = orders.order_get(customer_id="7", order_id=order.order_id)
    assert saved == order
    assert [(x.name, x.quantity, x.unit_price) for x in saved.lines] == [
        ("Model 3", 2, Decimal("39990.00")), ("Pixel 9", 3, Decimal("899.00")),
    ]
    (sale,) = sales("1")
    # plenty left: taken relatively, so the level after is not recorded (nobody read it)
    assert (sale.delta, sale.resulting_level, sale.order_id, sale.who) == (-2, None, order.order_id, "user7")
    assert sale.reason == "sold" and sale.reference == order.order_id

    opening = gateway.stock_history(product_id="1").items[-1]  # the import's, oldest
    assert (opening.reason, opening.delta) == ("opening", 70)


def test_near_the_reorder_point_a_sale_takes_the_exact_path(catalog):
    """Pixel 9 (12, reorder point the default 5): 6 leaves it above, relative; 1 more takes it to
    5, at its reorder point and "Only 5 left": exact, with the level after and on the reorder list."""
    place([line("4", 6)])
    assert stock("4") == 6 and "4" not in [p.product_id for p in gateway.products_to_reorder(limit=50).items]
    place([line("4", 1)])
    assert stock("4") == 5 and "4" in [p.product_id for p in gateway.products_to_reorder(limit=50).items]
    exact, relative = sales("4")
    assert (exact.delta, exact.resulting_level) == (-1, 5)
    assert (relative.delta, relative.resulting_level) == (-6, None)


def test_a_reorder_point_of_its_own_moves_the_edge(catalog):
    gateway.product_set_reorder_point(product_id="7", reorder_point=30)  # 40 in stock
    place([line("7", 9)])  # leaves 31: above 30, relative
    place([line("7", 1)])  # leaves 30: at it, exact, and on the reorder list
    assert [h.resulting_level for h in sales("7")] == [30, None]
    assert "7" in [p.product_id for p in gateway.products_to_reorder(limit=50).items]


def test_a_short_line_changes_nothing_at_all(catalog):
    with pytest.raises(OrderRejected) as raised:
        place([line("1", 1), line("4", 1), line("2", 4)])
    (problem,) = raised.value.problems
    assert (problem.product_id, problem.kind, problem.available) == ("2", LineProblem.SHORT, 3)
    assert (stock("1"), stock("4"), stock("2")) == (70, 12, 3)
    assert items_in_partition("CUSTOMER#7") == []
    assert [h.reason for h in gateway.stock_history(product_id="1").items] == ["opening"]


def test_a_changed_price_changes_nothing(catalog):
    with pytest.raises(OrderRejected) as raised:
        place([line("4", 1, price="799.00")])
    (problem,) = raised.value.problems
    assert (problem.kind, problem.price) == (LineProblem.PRICE, Decimal("899.00"))
    assert "changed to €899.00" in line_problem_text(problem)
    assert stock("4") == 12


def test_an_unknown_product_is_reported(catalog):
    with pytest.raises(OrderRejected) as raised:
        place([PurchaseLine("999", 1, Decimal("1.00"))])
    assert raised.value.problems[0].kind == LineProblem.GONE


def test_the_same_order_submitted_twice_is_placed_once(catalog):
    order_id, token = orders.new_order_id(), gateway.new_token()
    first = place([line("4", 2)], order_id=order_id, token=token)
    again = place([line("4", 2)], order_id=order_id, token=token)
    assert again.order_id == first.order_id and again.total == first.total
    assert stock("4") == 10
    assert len(orders.orders_by_customer(customer_id="7").items) == 1


def test_a_replay_after_the_stock_ran_out_still_answers_the_order(catalog):
    order_id, token = orders.new_order_id(), gateway.new_token()
    first = place([line("2", 3)], order_id=order_id, token=token)
    assert stock("2") == 0
    assert place([line("2", 3)], order_id=order_id, token=token).order_id == first.order_id


@pytest.mark.parametrize(
    "lines",
    [
        [],
        [PurchaseLine("1", 0, Decimal("1"))],
        [PurchaseLine("1", 1, Decimal("1"))] * 2,
        [PurchaseLine("a b", 1, Decimal("1"))],
    ],
)
def test_bad_orders_are_refused_before_any_request(catalog, lines):
    with count_requests() as counter, pytest.raises(InvalidInput):
        place(lines)
    assert counter.total == 0


def test_at_most_25_lines(catalog):
    with pytest.raises(InvalidInput):
        place([PurchaseLine(str(i), 1, Decimal("1.00")) for i in range(26)])


def test_orders_newest_first_with_their_lines_in_one_query(catalog, settings):
    placed = [place([line("7", 1), line("4", i + 1)]) for i in range(3)]
    with count_requests() as counter:
        page = orders.orders_by_customer(customer_id="7")
    assert counter.operations == ["Query"]
    assert [o.order_id for o in page.items] == [o.order_id for o in reversed(placed)]
    assert [[x.quantity for x in o.lines] for o in page.items] == [[1, 3], [1, 2], [1, 1]]


def test_order_pages_never_split_an_order(catalog):
    placed = [place([line("7", 1), line("4", 1), line("1", 1)]) for _ in range(5)]
    seen, after = [], None
    while True:
        page = orders.orders_by_customer(customer_id="7", after=after, limit=2)
        assert all(len(o.lines) == 3 for o in page.items)
        seen += [o.order_id for o in page.items]
        after = page.next_cursor
        if after is None:
            break
    assert seen == [o.order_id for o in reversed(placed)]


def test_another_customers_order_is_not_found(catalog):
    order = place([line("4", 1)], customer="7")
    with pytest.raises(NotFound):
        orders.order_get(customer_id="8", order_id=order.order_id)


# --- real DynamoDB -------------------------------------------------------------------------

@pytest.mark.dynamodb_local
def test_fifty_shoppers_buy_a_product_with_stock_ten(local_ddb):
    data = small_catalog()
    data["products"][6]["stockLevel"] = 10  # product 7
    seed(data)
    price = gateway.product_get(product_id="7").price
    start = threading.Barrier(50)

    def shop(i):
        start.wait()
        try:
            return place([PurchaseLine("7", 1, price)], customer=f"c{i}")
        except OrderRejected as exc:
            return exc

    with ThreadPoolExecutor(max_workers=50) as pool:
        results = list(pool.map(shop, range(50)))
    placed = [r for r in results if not isinstance(r, OrderRejected)]
    refused = [r for r in results if isinstance(r, OrderRejected)]
    assert (len(placed), len(refused)) == (10, 40)
    assert all(line_problem_text(r.problems[0]) == "Acme Car Charger is sold out." for r in refused)
    assert stock("7") == 0
    sales = [h for h in gateway.stock_history(product_id="7", limit=100).items if h.order_id]
    assert sorted(h.order_id for h in sales) == sorted(o.order_id for o in placed)


@pytest.mark.dynamodb_local
def test_a_replayed_checkout_gives_one_order_on_dynamodb(local_catalog):
    order_id, token = orders.new_order_id(), gateway.new_token()
    lines = [line("4", 1), line("7", 2)]
    with ThreadPoolExecutor(max_workers=3) as pool:  # a triple click
        results = list(pool.map(lambda _: place(lines, order_id=order_id, token=token), range(3)))
    assert {r.order_id for r in results} == {order_id}
    assert (stock("4"), stock("7")) == (11, 38)
    assert len(orders.orders_by_customer(customer_id="7").items) == 1


@pytest.mark.dynamodb_local
def test_a_three_line_order_whose_third_line_is_short_changes_nothing(local_catalog):
    with pytest.raises(OrderRejected):
        place([line("1", 1), line("4", 1), line("8", 2)])
    assert (stock("1"), stock("4"), stock("8")) == (70, 12, 1)
    assert items_in_partition("CUSTOMER#7") == []
    assert all([h.reason for h in gateway.stock_history(product_id=p).items] == ["opening"] for p in ("1", "4", "8"))


@pytest.mark.dynamodb_local
def test_a_full_cart_of_25_lines_fits_one_transaction(local_ddb):
    data = small_catalog()
    data["products"] = [
        {"productId": f"z{i}", "name": f"Thing {i}", "brandId": "1", "categoryId": "1", "price": "2.50",
         "stockLevel": 5}
        for i in range(25)
    ]
    seed(data)
    order = place([PurchaseLine(f"z{i}", 1, Decimal("2.50")) for i in range(25)])
    assert len(order.lines) == 25 and order.total == Decimal("62.50")
    assert stock("z24") == 4
    # Staff can cancel it too: every unit back, and every product due to its back-in-stock alerts (a
    # cancellation of 25 lines takes 101 actions with them: the marks follow in their own transaction).
    gateway.order_cancel(customer_id="7", order_id=order.order_id, who="staff")
    assert [stock(f"z{i}") for i in range(25)] == [5] * 25
    due = {d.product_id: d for s in range(keys.ALERT_SHARDS) for d in alerts_due(shard=s)}
    assert {f"z{i}" for i in range(25)} <= set(due)


# --- the confirmation claim -------------------------------------------------------------------

def test_the_confirmation_is_claimed_once(catalog):
    order = place([line("4")])
    assert orders.order_confirmation_claim(customer_id="7", order_id=order.order_id) is True
    assert orders.order_confirmation_claim(customer_id="7", order_id=order.order_id) is False
    assert orders.order_confirmation_claim(customer_id="7", order_id="no-such-order") is False


# --- a sale's record: its order line, measured on DynamoDB Local ------------------------------

PRICES = {"1": Decimal("39990.00"), "4": Decimal("899.00"), "7": Decimal("29.90")}


def buy(customer, lines, *, name=None):
    """Place an order of {product: quantity}; returns its ID."""
    order_id = f"{datetime.now(UTC):%Y%m%dT%H%M%S%f}-{uuid.uuid4().hex[:20]}"
    order_place(customer_id=customer, customer_name=name or customer.title(), customer_email=f"{customer}@example.com",
                order_id=order_id, token=uuid.uuid4().hex,
                lines=[PurchaseLine(pid, quantity, PRICES[pid]) for pid, quantity in lines.items()])
    return order_id


def _writes(meter, by):
    """{by(charge): write units} of what the meter measured."""
    out = {}
    for c in meter.charges():
        if c.rw == "W":
            out[by(c)] = out.get(by(c), 0) + c.units
    return out


def _more(two, one):
    return {k: v - one.get(k, 0) for k, v in two.items() if v != one.get(k, 0)}


@pytest.mark.dynamodb_local
@pytest.mark.django_db
def test_a_checkout_line_writes_8_units_and_nothing_of_the_sale_under_the_product(local_catalog):
    """Measured on DynamoDB Local (bench/capacity_meter.py: each request's reported units, transactional
    writes twice): an order of two lines against one of one line. The line's product (2), its order line
    (2), the line's entries in its day's Ledger shard (2) and in its product's Buyers shard (2). A history
    item under the product's key and its ByReason entry besides would make it 10."""
    with CapacityMeter() as one:
        buy("ann", {"1": 1})
    with CapacityMeter() as two:
        second = buy("ann", {"1": 1, "4": 1})
    line = _more(_writes(two, lambda c: c.where), _writes(one, lambda c: c.where))
    assert line == {"table": 4, keys.LEDGER: 2, keys.BUYERS: 2} and sum(line.values()) == 8
    table = _more(_writes(two, lambda c: (c.where, c.pk)), _writes(one, lambda c: (c.where, c.pk)))
    mine = {k: v for k, v in table.items() if k[0] == "table" and not k[1].startswith(keys.ORDER_NUMBER_PREFIX)}
    assert mine == {("table", "P#4"): 2, ("table", "CUSTOMER#ann"): 2}  # (each order claims its own number)
    # Under the product's key: the product alone (and its opening change of the import).
    assert [i["SK"] for i in items_in_partition(keys.product_pk("4")) if i.get("reason") != "opening"] == ["METADATA"]
    record = next(i for i in items_in_partition(keys.customer_pk("ann")) if i["SK"].endswith(f"{second}#ITEM#4"))
    assert record["BuyersPK"].startswith(f"{keys.product_pk('4')}#B#") and record["at"] in record["BuyersSK"]
    assert record["LedgerPK"].startswith(f"LEDGER#{record['at'][:10]}#")
