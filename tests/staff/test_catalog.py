"""The catalog editor's product pages with the Django test client: who may, the list (one Query a page), a
new product and an edit checked through the shopper's pages, two editors at once, bad input, hide and show
(lists, counts, search, product page, cart), and the requests each action costs."""
import re
from decimal import Decimal

import pytest
from django.test import Client

from catalog import gateway
from catalog.gateway.dynamo.testing import count_requests
from tests.helpers import CATALOG_EDITORS, WAREHOUSE, join, level, sign_in_staff, warehouse_staff

EDIT_URL = "/staff/catalog/products/{}/"


@pytest.fixture
def editor(django_user_model):
    return join(django_user_model.objects.create_user(username="eve", password="pw-eve", is_staff=True),
                CATALOG_EDITORS)


@pytest.fixture
def editor_client(client, editor):
    return sign_in_staff(client, editor)


def form_of(product, **changes):
    """The edit form's fields as the page shows them for `product`, with `changes`."""
    data = {"name": product.name, "brand_id": product.brand_id, "category_id": product.category_id,
            "price": f"{product.price:.2f}", "description": product.description, "version": product.version,
            "attributes-TOTAL_FORMS": "3", "attributes-INITIAL_FORMS": "0"}
    if product.published:
        data["published"] = "on"
    for n, (name, value) in enumerate(product.attributes.items()):
        data[f"attributes-{n}-name"], data[f"attributes-{n}-value"] = name, str(value).lower() \
            if isinstance(value, bool) else str(value)
    data["attributes-TOTAL_FORMS"] = str(max(3, len(product.attributes)))
    data.update(changes)
    return {k: v for k, v in data.items() if v is not None}


def save(client, product_id, **changes):
    product = gateway.product_get(product_id=product_id, consistent=True)
    return client.post(EDIT_URL.format(product_id), form_of(product, **changes))


# --- who may ---------------------------------------------------------------------------

@pytest.mark.parametrize("url", ["/staff/catalog/", "/staff/catalog/products/new/", EDIT_URL.format("1"),
                                 "/staff/catalog/brands/", "/staff/catalog/categories/", "/staff/catalog/export.csv",
                                 "/staff/catalog/import/", "/staff/catalog/prices/"])
def test_a_warehouse_only_staff_member_is_refused_the_editor(catalog, client, staff, url):
    sign_in_staff(client, staff)
    assert client.get(url).status_code == 403


def test_a_warehouse_only_post_changes_nothing(catalog, client, staff):
    sign_in_staff(client, staff)
    assert save(client, "1", name="Hacked").status_code == 403
    assert gateway.product_get(product_id="1").name == "Model 3"


def test_a_catalog_editor_is_refused_the_stock_pages_and_sent_to_the_catalog(catalog, editor_client):
    assert editor_client.get("/staff/stock/").status_code == 403
    assert editor_client.get("/staff/")["Location"] == "/staff/catalog/"


def test_a_superuser_has_both(catalog, client, django_user_model):
    boss = django_user_model.objects.create_superuser("boss", "boss@example.com", "pw-boss")
    sign_in_staff(client, boss)
    assert client.get("/staff/stock/").status_code == 200
    assert client.get("/staff/catalog/").status_code == 200


def test_staff_need_their_second_factor(catalog, client, editor):
    client.force_login(editor)
    assert client.get("/staff/catalog/")["Location"].startswith("/accounts/2fa/")


def test_the_groups_exist_with_their_permissions(db):
    from django.contrib.auth.models import Group

    assert {p.codename for p in Group.objects.get(name=WAREHOUSE).permissions.all()} == {"use_warehouse"}
    assert {p.codename for p in Group.objects.get(name=CATALOG_EDITORS).permissions.all()} == {"edit_catalog"}


# --- the list ---------------------------------------------------------------------------

@pytest.mark.parametrize("query, expected", [("?brand=10", ["Acme Car Charger", "Acme Jet Boat", "Acme Roadster"]),
                                             ("?category=3", ["Pixel 9", "Surface Duo"]),
                                             ("?q=mod", ["Model 3", "Model Y"])])
def test_the_list_is_one_query_a_page(catalog, editor_client, query, expected):
    editor_client.get("/staff/catalog/")  # the names cache warmed
    with count_requests() as counter:
        html = editor_client.get(f"/staff/catalog/{query}").content.decode()
    assert counter.operations == ["Query"]
    assert re.findall(r'href="/staff/catalog/products/(?!new/)[\w-]+/">([^<]+)</a>', html) == expected


def test_a_search_with_a_brand_is_refused(catalog, editor_client):
    assert editor_client.get("/staff/catalog/?q=mod&brand=3").status_code == 400


# --- create and edit ----------------------------------------------------------------------

NEW = {"product_id": "n1", "name": "Cybertruck Mini", "brand_id": "3", "category_id": "1", "price": "99.50",
       "stock_level": "7", "description": "Small.", "published": "on", "attributes-TOTAL_FORMS": "3",
       "attributes-INITIAL_FORMS": "0", "attributes-0-name": "doors", "attributes-0-value": "2",
       "attributes-1-name": "colour", "attributes-1-value": "steel"}


def test_a_new_product_is_in_the_shop(catalog, editor_client, client):
    shop = Client()  # a shopper's browser beside the editor's
    editor_client.get("/staff/catalog/products/new/")
    with count_requests() as counter:
        response = editor_client.post("/staff/catalog/products/new/", NEW)
    assert response.status_code == 302 and response["Location"] == EDIT_URL.format("n1")
    assert counter.operations == ["TransactWriteItems"]
    product = gateway.product_get(product_id="n1")
    assert product.attributes == {"doors": 2, "colour": "steel"} and level("n1") == 7
    assert "Cybertruck Mini" in shop.get("/brands/3/").content.decode()
    assert "Cybertruck Mini" in shop.get("/search/?q=cyber").content.decode()
    assert "Cybertruck Mini" in shop.get("/products/n1/").content.decode()


@pytest.mark.parametrize("field, value, message", [
    ("price", "12,345", "is not a price"), ("name", "", "This field is required"),
    ("brand_id", "99", "Select a valid choice"), ("product_id", "a b", ""),
])
def test_bad_input_is_a_400_and_nothing_is_written(catalog, editor_client, field, value, message):
    response = editor_client.post("/staff/catalog/products/new/", {**NEW, field: value})
    assert response.status_code == 400 and message in response.content.decode()
    with pytest.raises(gateway.NotFound):
        gateway.product_get(product_id="n1")


def test_an_existing_id_is_refused(catalog, editor_client):
    response = editor_client.post("/staff/catalog/products/new/", {**NEW, "product_id": "1"})
    assert response.status_code == 400 and "exists already" in response.content.decode()
    assert gateway.product_get(product_id="1").name == "Model 3"


def test_an_edit_moves_renames_and_reprices_in_the_shop(catalog, editor_client, client):
    shop = Client()  # a shopper's browser beside the editor's
    editor_client.get(EDIT_URL.format("8"))  # the names cache warmed
    shown = gateway.product_get(product_id="8")
    with count_requests() as counter:
        response = editor_client.post(EDIT_URL.format("8"), form_of(
            shown, name="Acme Speedster", brand_id="3", category_id="10", price="10.00"))
    assert response.status_code == 302
    assert counter.operations == ["GetItem", "TransactWriteItems"]
    html = shop.get("/brands/3/").content.decode()
    assert "Acme Speedster" in html and "Acme Speedster" not in shop.get("/brands/10/").content.decode()
    assert "Acme Speedster" in shop.get("/search/?q=speedster").content.decode()
    assert "Acme Roadster" not in shop.get("/search/?q=roadster").content.decode()
    assert "€10.00" in shop.get("/products/8/").content.decode()
    history = editor_client.get(EDIT_URL.format("8")).content.decode()
    assert "eve" in history and "Acme Roadster" in history and "Acme Speedster" in history


def test_attributes_rows_are_kept_changed_and_removed(catalog, editor_client):
    response = save(editor_client, "1", **{"attributes-0-name": "range_km", "attributes-0-value": "600",
                                           "attributes-1-name": "", "attributes-1-value": "",
                                           "attributes-2-name": "colour", "attributes-2-value": "red"})
    assert response.status_code == 302
    assert gateway.product_get(product_id="1").attributes == {"range_km": 600, "colour": "red"}


def test_the_second_of_two_editors_is_told_and_shown_the_new_values(catalog, editor_client):
    shown = gateway.product_get(product_id="5")
    assert editor_client.post(EDIT_URL.format("5"), form_of(shown, price="1000.00")).status_code == 302
    response = editor_client.post(EDIT_URL.format("5"), form_of(shown, price="2000.00"))
    assert response.status_code == 409
    html = response.content.decode()
    assert "Someone else saved this product" in html and 'value="1000.00"' in html
    assert gateway.product_get(product_id="5").price == Decimal("1000.00")


def test_a_picture_that_is_not_an_image_is_refused(catalog, editor_client):
    from django.core.files.uploadedfile import SimpleUploadedFile

    product = gateway.product_get(product_id="1")
    fake = SimpleUploadedFile("car.jpg", b"GIF89a not really", content_type="image/jpeg")
    response = editor_client.post(EDIT_URL.format("1"), {**form_of(product, name="New"), "image": fake})
    assert response.status_code == 400 and "not a JPEG, PNG or WebP" in response.content.decode()
    assert gateway.product_get(product_id="1").name == "Model 3"


def test_a_picture_is_stored_and_shown(catalog, editor_client, settings, tmp_path):
    shop = Client()  # a shopper's browser beside the editor's
    from django.core.files.uploadedfile import SimpleUploadedFile

    from tests.helpers import picture_bytes

    settings.MEDIA_ROOT = str(tmp_path)
    product = gateway.product_get(product_id="1")
    upload = SimpleUploadedFile("car.jpg", picture_bytes(), content_type="image/jpeg")
    assert editor_client.post(EDIT_URL.format("1"), {**form_of(product), "image": upload}).status_code == 302
    image = gateway.product_get(product_id="1").image
    assert image.startswith("media:pictures/1/")
    assert ".webp" in shop.get("/products/1/").content.decode()


@pytest.mark.parametrize("product_id, status", [("1", 409), ("nope", 404)])
def test_a_picture_is_not_stored_when_the_product_is_not_saved(catalog, editor_client, settings, tmp_path,
                                                               product_id, status):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from tests.helpers import picture_bytes

    settings.STORAGES = {**settings.STORAGES, "media": {"BACKEND": "django.core.files.storage.FileSystemStorage",
                                                       "OPTIONS": {"location": str(tmp_path)}}}
    product = gateway.product_get(product_id="1")
    gateway.product_update(product_id="1", version=product.version, who="ann", changes={"name": "Model 3 II"})
    upload = SimpleUploadedFile("car.jpg", picture_bytes(), content_type="image/jpeg")
    response = editor_client.post(EDIT_URL.format(product_id), {**form_of(product), "image": upload})
    assert response.status_code == status
    assert list(tmp_path.rglob("*.webp")) == []
    assert gateway.product_get(product_id="1").image == product.image


# --- hide and show --------------------------------------------------------------------------

def test_a_hidden_product_is_gone_for_shoppers_and_back_when_shown(catalog, editor_client, shopper):
    shop = Client()  # a shopper's browser beside the editor's
    assert save(editor_client, "8", published=None).status_code == 302
    shop.force_login(shopper)
    shop.post("/cart/add/", {"product_id": "7", "quantity": "1"})
    assert shop.get("/products/8/").status_code == 404
    assert "Acme Roadster" not in shop.get("/brands/10/").content.decode()
    assert "Acme Roadster" not in shop.get("/categories/1/").content.decode()
    assert "Acme Roadster" not in shop.get("/search/?q=roadster").content.decode()
    staff_page = editor_client.get("/products/8/")
    assert staff_page.status_code == 200 and "Hidden: shoppers do not see this product" in staff_page.content.decode()
    assert "Acme Roadster" in editor_client.get("/staff/catalog/?hidden=on").content.decode()
    assert save(editor_client, "8", published="on").status_code == 302
    assert shop.get("/products/8/").status_code == 200
    assert "Acme Roadster" in shop.get("/brands/10/").content.decode()
    assert "Acme Roadster" in shop.get("/search/?q=roadster").content.decode()


def test_a_cart_says_a_hidden_product_is_no_longer_available(catalog, editor_client, shopper):
    shop = Client()  # a shopper's browser beside the editor's
    shop.force_login(shopper)
    shop.post("/cart/add/", {"product_id": "8", "quantity": "1"})
    assert "Acme Roadster" in shop.get("/cart/").content.decode()
    save(editor_client, "8", published=None)
    assert "Acme Roadster <strong>is no longer available</strong>" in shop.get("/cart/").content.decode()


def test_a_hidden_product_cannot_be_added_to_a_cart(catalog, editor_client, shopper):
    shop = Client()  # a shopper's browser beside the editor's
    shop.force_login(shopper)
    save(editor_client, "8", published=None)
    response = shop.post("/cart/add/", {"product_id": "8", "quantity": "1"}, headers={"HX-Request": "true"})
    assert response.status_code == 409 and "Acme Roadster is no longer available." in response.content.decode()
    response = shop.post("/cart/add/", {"product_id": "8", "quantity": "1"})
    assert response.status_code == 302 and response["Location"] == "/cart/"
    page = shop.get("/cart/").content.decode()
    assert "Acme Roadster is no longer available." in page and "Acme Roadster <strong>" not in page


def test_a_warehouse_member_still_sees_a_hidden_products_stock(catalog, editor_client, client, django_user_model):
    save(editor_client, "8", published=None)
    sign_in_staff(client, warehouse_staff(django_user_model.objects.create_user("wes", is_staff=True)))
    assert client.get("/staff/products/8/stock/").status_code == 200


@pytest.mark.dynamodb_local
def test_on_dynamodb_local_edit_hide_and_show_through_the_shops_pages(local_catalog, editor_client, shopper):
    shop = Client()
    shop.force_login(shopper)
    shop.post("/cart/add/", {"product_id": "8", "quantity": "1"})
    assert save(editor_client, "8", name="Acme Speedster", category_id="10").status_code == 302
    assert "Acme Speedster" in shop.get("/categories/10/?sort=name").content.decode()
    assert "Acme Speedster" not in shop.get("/categories/1/").content.decode()
    assert "Acme Speedster" in shop.get("/search/?q=speed").content.decode()
    assert "Acme Speedster" not in shop.get("/search/?q=roadster").content.decode()
    assert save(editor_client, "8", published=None).status_code == 302
    assert shop.get("/products/8/").status_code == 404
    assert "Acme Speedster" not in shop.get("/brands/10/").content.decode()
    assert "Acme Speedster" not in shop.get("/search/?q=speed").content.decode()
    assert "Acme Speedster <strong>is no longer available</strong>" in shop.get("/cart/").content.decode()
    assert save(editor_client, "8", published="on").status_code == 302
    assert "Acme Speedster" in shop.get("/brands/10/?sort=price").content.decode()
    assert "Acme Speedster" in shop.get("/search/?q=speed").content.decode()
    assert shop.get("/products/8/").status_code == 200


def test_the_hidden_list_honours_the_brand_and_category_chosen(catalog, editor_client):
    save(editor_client, "8", published=None)  # Acme Roadster: Acme, cars
    save(editor_client, "7", published=None)  # Acme's charger
    both = editor_client.get("/staff/catalog/?hidden=on&brand=10").content.decode()
    assert "Acme Roadster" in both and gateway.product_get(product_id="7").name in both
    with count_requests() as counter:
        cars = editor_client.get("/staff/catalog/?hidden=on&brand=10&category=1").content.decode()
    assert "Acme Roadster" in cars and gateway.product_get(product_id="7").name not in cars
    assert counter.operations.count("Query") == 1
