"""Stock writes (catalog/gateway/stock/stock.py), on moto: increases and decreases, exact, idempotent and
optimistic (a lost race is tried again from the level the rival left), each recorded as an adjustment."""
import pytest

from catalog import gateway
from catalog.gateway import client as dynamo
from catalog.gateway.dynamo import backoff
from catalog.gateway.dynamo.testing import count_requests
from catalog.gateway.errors import InsufficientStock, InvalidInput, InvalidQuantity, NotFound, StockBusy
from catalog.gateway.stock import stock
from tests.helpers import items_in_partition


def test_increase_and_decrease_return_the_new_level(catalog):
    up = gateway.stock_increase(product_id="4", quantity=8, token="tok-up", reason="received", who="ann")
    assert up.level == 20 and not up.replayed
    down = gateway.stock_decrease(product_id="4", quantity=15, token="tok-down", reason="sold", who="bob")
    assert down.level == 5
    assert gateway.product_get(product_id="4").stock_level == 5


def test_decrease_below_zero_is_refused_and_changes_nothing(catalog):
    with pytest.raises(InsufficientStock) as raised:
        gateway.stock_decrease(product_id="2", quantity=4, token="tok", reason="sold")
    assert raised.value.available == 3
    assert gateway.product_get(product_id="2").stock_level == 3
    # the product and the import's opening change: no adjustment, no idempotency mark
    assert [(i["type"], i.get("reason")) for i in items_in_partition("P#2")] == [
        ("PRODUCT", None), ("STOCK_ADJUSTMENT", "opening")]


def test_decrease_to_exactly_zero_is_allowed(catalog):
    assert gateway.stock_decrease(product_id="2", quantity=3, token="tok", reason="sold").level == 0


@pytest.mark.parametrize("write", [gateway.stock_increase, gateway.stock_decrease])
def test_stock_writes_never_create_an_unknown_product(catalog, write):
    with pytest.raises(NotFound):
        write(product_id="999", quantity=1, token="tok", reason="counted")
    assert items_in_partition("P#999") == []


@pytest.mark.parametrize("quantity", [0, -1, 1.5, "3", None, True, 1_000_001])
def test_bad_quantities_are_rejected_before_any_request(catalog, quantity):
    with count_requests() as counter:
        with pytest.raises(InvalidQuantity):
            gateway.stock_increase(product_id="1", quantity=quantity, token="tok")
    assert counter.total == 0


def test_the_same_idempotency_key_applies_once(catalog):
    first = gateway.stock_decrease(product_id="1", quantity=5, token="same", reason="sold", who="ann")
    again = gateway.stock_decrease(product_id="1", quantity=5, token="same", reason="sold", who="ann")
    assert again.replayed and again.level == first.level == 65
    assert again.adjustment == first.adjustment
    assert gateway.product_get(product_id="1").stock_level == 65
    assert [h.reason for h in gateway.stock_history(product_id="1").items] == ["sold", "opening"]


def test_a_used_key_replays_even_after_the_stock_ran_out(catalog):
    """Resubmitting the decrease that emptied the stock answers as the first time, not 'only 0 left'."""
    first = gateway.stock_decrease(product_id="2", quantity=3, token="last-ones", reason="sold", who="ann")
    again = gateway.stock_decrease(product_id="2", quantity=3, token="last-ones", reason="sold", who="ann")
    assert (first.level, again.level, again.replayed) == (0, 0, True)
    assert again.adjustment == first.adjustment
    assert [h.reason for h in gateway.stock_history(product_id="2").items] == ["sold", "opening"]
    with pytest.raises(InsufficientStock):  # a new key is still refused
        gateway.stock_decrease(product_id="2", quantity=3, token="new-key", reason="sold")


def test_a_write_with_the_level_the_caller_saw_is_one_transaction(catalog):
    with count_requests() as counter:
        change = gateway.stock_increase(product_id="4", quantity=3, token="seen", expected_level=12)
    assert counter.operations == ["TransactWriteItems"]
    assert change.level == 15 == gateway.product_get(product_id="4").stock_level


def test_a_stale_expected_level_costs_a_retry_never_a_wrong_level(catalog):
    with count_requests() as counter:
        change = gateway.stock_decrease(product_id="4", quantity=2, token="stale", expected_level=40)
    assert counter.operations == ["TransactWriteItems", "TransactWriteItems"]
    assert change.level == 10 == gateway.product_get(product_id="4").stock_level
    assert [(h.delta, h.resulting_level) for h in gateway.stock_history(product_id="4").items] == [(-2, 10), (12, 12)]


def test_a_decrease_is_never_refused_on_a_stale_expected_level(catalog):
    assert gateway.stock_decrease(product_id="2", quantity=3, token="low-hint", expected_level=0).level == 0
    with pytest.raises(InsufficientStock) as raised:  # refused on the level read, not on the hint
        gateway.stock_decrease(product_id="2", quantity=1, token="high-hint", expected_level=50)
    assert raised.value.available == 0


@pytest.mark.parametrize("write", [gateway.stock_increase, gateway.stock_decrease])
def test_an_expected_level_never_creates_an_unknown_product(catalog, write):
    with pytest.raises(NotFound):
        write(product_id="999", quantity=1, token="tok", expected_level=5)
    assert items_in_partition("P#999") == []


@pytest.mark.parametrize("hint", [-1, 1.5, "3", True])
def test_a_malformed_expected_level_is_rejected_before_any_request(catalog, hint):
    with count_requests() as counter:
        with pytest.raises(InvalidInput):
            gateway.stock_increase(product_id="4", quantity=1, token="tok", expected_level=hint)
    assert counter.total == 0


def _a_rival_writes_first(monkeypatch, times):
    """Before each of our next `times` stock transactions, another writer adds 1 to product 4."""
    real, left = stock.transact_write, [times]

    def rival_first(*args, **kwargs):
        if left[0]:
            left[0] -= 1
            dynamo.client().update_item(
                TableName=dynamo.table_name(), Key={"PK": {"S": "P#4"}, "SK": {"S": "METADATA"}},
                UpdateExpression="ADD stockLevel :one", ExpressionAttributeValues={":one": {"N": "1"}},
            )
        return real(*args, **kwargs)

    monkeypatch.setattr(stock, "transact_write", rival_first)


def test_a_write_that_loses_a_race_retries_from_the_level_the_rival_left(catalog, monkeypatch):
    _a_rival_writes_first(monkeypatch, times=3)
    change = gateway.stock_decrease(product_id="4", quantity=2, token="after-rivals", reason="sold")
    assert change.level == 12 + 3 - 2
    assert gateway.product_get(product_id="4").stock_level == 13
    # (the rival's writes went behind the ledger's back: the import's opening 12 and this sale)
    assert [(h.delta, h.resulting_level) for h in gateway.stock_history(product_id="4").items] == [(-2, 13), (12, 12)]


def test_a_write_that_keeps_losing_gives_up_as_busy_and_writes_nothing_of_its_own(catalog, monkeypatch):
    monkeypatch.setattr(backoff, "CONTENDED_WRITE_SECONDS", 0.05)
    _a_rival_writes_first(monkeypatch, times=10_000)
    with pytest.raises(StockBusy):
        gateway.stock_decrease(product_id="4", quantity=2, token="never-lands", reason="sold")
    assert [h.reason for h in gateway.stock_history(product_id="4").items] == ["opening"]
    monkeypatch.undo()
    rivals = gateway.product_get(product_id="4").stock_level - 12
    assert rivals >= 1  # only the rival's writes landed; the same key may be sent again
    assert gateway.stock_decrease(product_id="4", quantity=2, token="never-lands").level == 12 + rivals - 2


def test_each_write_records_an_adjustment_in_the_products_partition(catalog):
    gateway.stock_increase(product_id="4", quantity=10, token="a1", reason="received", who="ann")
    gateway.stock_decrease(product_id="4", quantity=2, token="a2", reason="damaged", who="bob")
    history = gateway.stock_history(product_id="4").items
    assert [(h.delta, h.resulting_level, h.reason, h.who) for h in history] == [
        (-2, 20, "damaged", "bob"),
        (10, 22, "received", "ann"),
        (12, 12, "opening", "import"),
    ]
    assert history[0].at >= history[1].at >= history[2].at
