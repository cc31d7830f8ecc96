"""What a bad-input probe of the staff pages found answering 500, each now a 400 (or a plain
answer) that says what is wrong and changes nothing: odd digits in the forms' hidden reorder point,
a stocktake opened in year 1 or 9999 with an offset, the ledger of the last day there is, a
receiving file with a field longer than csv reads or a quantity longer than int() reads."""
import csv
import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from catalog import gateway

EXPIRED = "This form has expired; check it and submit it again."
ODD_DIGITS = ["²", "①", "¹²³"]


def unchanged(product_id, level):
    product = gateway.product_get(product_id=product_id, consistent=True)
    changes = gateway.stock_history(product_id=product_id, consistent=True).items
    return product.stock_level == level and [h.reason for h in changes] == ["opening"]  # the import's only


def adjustment(**fields):
    return "/staff/products/4/stock/", {"action": "increase", "quantity": "1", "reason": "", "seen_level": "12",
                                        "token": gateway.new_token(), **fields}


def stocktake(**fields):
    return "/staff/products/4/stocktake/", {"counted": "9", "seen_level": "12", "token": gateway.new_token(),
                                            "opened_at": "", **fields}


FORMS = [
    *[(form, {"seen_reorder_point": digits}) for form in (adjustment, stocktake) for digits in ODD_DIGITS],
    (stocktake, {"opened_at": "0001-01-01T00:00:00+01:00"}),
    (stocktake, {"opened_at": "9999-12-31T23:59:59-01:00"}),
    (stocktake, {"opened_at": "2026-01-01T10:00:00"}),  # no offset: not what the page wrote
]


@pytest.mark.parametrize("headers", [{}, {"HX-Request": "true"}])
@pytest.mark.parametrize("form,altered", FORMS)
def test_an_altered_hidden_field_is_a_400_that_changes_nothing(catalog, staff_client, form, altered, headers):
    url, data = form(**altered)
    response = staff_client.post(url, data, headers=headers)
    assert response.status_code == 400
    assert EXPIRED in response.content.decode()
    assert unchanged("4", 12)


@pytest.mark.parametrize("form", [adjustment, stocktake])
def test_the_hidden_reorder_point_as_the_page_writes_it_is_accepted(catalog, staff_client, form):
    url, data = form(seen_reorder_point="5")
    assert staff_client.post(url, data).status_code == 302


def test_the_ledger_of_the_last_day_there_is_is_an_empty_file(catalog, staff_client):
    response = staff_client.get("/staff/ledger/?start=9999-12-30&end=9999-12-31")
    assert response.status_code == 200
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert len(rows) == 1 and rows[0][:2] == ["at_utc", "product_id"]


@pytest.mark.parametrize("line,message", [
    ("1," + "7" * 4500 + ",PO-1", "line 2: quantity &#x27;77777777777777777777&#x27; must be a whole number from 1"),
    ("1,²,PO-1", "line 2: quantity &#x27;²&#x27; must be a whole number from 1"),
    ("1,5," + "x" * 140_000, "line 2: not readable as CSV (field larger than field limit (131072))"),
])
def test_a_receiving_file_no_parser_reads_is_a_400_that_receives_nothing(catalog, staff_client, line, message):
    text = f"product_id,quantity,reference\n{line}\n"
    upload = SimpleUploadedFile("shipment.csv", text.encode(), "text/csv")
    response = staff_client.post("/staff/receive/", {"file": upload})
    assert response.status_code == 400
    assert message in response.content.decode()
    assert unchanged("1", 70)
