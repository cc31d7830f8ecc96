"""The warehouse: reorder list, stocktake, history by reason and CSV, the ledger, bulk
receiving, orders for staff, reconcile_stock; on DynamoDB Local the races."""
import csv
import io
import re
import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError

from catalog import gateway
from catalog.gateway import client as dynamo
from catalog.gateway import codec, keys, receiving
from catalog.gateway.catalog.import_file import ImportInvalid
from catalog.gateway.dynamo.testing import count_requests
from tests.helpers import history, level, seed, small_catalog

HX = {"HX-Request": "true"}


def reorder_ids(**filters):
    return [p.product_id for p in gateway.products_to_reorder(limit=100, **filters).items]


def reorder_rows(response):
    """The product IDs of the reorder list's rows, in order."""
    return re.findall(r'<td data-label="ID">([^<]+)</td>', response.content.decode())


def place(product_id, quantity, *, customer="c1", order_id=None):
    product = gateway.product_get(product_id=product_id)
    return gateway.order_place(
        customer_id=customer, customer_name="cy", order_id=order_id or gateway.new_order_id(),
        token=gateway.new_token(),
        lines=[gateway.PurchaseLine(product_id=product_id, quantity=quantity, price=product.price)],
    )


def csv_rows(response):
    return list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))


def break_level(product_id, new_level):
    """A level changed behind the ledger's back (what reconcile_stock must find)."""
    dynamo.client().update_item(
        TableName=dynamo.table_name(), Key=codec.serialize(keys.product_key(product_id)),
        UpdateExpression="SET stockLevel = :l", ExpressionAttributeValues=codec.serialize({":l": new_level}),
    )


# --- access -------------------------------------------------------------------------------

PAGES = ["/staff/reorder/", "/staff/orders/", "/staff/receive/", "/staff/ledger/",
         "/staff/ledger/?start=2026-01-01&end=2026-01-02", "/staff/products/1/stock/history.csv",
         "/staff/orders/c1/20260101T000000000000-abcd/"]


@pytest.mark.parametrize("url", PAGES)
def test_every_warehouse_page_and_download_needs_staff(catalog, client, django_user_model, url):
    response = client.get(url)
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/?next=/staff/")
    client.force_login(django_user_model.objects.create_user(username="bo", password="pw-bo-shopper"))
    assert client.get(url).status_code == 403


@pytest.mark.parametrize("url", ["/staff/receive/", "/staff/receive/continue/", "/staff/products/1/stocktake/",
                                 "/staff/products/1/reorder-point/", "/staff/products/1/stock-buckets/",
                                 "/staff/orders/c1/20260101T000000000000-ab/"])
def test_a_shopper_cannot_post_to_the_warehouse(catalog, client, django_user_model, url):
    client.force_login(django_user_model.objects.create_user(username="bo", password="pw-bo-shopper"))
    assert client.post(url, {"counted": "0", "reorder_point": "1", "stock_buckets": "3", "action": "cancel"}) \
        .status_code == 403
    assert level("1") == 70 and [h.reason for h in history("1")] == ["opening"]


# --- reorder list -------------------------------------------------------------------------

def test_the_reorder_list_is_sold_out_first_in_one_query(catalog, staff_client):
    staff_client.get("/")  # warms the names cache
    with count_requests() as counter:
        response = staff_client.get("/staff/reorder/")
    assert counter.operations == ["Query", "BatchGetItem"]  # the page, then its back-in-stock alert counts
    # at or below LOW_STOCK_THRESHOLD (5): 3 (0), 8 (1), 6 (2), 2 (3), 5 (5)
    assert reorder_rows(response) == ["3", "8", "6", "2", "5"]


def test_the_reorder_list_follows_every_stock_write(catalog, staff_client):
    gateway.stock_increase(product_id="3", quantity=10, token="in")  # 0 -> 10: off
    gateway.stock_decrease(product_id="4", quantity=8, token="out")  # 12 -> 4: on
    place("5", 1)  # 5 -> 4: still on, moved
    assert reorder_ids() == ["8", "6", "2", "4", "5"]
    gateway.stock_count(product_id="8", counted=50, expected_level=1, token="count")
    assert reorder_ids() == ["6", "2", "4", "5"]


def test_brand_and_category_filters(catalog, staff_client):
    assert reorder_rows(staff_client.get("/staff/reorder/?brand=10")) == ["8", "6"]
    assert reorder_rows(staff_client.get("/staff/reorder/?category=1")) == ["8", "2"]
    assert reorder_rows(staff_client.get("/staff/reorder/?brand=3&category=10")) == ["3"]
    assert staff_client.get("/staff/reorder/?brand=nope").status_code == 400


def test_staff_edit_a_reorder_point(catalog, staff_client):
    response = staff_client.post("/staff/products/1/reorder-point/", {"reorder_point": "70"})
    assert response.status_code == 302
    assert "1" in reorder_ids() and gateway.product_get(product_id="1").reorder_point == 70
    staff_client.post("/staff/products/1/reorder-point/", {"reorder_point": ""})  # back to the default
    assert "1" not in reorder_ids() and gateway.product_get(product_id="1").reorder_point is None
    assert staff_client.post("/staff/products/1/reorder-point/", {"reorder_point": "-1"}).status_code == 400
    assert "1" not in reorder_ids()


def test_staff_spread_a_product_over_stock_buckets_and_see_the_total(catalog, staff_client):
    response = staff_client.post("/staff/products/1/stock-buckets/", {"stock_buckets": "4"})
    assert response.status_code == 302
    assert gateway.product_get(product_id="1").stock_buckets == 4 and level("1") == 70
    place("1", 2)  # the first sale spreads the 70 units over the 4 buckets and takes from one
    page = staff_client.get("/staff/products/1/stock/").content.decode()
    assert '<div id="stock-level" class="stock-level">68</div>' in page
    assert re.search(r'name="stock_buckets" value="4"', page)
    assert staff_client.post("/staff/products/1/stock-buckets/", {"stock_buckets": "101"}).status_code == 400
    assert gateway.product_get(product_id="1").stock_buckets == 4 and level("1") == 68
    staff_client.post("/staff/products/1/stock-buckets/", {"stock_buckets": "1"})
    assert gateway.product_get(product_id="1").stock_buckets == 1 and level("1") == 68


def test_import_sets_reorder_points_and_keeps_the_list_exact(ddb):
    data = small_catalog()
    data["products"][0]["reorderPoint"] = 100  # product 1, stock 70
    seed(data)
    assert "1" in reorder_ids()
    gateway.stock_decrease(product_id="1", quantity=1, token="sale", reason="sold")
    data["products"][0]["reorderPoint"] = 10
    seed(data)  # again: keeps the stock (69), moves it off the list
    assert "1" not in reorder_ids() and level("1") == 69
    data["products"][0]["reorderPoint"] = "many"
    with pytest.raises(ImportInvalid) as exc:
        seed(data)
    assert "products[0].reorderPoint" in str(exc.value.problems)


# --- stock changes: codes, stocktake, history ---------------------------------------------------

def test_an_adjustment_records_code_reference_and_note(catalog, staff_client):
    staff_client.post("/staff/products/4/stock/", {"action": "increase", "quantity": "5", "reason": "returned",
                                                  "reference": "RMA-7", "note": "box dented",
                                                  "token": gateway.new_token()})
    change, opening = history("4")
    assert (opening.reason, opening.delta, opening.resulting_level) == ("opening", 12, 12)
    assert (change.delta, change.reason, change.reference, change.note, change.who) == (
        5, "returned", "RMA-7", "box dented", "ann")


def test_old_free_text_reasons_are_read_as_notes(catalog):
    item = gateway.StockAdjustment(product_id="1", adjustment_id="old", at=datetime.now(UTC), delta=1,
                                   resulting_level=71).to_item()
    item["reason"] = "Shipment 17"
    assert gateway.StockAdjustment.from_item(item).reason == ""
    assert gateway.StockAdjustment.from_item(item).note == "Shipment 17"


def test_a_stocktake_records_the_difference_as_counted(catalog, staff_client):
    response = staff_client.post("/staff/products/4/stocktake/", {
        "counted": "9", "seen_level": "12", "token": gateway.new_token(), "opened_at": "", "note": "aisle 3"})
    assert response.status_code == 302
    assert level("4") == 9
    change, _opening = history("4")
    assert (change.delta, change.reason, change.note) == (-3, "counted", "aisle 3")


def test_a_stocktake_that_lost_to_a_sale_writes_nothing_and_shows_the_moves(catalog, staff_client):
    page = staff_client.get("/staff/products/4/stock/").content.decode()
    opened_at = re.search(r'name="opened_at" value="([^"]+)"', page).group(1)
    place("4", 2)  # 12 -> 10 while counting
    token = gateway.new_token()
    form = {"counted": "9", "seen_level": "12", "token": token, "opened_at": opened_at}
    response = staff_client.post("/staff/products/4/stocktake/", form, headers=HX)
    assert response.status_code == 409
    html = response.content.decode()
    assert "it is now 10, not 12. Nothing was changed" in html
    # the move since: a sale with plenty left took its units relatively, without reading the level after
    assert re.search(r'<td class="num">-2</td><td class="num">not recorded \(sale during a rush\)</td><td>sold', html)
    assert re.search(r'name="seen_level" value="10"', html)
    assert level("4") == 10 and [h.reason for h in history("4")] == ["sold", "opening"]
    # confirming sends the form again against 10
    again = staff_client.post("/staff/products/4/stocktake/", {**form, "seen_level": "10"}, headers=HX)
    assert again.status_code == 200 and level("4") == 9
    assert [(h.reason, h.delta) for h in history("4")] == [("counted", -1), ("sold", -2), ("opening", 12)]


def test_history_by_reason_is_one_query_and_downloads_as_safe_csv(catalog, staff_client):
    gateway.stock_increase(product_id="1", quantity=3, token="a", reason="received", reference="=HYPERLINK(1)")
    gateway.stock_decrease(product_id="1", quantity=1, token="b", reason="damaged", note="-2+3 @x")
    gateway.stock_increase(product_id="1", quantity=2, token="c", reason="received", note="+x")
    staff_client.get("/")
    with count_requests() as counter:
        response = staff_client.get("/staff/products/1/stock/?reason=received")
    assert counter.operations == ["GetItem", "Query"]  # the product (its waiting alerts too), one reason's history
    assert re.findall(r'<td data-label="Reference">([^<]*)</td>', response.content.decode()) == ["", "=HYPERLINK(1)"]
    rows = csv_rows(staff_client.get("/staff/products/1/stock/history.csv?reason=received"))
    assert rows[0][:6] == ["at_utc", "product_id", "reason", "quantity_in", "quantity_out", "resulting_level"]
    assert [(r[2], r[3], r[6], r[7]) for r in rows[1:]] == [("received", "2", "", "'+x"),
                                                            ("received", "3", "'=HYPERLINK(1)", "")]
    every = csv_rows(staff_client.get("/staff/products/1/stock/history.csv"))
    assert [r[7] for r in every[1:]] == ["'+x", "'-2+3 @x", "", ""]
    assert [r[4] for r in every[1:]] == ["0", "1", "0", "0"]
    assert every[-1][2:6] == ["opening", "70", "0", "70"]  # the level the import set, first of all
    assert staff_client.get("/staff/products/1/stock/history.csv?reason=nope").status_code == 400
    assert staff_client.get("/staff/products/999/stock/history.csv").status_code == 404


def test_the_ledger_lists_every_products_changes_of_the_days(catalog, staff_client):
    gateway.stock_increase(product_id="1", quantity=3, token="a")
    place("4", 2)
    gateway.stock_decrease(product_id="7", quantity=1, token="c", reason="damaged", note="@SUM(A1)")
    today = datetime.now(UTC).date()  # from the day before: the test may have begun before midnight
    rows = csv_rows(staff_client.get(f"/staff/ledger/?start={today - timedelta(days=1)}&end={today}"))
    # the import's opening changes first (the levels it set today, product 3 sold out has none), then the day's
    opened = {r[1]: r[3] for r in rows[1:8]}
    assert [r[2] for r in rows[1:8]] == ["opening"] * 7 and opened == {
        p["productId"]: str(p["stockLevel"]) for p in small_catalog()["products"] if p["stockLevel"]}
    assert [(r[1], r[2], r[3], r[4]) for r in rows[8:]] == [("1", "received", "3", "0"), ("4", "sold", "0", "2"),
                                                            ("7", "damaged", "0", "1")]
    assert rows[10][7] == "'@SUM(A1)"
    assert csv_rows(staff_client.get("/staff/ledger/?start=2020-01-01&end=2020-01-02")) == [rows[0]]
    assert staff_client.get("/staff/ledger/?start=2020-01-01&end=2020-03-01").status_code == 400
    assert staff_client.get("/staff/ledger/?start=2020-01-02&end=2020-01-01").status_code == 400
    assert staff_client.get("/staff/ledger/?start=yesterday&end=2020-01-01").status_code == 400


def test_a_sale_during_a_rush_says_its_level_after_was_not_recorded(catalog, staff_client):
    """A sale with plenty left records its delta and order, not a level after (nobody read it): the
    history page and both CSVs say so instead of showing a number; a sale near the edge shows it."""
    rush = place("7", 3)  # 40 -> 37: relative
    edge = place("5", 1)  # 5 -> 4: at the low-stock threshold, exact
    html = staff_client.get("/staff/products/7/stock/").content.decode()
    assert re.search(r'data-label="Change">-3</td>\s*<td class="num" data-label="Level">not recorded \(sale during a '
                     r"rush\)</td>", html)
    assert rush.number in html  # the order it belongs to
    assert re.search(r'data-label="Level">4</td>', staff_client.get("/staff/products/5/stock/").content.decode())
    rows = csv_rows(staff_client.get("/staff/products/7/stock/history.csv?reason=sold"))
    assert [(r[2], r[4], r[5], r[9]) for r in rows[1:]] == [
        ("sold", "3", "not recorded (sale during a rush)", rush.order_id)]
    today = datetime.now(UTC).date()  # from the day before: the test may have begun before midnight
    ledger = csv_rows(staff_client.get(f"/staff/ledger/?start={today - timedelta(days=1)}&end={today}"))
    assert sorted((r[1], r[5], r[9]) for r in ledger[1:] if r[2] == "sold") == [
        ("5", "4", edge.order_id), ("7", "not recorded (sale during a rush)", rush.order_id)]


def test_the_ledger_of_a_day_is_spread_over_its_shards_even_by_one_products_sales():
    shards = {keys.ledger_shard(str(pid), "one-change") for pid in range(1000)}
    assert shards == set(range(keys.LEDGER_SHARDS))
    one_product = {keys.ledger_shard("7", f"order-{n}") for n in range(1000)}  # a hot product's sales
    assert one_product == set(range(keys.LEDGER_SHARDS))


# --- receiving --------------------------------------------------------------------------------

def upload(client, text, name="shipment.csv", headers=None):
    return client.post("/staff/receive/", {"file": SimpleUploadedFile(name, text.encode(), "text/csv")},
                       headers=headers or {})


def test_a_file_with_problems_lists_them_by_line_and_writes_nothing(catalog, staff_client):
    text = "product_id,quantity,reference\n1,5,PO-1\n999,1,\n4,0,x\n4,two,\na b,1\n"
    response = upload(staff_client, text)
    assert response.status_code == 400
    html = response.content.decode()
    problems = re.findall(r"<li>(line \d+):", html)
    assert problems == ["line 3", "line 4", "line 5", "line 6"]
    assert "line 3: no product with ID &#x27;999&#x27;" in html and "line 6: expected 3 fields" in html
    assert level("1") == 70 and [h.reason for h in history("1")] == ["opening"]
    assert upload(staff_client, "id,qty\n1,2\n").status_code == 400
    assert level("1") == 70


def test_a_file_is_received_in_chunks_with_a_summary_and_never_twice(catalog, staff_client, monkeypatch):
    from staff.views import receiving as views
    monkeypatch.setattr(views, "RECEIVE_CHUNK", 2)
    text = "product_id,quantity,reference\n1,5,PO-1\n4,3,PO-1\n1,2,PO-2\n3,10,\n7,1,PO-3\n"
    first = upload(staff_client, text)
    assert first.status_code == 200
    assert re.search(r'<progress max="5" value="2">', first.content.decode())
    assert (level("1"), level("4")) == (75, 15)
    step = staff_client.post("/staff/receive/continue/", headers=HX)
    assert '<progress max="5" value="4">' in step.content.decode() and "<html" not in step.content.decode()
    last = staff_client.post("/staff/receive/continue/", headers=HX).content.decode()
    assert "5 lines: 5 received now (21 units), 0 received before." in last
    assert (level("1"), level("4"), level("3"), level("7")) == (77, 15, 10, 41)
    assert [(h.reason, h.reference) for h in history("1")] == [
        ("received", "PO-2"), ("received", "PO-1"), ("opening", "")]
    assert "3" not in reorder_ids()
    # the same file again: nothing twice
    upload(staff_client, text)
    staff_client.post("/staff/receive/continue/")
    again = staff_client.post("/staff/receive/continue/").content.decode()
    assert "0 received now (0 units), 5 received before." in again
    assert (level("1"), level("4"), level("3"), level("7")) == (77, 15, 10, 41)


def test_receive_stock_command(catalog, tmp_path):
    good = tmp_path / "good.csv"
    good.write_text("product_id,quantity,reference\n1,5,PO-1\n2,4,PO-1\n")
    out = io.StringIO()
    call_command("receive_stock", str(good), "--no-progress", stdout=out)
    assert "2 line(s): 2 received now (9 units, 2 product(s)), 0 received before." in out.getvalue()
    call_command("receive_stock", str(good), "--no-progress", stdout=out)
    assert "0 received now (0 units, 2 product(s)), 2 received before." in out.getvalue()
    assert (level("1"), level("2")) == (75, 7)
    bad = tmp_path / "bad.csv"
    bad.write_text("product_id,quantity,reference\n1,5,PO-1\n999,1,\n")
    err = io.StringIO()
    with pytest.raises(CommandError, match="nothing was received"):
        call_command("receive_stock", str(bad), "--no-progress", stderr=err)
    assert "line 3: no product with ID '999'" in err.getvalue()
    assert level("1") == 75


# --- orders -----------------------------------------------------------------------------------

def test_staff_see_open_orders_oldest_first_and_ship_one(catalog, staff_client, client, django_user_model):
    first = place("1", 1, customer="c1")
    second = place("4", 2, customer="c2")
    staff_client.get("/")  # warms the names cache
    with count_requests() as counter:
        listing = staff_client.get("/staff/orders/").content.decode()
    assert counter.operations == ["Query"] * keys.OPEN_ORDER_SHARDS  # each shard
    assert listing.index(first.order_id) < listing.index(second.order_id)
    url = f"/staff/orders/c1/{first.order_id}/"
    assert "Mark shipped" in staff_client.get(url).content.decode()
    assert staff_client.post(url, {"action": "ship"}).status_code == 302
    assert gateway.order_get(customer_id="c1", order_id=first.order_id).status == "shipped"
    assert url not in staff_client.get("/staff/orders/").content.decode()
    refused = staff_client.post(url, {"action": "cancel"})
    assert refused.status_code == 409 and "is shipped: it cannot be cancelled" in refused.content.decode()
    assert level("1") == 69


def test_cancel_puts_the_stock_back_once_and_the_customer_sees_it(catalog, staff_client, django_user_model):
    shopper = django_user_model.objects.create_user(username="bo", password="pw-bo-shopper")
    customer = shopper.customer_key_id
    order = place("2", 3, customer=customer)  # 3 -> 0
    url = f"/staff/orders/{customer}/{order.order_id}/"
    assert staff_client.post(url, {"action": "cancel"}).status_code == 302
    assert level("2") == 3
    back, sale, _opening = history("2")
    assert (back.reason, back.delta, back.reference, back.who) == ("cancelled", 3, order.order_id, "ann")
    again = staff_client.post(url, {"action": "cancel"})
    assert again.status_code == 409 and "is cancelled: it cannot be cancelled" in again.content.decode()
    shipped = staff_client.post(url, {"action": "ship"})
    assert shipped.status_code == 409 and "is cancelled: it cannot be shipped" in shipped.content.decode()
    assert level("2") == 3 and [h.reason for h in history("2")] == ["cancelled", "sold", "opening"]
    from django.test import Client
    mine = Client()
    mine.force_login(shopper)
    assert "Cancelled" in mine.get(f"/account/orders/{order.order_id}/").content.decode()
    assert "Cancelled" in mine.get("/account/orders/").content.decode()


# --- reconcile_stock ------------------------------------------------------------------------------

def test_reconcile_stock_finds_a_broken_level(catalog):
    gateway.stock_increase(product_id="4", quantity=3, token="a")
    place("4", 2)
    out = io.StringIO()
    call_command("reconcile_stock", stdout=out)
    assert "8 product(s) checked: every history adds up." in out.getvalue()
    break_level("4", 99)
    out = io.StringIO()
    with pytest.raises(CommandError) as exc:
        call_command("reconcile_stock", stdout=out)
    assert exc.value.returncode == 1
    # opening 12, +3, -2: 13. The sale was taken relatively (no level recorded), so the newest change
    # that records one is the receipt: it left 15, where a level of 99 and the sale after it say 101.
    said = out.getvalue()
    assert "DRIFT product 4: the stock level is 99, but its 3 stock change(s) add up to 13; the change of" in said
    assert "(+3, received) left 15, where the level now and the changes after it say 101" in said
    with pytest.raises(CommandError):
        call_command("reconcile_stock", "4", stdout=io.StringIO())
    call_command("reconcile_stock", "1", stdout=io.StringIO())  # one product without drift: fine


def test_reconcile_stock_finds_a_level_changed_on_a_product_never_adjusted(catalog):
    """The import's opening change is the product's whole history: a level set behind the shop's back
    no longer passes as consistent (before opening changes it did: nothing to chain)."""
    assert [(h.reason, h.delta, h.resulting_level) for h in history("1")] == [("opening", 70, 70)]
    call_command("reconcile_stock", "1", stdout=io.StringIO())
    break_level("1", 75)
    break_level("3", 2)  # imported sold out: no change at all
    out = io.StringIO()
    with pytest.raises(CommandError, match="2 of 8 product"):
        call_command("reconcile_stock", stdout=out)
    said = out.getvalue()
    assert "DRIFT product 1: the stock level is 75, but its 1 stock change(s) add up to 70; the change of" in said
    assert "DRIFT product 3: the stock level is 2, but the product has no stock changes (they add up to 0)" in said


def test_reconcile_stock_adds_up_sales_that_did_not_record_the_level_they_left(catalog):
    """A sale during a rush records its delta and order but not the level after it (a
    relative sale): the deltas still add up to the level, so it is no drift, and a break still is."""
    sale = gateway.StockAdjustment(
        product_id="7", adjustment_id="rush-1", at=datetime.now(UTC), delta=-3, resulting_level=None,
        reason="sold", order_id="20260101T000000000000-rush",
    )
    dynamo.client().put_item(TableName=dynamo.table_name(), Item=codec.serialize(sale.to_item()))
    break_level("7", 37)  # the sale's own decrement
    assert [h.resulting_level for h in history("7")] == [None, 40]
    call_command("reconcile_stock", "7", stdout=io.StringIO())
    gateway.stock_decrease(product_id="7", quantity=1, token="d", reason="damaged")  # exact again: leaves 36
    call_command("reconcile_stock", "7", stdout=io.StringIO())
    break_level("7", 30)
    out = io.StringIO()
    with pytest.raises(CommandError):
        call_command("reconcile_stock", "7", stdout=out)
    assert "the stock level is 30, but its 3 stock change(s) add up to 36; the change of" in out.getvalue()


# --- on DynamoDB Local: the races ---------------------------------------------------------------

@pytest.mark.dynamodb_local
def test_the_reorder_list_stays_exact_through_concurrent_sales_and_receipts(local_catalog):
    writes = [("6", -1), ("6", +4), ("2", -1), ("2", +1), ("8", +5), ("8", -1), ("1", -20), ("4", -5)] * 3

    def apply(i):
        product_id, delta = writes[i]
        if delta < 0:
            try:
                place(product_id, -delta, order_id=None)
            except gateway.OrderRejected:
                pass
        else:
            gateway.stock_increase(product_id=product_id, quantity=delta, token=f"r{i}")

    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(apply, range(len(writes))))
    products = {pid: gateway.product_get(product_id=pid, consistent=True) for pid in "12345678"}
    expected = sorted((p.stock_level, pid) for pid, p in products.items() if p.needs_reorder)
    assert reorder_ids() == [pid for _, pid in expected]


@pytest.mark.dynamodb_local
def test_a_stocktake_that_loses_a_race_to_a_sale_is_refused(local_catalog):
    start = threading.Barrier(2)

    def sale():
        start.wait()
        return place("4", 2)

    def count():
        start.wait()
        try:
            return gateway.stock_count(product_id="4", counted=12, expected_level=12, token="count-1")
        except gateway.StockMoved as exc:
            return exc

    with ThreadPoolExecutor(max_workers=2) as pool:
        sold, counted = pool.submit(sale), pool.submit(count)
        sold, counted = sold.result(), counted.result()
    reasons = [h.reason for h in history("4")]
    if isinstance(counted, gateway.StockMoved):  # the sale went first: nothing counted
        assert counted.level == 10 and reasons == ["sold", "opening"] and level("4") == 10
    else:  # the count went first (a difference of 0), then the sale; each stamps its change before it writes,
        # so the sale's stamp may still be the earlier one of the two
        assert sorted(reasons[:2]) == ["counted", "sold"] and reasons[2:] == ["opening"] and level("4") == 10
    with pytest.raises(gateway.StockMoved) as exc:
        gateway.stock_count(product_id="4", counted=5, expected_level=12, token="count-2")
    assert exc.value.level == 10 and level("4") == 10


@pytest.mark.dynamodb_local
def test_a_bulk_receive_interrupted_half_way_and_run_again_applies_each_line_once(local_catalog):
    lines = "".join(f"{pid},{n},PO-9\n" for n, pid in enumerate("12345678123", start=1))
    receipt = receiving.validate(("product_id,quantity,reference\n" + lines).encode())
    before = {pid: level(pid) for pid in "12345678"}
    half = receiving.receive_lines(receipt, who="ann", count=5)  # then the process died
    assert half.applied == 5
    again = receiving.receive_lines(receipt, who="ann")
    assert (again.applied, again.replayed) == (6, 5)
    for pid in "12345678":
        received = sum(line.quantity for line in receipt.lines if line.product_id == pid)
        assert level(pid) == before[pid] + received
        assert sum(h.delta for h in history(pid)) == before[pid] + received  # the import's opening and the lines
    with ThreadPoolExecutor(max_workers=3) as pool:  # three retries at once: still nothing twice
        results = list(pool.map(lambda _: receiving.receive_lines(receipt, who="ann"), range(3)))
    assert all(r.applied == 0 for r in results)
    assert level("1") == before["1"] + 1 + 9


@pytest.mark.dynamodb_local
def test_a_cancel_racing_a_second_cancel_restocks_once(local_catalog):
    order = place("7", 5, customer="c9")  # 40 -> 35
    start = threading.Barrier(2)

    def cancel():
        start.wait()
        try:
            return gateway.order_cancel(customer_id="c9", order_id=order.order_id, who="ann")
        except gateway.OrderStatusRefused as exc:
            return exc

    with ThreadPoolExecutor(max_workers=2) as pool:
        outcomes = list(pool.map(lambda _: cancel(), range(2)))
    assert sorted(type(o).__name__ for o in outcomes) == ["Order", "OrderStatusRefused"]
    assert level("7") == 40
    assert [h.reason for h in history("7")] == ["cancelled", "sold", "opening"]
    assert gateway.order_get(customer_id="c9", order_id=order.order_id).status == "cancelled"
    assert gateway.orders_open(limit=100).items == []


@pytest.mark.dynamodb_local
def test_reconcile_stock_finds_a_deliberately_broken_level_on_dynamodb_local(local_catalog):
    gateway.stock_decrease(product_id="6", quantity=1, token="x", reason="damaged")
    call_command("reconcile_stock", stdout=io.StringIO())
    break_level("6", 7)
    out = io.StringIO()
    with pytest.raises(CommandError):
        call_command("reconcile_stock", stdout=out)
    assert out.getvalue().count("DRIFT") == 1 and "product 6" in out.getvalue()


def test_a_file_received_on_the_page_is_not_received_again_by_the_command(catalog, staff_client, tmp_path):
    text = "\ufeffproduct_id,quantity,reference\r\n1,5,PO-1\r\n"  # a spreadsheet's export: BOM, CRLF
    upload(staff_client, text)
    path = tmp_path / "same.csv"
    path.write_bytes(text.encode("utf-8"))
    out = io.StringIO()
    call_command("receive_stock", str(path), "--no-progress", stdout=out)
    assert "0 received now" in out.getvalue() and level("1") == 75


def test_staff_see_the_waiting_back_in_stock_alerts(catalog, staff_client):
    from catalog.gateway.alerts import alert_ask

    for i in range(2):
        alert_ask(product_id="3", email=f"s{i}@example.com", customer_id=f"c{i}")
    response = staff_client.get("/staff/reorder/")
    row = re.search(r'<tr[^>]*>\s*<td><a href="/staff/products/3/stock/">.*?</tr>', response.content.decode(), re.S)
    assert '<td class="num" data-label="Alerts waiting">2</td>' in row.group(0)
    stock_page = staff_client.get("/staff/products/3/stock/").content.decode()
    assert "Back-in-stock alerts waiting: <strong>2</strong>" in stock_page
