"""The staff stock page tells the truth when DynamoDB's answer is lost (the adjustment may have been
saved; the same form, with the same key, is safe to send again) and refuses a key reused for
another adjustment (409, naming the first)."""
import json
import re

import boto3
import pytest
from botocore.exceptions import ReadTimeoutError
from django.conf import settings

from catalog import gateway
from catalog.gateway import client as dynamo
from tests.helpers import history, level

pytestmark = pytest.mark.django_db
HX = {"HX-Request": "true"}
STOCK_URL = "/staff/products/{}/stock/"


def applied_then_lost(request, **kwargs):
    """DynamoDB applies the transaction; its answer never comes back."""
    if request.headers.get("X-Amz-Target", b"").decode().endswith("TransactWriteItems"):
        params = json.loads(request.body)
        params.pop("ClientRequestToken", None)
        boto3.client("dynamodb", region_name=settings.AWS_REGION).transact_write_items(**params)
        raise ReadTimeoutError(endpoint_url="http://dynamodb")


@pytest.mark.parametrize("headers", [{}, HX], ids=["plain", "htmx"])
def test_a_lost_answer_says_the_outcome_is_unknown_and_resubmitting_applies_once(catalog, staff_client, headers):
    form = {"action": "increase", "quantity": "5", "reason": "received", "reference": "Shipment 17",
            "token": gateway.new_token(), "seen_level": "12"}
    events = dynamo.client().meta.events
    events.register("before-send.dynamodb", applied_then_lost, unique_id="lost")
    try:
        response = staff_client.post(STOCK_URL.format("4"), form, headers=headers)
    finally:
        events.unregister("before-send.dynamodb", unique_id="lost")
    html = response.content.decode()
    assert response.status_code == 504 and response["Retry-After"]
    assert "We don’t know yet whether this adjustment was saved." in html
    assert "Nothing was changed" not in html and "nothing you did was lost" not in html
    assert f'name="token" value="{form["token"]}"' in html  # the same key: sending it again is safe
    assert 'href="/staff/products/4/stock/"' in html  # the product's history
    assert ("<html" in html) == (headers == {})
    assert level("4") == 17  # it was applied after all
    again = staff_client.post(STOCK_URL.format("4"), form, headers=HX)
    assert again.status_code == 200 and "Received 5: stock is now 17." in again.content.decode()
    assert level("4") == 17 and [h.reason for h in history("4")] == ["received", "opening"]


def test_a_key_reused_for_another_adjustment_is_a_409_naming_the_first(catalog, staff_client):
    token = gateway.new_token()
    first = {"action": "increase", "quantity": "1", "reason": "", "token": token}
    assert staff_client.post(STOCK_URL.format("4"), first, headers=HX).status_code == 200
    response = staff_client.post(STOCK_URL.format("4"), {**first, "quantity": "50"}, headers=HX)
    html = response.content.decode()
    assert response.status_code == 409
    assert "This form was already used for another change of product 4: +1 by ann" in html
    assert re.search(r'name="token" value="([^"]+)"', html).group(1) != token  # a new key for a new change
    assert level("4") == 13 and [h.reason for h in history("4")] == ["received", "opening"]
    replay = staff_client.post(STOCK_URL.format("4"), first, headers=HX)  # the identical form: as the first time
    assert replay.status_code == 200 and "Received 1: stock is now 13." in replay.content.decode()
