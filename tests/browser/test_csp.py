"""The Content-Security-Policy holds in a real browser: no page breaks it (Chromium reports every
refused script, style or image on the console) and HTMX still works under it."""
import pytest
from playwright.sync_api import expect

from tests.helpers import make_account, seed

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_pages_and_htmx_work_under_the_policy_with_nothing_refused(ddb, live_server, page, django_user_model):
    seed()
    make_account(django_user_model, "ann", "pw-ann-staff", is_staff=True)
    refused = []
    page.on("console", lambda message: refused.append(message.text) if "Content Security Policy" in message.text
            else None)
    page.goto(f"{live_server.url}/")
    page.goto(f"{live_server.url}/brands/3/")
    page.goto(f"{live_server.url}/products/1/")
    page.get_by_role("button", name="Add to cart").click()
    expect(page.locator("#cart-count")).to_have_text("1")  # HTMX swapped the badge in place
    page.goto(f"{live_server.url}/accounts/login/?next=/staff/products/4/stock/")
    page.get_by_label("Username").fill("ann")
    page.get_by_label("Password").fill("pw-ann-staff")
    page.get_by_role("button", name="Sign in").click()
    page.get_by_label("Quantity").fill("2")
    page.get_by_role("button", name="Save adjustment").click()
    expect(page.locator("#stock-level")).to_have_text("14")
    assert refused == []


# A 1 x 1 PNG, what the picture hosts answer (the browser's requests never leave it: page.route).
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360f8cfc0f01f0005000201f0d6a05a0000000049454e44ae426082"
)


def test_a_picture_from_a_product_image_host_loads_and_one_from_another_host_is_refused(ddb, live_server, page,
                                                                                         settings):
    from catalog.gateway import client as dynamo
    from catalog.gateway import codec, keys
    from tests.helpers import small_catalog

    settings.PRODUCT_IMAGE_HOSTS = ["pictures.example"]
    directives = settings.CONTENT_SECURITY_POLICY["DIRECTIVES"]
    settings.CONTENT_SECURITY_POLICY = {"DIRECTIVES": {**directives,
                                                       "img-src": [*directives["img-src"], "https://pictures.example"]}}
    data = small_catalog()
    data["products"][0]["image"] = "https://pictures.example/m3.png"  # product 1: the importer accepts it
    seed(data)
    # product 2 with a picture on another host, written past the importer (which refuses it)
    dynamo.client().update_item(
        TableName=dynamo.table_name(), Key=codec.serialize(keys.product_key("2")),
        UpdateExpression="SET image = :i", ExpressionAttributeValues=codec.serialize({":i": "https://other.example/y.png"}),
    )
    page.route("https://*.example/**", lambda route: route.fulfill(status=200, content_type="image/png", body=PNG))
    refused = []
    page.on("console", lambda message: refused.append(message.text) if "Content Security Policy" in message.text
            else None)
    loaded = "img => img.complete && img.naturalWidth > 0"
    page.goto(f"{live_server.url}/products/1/")
    expect(page.locator('img[src="https://pictures.example/m3.png"]')).to_have_count(1)
    page.wait_for_function(f"({loaded})(document.querySelector('img[src^=\"https://pictures.example\"]'))")
    assert refused == []
    csp_refusal = lambda message: "Content Security Policy" in message.text and "other.example" in message.text  # noqa: E731
    with page.expect_console_message(csp_refusal):
        page.goto(f"{live_server.url}/products/2/")
    assert not page.locator('img[src="https://other.example/y.png"]').evaluate(loaded)
