"""Timed holds in the shop's views, on moto: what each page asks DynamoDB, and what the
holder and others see in their carts. The checkout page holds on a POST (`action=hold`), never on a GET."""
import re
import time
from datetime import UTC, datetime

import pytest
from django.utils.timezone import localtime

from catalog import gateway
from catalog.gateway.dynamo.testing import count_requests
from tests.helpers import age_hold, keep_hot_products, level, make_account
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


def hold(client, **kwargs):
    """The checkout's "Hold my units" button."""
    return client.post("/checkout/", {"action": "hold"}, **kwargs)


def test_holding_at_the_checkout_holds_the_cart_in_four_requests(catalog, holds_on, alice):
    add(alice, "8")  # Acme Roadster: the last one
    alice.get("/cart/")  # the header's brand and category names are cached from here on
    with count_requests() as counter:
        html = hold(alice).content.decode()
    # The cart's products; then, for the hold, the shopper's holds and the products (any replica); one transaction.
    assert counter.operations == ["BatchGetItem", "BatchGetItem", "BatchGetItem", "TransactWriteItems"]
    assert "We hold these units for you until" in html and level("8") == 0
    cart = alice.get("/cart/").content.decode()  # the holder's own cart: the unit is theirs
    assert "Sold out" not in cart and 'href="/checkout/"' in cart
    assert "We hold these units for you until" in hold(alice).content.decode()  # again: renewed, never refused
    form = checkout_form(alice)  # the checkout opened again (another tab): as it is
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
    hold(alice)
    assert level("5") == 2
    response = add(alice, "5", 2)  # their 3 and the 2 others can still buy
    assert response.status_code == 302
    html = alice.get("/cart/").content.decode()
    assert 'value="5"' in html and 'href="/checkout/"' in html
    hold(alice)  # the hold grows to the new quantity
    assert level("5") == 0


def test_a_sold_out_pages_held_units_are_read_once_while_kept(catalog, holds_on, alice, client, django_user_model,
                                                                settings):
    """The sold-out page of a drop says how many units shoppers hold (every hold item of the product, a Query of
    each of its hold partitions); its crowd reloads it, so each process reads that at most once a second."""
    from django.core.cache import caches

    from catalog import hot_products

    keep_hot_products(settings)
    add(alice, "8")  # Acme Roadster: the last one
    hold(alice)  # held: sold out for everyone else
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
    hold(alice)
    assert level("4") == 10
    alice.post("/cart/remove/", {"product_id": "4"})
    assert level("4") == 12


def test_more_than_the_limit_is_not_held_and_the_shopper_is_told(catalog, holds_on, alice):
    add(alice, "4", 4)
    response = hold(alice, follow=True)
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
    html = hold(alice).content.decode()
    assert "We hold these units for you until" in html and "cannot be extended" not in html
    aged = age_hold(customer_of(django_user_model, "alice"), "8", 1000)  # held 1,000 s ago: 200 s to the cap
    html = hold(alice).content.decode()
    assert "This hold cannot be extended further" in html and "minutes left" in html
    capped = datetime.fromtimestamp(aged.latest_end(), UTC)
    assert hold_until(html) == capped.isoformat()  # the countdown runs to the cap, not 600 s from now
    form = checkout_form(alice)  # reloading changes nothing, nor does asking again
    assert hold_until(hold(alice).content.decode()) == capped.isoformat() and level("8") == 0
    response = alice.post("/checkout/", form)  # the shopper can still pay until it ends
    assert response.status_code == 302 and "/account/orders/" in response["Location"] and level("8") == 0


def test_a_hold_ended_at_its_cap_is_released_and_the_shopper_cools_down(catalog, holds_on, alice,
                                                                         django_user_model):
    add(alice, "8")
    hold(alice)
    age_hold(customer_of(django_user_model, "alice"), "8", 1300)  # ended at its cap, not released yet
    response = hold(alice, follow=True)
    assert response.redirect_chain[-1][0] == "/cart/"
    html = response.content.decode()
    assert "Your hold on Acme Roadster ended" in html and "They are back on sale" in html
    assert level("8") == 1  # released: anyone may buy it now
    response = hold(alice)  # still there, but not held for her again yet: she is told until when
    html = response.content.decode()
    assert response.status_code == 200 and "We hold these units for you until" not in html and level("8") == 1
    # her cool-down ends 1,200 s after the cap, which was 100 s ago (a few seconds' leeway for the clock)
    ends = {f"{localtime(datetime.fromtimestamp(time.time() + 1100 + d, UTC)):%H:%M}</time>" for d in (-5, 0)}
    assert "Acme Roadster cannot be held for you again until <time" in html
    assert any(end in html for end in ends) and "(for 18\xa0minutes)" in html
    assert "You can still buy it now without a hold" in html and "Place order" in html
    response = alice.post("/checkout/", checkout_form(alice))  # and she can: an order without a hold
    assert response.status_code == 302 and "/account/orders/" in response["Location"] and level("8") == 0


# --- holding is a POST: a GET, a HEAD, a link or a prefetch holds nothing ------------------------

WRITES = {"PutItem", "UpdateItem", "DeleteItem", "TransactWriteItems", "BatchWriteItem"}


def test_opening_the_checkout_writes_nothing_and_offers_to_hold(catalog, holds_on, alice):
    add(alice, "8")  # Acme Roadster: the last one
    with count_requests() as counter:
        html = alice.get("/checkout/").content.decode()
        alice.head("/checkout/")
        alice.get("/checkout/")
    assert [op for op in counter.operations if op in WRITES] == [] and level("8") == 1
    assert "Hold my units while I pay" in html and 'name="action" value="hold"' in html
    assert "We hold these units for you until" not in html and "Place order" in html
    response = alice.post("/checkout/", checkout_form(alice))  # an order without a hold, as with holds off
    assert response.status_code == 302 and "/account/orders/" in response["Location"] and level("8") == 0


def test_the_checkout_shows_a_hold_taken_without_asking_again(catalog, holds_on, alice):
    add(alice, "4")
    hold(alice)
    with count_requests() as counter:
        html = alice.get("/checkout/").content.decode()
    assert counter.operations == ["BatchGetItem"]  # the cart's products: the hold as this session took it
    assert "We hold these units for you until" in html and "Hold them longer" in html and level("4") == 11


def test_an_htmx_hold_answers_its_part_of_the_page(catalog, holds_on, alice):
    add(alice, "4")
    response = hold(alice, headers={"HX-Request": "true"})
    html = response.content.decode()
    assert response.status_code == 200 and html.lstrip().startswith('<section id="hold"')
    assert "We hold these units for you until" in html and "<html" not in html and level("4") == 11


def test_a_cross_site_hold_without_the_csrf_token_is_refused(catalog, holds_on, django_user_model):
    from django.test import Client

    browser = Client(enforce_csrf_checks=True)
    browser.force_login(make_account(django_user_model, "alice", "a-long-password-1"))
    html = browser.get("/products/4/").content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)
    browser.post("/cart/add/", {"product_id": "4", "quantity": "1", "csrfmiddlewaretoken": token})
    assert browser.post("/checkout/", {"action": "hold"}).status_code == 403
    cross_site = browser.post("/checkout/", {"action": "hold", "csrfmiddlewaretoken": token},
                              headers={"Origin": "https://evil.example"})
    assert cross_site.status_code == 403
    assert level("4") == 12
    assert browser.post("/checkout/", {"action": "hold", "csrfmiddlewaretoken": token}).status_code == 200
    assert level("4") == 11


def test_an_unknown_checkout_action_is_refused_and_holds_nothing(catalog, holds_on, alice):
    add(alice, "4")
    response = alice.post("/checkout/", {"action": "hold-everything"})
    assert response.status_code == 400 and "Unknown checkout action" in response.content.decode()
    assert level("4") == 12


def test_a_shopper_over_the_allowance_is_told_at_the_cart(catalog, holds_on, settings, alice):
    settings.STOCK_HOLD_MAX_UNITS_PER_SHOPPER = 4
    add(alice, "4", 3)
    add(alice, "7", 2)
    response = hold(alice, follow=True)
    assert response.redirect_chain[-1][0] == "/cart/"
    assert "we hold at most 4 units for one shopper over all products" in response.content.decode()
    assert (level("4"), level("7")) == (12, 40)
