"""What a shopper sees before and after paying: no stray fields at checkout, a short order
number on the order page and in the email, what prices include and what delivery costs."""
import re
from html.parser import HTMLParser

import pytest
from django.core import mail

from catalog import gateway
from storefront.templatetags import frame

from .test_views import ADDRESS, add, checkout_form


@pytest.fixture
def shopper(shopper):
    shopper.name = "Alice Liddell"
    shopper.save()
    return shopper


class Inputs(HTMLParser):
    """Every <input>'s attributes, and every <label>'s text."""

    def __init__(self):
        super().__init__()
        self.inputs, self.labels, self._label = [], [], None

    def handle_starttag(self, tag, attrs):
        if tag == "input":
            self.inputs.append(dict(attrs))
        elif tag == "label":
            self._label = ""

    def handle_data(self, data):
        if self._label is not None:
            self._label += data

    def handle_endtag(self, tag):
        if tag == "label" and self._label is not None:
            self.labels.append(self._label.strip())
            self._label = None


def inputs_of(html):
    """The inputs and labels of the checkout form (id="place-order")."""
    form = html[html.index('id="place-order"'):]
    parser = Inputs()
    parser.feed(form[: form.index("</form>")])
    return parser


def test_the_checkout_form_shows_only_what_the_shopper_fills_in(catalog, client, shopper):
    client.force_login(shopper)
    add(client, "4")
    page = inputs_of(client.get("/checkout/").content.decode())
    by_name = {}
    for attrs in page.inputs:
        by_name.setdefault(attrs.get("name"), []).append(attrs)
    # The order ID and the idempotency key: each once, hidden, never a text box.
    assert [a["type"] for a in by_name["order_id"]] == ["hidden"]
    assert [a["type"] for a in by_name["token"]] == ["hidden"]
    assert "Order id" not in page.labels and "Token" not in page.labels
    assert page.labels == ["Name", "Street", "Postcode", "City", "Country"]
    visible = [a["name"] for a in page.inputs if a.get("type") != "hidden"]
    assert visible == ["name", "street", "postcode", "city"]  # and the country's <select>


def test_a_checkout_with_an_address_error_keeps_the_ids_hidden(catalog, client, shopper):
    client.force_login(shopper)
    add(client, "4")
    response = client.post("/checkout/", checkout_form(client, postcode=""))
    assert response.status_code == 400
    page = inputs_of(response.content.decode())
    assert [a["type"] for a in page.inputs if a.get("name") in ("order_id", "token")] == ["hidden", "hidden"]


def test_the_order_page_the_list_and_the_email_give_the_short_number(catalog, client, shopper):
    client.force_login(shopper)
    add(client, "4")
    form = checkout_form(client)
    response = client.post("/checkout/", form, follow=True)
    html = response.content.decode()
    order = gateway.order_get(customer_id=shopper.customer_key_id, order_id=form["order_id"])
    assert re.fullmatch(r"[2-9A-HJKMNP-TV-Z]{8}", order.number)
    assert f'<strong id="order-number" class="order-number">{order.number}</strong>' in html
    assert f"Thank you! Your order {order.number} is placed." in html
    assert form["order_id"] not in re.sub(r'href="[^"]*"', "", html)  # the long ID only in the address
    assert order.number in client.get("/account/orders/").content.decode()
    (email,) = mail.outbox
    assert email.subject == f"Your Fromatoz order {order.number}"
    assert f"thank you for your order {order.number}," in email.body and form["order_id"] not in email.body


def test_product_cart_and_checkout_say_what_prices_include_and_what_delivery_costs(catalog, client, shopper, settings):
    settings.SHOP_DELIVERY_NOTE = "Delivery costs €4.95 & takes 2 days."
    client.force_login(shopper)
    add(client, "4")
    for url in ("/products/4/", "/cart/", "/checkout/"):
        html = client.get(url).content.decode()
        assert '<span class="vat-note">incl. VAT</span>' in html, url
        assert '<p class="delivery-note">Delivery costs €4.95 &amp; takes 2 days.</p>' in html, url
    settings.SHOP_PRICES_INCLUDE_VAT = False
    assert '<span class="vat-note">plus VAT</span>' in client.get("/products/4/").content.decode()


def test_the_footer_kept_per_process_follows_the_settings(catalog, client, settings):
    frame._parts.clear()
    assert "All prices include VAT. Delivery is free" in client.get("/").content.decode()
    settings.SHOP_PRICES_INCLUDE_VAT = False
    settings.SHOP_DELIVERY_NOTE = "Delivery: €5."
    html = client.get("/").content.decode()
    assert "All prices are plus VAT. Delivery: €5." in html and "include VAT" not in html


def test_checkout_after_an_address_refusal_still_places_one_order(catalog, client, shopper):
    client.force_login(shopper)
    add(client, "4")
    form = checkout_form(client)
    client.post("/checkout/", {**form, "city": ""})
    client.post("/checkout/", {**form, **ADDRESS})
    client.post("/checkout/", {**form, **ADDRESS})
    orders = gateway.orders_by_customer(customer_id=shopper.customer_key_id).items
    assert len(orders) == 1 and orders[0].number
