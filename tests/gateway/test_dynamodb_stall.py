"""A stalled DynamoDB (DynamoDB Local of this test's own, frozen with SIGSTOP): pages that need it
answer 503 with Retry-After within the request's time budget, pages and static files that do not
need it are served meanwhile, a write whose answer never came says its outcome is unknown, and after
SIGCONT everything works again without a restart (and sending the same write again applies it once)."""
import os
import re
import signal
import threading
import time

import pytest
from django.test import Client

from catalog import gateway
from catalog.gateway import client as dynamo
from catalog.gateway.table import table_ensure
from tests.helpers import seed, warehouse_staff
from tools import dynamodb_local

pytestmark = [pytest.mark.dynamodb_local, pytest.mark.django_db(transaction=True)]

READ_BUDGET = 2.0  # time for the pages served meanwhile on a busy machine
WRITE_BUDGET = 3.0
# A correctness bound, not a speed figure: without budgets a stalled request took ~20 s.
SLACK = 2.5


@pytest.fixture
def own_dynamodb(settings, tmp_path):
    """A DynamoDB Local for this test alone (freezing it stalls nothing else), with the small catalog."""
    with open(tmp_path / "dynamodb-local.log", "wb") as log:
        try:
            process, url = dynamodb_local.start(log=log)
        except dynamodb_local.Missing as exc:
            pytest.fail(f"DynamoDB Local is needed for this test: {exc}")
        try:
            settings.DYNAMODB_ENDPOINT_URL = url
            settings.DYNAMODB_TABLE = "stall"
            settings.DYNAMODB_READ_BUDGET = READ_BUDGET
            settings.DYNAMODB_WRITE_BUDGET = WRITE_BUDGET
            dynamo.reset_client()
            table_ensure(settings.DYNAMODB_TABLE)
            seed()
            yield process
        finally:
            if process.poll() is None:
                os.kill(process.pid, signal.SIGCONT)
            dynamodb_local.stop(process)
            dynamo.reset_client()


def timed(call):
    start = time.monotonic()
    result = call()
    return result, time.monotonic() - start


def test_a_frozen_dynamodb_fails_fast_spares_other_pages_and_recovers(own_dynamodb, django_user_model, settings):
    settings.STAFF_MFA_REQUIRED = False  # staff signed in with force_login (tests/staff/test_second_factor.py)
    shopper, staff = Client(), Client()
    staff_user = warehouse_staff(django_user_model.objects.create_user(username="ann", password="pw", is_staff=True))
    staff.force_login(staff_user)
    assert shopper.get("/").status_code == 200  # the brand and category names are cached now
    page = staff.get("/staff/products/4/stock/").content.decode()
    token = re.search(r'name="token" value="([^"]+)"', page).group(1)
    adjustment = {"action": "increase", "quantity": "5", "reason": "received", "reference": "Shipment 17",
                  "token": token, "seen_level": "12"}

    os.kill(own_dynamodb.pid, signal.SIGSTOP)
    try:
        stalled = {}
        started = threading.Event()

        def browse():
            started.set()
            stalled["response"], stalled["seconds"] = timed(lambda: Client().get("/brands/3/"))

        thread = threading.Thread(target=browse)
        thread.start()
        started.wait()
        time.sleep(0.1)  # the brand page's Query is on its way to the frozen DynamoDB
        # Meanwhile: pages and files that need no DynamoDB.
        for url in ("/", "/cart/", "/static/css/site.css", "/static/js/site.js"):
            response = shopper.get(url)
            assert response.status_code == 200, url
        assert thread.is_alive(), "the other pages were served while the brand page was still waiting"
        thread.join(timeout=READ_BUDGET + SLACK + 5)
        response, seconds = stalled["response"], stalled["seconds"]
        assert response.status_code == 503 and response["Retry-After"] == "5"
        assert "taking a short break" in response.content.decode()
        assert seconds <= READ_BUDGET + SLACK

        # A write whose answer never comes: its outcome is unknown, and the page says so.
        response, seconds = timed(lambda: staff.post("/staff/products/4/stock/", adjustment))
        assert response.status_code == 504 and seconds <= READ_BUDGET + SLACK
        html = response.content.decode()
        assert "We don’t know yet whether this adjustment was saved." in html
        assert f'name="token" value="{token}"' in html
    finally:
        os.kill(own_dynamodb.pid, signal.SIGCONT)

    # Recovered without a restart: the same client, the same process.
    deadline = time.monotonic() + 10
    while (response := shopper.get("/brands/3/")).status_code != 200 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert response.status_code == 200 and "Model 3" in response.content.decode()
    # The frozen DynamoDB had the transaction queued; sending the same form again applies it once.
    again = staff.post("/staff/products/4/stock/", adjustment, headers={"HX-Request": "true"})
    assert again.status_code == 200 and "Received 5: stock is now 17." in again.content.decode()
    assert gateway.product_get(product_id="4", consistent=True).stock_level == 17
    assert [h.reason for h in gateway.stock_history(product_id="4", consistent=True).items] == ["received", "opening"]
