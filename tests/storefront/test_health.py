"""Health checks for a load balancer: /healthz touches nothing; /readyz says whether DynamoDB and the
accounts database answer and the table's migrations are current, within the read budget, and turns
503 while DynamoDB Local is frozen (SIGSTOP) or stopped, then 200 again without a restart."""
import os
import signal
import time

import pytest
from django.test import Client, override_settings

from catalog.gateway import client as dynamo
from catalog.gateway import codec, keys
from catalog.gateway.dynamo.testing import count_requests
from catalog.gateway.table import table_ensure
from storefront import health
from tests.storefront.test_deploy import PRODUCTION, settings_under
from tools import dynamodb_local

pytestmark = pytest.mark.django_db


def test_healthz_answers_without_touching_dynamodb_or_the_database(ddb, django_assert_num_queries):
    with count_requests() as requests, django_assert_num_queries(0):
        response = Client().get("/healthz")
    assert response.status_code == 200 and response.json() == {"status": "ok"}
    assert requests.total == 0
    assert not response.cookies  # no session, no CSRF cookie
    assert "no-store" in response["Cache-Control"]


def test_readyz_is_200_when_dynamodb_the_database_and_the_migrations_are_fine(ddb):
    with count_requests() as requests:
        response = Client().get("/readyz")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "ready"
    assert {name: check["ok"] for name, check in body["checks"].items()} == {
        "dynamodb": True, "database": True, "migrations": True}
    assert body["checks"]["migrations"]["pending"] == []
    # one cheap read and the table's migration records (one Query); no Scan, no DescribeTable
    assert requests.operations == ["GetItem", "Query"]
    assert not response.cookies


def test_readyz_is_503_naming_the_steps_while_the_table_lacks_a_migration(ddb):
    record = codec.serialize(keys.migration_key("0075_baseline"))
    saved = dynamo.client().get_item(TableName=ddb, Key=record)["Item"]
    dynamo.client().delete_item(TableName=ddb, Key=record)  # a table not at the baseline
    response = Client().get("/readyz")
    assert response.status_code == 503
    migrations = response.json()["checks"]["migrations"]
    assert migrations == {"ok": False, "pending": ["0075_baseline"]}
    assert response.json()["checks"]["dynamodb"]["ok"] is True
    dynamo.client().put_item(TableName=ddb, Item=saved)
    health.forget()  # the kept table check's seconds are over
    assert Client().get("/readyz").status_code == 200


def test_readyz_is_503_with_the_reason_when_the_table_is_missing(ddb, settings):
    settings.DYNAMODB_TABLE = "no-such-table"
    response = Client().get("/readyz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    dynamodb = body["checks"]["dynamodb"]
    assert dynamodb["ok"] is False and "ResourceNotFoundException" in dynamodb["error"]
    assert body["checks"]["database"]["ok"] is True


# --- who is told what; what a flood costs --------------------------------------------------------

TOKEN = "a-long-random-scrape-token"


def test_readyz_tells_a_caller_outside_the_metrics_networks_only_ok(ddb, settings):
    settings.METRICS_TOKEN = TOKEN
    stranger = Client(REMOTE_ADDR="203.0.113.9")
    response = stranger.get("/readyz")
    assert response.status_code == 200 and response.json() == {"status": "ok"}
    proxied = Client(REMOTE_ADDR="127.0.0.1")  # through a proxy on the same host: the peer is loopback
    assert proxied.get("/readyz", headers={"X-Forwarded-For": "203.0.113.9"}).json() == {"status": "ok"}
    detailed = stranger.get("/readyz", headers={"Authorization": f"Bearer {TOKEN}"})
    assert detailed.json()["status"] == "ready" and detailed.json()["checks"]["dynamodb"]["ok"] is True


def test_readyz_tells_a_stranger_it_is_unavailable_without_the_reason(ddb, settings):
    settings.TRUSTED_PROXY_COUNT = 1
    stranger = Client(REMOTE_ADDR="203.0.113.9")
    forged = {"X-Forwarded-For": "127.0.0.1"}  # names loopback; the peer is a stranger
    dynamo.client().delete_item(TableName=ddb, Key=codec.serialize(keys.migration_key("0075_baseline")))
    response = stranger.get("/readyz", headers=forged)
    assert response.status_code == 503 and response.json() == {"status": "unavailable"}
    assert b"0075_baseline" not in response.content
    health.forget()
    settings.DYNAMODB_TABLE = "no-such-table"
    response = stranger.get("/readyz", headers=forged)
    assert response.status_code == 503 and response.json() == {"status": "unavailable"}
    assert b"no-such-table" not in response.content and b"ResourceNotFound" not in response.content
    inside = Client(REMOTE_ADDR="127.0.0.1").get("/readyz")  # the metrics networks: the reason
    assert inside.status_code == 503 and "ResourceNotFoundException" in inside.json()["checks"]["dynamodb"]["error"]


def test_a_flood_of_readyz_checks_the_table_once_every_few_seconds(ddb, monkeypatch):
    now = [1000.0]
    monkeypatch.setattr(health, "_clock", lambda: now[0])
    stranger = Client(REMOTE_ADDR="203.0.113.9")
    with count_requests() as requests:
        for _ in range(20):
            assert stranger.get("/readyz").status_code == 200
            now[0] += 0.1  # 20 checks in 2 seconds
    assert requests.operations == ["GetItem", "Query"]  # one table check
    now[0] += health.TABLE_CHECK_SECONDS
    with count_requests() as requests:
        assert stranger.get("/readyz").status_code == 200
        assert stranger.get("/readyz").status_code == 200
    assert requests.operations == ["GetItem", "Query"]  # its seconds over: checked again, once


def test_health_checks_need_no_csrf_token_and_answer_only_get_and_head(ddb):
    assert Client(enforce_csrf_checks=True).get("/readyz").status_code == 200
    client = Client()  # past the CSRF check, the view itself refuses a POST
    assert client.head("/healthz").status_code == 200
    assert client.post("/readyz").status_code == 405
    assert client.post("/healthz").status_code == 405


# --- a real DynamoDB that stalls and stops ----------------------------------------------------

READ_BUDGET = 1.0
SLACK = 1.5  # a correctness bound (not a speed figure): without budgets a stalled read took ~20 s


@pytest.fixture
def own_dynamodb(settings, tmp_path):
    """A DynamoDB Local of this test's own, its data on disk so that it survives a restart."""
    log = open(tmp_path / "dynamodb-local.log", "ab")
    port = dynamodb_local.free_port()
    data = tmp_path / "data"
    data.mkdir()
    try:
        process, url = dynamodb_local.start(port=port, db_path=str(data), log=log)
    except dynamodb_local.Missing as exc:
        pytest.fail(f"DynamoDB Local is needed for this test: {exc}")
    processes = [process]

    def restart():
        processes.append(dynamodb_local.start(port=port, db_path=str(data), log=log)[0])
        return processes[-1]

    settings.DYNAMODB_ENDPOINT_URL = url
    settings.DYNAMODB_TABLE = "ready"
    settings.DYNAMODB_READ_BUDGET = READ_BUDGET
    dynamo.reset_client()
    table_ensure(settings.DYNAMODB_TABLE)
    try:
        yield process, restart
    finally:
        for each in processes:
            if each.poll() is None:
                os.kill(each.pid, signal.SIGCONT)
            dynamodb_local.stop(each)
        dynamo.reset_client()
        log.close()


def ready_again(within=20.0):
    """/readyz asked every half second, as a load balancer would, until it says 200: True if it did."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        health.forget()  # each ask checks the table (not the few seconds' kept result)
        if Client().get("/readyz").status_code == 200:
            return True
        time.sleep(0.5)
    return False


def timed_readyz():
    health.forget()  # a check after the kept result's seconds
    start = time.monotonic()
    response = Client().get("/readyz")
    return response, time.monotonic() - start


@pytest.mark.dynamodb_local
@pytest.mark.django_db(transaction=True)
def test_readyz_turns_503_within_the_budget_while_dynamodb_is_frozen_or_stopped_and_200_after(own_dynamodb):
    process, restart = own_dynamodb
    assert timed_readyz()[0].status_code == 200

    os.kill(process.pid, signal.SIGSTOP)
    try:
        response, seconds = timed_readyz()
        assert response.status_code == 503
        assert seconds < READ_BUDGET + SLACK
        checks = response.json()["checks"]
        assert checks["dynamodb"]["ok"] is False and checks["database"]["ok"] is True
    finally:
        os.kill(process.pid, signal.SIGCONT)
    assert ready_again(within=10)  # thawed (its queued request may miss a budget): ready again, no restart

    dynamodb_local.stop(process)
    response, seconds = timed_readyz()
    assert response.status_code == 503 and seconds < READ_BUDGET + SLACK
    assert "cannot be reached" in response.json()["checks"]["dynamodb"]["error"]
    restart()  # a just-started DynamoDB Local may miss its first budget while it warms up
    assert ready_again()


@override_settings(SECURE_SSL_REDIRECT=True, SECURE_PROXY_SSL_HEADER=("HTTP_X_FORWARDED_PROTO", "https"),
                   SECURE_REDIRECT_EXEMPT=[r"^healthz$", r"^readyz$", r"^metrics$"])
def test_with_https_on_health_checks_and_metrics_are_answered_on_plain_http(ddb):
    client = Client()
    for url in ("/healthz", "/readyz", "/metrics"):
        assert client.get(url).status_code == 200, url
    assert client.get("/cart/").status_code == 301  # everything else still goes to HTTPS


def test_django_https_exempts_exactly_the_health_and_metrics_paths():
    exempt = settings_under(PRODUCTION, ["SECURE_REDIRECT_EXEMPT"])["SECURE_REDIRECT_EXEMPT"]
    assert exempt == ["^healthz$", "^readyz$", "^metrics$"]
