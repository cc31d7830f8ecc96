"""The catalog editor's many-at-once pages: the CSV export, an upload previewed then confirmed (1,000
changes applied once, one bad line writing nothing), a price change by percent, and the brands and
categories pages; with the requests each costs."""
import csv
import io
import re
from decimal import Decimal

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from catalog import gateway, names
from catalog.gateway.catalog import bulk
from catalog.gateway.dynamo.testing import count_requests
from tests.helpers import CATALOG_EDITORS, join, sign_in_staff, small_catalog


@pytest.fixture(autouse=True)
def _one_writer_at_a_time(monkeypatch):
    """moto's TransactWriteItems is not thread-safe (it copies the table while another thread writes): on moto a
    plan is applied one product at a time (DynamoDB Local's test applies it with every writer)."""
    monkeypatch.setattr(bulk, "APPLY_WORKERS", 1)


@pytest.fixture
def editor_client(client, django_user_model):
    editor = join(django_user_model.objects.create_user(username="eve", password="pw-eve", is_staff=True),
                  CATALOG_EDITORS)
    names.brand_names(), names.category_names()  # the names cache warm, as on a busy shop
    return sign_in_staff(client, editor)


def exported(client):
    response = client.get("/staff/catalog/export.csv")
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    return list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))


def upload(client, rows, header=None):
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=header or list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
    return client.post("/staff/catalog/import/", {"file": SimpleUploadedFile("c.csv", out.getvalue().encode())})


def token_in(response):
    return re.search(r'name="confirm" value="([0-9a-f]{64})"', response.content.decode()).group(1)


def test_the_export_has_every_product_shown_and_hidden(catalog, editor_client):
    gateway.product_update(product_id="8", version=0, who="eve", changes={"published": False})
    with count_requests() as counter:
        rows = exported(editor_client)
    assert sorted(r["product_id"] for r in rows) == [str(n) for n in range(1, 9)]
    # the brands (1 Query), then a Query and a BatchGetItem for each of the 4 brands and for the hidden products
    assert sorted(counter.operations) == sorted(["Query"] * 6 + ["BatchGetItem"] * 5)
    model_3 = next(r for r in rows if r["product_id"] == "1")
    assert model_3 == {"product_id": "1", "name": "Model 3", "brand_id": "3", "category_id": "1", "price": "39990.00",
                       "published": "yes", "description": "Electric sedan.",
                       "attributes": '{"range_km": 510, "seats": 5}'}
    assert next(r for r in rows if r["product_id"] == "8")["published"] == "no"


def test_an_exported_file_uploaded_again_changes_nothing(catalog, editor_client):
    response = upload(editor_client, exported(editor_client))
    assert response.status_code == 200
    assert "0 new, 0 changed, 8 unchanged" in response.content.decode()


def changes_file(new):
    """`new` new chargers of Acme, and the first five products of the small catalog renamed and repriced."""
    rows = [{"product_id": f"c{n}", "name": f"Charger {n}", "brand_id": "10", "category_id": "10",
             "price": "5.00", "stock_level": "3"} for n in range(new)]
    return rows + [{"product_id": p["productId"], "name": p["name"] + " II", "brand_id": p["brandId"],
                    "category_id": p["categoryId"], "price": "1.00", "stock_level": ""}
                   for p in small_catalog()["products"][:5]]


def check_previewed_then_applied_once(client, new):
    """An upload of changes_file(new): previewed (nothing written), applied, and applied again (nothing more)."""
    rows = changes_file(new)
    with count_requests() as counter:
        preview = upload(client, rows)
    assert preview.status_code == 200 and f"{new} new, 5 changed, 0 unchanged" in preview.content.decode()
    assert counter.operations == ["BatchGetItem"] * -(-len(rows) // 100)  # the products as stored, 100 a request
    with pytest.raises(gateway.NotFound):
        gateway.product_get(product_id="c0")
    token = token_in(preview)
    with count_requests() as counter:
        applied = client.post("/staff/catalog/import/", {"confirm": token})
    assert applied.status_code == 200 and f"{new} new, 5 changed" in applied.content.decode()
    # a new product: one transaction; a changed one: a consistent GetItem, then one transaction
    assert sorted(counter.operations) == ["GetItem"] * 5 + ["TransactWriteItems"] * (new + 5)
    assert gateway.product_get(product_id=f"c{new - 1}").name == f"Charger {new - 1}"
    assert gateway.product_get(product_id="1").name == "Model 3 II"
    acme = next(b for b in gateway.brands_all() if b.brand_id == "10")
    assert acme.category_counts["10"] == new + 1  # Acme's chargers: the new ones and its own
    with count_requests() as counter:
        again = client.post("/staff/catalog/import/", {"confirm": token})
    assert "This change was applied already" in again.content.decode() and counter.operations == []
    assert [e.who for e in gateway.product_history(product_id="1").items] == ["eve"]


def test_changes_are_previewed_then_applied_once(catalog, editor_client):
    check_previewed_then_applied_once(editor_client, 40)


@pytest.mark.dynamodb_local
def test_a_thousand_changes_are_previewed_then_applied_once(local_catalog, editor_client, monkeypatch):
    monkeypatch.setattr(bulk, "APPLY_WORKERS", bulk.BATCH_WRITERS)  # DynamoDB Local: every writer at once
    check_previewed_then_applied_once(editor_client, 995)


def test_a_file_with_one_bad_line_writes_nothing(catalog, editor_client):
    rows = [{"product_id": f"c{n}", "name": f"Charger {n}", "brand_id": "10", "category_id": "10", "price": "5.00"}
            for n in range(20)]
    rows[7]["price"] = "five"
    rows[12]["brand_id"] = "99"
    with count_requests() as counter:
        response = upload(editor_client, rows)
    assert response.status_code == 400 and counter.operations == []
    html = response.content.decode()
    assert "Nothing was written: 2 problems" in html
    assert "line 9: price: &#x27;five&#x27; is not a price" in html
    assert "line 14: brand_id: unknown brand &quot;99&quot;" in html
    assert 'name="confirm"' not in html


@pytest.mark.parametrize("content, message", [(b"name,price\nx,1\n", "the header lacks product_id"),
                                              (b"\xff\xfe", "not UTF-8"), (b"product_id,name,brand_id,category_id,"
                                                                          b"price\n", "no product lines")])
def test_unreadable_files_are_a_400(catalog, editor_client, content, message):
    response = editor_client.post("/staff/catalog/import/", {"file": SimpleUploadedFile("c.csv", content)})
    assert response.status_code == 400 and message in response.content.decode()


def test_a_stale_or_foreign_token_is_refused(catalog, editor_client):
    response = editor_client.post("/staff/catalog/import/", {"confirm": "0" * 64})
    assert response.status_code == 400 and "expired" in response.content.decode()


def test_a_price_change_by_percent_is_previewed_then_applied(catalog, editor_client):
    preview = editor_client.post("/staff/catalog/prices/", {"brand": "10", "percent": "10"})
    assert preview.status_code == 200 and "0 new, 3 changed" in preview.content.decode()
    assert gateway.product_get(product_id="7").price == Decimal("29.90")
    applied = editor_client.post("/staff/catalog/prices/", {"confirm": token_in(preview)})
    assert "3 changed" in applied.content.decode()
    assert gateway.product_get(product_id="7").price == Decimal("32.89")
    assert gateway.product_get(product_id="6").price == Decimal("16500.00")
    assert editor_client.post("/staff/catalog/prices/", {"brand": "10", "category": "1",
                                                         "percent": "5"}).status_code == 400
    assert editor_client.post("/staff/catalog/prices/", {"brand": "10", "percent": "-100"}).status_code == 400


def test_brands_are_created_renamed_and_counted(catalog, editor_client):
    html = editor_client.get("/staff/catalog/brands/").content.decode()
    assert re.search(r"Acme</a></td>\s*<td[^>]*>10</td><td[^>]*>3</td>", html)
    with count_requests() as counter:
        response = editor_client.post("/staff/catalog/brands/", {"entity_id": "20", "name": "Rivian", "create": "on"})
    assert response.status_code == 302 and counter.operations == ["UpdateItem"]
    editor_client.post("/staff/catalog/brands/", {"entity_id": "10", "name": "Acme Corp", "create": ""})
    assert {b.brand_id: b.name for b in gateway.brands_all()} == {"1": "Microsoft", "2": "Google", "3": "Tesla",
                                                                 "10": "Acme Corp", "20": "Rivian"}
    again = editor_client.post("/staff/catalog/brands/", {"entity_id": "20", "name": "Again", "create": "on"})
    assert again.status_code == 400 and "exists already" in again.content.decode()
    assert editor_client.post("/staff/catalog/categories/", {"entity_id": "99", "name": "X"}).status_code == 400


def test_a_renamed_brand_shows_in_the_shop(catalog, editor_client, client):
    editor_client.post("/staff/catalog/brands/", {"entity_id": "10", "name": "Acme Corp", "create": ""})
    assert "Acme Corp" in client.get("/brands/10/").content.decode()


def test_the_same_file_uploaded_again_after_an_edit_is_applied_again(catalog, editor_client):
    rows = changes_file(0)
    first = token_in(upload(editor_client, rows))
    editor_client.post("/staff/catalog/import/", {"confirm": first})
    current = gateway.product_get(product_id="1")
    gateway.product_update(product_id="1", version=current.version, who="ann", changes={"name": "Model 3 III"})
    preview = upload(editor_client, rows)
    assert "0 new, 1 changed, 4 unchanged" in preview.content.decode()
    second = token_in(preview)
    assert second != first
    applied = editor_client.post("/staff/catalog/import/", {"confirm": second})
    assert "This change was applied already" not in applied.content.decode()
    assert gateway.product_get(product_id="1").name == "Model 3 II"


@pytest.mark.parametrize("cell, message", [({"published": ""}, "published: &#x27;&#x27; is not yes or no"),
                                           ({"stock_level": "²"}, "stock_level: &#x27;²&#x27; is not a whole number"),
                                           ({"stock_level": "٣"}, "stock_level: &#x27;٣&#x27; is not a whole number"),
                                           ({"price": "²"}, "line 2: price")])
def test_an_empty_published_cell_or_a_strange_digit_is_a_problem_of_its_line(catalog, editor_client, cell, message):
    row = {"product_id": "c1", "name": "Charger", "brand_id": "10", "category_id": "10", "price": "5.00",
           "published": "yes", "stock_level": "3"} | cell
    with count_requests() as counter:
        response = upload(editor_client, [row])
    assert response.status_code == 400 and message in response.content.decode() and counter.operations == []


def test_a_price_change_of_more_products_than_an_import_takes_is_refused(catalog, editor_client, monkeypatch):
    from staff.views import catalog_files

    monkeypatch.setattr(catalog_files, "MAX_LINES", 2)
    monkeypatch.setattr(bulk, "EXPORT_PAGE", 2)
    with count_requests() as counter:
        response = editor_client.post("/staff/catalog/prices/", {"brand": "10", "percent": "10"})
    assert response.status_code == 400 and "more than 2 products" in response.content.decode()
    assert counter.operations == ["Query", "Query"]  # two pages of the list, none of the products' items
    assert gateway.product_get(product_id="7").price == Decimal("29.90")


def test_an_oversized_upload_is_refused_before_it_is_read(catalog, editor_client):
    response = editor_client.post("/staff/catalog/import/", {"file": SimpleUploadedFile("c.csv", b"x")},
                                  CONTENT_LENGTH=str(25 * 1024 * 1024))
    assert response.status_code == 413 and "at most 20 MB" in response.content.decode()


def test_a_product_that_fails_is_listed_and_applied_by_confirming_again(catalog, editor_client, monkeypatch):
    from catalog.gateway.catalog import editor

    preview = upload(editor_client, changes_file(2))
    token, real = token_in(preview), editor.product_update

    def down_for_product_2(**kwargs):
        if kwargs["product_id"] == "2":
            raise gateway.CatalogUnavailable("DynamoDB cannot be reached")
        return real(**kwargs)

    monkeypatch.setattr(bulk, "product_update", down_for_product_2)
    first = editor_client.post("/staff/catalog/import/", {"confirm": token})
    html = first.content.decode()
    assert first.status_code == 200 and "2 new, 4 changed" in html and "Not written" in html
    assert gateway.product_get(product_id="2").name == "Model Y" and gateway.product_get(product_id="1").name == \
        "Model 3 II"
    monkeypatch.undo()
    # undo() took back _one_writer_at_a_time's patch too: moto puts a whole table back as it was when a
    # transaction is refused (c0's create: ProductExists), undoing another thread's write meanwhile.
    monkeypatch.setattr(bulk, "APPLY_WORKERS", 1)
    again = editor_client.post("/staff/catalog/import/", {"confirm": token_in(first)}).content.decode()
    assert "0 new, 1 changed, 6 already as planned" in again and "Not written" not in again
    assert gateway.product_get(product_id="2").name == "Model Y II"


def test_a_product_someone_else_created_since_the_preview_is_a_conflict(catalog, editor_client):
    preview = upload(editor_client, changes_file(1))
    gateway.product_create(product=gateway.Product(product_id="c0", name="Theirs", brand_id="10", category_id="10",
                                                   price=Decimal("9.00"), stock_level=0), who="ann")
    applied = editor_client.post("/staff/catalog/import/", {"confirm": token_in(preview)}).content.decode()
    assert "Changed by someone else since the preview, so left as they are: c0" in applied
    assert gateway.product_get(product_id="c0").name == "Theirs"
