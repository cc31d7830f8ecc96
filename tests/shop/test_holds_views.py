"""Timed holds (issue 36) in the shop's views, on moto: what each page asks DynamoDB, and what the
holder and others see in their carts."""
import re
from datetime import UTC, datetime

import pytest

from catalog import gateway
from catalog.gateway.testing import count_requests
from tests.helpers import age_hold, keep_hot_products, make_account
from tests.shop.test_views import add, checkout_form

pytestmark = pytest.mark.django_db


@pytest.fixture
def holds_on(settings):
    settings.STOCK_HOLD_SECONDS = 600
    settings.STOCK_HOLD_MAX_UNITS = 3


@pytest.fixture
def alice(client, django_user_model):
    client.force_login(make_account(django_user_model, "alice", "a-long-password-1"))
    return client


def level(product_id):
    return gateway.product_get(product_id=product_id, consistent=True).stock_level


def test_opening_the_checkout_holds_the_cart_in_four_requests(catalog, holds_on, alice):
    add(alice, "8")  # Acme Roadster: the last one
    alice.get("/cart/")  # the header's brand and category names are cached from here on
    with count_requests() as counter:
        html = alice.get("/checkout/").content.decode()
    # The cart's products; then, for the hold, the shopper's holds and the products (any replica); one transaction.
    assert counter.operations == ["BatchGetItem", "BatchGetItem", "BatchGetItem", "TransactWriteItems"]
    assert "We hold these units for you until" in html and level("8") == 0
    cart = alice.get("/cart/").content.decode()  # the holder's own cart: the unit is theirs
    assert "Sold out" not in cart and 'href="/checkout/"' in cart
    form = checkout_form(alice)  # the checkout opened again (another tab): the hold renewed, never refused
    assert level("8") == 0
    with count_requests() as counter:
        response = alice.post("/checkout/", form)
    # The products and the shopper's holds (one BatchGetItem each), the order's transaction (the hold
    # deleted, no stock taken), the confirmation email's claim.
    assert counter.operations == ["BatchGetItem", "BatchGetItem", "TransactWriteItems", "UpdateItem"]
    assert response.status_code == 302 and "/account/orders/" in response["Location"]
    assert level("8") == 0 and gateway.stock_history(product_id="8", consistent=True).items[0].note == (
        "Sold from a hold")


def test_the_holder_can_add_more_beside_the_units_they_hold(catalog, holds_on, settings, alice):
    settings.STOCK_HOLD_MAX_UNITS = 5
    add(alice, "5", 3)  # Surface Duo, 5 in stock
    alice.get("/checkout/")
    assert level("5") == 2
    response = add(alice, "5", 2)  # their 3 and the 2 others can still buy
    assert response.status_code == 302
    html = alice.get("/cart/").content.decode()
    assert 'value="5"' in html and 'href="/checkout/"' in html
    alice.get("/checkout/")  # the hold grows to the new quantity
    assert level("5") == 0


def test_a_sold_out_pages_held_units_are_read_once_while_kept(catalog, holds_on, alice, client, django_user_model,
                                                                settings):
    """The sold-out page of a drop says how many units shoppers hold (every hold item of the product, a Query of
    each of its hold partitions); its crowd reloads it, so each process reads that at most once a second."""
    from django.core.cache import caches

    from catalog import hot_products

    keep_hot_products(settings)
    add(alice, "8")  # Acme Roadster: the last one
    alice.get("/checkout/")  # held: sold out for everyone else
    caches[hot_products.CACHE].clear()
    client.force_login(make_account(django_user_model, "bob", "a-long-password-2"))  # alice's client: now bob
    client.get("/")
    counts = []
    for _ in range(2):
        with count_requests() as counter:
            html = client.get("/products/8/").content.decode()
        assert "1 unit held by shoppers who are paying now" in html
        counts.append(counter.operations.count("Query"))
    assert counts == [8, 0]


def test_removing_the_line_releases_the_hold_at_once(catalog, holds_on, alice):
    add(alice, "4", 2)  # Pixel 9, 12 in stock
    alice.get("/checkout/")
    assert level("4") == 10
    alice.post("/cart/remove/", {"product_id": "4"})
    assert level("4") == 12


def test_more_than_the_limit_is_not_held_and_the_shopper_is_told(catalog, holds_on, alice):
    add(alice, "4", 4)
    response = alice.get("/checkout/", follow=True)
    assert response.redirect_chain[-1][0] == "/cart/"
    assert "we hold at most 3 of Pixel 9 for one shopper" in response.content.decode()
    assert level("4") == 12


def test_holds_off_the_checkout_reads_one_batch_and_writes_nothing(catalog, settings, alice):
    settings.STOCK_HOLD_SECONDS = 0
    add(alice, "8")
    alice.get("/cart/")
    with count_requests() as counter:
        alice.get("/checkout/")
    assert counter.operations == ["BatchGetItem"] and level("8") == 1


def customer_of(django_user_model, username):
    return django_user_model.objects.get(username=username).customer_key_id


def hold_until(html):
    return re.search(r'data-hold-until="([^"]+)"', html).group(1)


def test_a_reload_at_the_cap_says_the_hold_cannot_be_extended(catalog, holds_on, settings, alice, django_user_model):
    settings.STOCK_HOLD_MAX_SECONDS = 1200
    add(alice, "8")  # Acme Roadster: the last one
    html = alice.get("/checkout/").content.decode()
    assert "We hold these units for you until" in html and "cannot be extended" not in html
    aged = age_hold(customer_of(django_user_model, "alice"), "8", 1000)  # opened 1,000 s ago: 200 s to the cap
    html = alice.get("/checkout/").content.decode()
    assert "This hold cannot be extended further" in html and "minutes left" in html
    capped = datetime.fromtimestamp(aged.latest_end(), UTC)
    assert hold_until(html) == capped.isoformat()  # the countdown runs to the cap, not 600 s from now
    form = checkout_form(alice)  # reloading again changes nothing
    assert hold_until(alice.get("/checkout/").content.decode()) == capped.isoformat() and level("8") == 0
    response = alice.post("/checkout/", form)  # the shopper can still pay until it ends
    assert response.status_code == 302 and "/account/orders/" in response["Location"] and level("8") == 0


def test_a_hold_ended_at_its_cap_is_released_and_the_shopper_queues_again(catalog, holds_on, alice,
                                                                           django_user_model):
    add(alice, "8")
    alice.get("/checkout/")
    age_hold(customer_of(django_user_model, "alice"), "8", 1300)  # ended at its cap, not released yet
    response = alice.get("/checkout/", follow=True)
    assert response.redirect_chain[-1][0] == "/cart/"
    html = response.content.decode()
    assert "Your hold on Acme Roadster ended" in html and "They are back on sale" in html
    assert level("8") == 1  # released: anyone may buy it now
    html = alice.get("/checkout/").content.decode()  # still there: a new hold, from now
    assert "We hold these units for you until" in html and "cannot be extended" not in html and level("8") == 0
