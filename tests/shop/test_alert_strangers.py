"""What a stranger can do with someone else's address on the back-in-stock box: nothing they can time
(the same DynamoDB requests whether or not it asked before), no more mail to one inbox with `+tags`,
and no way to fill the address's alerts so its owner cannot have theirs."""
import pytest
from django.core import mail
from django.core.management import call_command
from django.test import Client

from catalog.gateway import keys
from catalog.gateway.alerts import asking
from catalog.gateway.dynamo.testing import count_requests
from shop.stock_alerts import link_token
from tests.helpers import seed, small_catalog

pytestmark = pytest.mark.django_db
HX = {"HX-Request": "true"}
SOLD_OUT = "3"  # small catalog: Wall Connector, stock 0
ASKED = "Almost done: we are sending a link to"


def ask(email, product_id=SOLD_OUT, ip="10.0.0.1"):
    return Client().post(f"/products/{product_id}/notify/", {"email": email}, REMOTE_ADDR=ip, headers=HX)


def alert_of(email, product_id=SOLD_OUT):
    owner = keys.alert_owner_email(email)
    return next((a for a in asking.alerts_of_owner(owner=owner) if a.product_id == product_id), None)


def test_a_guest_ask_makes_the_same_dynamodb_requests_whether_or_not_the_address_asked(catalog):
    kinds = {}
    for i, case in enumerate(("new", "pending", "confirmation sent", "confirmed")):
        if case == "confirmation sent":
            call_command("run_stock_jobs")
        if case == "confirmed":
            alert = alert_of("bob@example.com")
            Client().post(f"/alerts/confirm/{link_token(alert)}/")
            assert alert_of("bob@example.com").status == "waiting"
        with count_requests() as counter:
            response = ask("bob@example.com", ip=f"10.0.0.{i}")
        assert response.status_code == 200 and ASKED in response.content.decode()
        kinds[case] = counter.operations
    assert kinds["new"] == ["GetItem", "Query", "TransactWriteItems"]
    assert kinds["pending"] == kinds["confirmation sent"] == kinds["confirmed"] == kinds["new"]
    assert [m.to for m in mail.outbox] == [["bob@example.com"]]  # one confirmation, however often asked


def test_tagged_addresses_share_their_inbox_s_hourly_limit(two_sold_out):
    for i in range(5):  # the limit (STOCK_ALERT_ASKS_PER_EMAIL), spent on tags, in capitals too
        email = f"Victim+{i}@Example.com" if i % 2 else f"victim+{i}@example.com"
        assert ASKED in ask(email, ip=f"10.0.1.{i}").content.decode()
        assert alert_of(email) is not None
    response = ask("victim@example.com", product_id="8", ip="10.0.1.9")
    assert response.status_code == 200 and ASKED in response.content.decode()  # answered as usual...
    assert alert_of("victim@example.com", product_id="8") is None  # ...and nothing saved or sent
    call_command("run_stock_jobs")
    assert len([m for m in mail.outbox if m.to[0].lower().startswith("victim")]) == 5
    assert alert_of("vic.tim@example.com") is None
    assert ASKED in ask("vic.tim@example.com", ip="10.0.1.8").content.decode()
    assert alert_of("vic.tim@example.com") is not None  # dots make another inbox: its own limit


@pytest.fixture
def two_sold_out(catalog):
    from catalog import gateway

    gateway.stock_decrease(product_id="8", quantity=1, token=gateway.new_token(), reason="damaged")  # Roadster


@pytest.fixture
def many_sold_out(ddb):
    data = small_catalog()
    data["products"] += [
        {"productId": f"s{i}", "name": f"Sold-out thing {i}", "brandId": "10", "categoryId": "10",
         "price": "1.00", "stockLevel": 0}
        for i in range(asking.MAX_ALERTS_PER_OWNER + 1)
    ]
    seed(data)
    return [f"s{i}" for i in range(asking.MAX_ALERTS_PER_OWNER + 1)]


def test_strangers_asks_in_an_address_s_name_never_stop_its_owner(many_sold_out):
    for product_id in many_sold_out[:-1]:  # 50 asks for victim@ by strangers, over many hours and connections
        asking.alert_ask(product_id=product_id, email="victim@example.com")
    response = ask("victim@example.com", product_id=many_sold_out[-1])  # the victim's own
    assert response.status_code == 200 and ASKED in response.content.decode()
    alert = alert_of("victim@example.com", product_id=many_sold_out[-1])
    response = Client().post(f"/alerts/confirm/{link_token(alert)}/")
    assert response.status_code == 200
    assert alert_of("victim@example.com", product_id=many_sold_out[-1]).status == "waiting"
    owner = keys.alert_owner_email("victim@example.com")
    pending = [a for a in asking.alerts_of_owner(owner=owner) if a.status == "pending"]
    # Each ask over the bound took the oldest pending one's place; the victim's own is confirmed now.
    assert len(pending) == asking.MAX_PENDING_PER_OWNER - 1


def test_a_strangers_ask_whose_confirmation_was_given_up_does_not_count_toward_the_cap(
        two_sold_out, settings, monkeypatch):
    monkeypatch.setattr(asking, "MAX_ALERTS_PER_OWNER", 1)
    settings.STOCK_ALERT_MAIL_ATTEMPTS = 1
    asking.alert_ask(product_id=SOLD_OUT, email="victim@example.com")  # a stranger's, in the victim's name
    settings.EMAIL_BACKEND = "tests.shop.test_stock_alerts.RefusingBackend"  # the mail server is down
    call_command("run_stock_jobs")
    assert alert_of("victim@example.com").status == "failed"
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    assert ask("victim@example.com", product_id="8").status_code == 200  # the victim's own, for the Roadster
    response = Client().post(f"/alerts/confirm/{link_token(alert_of('victim@example.com', product_id='8'))}/")
    assert response.status_code == 200 and alert_of("victim@example.com", product_id="8").status == "waiting"


def test_an_ask_whose_pending_neighbour_went_meanwhile_is_still_taken(two_sold_out, monkeypatch):
    """At the bound of pending asks an ask replaces the oldest; when that one went between the read and
    the write (confirmed, expired, cancelled), the ask is read again and taken, never dropped."""
    monkeypatch.setattr(asking, "MAX_PENDING_PER_OWNER", 1)
    asking.alert_ask(product_id=SOLD_OUT, email="victim@example.com")
    read = asking._owner_alerts
    reads = []

    def read_then_the_oldest_goes(owner):
        found = read(owner)
        if not reads:
            asking.alert_cancel(owner=owner, product_id=SOLD_OUT)
        reads.append(owner)
        return found

    monkeypatch.setattr(asking, "_owner_alerts", read_then_the_oldest_goes)
    asking.alert_ask(product_id="8", email="victim@example.com")
    assert len(reads) == 2 and alert_of("victim@example.com", product_id="8").status == "pending"
