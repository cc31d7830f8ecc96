"""The lean client of the hot reads (catalog/gateway/lean.py) keeps boto3's guarantees: the same
answers from moto's server and DynamoDB Local, botocore's signature, refreshed role credentials,
retries with backoff, timeouts within the page's budget, and the same errors."""
import json
import threading
import time
import zlib
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials, RefreshableCredentials
from botocore.exceptions import ClientError, EndpointConnectionError, ReadTimeoutError
from moto.server import ThreadedMotoServer

from catalog.gateway import budget, keys, products
from catalog.gateway import client as dynamo
from catalog.gateway.errors import CatalogUnavailable
from catalog.gateway.lean import LeanClient, Signer
from catalog.gateway.schema import table_ensure

from ..helpers import seed

# --- a scripted DynamoDB: each request gets the next answer of the script -----------------

class Scripted:
    """An HTTP server answering each POST with the next (status, body, headers, delay) of `script`
    (the last one repeats); `requests` keeps each request's headers and body."""

    def __init__(self, script):
        self.script, self.requests = list(script), []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                owner.requests.append((dict(self.headers), body))
                status, answer, headers, delay = owner.script[min(len(owner.requests), len(owner.script)) - 1]
                time.sleep(delay)
                data = json.dumps(answer).encode()
                try:
                    self.send_response(status)
                    headers = {"Content-Type": "application/x-amz-json-1.0", "x-amz-crc32": str(zlib.crc32(data)),
                               **headers}
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # a stalled answer the client has given up on (what the stall test wants)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


OK = (200, {"Items": [{"PK": {"S": "P#1"}}], "Count": 1, "ScannedCount": 1}, {}, 0)
THROTTLED = (400, {"__type": "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException",
                   "message": "Rate exceeded"}, {}, 0)
BROKEN = (500, {"__type": "com.amazonaws.dynamodb.v20120810#InternalServerError", "message": "oops"}, {}, 0)
INVALID = (400, {"__type": "com.amazon.coral.validate#ValidationException", "message": "bad expression"}, {}, 0)
QUERY = {"TableName": "t", "KeyConditionExpression": "PK = :pk", "ExpressionAttributeValues": {":pk": {"S": "P#1"}}}


@pytest.fixture
def scripted():
    servers = []

    def make(*script):
        servers.append(Scripted(script))
        return servers[-1]

    yield make
    for server in servers:
        server.close()


def lean_client(url, *, credentials=None, read_timeout=5.0, pauses=None):
    return LeanClient(
        endpoint_url=url, region="eu-central-1", credentials=credentials or Credentials("AKIDTEST", "secret"),
        connect_timeout=1.0, read_timeout=read_timeout, max_attempts=3, max_pool_connections=4,
        sleep=pauses.append if pauses is not None else time.sleep,
    )


# --- signing and credentials ------------------------------------------------------------------

@pytest.mark.parametrize("token", [None, "session-token"])
def test_the_signature_is_botocores(monkeypatch, token):
    now = datetime(2026, 11, 23, 12, 34, 56, tzinfo=UTC)
    credentials = Credentials("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", token)
    body = json.dumps(QUERY).encode()
    ours = Signer("eu-central-1").sign(host="dynamodb.eu-central-1.amazonaws.com", target="DynamoDB_20120810.Query",
                                       body=body, credentials=credentials.get_frozen_credentials(), now=now)

    monkeypatch.setattr("botocore.auth.get_current_datetime", lambda: now.replace(tzinfo=None))
    request = AWSRequest(method="POST", url="https://dynamodb.eu-central-1.amazonaws.com/", data=body, headers={
        "Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "DynamoDB_20120810.Query"})
    SigV4Auth(credentials, "dynamodb", "eu-central-1").add_auth(request)
    assert ours["authorization"] == request.headers["Authorization"]
    assert ours.get("x-amz-security-token") == request.headers.get("X-Amz-Security-Token")


def test_role_credentials_about_to_expire_are_refreshed_before_the_request(scripted):
    server = scripted(OK)
    soon = (datetime.now(UTC) + timedelta(minutes=2)).isoformat()
    later = (datetime.now(UTC) + timedelta(hours=1)).isoformat()
    credentials = RefreshableCredentials.create_from_metadata(
        {"access_key": "AKIDOLD", "secret_key": "old", "token": "old-token", "expiry_time": soon},
        refresh_using=lambda: {"access_key": "AKIDNEW", "secret_key": "new", "token": "new-token",
                               "expiry_time": later},
        method="test-role",
    )
    lean_client(server.url, credentials=credentials).call("Query", QUERY)
    headers = {k.lower(): v for k, v in server.requests[0][0].items()}
    assert "Credential=AKIDNEW/" in headers["authorization"]
    assert headers["x-amz-security-token"] == "new-token"


# --- the same answers as boto3, from moto's server and from DynamoDB Local --------------------

@pytest.fixture(scope="module")
def moto_server_url():
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


@pytest.fixture(params=["moto_server", "dynamodb_local"])
def served_catalog(request, settings):
    """The small catalog behind a real HTTP endpoint: moto's server or DynamoDB Local."""
    if request.param == "moto_server":
        settings.DYNAMODB_ENDPOINT_URL = request.getfixturevalue("moto_server_url")
        settings.DYNAMODB_TABLE = f"lean-{time.monotonic_ns()}"
        dynamo.reset_client()
        table_ensure(settings.DYNAMODB_TABLE)
    else:
        request.getfixturevalue("local_ddb")
    settings.DYNAMODB_LEAN_READS = True
    dynamo.reset_client()
    seed()
    yield request.param
    dynamo.reset_client()


def _without_metadata(answer):
    return {k: v for k, v in answer.items() if k != "ResponseMetadata"}


def test_lean_answers_are_boto3s(served_catalog):
    lean, boto = dynamo.lean_client(), dynamo.client()
    table = dynamo.table_name()
    gets = [{"TableName": table, "Key": {"PK": {"S": f"P#{pid}"}, "SK": {"S": "METADATA"}}} for pid in ("1", "404")]
    queries = [
        {"TableName": table, "IndexName": keys.list_index(keys.GSI1), "KeyConditionExpression": "GSI1PK = :pk",
         "ExpressionAttributeValues": {":pk": {"S": "B#10"}}, "Limit": 1},
        {"TableName": table, "KeyConditionExpression": "PK = :pk",
         "ExpressionAttributeValues": {":pk": {"S": "BRANDS"}}, "ScanIndexForward": False},
    ]
    for params in gets:
        assert _without_metadata(lean.call("GetItem", params)) == _without_metadata(boto.get_item(**params))
    for params in queries:
        first = lean.call("Query", params)
        assert _without_metadata(first) == _without_metadata(boto.query(**params))
    # the next page, from where the first stopped
    params = {**queries[0], "ExclusiveStartKey": lean.call("Query", queries[0])["LastEvaluatedKey"]}
    assert _without_metadata(lean.call("Query", params)) == _without_metadata(boto.query(**params))
    assert lean.call("Query", params)["Items"][0]["PK"] != lean.call("Query", queries[0])["Items"][0]["PK"]


def test_browsing_through_the_lean_client_shows_the_same_products_in_one_request(served_catalog, settings):
    def browse():
        with dynamo.count_requests() as counter:
            page = products.products_by_brand(brand_id="10", limit=1)
            following = products.products_by_brand(brand_id="10", limit=1, after=page.next_cursor)
            product = products.product_get(product_id="6")
        return [p.name for p in page.items + following.items], product.name, counter.operations

    lean_names, lean_product, lean_requests = browse()
    settings.DYNAMODB_LEAN_READS = False
    assert browse() == (lean_names, lean_product, lean_requests)
    assert lean_requests == ["Query", "Query", "GetItem"]
    assert lean_product == "Acme Jet Boat" and len(set(lean_names)) == 2


def test_a_missing_table_is_an_unavailable_catalog(served_catalog, settings):
    settings.DYNAMODB_TABLE = "no-such-table"
    with pytest.raises(CatalogUnavailable) as raised:
        products.product_get(product_id="1")
    assert dynamo.error_code(raised.value.__cause__) == "ResourceNotFoundException"


# --- failures: retries, timeouts and errors, as botocore's standard mode ----------------------

def test_throttling_is_retried_after_a_pause_and_the_answer_returned(scripted):
    server, pauses = scripted(THROTTLED, OK), []
    answer = lean_client(server.url, pauses=pauses).call("Query", QUERY)
    assert answer["Items"] == [{"PK": {"S": "P#1"}}]
    assert len(server.requests) == 2
    assert len(pauses) == 1 and 0 <= pauses[0] < 1.0


def test_a_server_error_is_tried_three_times_then_the_catalog_is_unavailable(scripted):
    server, pauses = scripted(BROKEN), []
    with pytest.raises(CatalogUnavailable), dynamo.translate_errors():
        lean_client(server.url, pauses=pauses).call("Query", QUERY)
    assert len(server.requests) == 3
    assert len(pauses) == 2 and all(0 <= p < 0.1 for p in pauses)  # 25 ms scale, doubling


def test_a_bad_request_is_not_retried_and_keeps_its_error_code(scripted):
    server = scripted(INVALID)
    with pytest.raises(ClientError) as raised:
        lean_client(server.url).call("Query", QUERY)
    assert raised.value.response["Error"] == {"Code": "ValidationException", "Message": "bad expression"}
    assert raised.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert len(server.requests) == 1


def test_an_answer_damaged_on_the_way_is_asked_again(scripted):
    server = scripted((200, {"Items": []}, {"x-amz-crc32": "12345"}, 0), OK)
    assert lean_client(server.url, pauses=[]).call("Query", QUERY)["Count"] == 1
    assert len(server.requests) == 2


def test_a_stalled_dynamodb_is_given_up_within_the_pages_budget(scripted, settings):
    server = scripted((*OK[:3], 3.0))
    settings.DYNAMODB_READ_BUDGET = 0.3
    started = time.monotonic()
    with budget.request_budget("GET"), pytest.raises(ReadTimeoutError):
        lean_client(server.url).call("Query", QUERY)
    assert time.monotonic() - started < 1.5
    assert len(server.requests) == 1  # a timed-out attempt is not sent again within a page


def test_no_request_goes_out_once_the_budget_is_spent(scripted, settings):
    server = scripted(OK)
    with budget.request_budget("GET", seconds=0.01):
        time.sleep(0.02)
        with pytest.raises(budget.BudgetExceeded):
            lean_client(server.url).call("Query", QUERY)
    assert server.requests == []


def test_nothing_listening_is_an_unreachable_catalog():
    pauses = []
    with pytest.raises(EndpointConnectionError):
        lean_client("http://127.0.0.1:9", pauses=pauses).call("Query", QUERY)
    assert len(pauses) == 2  # tried three times
    with pytest.raises(CatalogUnavailable), dynamo.translate_errors():
        lean_client("http://127.0.0.1:9", pauses=[]).call("GetItem", {"TableName": "t", "Key": {}})


def test_only_reads_go_through_the_lean_client():
    with pytest.raises(ValueError):
        lean_client("http://127.0.0.1:9").call("PutItem", {"TableName": "t", "Item": {}})


def test_the_attempts_sent_again_are_in_the_answer_and_the_error_as_botocore_puts_them(scripted):
    answer = lean_client(scripted(THROTTLED, OK).url, pauses=[]).call("Query", QUERY)
    assert answer["ResponseMetadata"]["RetryAttempts"] == 1
    with pytest.raises(ClientError) as raised:
        lean_client(scripted(BROKEN).url, pauses=[]).call("Query", QUERY)
    assert raised.value.response["ResponseMetadata"]["RetryAttempts"] == 2
