"""Staff stock pages with the Django test client: access, the adjustment form and its rules,
HTMX and plain answers, history, the stock table, cost; and on DynamoDB Local, idempotency
and concurrency through the page."""
import re
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection
from django.test import Client

from catalog import gateway
from catalog.gateway import keys
from catalog.gateway.dynamo.testing import count_requests
from tests.helpers import history, level, paged_catalog, seed, sign_in_staff, small_catalog, warehouse_staff

HX = {"HX-Request": "true"}
STOCK_URL = "/staff/products/{}/stock/"


def token_in(response):
    return re.search(r'name="token" value="([^"]+)"', response.content.decode()).group(1)


def adjust(client, product_id, *, token=None, headers=None, **fields):
    data = {"action": "increase", "quantity": "1", "reason": "", **fields}
    data["token"] = token or gateway.new_token()
    return client.post(STOCK_URL.format(product_id), data, headers=headers or {})


def shown_level(response):
    return int(re.search(r'<div id="stock-level" class="stock-level">(\d+)</div>', response.content.decode()).group(1))


def reasons(product_id):
    """The reason codes of a product's history, newest first ("opening": the level the import set)."""
    return [h.reason for h in history(product_id)]


def history_rows(response):
    """(who, change, level, reason) of each history row, as shown (when, change, level, reason,
    reference, who: the key columns first)."""
    rows = re.findall(
        r"<tr>\s*<td><time[^>]*>[^<]*</time></td>\s*<td class=\"num\" data-label=\"Change\">([^<]*)</td>\s*"
        r"<td class=\"num\" data-label=\"Level\">([^<]*)</td>\s*<td data-label=\"Reason\">([^<]*)</td>\s*"
        r"<td data-label=\"Reference\">.*?</td>\s*<td data-label=\"Who\">([^<]*)</td>",
        response.content.decode(), re.S,
    )
    return [(who, change, int(lvl), reason) for change, lvl, reason, who in rows]


# --- access -----------------------------------------------------------------------------

@pytest.mark.parametrize("url", ["/staff/", "/staff/stock/", "/staff/stock/?brand=3", STOCK_URL.format("1")])
def test_anonymous_visitors_are_sent_to_the_login_page(catalog, client, url):
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=/staff/")


def test_an_anonymous_post_changes_nothing(catalog, client):
    response = adjust(client, "1", quantity="5")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    assert level("1") == 70 and reasons("1") == ["opening"]


def test_an_htmx_post_after_the_session_ended_loads_the_login_page(catalog, client):
    headers = {**HX, "HX-Current-URL": "http://testserver/staff/products/1/stock/"}
    response = adjust(client, "1", quantity="5", headers=headers)
    assert response.status_code == 200
    assert response["HX-Redirect"] == "/accounts/login/?next=/staff/products/1/stock/"
    assert level("1") == 70 and reasons("1") == ["opening"]


@pytest.mark.parametrize("url", ["/staff/", "/staff/stock/", STOCK_URL.format("1")])
def test_signed_in_non_staff_get_a_styled_403(catalog, client, django_user_model, url):
    client.force_login(django_user_model.objects.create_user(username="bob", password="pw-bob-shopper"))
    response = client.get(url)
    assert response.status_code == 403
    assert "You can’t open this page" in response.content.decode()


def test_a_non_staff_post_changes_nothing(catalog, client, django_user_model):
    client.force_login(django_user_model.objects.create_user(username="bob", password="pw-bob-shopper"))
    assert adjust(client, "1", quantity="5").status_code == 403
    assert level("1") == 70 and reasons("1") == ["opening"]


def test_a_post_without_the_csrf_token_is_refused(catalog, staff):
    client = sign_in_staff(Client(enforce_csrf_checks=True), staff)
    assert adjust(client, "1", quantity="5").status_code == 403
    assert adjust(client, "1", quantity="5", headers=HX).status_code == 403
    assert level("1") == 70 and reasons("1") == ["opening"]


def test_a_post_with_the_csrf_header_is_accepted(catalog, staff):
    """HTMX sends the token as X-CSRFToken (base.html's hx-headers)."""
    client = sign_in_staff(Client(enforce_csrf_checks=True), staff)
    page = client.get(STOCK_URL.format("1"))
    csrf = re.search(r'"X-CSRFToken": "([^"]+)"', page.content.decode()).group(1)
    response = adjust(client, "1", token=token_in(page), quantity="5", headers={**HX, "X-CSRFToken": csrf})
    assert response.status_code == 200
    assert level("1") == 75


def test_only_get_and_post_are_allowed(catalog, staff_client):
    assert staff_client.put(STOCK_URL.format("1")).status_code == 405
    assert staff_client.delete(STOCK_URL.format("1")).status_code == 405
    assert staff_client.post("/staff/stock/").status_code == 405


def test_the_stock_link_is_shown_to_staff_only(catalog, client, django_user_model, staff):
    nav_link = '<a href="/staff/stock/">Stock</a>'
    product_link = 'href="/staff/products/1/stock/"'
    html = client.get("/products/1/").content.decode()
    assert nav_link not in html and product_link not in html
    client.force_login(django_user_model.objects.create_user(username="bob", password="pw-bob-shopper"))
    html = client.get("/products/1/").content.decode()
    assert nav_link not in html and product_link not in html
    sign_in_staff(client, staff)
    html = client.get("/products/1/").content.decode()
    assert nav_link in html and product_link in html
    assert nav_link in client.get("/").content.decode()


# --- the stock page -------------------------------------------------------------------------

def test_the_stock_page_shows_the_level_a_fresh_token_and_the_form(catalog, staff_client):
    first = staff_client.get(STOCK_URL.format("2"))
    assert first.status_code == 200
    html = first.content.decode()
    assert "<h1>Model Y</h1>" in html and shown_level(first) == 3
    assert 'name="action" value="increase"' in html and 'name="action" value="decrease"' in html
    assert 'name="quantity"' in html and 'name="reason"' in html
    assert history_rows(first) == [("import", "+3", 3, "opening")]  # the level the import set
    assert "No adjustments yet." in staff_client.get(STOCK_URL.format("3")).content.decode()  # imported sold out
    assert token_in(first) != token_in(staff_client.get(STOCK_URL.format("2")))  # new on each render


def test_an_unknown_product_is_a_404(catalog, staff_client):
    assert staff_client.get(STOCK_URL.format("999")).status_code == 404
    assert adjust(staff_client, "999", quantity="1").status_code == 404
    assert adjust(staff_client, "999", quantity="1", headers=HX).status_code == 404
    assert adjust(staff_client, "999", quantity="0").status_code == 404


def test_a_malformed_product_id_is_a_400(catalog, staff_client):
    assert staff_client.get(STOCK_URL.format("a%20b")).status_code == 400


def test_a_shipment_without_htmx_redirects_back_with_a_message(catalog, staff_client):
    response = adjust(staff_client, "1", quantity="5", reason="received")
    assert response.status_code == 302 and response["Location"] == STOCK_URL.format("1")
    assert level("1") == 75
    page = staff_client.get(response["Location"])
    assert "Received 5: stock is now 75." in page.content.decode()
    assert shown_level(page) == 75
    assert history_rows(page) == [("ann", "+5", 75, "received"), ("import", "+70", 70, "opening")]


def test_an_adjustment_with_htmx_answers_with_level_history_and_a_fresh_form(catalog, staff_client):
    page = staff_client.get(STOCK_URL.format("4"))
    response = adjust(staff_client, "4", token=token_in(page), headers=HX,
                      action="decrease", quantity="2", reason="damaged")
    assert response.status_code == 200
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="stock-panel"') and "<html" not in html
    assert "Removed 2: stock is now 10." in html
    assert shown_level(response) == 10
    assert history_rows(response) == [("ann", "-2", 10, "damaged"), ("import", "+12", 12, "opening")]
    assert token_in(response) != token_in(page)
    assert 'value="damaged" selected' not in html  # the form is fresh
    assert "HX-Request" in response["Vary"]
    assert level("4") == 10


def test_history_is_newest_first_with_who_change_level_and_reason(catalog, staff_client, django_user_model):
    adjust(staff_client, "4", quantity="10", reason="received")
    adjust(staff_client, "4", action="decrease", quantity="2", reason="damaged")
    other = Client()
    staff_user = warehouse_staff(django_user_model.objects.create_user(
        username="cy", password="pw-cy-staff", is_staff=True))
    sign_in_staff(other, staff_user)
    adjust(other, "4", action="decrease", quantity="20", reason="counted")
    rows = history_rows(staff_client.get(STOCK_URL.format("4")))
    assert rows == [
        ("cy", "-20", 0, "counted"),
        ("ann", "-2", 20, "damaged"),
        ("ann", "+10", 22, "received"),
        ("import", "+12", 12, "opening"),
    ]
    assert [h.who for h in history("4")] == ["cy", "ann", "ann", "import"]


def test_history_is_paged(catalog, staff_client, settings):
    settings.CATALOG_PAGE_SIZE = 2
    for i in range(5):
        adjust(staff_client, "7", quantity=str(i + 1), reason="received")
    first = staff_client.get(STOCK_URL.format("7"))
    assert [r[1] for r in history_rows(first)] == ["+5", "+4"]
    next_url = re.search(r'<a class="button" href="([^"]+)"[^>]*>Older adjustments', first.content.decode())
    next_url = next_url.group(1).replace("&amp;", "&")
    fragment = staff_client.get(next_url, headers=HX)
    assert "<html" not in fragment.content.decode() and "stock-panel" not in fragment.content.decode()
    assert [r[1] for r in history_rows(fragment)] == ["+3", "+2"]
    assert [r[1] for r in history_rows(staff_client.get(next_url))] == ["+3", "+2"]  # also without JavaScript
    assert staff_client.get(STOCK_URL.format("1") + next_url[next_url.index("?"):]).status_code == 400


# --- the rules --------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "fields,error",
    [
        ({"quantity": "0"}, "greater than or equal to 1"),
        ({"quantity": "-3"}, "greater than or equal to 1"),
        ({"quantity": "1.5"}, "Enter a whole number."),
        ({"quantity": "abc"}, "Enter a whole number."),
        ({"quantity": "1000001"}, "less than or equal to 1000000"),
        ({"quantity": "²"}, "Enter a whole number."),
        ({"quantity": "①"}, "Enter a whole number."),
        ({"quantity": "1e3"}, "Enter a whole number."),
        ({"quantity": "٣"}, "Enter a whole number."),
        ({"quantity": "３"}, "Enter a whole number."),
        ({"quantity": "1_000"}, "Enter a whole number."),
        ({"quantity": "9" * 5000}, "Enter a whole number."),
        ({"quantity": " "}, "This field is required."),
        ({"quantity": "9" * 40}, "less than or equal to 1000000"),
        ({"quantity": ""}, "This field is required."),
        ({"action": "steal"}, "Select a valid choice."),
        ({"action": ""}, "This field is required."),
        ({"action": "decrease", "reason": ""}, "Give a reason for a decrease."),
        ({"action": "decrease", "reason": "   "}, "Select a valid choice"),
        ({"note": "x" * 501}, "at most 500 characters"),
        ({"reference": "x" * 101}, "at most 100 characters"),
        ({"reason": "sold"}, "Select a valid choice"),
        ({"reason": "damaged"}, "is a reason for a decrease"),
        ({"action": "decrease", "reason": "returned"}, "is a reason for an increase"),
        ({"token": "not a token!"}, "This form has expired"),
    ],
)
@pytest.mark.parametrize("headers", [{}, HX], ids=["plain", "htmx"])
def test_invalid_input_shows_the_error_and_changes_nothing(catalog, staff_client, fields, error, headers):
    data = {"action": "increase", "quantity": "1", "reason": "", "token": gateway.new_token(), **fields}
    response = staff_client.post(STOCK_URL.format("4"), data, headers=headers)
    assert response.status_code == 400
    assert error in response.content.decode()
    assert shown_level(response) == 12
    assert level("4") == 12 and reasons("4") == ["opening"]


@pytest.mark.parametrize(
    "missing,error",
    [
        ("action", "This field is required."),
        ("quantity", "This field is required."),
        ("token", "This form has expired"),
    ],
)
def test_a_missing_field_shows_the_error_and_changes_nothing(catalog, staff_client, missing, error):
    data = {"action": "increase", "quantity": "1", "reason": "x", "token": gateway.new_token()}
    del data[missing]
    response = staff_client.post(STOCK_URL.format("4"), data)
    assert response.status_code == 400
    assert error in response.content.decode()
    assert level("4") == 12 and reasons("4") == ["opening"]


def test_a_form_with_errors_keeps_the_entered_values_and_its_token(catalog, staff_client):
    token = gateway.new_token()
    response = adjust(staff_client, "4", token=token, action="decrease", quantity="abc", reason="damaged")
    html = response.content.decode()
    assert token_in(response) == token  # nothing was written with it: submitting again is one adjustment
    assert re.search(r'value="damaged" selected', html)
    assert re.search(r'value="decrease" id="id_action_1"[^>]* checked', html)


def test_a_bad_token_is_replaced_so_the_form_can_be_sent_again(catalog, staff_client):
    response = adjust(staff_client, "4", token="bad token", quantity="1")
    assert response.status_code == 400 and gateway.check_id("token", token_in(response))


@pytest.mark.parametrize("headers", [{}, HX], ids=["plain", "htmx"])
def test_a_decrease_below_zero_is_refused_naming_the_current_level(catalog, staff_client, headers):
    response = adjust(staff_client, "2", headers=headers, action="decrease", quantity="4", reason="damaged")
    assert response.status_code == 409
    assert "Only 3 in stock: cannot remove 4. Nothing was changed." in response.content.decode()
    assert shown_level(response) == 3
    assert level("2") == 3 and reasons("2") == ["opening"]


def test_a_decrease_to_exactly_zero_is_allowed(catalog, staff_client):
    response = adjust(staff_client, "2", headers=HX, action="decrease", quantity="3", reason="damaged")
    assert "Removed 3: stock is now 0." in response.content.decode()
    assert shown_level(response) == 0 and "Sold out" in response.content.decode()


@pytest.mark.parametrize("headers", [{}, HX], ids=["plain", "htmx"])
def test_the_same_token_twice_applies_once_and_answers_the_same(catalog, staff_client, headers):
    token = token_in(staff_client.get(STOCK_URL.format("1")))
    first = adjust(staff_client, "1", token=token, headers=headers, quantity="5", reason="received")
    again = adjust(staff_client, "1", token=token, headers=headers, quantity="5", reason="received")
    assert first.status_code == again.status_code and first.status_code in (200, 302)
    if headers:
        assert "Received 5: stock is now 75." in again.content.decode()
        assert shown_level(again) == 75
    assert level("1") == 75 and reasons("1") == ["received", "opening"]


def test_resubmitting_the_decrease_that_emptied_the_stock_is_not_an_error(catalog, staff_client):
    token = gateway.new_token()
    for _ in range(2):
        response = adjust(staff_client, "8", token=token, headers=HX, action="decrease", quantity="1", reason="damaged")
        assert response.status_code == 200
        assert "Removed 1: stock is now 0." in response.content.decode()
    assert level("8") == 0 and reasons("8") == ["damaged", "opening"]


def test_a_replay_shows_the_level_of_now(catalog, staff_client):
    token = gateway.new_token()
    adjust(staff_client, "1", token=token, headers=HX, quantity="5")
    adjust(staff_client, "1", headers=HX, quantity="1")
    again = adjust(staff_client, "1", token=token, headers=HX, quantity="5")
    assert "Received 5: stock is now 75." in again.content.decode()  # the first answer
    assert shown_level(again) == 76  # and the level of now


def test_data_with_markup_is_shown_as_text(ddb, staff_client):
    data = small_catalog()
    data["products"][0]["name"] = '<script>alert("x")</script> Model 3'
    seed(data)
    adjust(staff_client, "1", action="decrease", quantity="1", reason="damaged", note="<b>broken</b> & \"lost\"")
    html = staff_client.get(STOCK_URL.format("1")).content.decode()
    assert "<script>alert" not in html and "<b>broken" not in html
    assert "&lt;b&gt;broken&lt;/b&gt; &amp; &quot;lost&quot;" in html
    assert "&lt;script&gt;" in staff_client.get("/staff/stock/?brand=3").content.decode()


# --- cost ---------------------------------------------------------------------------------------

def test_the_stock_page_is_one_getitem_and_a_query_of_the_history_and_of_each_buyers_shard(catalog, staff_client):
    staff_client.get("/")  # warms the names cache
    with count_requests() as counter:
        assert staff_client.get(STOCK_URL.format("1")).status_code == 200
    # The product (its waiting alerts counted on it); its own changes and its sales (order lines),
    # newest first.
    assert counter.operations == ["GetItem"] + ["Query"] * (1 + keys.BUYER_SHARDS)


def seen_level_in(response):
    return re.search(r'name="seen_level" value="(\d+)"', response.content.decode()).group(1)


def test_an_htmx_adjustment_from_the_page_costs_one_transaction_and_one_query(catalog, staff_client):
    page = staff_client.get(STOCK_URL.format("1"))
    with count_requests() as counter:
        response = adjust(staff_client, "1", headers=HX, quantity="1", seen_level=seen_level_in(page))
    assert counter.operations == ["TransactWriteItems"] + ["Query"] * (1 + keys.BUYER_SHARDS)
    assert shown_level(response) == 71 and seen_level_in(response) == "71"


def test_an_adjustment_from_a_page_gone_stale_still_lands_on_the_level_of_now(catalog, staff_client):
    page = staff_client.get(STOCK_URL.format("1"))
    gateway.stock_decrease(product_id="1", quantity=30, token="meanwhile", reason="sold")
    response = adjust(staff_client, "1", headers=HX, quantity="5", seen_level=seen_level_in(page))
    assert "Received 5: stock is now 45." in response.content.decode()
    assert level("1") == 45
    assert history_rows(response)[0] == ("ann", "+5", 45, "received")


def test_a_missing_seen_level_is_only_no_hint(catalog, staff_client):
    response = adjust(staff_client, "1", headers=HX, quantity="2", seen_level="")
    assert response.status_code == 200 and shown_level(response) == 72 == level("1")


@pytest.mark.parametrize("seen", ["abc", "-3", "9" * 40, "²", "①", "1e3", "٧٠", "７０", " ", "70.0", "+70", "1_0"])
@pytest.mark.parametrize("headers", [{}, HX], ids=["plain", "htmx"])
def test_an_unreadable_seen_level_is_a_form_error_and_changes_nothing(catalog, staff_client, seen, headers):
    response = adjust(staff_client, "1", headers=headers, quantity="2", seen_level=seen)
    if seen == " ":  # blank is no hint
        assert response.status_code in (200, 302) and level("1") == 72
        return
    assert response.status_code == 400
    assert "This form has expired; check it and submit it again." in response.content.decode()
    assert level("1") == 70 and reasons("1") == ["opening"]


def test_a_form_with_errors_costs_no_write(catalog, staff_client):
    staff_client.get("/")
    with count_requests() as counter:
        adjust(staff_client, "1", quantity="0")
    assert counter.operations == ["GetItem"] + ["Query"] * (1 + keys.BUYER_SHARDS)


# --- find and the stock table ---------------------------------------------------------------

def test_the_stock_index_offers_both_forms(catalog, staff_client):
    html = staff_client.get("/staff/stock/").content.decode()
    assert 'name="product"' in html
    assert '<option value="3">Tesla</option>' in html and '<option value="10">Chargers</option>' in html
    assert "<table" not in html


def test_finding_a_known_id_goes_straight_to_its_stock_page(catalog, staff_client):
    response = staff_client.get("/staff/stock/?product=4")
    assert response.status_code == 302 and response["Location"] == STOCK_URL.format("4")


def test_finding_an_unknown_id_says_so(catalog, staff_client):
    response = staff_client.get("/staff/stock/?product=404")
    assert response.status_code == 404
    assert "No product with ID &#x27;404&#x27;." in response.content.decode()
    assert 'value="404"' in response.content.decode()


@pytest.mark.parametrize("value", ["a b", "<x>", "9" * 65, ""])
def test_finding_a_malformed_id_shows_the_validation_message(catalog, staff_client, value):
    response = staff_client.get("/staff/stock/", {"product": value})
    assert response.status_code == 400
    html = response.content.decode()
    assert "ID must be 1 to 64 letters" in html or "This field is required." in html or "at most 64" in html


def table_rows(response):
    """(class, id, name, level) of each row of the stock table (product, stock, status, ID, ...)."""
    rows = re.findall(
        r'<tr class="([^"]*)">\s*<td><a href="[^"]*"[^>]*>([^<]*)</a></td>'
        r'\s*<td class="num" data-label="Stock">(\d+)</td>\s*<td data-label="Status">[^<]*</td>'
        r'\s*<td data-label="ID">([^<]*)</td>',
        response.content.decode(),
    )
    return [(cls, pid, name, int(lvl)) for cls, name, lvl, pid in rows]


def test_a_brands_stock_table_highlights_low_and_sold_out_rows(catalog, staff_client):
    response = staff_client.get("/staff/stock/?brand=3")
    assert response.status_code == 200
    assert '<table class="data stock-table stack">' in response.content.decode()
    assert sorted(table_rows(response), key=lambda r: r[1]) == [
        ("in-stock", "1", "Model 3", 70),
        ("low", "2", "Model Y", 3),
        ("sold-out", "3", "Wall Connector", 0),
    ]
    assert 'href="/staff/products/2/stock/"' in response.content.decode()


def test_low_stock_follows_the_threshold_setting(catalog, staff_client, settings):
    settings.LOW_STOCK_THRESHOLD = 6
    rows = table_rows(staff_client.get("/staff/stock/?category=3"))
    assert sorted(rows, key=lambda r: r[1]) == [("in-stock", "4", "Pixel 9", 12), ("low", "5", "Surface Duo", 5)]


def test_a_category_and_brand_table_keeps_1_apart_from_10(catalog, staff_client):
    assert [r[2] for r in table_rows(staff_client.get("/staff/stock/?category=1&brand=10"))] == ["Acme Roadster"]
    assert [r[2] for r in table_rows(staff_client.get("/staff/stock/?brand=3&category=10"))] == ["Wall Connector"]


@pytest.mark.parametrize("query", ["brand=404", "category=404", "brand=", "brand=3&category=%3Cb%3E"])
def test_an_unknown_brand_or_category_choice_is_refused(catalog, staff_client, query):
    response = staff_client.get(f"/staff/stock/?{query}")
    assert response.status_code == 400
    assert "<table" not in response.content.decode()


def test_the_stock_table_is_paged(ddb, staff_client, settings):
    paged_catalog(settings, n=7, size=3)
    seen, url = [], "/staff/stock/?brand=2"
    while url:
        response = staff_client.get(url)
        seen += table_rows(response)
        match = re.search(r'<a class="button" href="([^"]+)"[^>]*>Load more', response.content.decode())
        url = match.group(1).replace("&amp;", "&") if match else None
    assert sorted(r[1] for r in seen) == [f"x{i}" for i in range(7)]
    first = staff_client.get("/staff/stock/?brand=2").content.decode()
    next_url = re.search(r'hx-get="([^"]+after=[^"]+)"', first).group(1).replace("&amp;", "&")
    fragment = staff_client.get(next_url, headers=HX)
    assert fragment.content.decode().lstrip().startswith('<tr class="')
    assert len(table_rows(fragment)) == 3 and "Load more" in fragment.content.decode()
    cursor = next_url[next_url.index("after="):]
    assert staff_client.get(f"/staff/stock/?category=3&{cursor}").status_code == 400  # bound to its list


# --- real DynamoDB: idempotency and concurrency through the page ------------------------------

@pytest.mark.dynamodb_local
def test_the_same_token_posted_twice_changes_stock_once_on_dynamodb_local(local_catalog, staff_client):
    token = token_in(staff_client.get(STOCK_URL.format("4")))
    answers = [
        adjust(staff_client, "4", token=token, headers=HX, action="decrease", quantity="2", reason="damaged")
        for _ in range(2)
    ]
    assert [a.status_code for a in answers] == [200, 200]
    assert all("Removed 2: stock is now 10." in a.content.decode() for a in answers)
    assert level("4") == 10 and reasons("4") == ["damaged", "opening"]


@pytest.mark.database
@pytest.mark.dynamodb_local
@pytest.mark.django_db(transaction=True)
def test_twenty_staff_decrements_in_parallel_on_a_stock_of_ten(local_ddb, django_user_model):
    data = small_catalog()
    data["products"][6]["stockLevel"] = 10  # product 7
    seed(data)
    clients = []
    for i in range(20):
        client = Client()
        sign_in_staff(client, warehouse_staff(django_user_model.objects.create_user(
            username=f"staff{i}", is_staff=True)))
        clients.append(client)
    start = threading.Barrier(20)

    def decrement(client):
        start.wait()
        try:
            return adjust(client, "7", headers=HX, action="decrease", quantity="1", reason="counted").status_code
        finally:
            connection.close()  # each thread's own database connection (the test database is dropped after)

    with ThreadPoolExecutor(max_workers=20) as pool:
        statuses = list(pool.map(decrement, clients))
    assert sorted(statuses) == [200] * 10 + [409] * 10
    assert level("7") == 0
    adjustments, opening = history("7")[:-1], history("7")[-1]
    assert (opening.reason, opening.delta, len(adjustments)) == ("opening", 10, 10)
    assert sorted(a.resulting_level for a in adjustments) == list(range(10))  # no update lost
    assert len({a.who for a in adjustments}) == 10
