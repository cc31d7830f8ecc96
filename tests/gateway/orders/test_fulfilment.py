"""What staff read of orders (catalog/gateway/orders/fulfilment.py), on DynamoDB Local: who bought a product,
newest first over its Buyers shards, and the open orders over their shards, each once, oldest first."""
import pytest

from catalog.gateway import keys
from catalog.gateway.dynamo.testing import count_requests
from catalog.gateway.orders.fulfilment import orders_open, product_buyers
from tests.gateway.orders.test_orders import buy
from tests.helpers import items_in_partition

pytestmark = [pytest.mark.dynamodb_local, pytest.mark.django_db]


def test_who_bought_a_product_newest_first_over_its_shards_a_page_at_a_time(local_catalog):
    orders = [buy(f"c{n}", {"7": 1}) for n in range(9)]
    shards = {i["BuyersPK"] for n in range(9) for i in items_in_partition(keys.customer_pk(f"c{n}"))
              if "BuyersPK" in i}
    assert len(shards) > 1  # spread over the product's shards
    seen, after, requests = [], None, []
    while True:
        with count_requests() as counter:
            page = product_buyers(product_id="7", after=after, limit=4)
        requests.append(counter.total)
        assert len(page.items) == 4 or not page.next_cursor
        seen += [s.order_id for s in page.items]
        if not page.next_cursor:
            break
        after = page.next_cursor
    assert seen == orders[::-1]
    assert requests[0] == keys.BUYER_SHARDS and all(r <= keys.BUYER_SHARDS for r in requests)
    assert list(product_buyers(product_id="1").items) == []


def test_open_orders_over_their_shards_each_once_oldest_first(local_catalog):
    orders = [buy(f"c{n}", {"7": 1}) for n in range(7)] + [buy(f"d{n}", {"4": 1}) for n in range(2)]
    everything = sorted(orders)

    def walk(limit):
        seen, after, requests = [], None, []
        while True:
            with count_requests() as counter:
                page = orders_open(after=after, limit=limit)
            requests.append(counter.total)
            seen += [o.order_id for o in page.items]
            if not page.next_cursor:
                return seen, requests
            after = page.next_cursor

    seen, requests = walk(2)
    assert seen == everything  # once each, oldest first
    partitions = keys.OPEN_ORDER_SHARDS
    assert requests[0] == partitions and all(r <= partitions for r in requests) and len(requests) == 5
    assert walk(3)[0] == everything
