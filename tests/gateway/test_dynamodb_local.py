"""What only real DynamoDB does: ClientRequestToken idempotency, transactions under
concurrency, data that survives a restart. Runs against DynamoDB Local."""
import random
import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

import pytest

from catalog import gateway
from catalog.gateway import client as dynamo
from catalog.gateway import stock, transact
from catalog.gateway.entities import StockAdjustment
from catalog.gateway.errors import InsufficientStock
from catalog.gateway.schema import table_ensure
from tests.helpers import items_in_partition, seed
from tools import dynamodb_local

pytestmark = pytest.mark.dynamodb_local


def test_a_retried_identical_transaction_applies_once(local_catalog):
    """botocore retries a request whose answer was lost with the same ClientRequestToken;
    DynamoDB applies it once and answers success both times."""
    adjustment = StockAdjustment(
        product_id="4", adjustment_id="crt", at=datetime.now(UTC), delta=5, resulting_level=17, reason="received"
    )
    actions = [
        stock.stock_level_update(product_id="4", current=12, new=17, reorder_point=None),
        transact.put(adjustment.to_item(), if_absent=True),
    ]
    first = transact.transact_write(actions, request_token="crt-request")
    second = transact.transact_write(actions, request_token="crt-request")
    assert first is None and second is None  # both answered as applied
    assert gateway.product_get(product_id="4").stock_level == 17
    assert [h.delta for h in gateway.stock_history(product_id="4").items] == [5, 12]  # and the import's opening


def test_the_same_idempotency_key_twice_changes_stock_once(local_catalog):
    first = gateway.stock_increase(product_id="4", quantity=3, token="once", reason="received", who="ann")
    again = gateway.stock_increase(product_id="4", quantity=3, token="once", reason="received", who="ann")
    assert (first.level, again.level, again.replayed) == (15, 15, True)
    assert gateway.product_get(product_id="4", consistent=True).stock_level == 15
    assert [h.reason for h in gateway.stock_history(product_id="4").items] == ["received", "opening"]


def _set_stock(product_id, level):
    current = gateway.product_get(product_id=product_id, consistent=True).stock_level
    if level > current:
        gateway.stock_increase(product_id=product_id, quantity=level - current, token=gateway.new_token())
    elif level < current:
        gateway.stock_decrease(product_id=product_id, quantity=current - level, token=gateway.new_token())


def test_twenty_concurrent_decrements_on_a_stock_of_ten(local_catalog):
    _set_stock("7", 10)
    start = threading.Barrier(20)

    def buy(i):
        start.wait()
        try:
            return gateway.stock_decrease(product_id="7", quantity=1, token=f"buyer-{i}", reason="sold")
        except InsufficientStock as exc:
            return exc

    with ThreadPoolExecutor(max_workers=20) as pool:
        results = list(pool.map(buy, range(20)))
    applied = [r for r in results if not isinstance(r, InsufficientStock)]
    refused = [r for r in results if isinstance(r, InsufficientStock)]
    assert (len(applied), len(refused)) == (10, 10)
    assert gateway.product_get(product_id="7", consistent=True).stock_level == 0
    sales = [h for h in gateway.stock_history(product_id="7", limit=100).items if h.reason == "sold"]
    assert len(sales) == 10
    # every level from 9 down to 0 was the result of exactly one sale: no update was lost
    assert sorted(h.resulting_level for h in sales) == list(range(10))


def test_concurrent_shipments_and_sales_never_lose_an_update(local_catalog):
    _set_stock("1", 50)
    rng = random.Random(7)
    changes = [rng.choice([-3, -1, 1, 2, 5]) for _ in range(40)]

    def apply(i):
        delta = changes[i]
        write = gateway.stock_increase if delta > 0 else gateway.stock_decrease
        return write(product_id="1", quantity=abs(delta), token=f"mix-{i}", reason="counted").level

    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(apply, range(40)))
    assert gateway.product_get(product_id="1", consistent=True).stock_level == 50 + sum(changes)


def test_stock_survives_a_restart_of_dynamodb_local(tmp_path, settings):
    """`make run` keeps DynamoDB Local's data under var/: a restart keeps stock levels."""
    data = tmp_path / "data"
    settings.DYNAMODB_TABLE = "durable"
    process, url = dynamodb_local.start(db_path=data)
    try:
        settings.DYNAMODB_ENDPOINT_URL = url
        table_ensure("durable")
        seed()
        gateway.stock_decrease(product_id="1", quantity=7, token="before-restart", reason="sold")
    finally:
        dynamodb_local.stop(process)
    process, url = dynamodb_local.start(db_path=data)
    try:
        settings.DYNAMODB_ENDPOINT_URL = url
        assert gateway.product_get(product_id="1", consistent=True).stock_level == 63
        assert [i.get("reason") for i in items_in_partition("P#1") if i["SK"].startswith("STOCK#")] == [
            "opening", "sold"]
    finally:
        dynamodb_local.stop(process)
        dynamo.reset_client()


@pytest.mark.django_db
def test_pages_answer_503_while_dynamodb_is_down_and_recover_without_a_restart(tmp_path, settings, client):
    data = tmp_path / "data"
    port = dynamodb_local.free_port()
    settings.DYNAMODB_TABLE = "outage"
    settings.DYNAMODB_MAX_ATTEMPTS = 1
    settings.DYNAMODB_CONNECT_TIMEOUT = 1
    process, url = dynamodb_local.start(port=port, db_path=data)
    try:
        settings.DYNAMODB_ENDPOINT_URL = url
        table_ensure("outage")
        seed()
        assert client.get("/products/1/").status_code == 200
        dynamodb_local.stop(process)

        response = client.get("/products/1/")
        assert response.status_code == 503
        assert "try again" in response.content.decode()

        process, _ = dynamodb_local.start(port=port, db_path=data)
        assert client.get("/products/1/").status_code == 200  # same process, same client
    finally:
        dynamodb_local.stop(process)
        dynamo.reset_client()
