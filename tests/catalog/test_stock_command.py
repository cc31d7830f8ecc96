"""`manage.py stock`: show, adjust and list a product's stock from the command line."""
import getpass
import subprocess
import sys
from io import StringIO

import pytest
from botocore.stub import Stubber
from django.core.management import CommandError, call_command

from catalog import gateway
from catalog.gateway import client as dynamo
from catalog.gateway import keys
from catalog.gateway.dynamo.testing import count_requests
from tests.helpers import REPO, history, level


def stock(*args):
    out = StringIO()
    call_command("stock", *args, stdout=out)
    return out.getvalue()


def test_it_prints_the_name_and_level_with_one_getitem(catalog):
    with count_requests() as counter:
        out = stock("1")
    assert out == "Model 3 (product 1): 70 in stock\n"
    assert counter.operations == ["GetItem"]


def test_history_adds_the_recent_changes_with_a_query_of_the_product_and_of_each_buyers_shard(catalog):
    gateway.stock_increase(product_id="4", quantity=10, token="a1", reason="received", who="ann",
                            reference="PO-17")
    gateway.stock_decrease(product_id="4", quantity=2, token="a2", reason="damaged", who="bob")
    with count_requests() as counter:
        out = stock("4", "--history")
    assert counter.operations == ["GetItem"] + ["Query"] * (1 + keys.BUYER_SHARDS)  # its sales are order lines
    lines = out.splitlines()
    assert lines[0] == "Pixel 9 (product 4): 20 in stock"
    assert lines[1].endswith("UTC  -2 -> 20  bob  damaged")
    assert lines[2].endswith("UTC  +10 -> 22  ann  received  PO-17")
    assert lines[3].endswith("UTC  +12 -> 12  import  opening")  # the level the import set


def test_history_of_a_product_never_adjusted(catalog):
    lines = stock("5", "--history").splitlines()
    assert len(lines) == 2 and lines[1].endswith("UTC  +5 -> 5  import  opening")
    assert stock("3", "--history").splitlines()[1] == "No adjustments yet."  # imported sold out


def test_add_records_the_operators_os_user_name(catalog):
    out = stock("1", "--add", "5", "--reason", "returned", "--reference", "RMA-42", "--note", "box dented")
    assert "Added 5." in out and "Model 3 (product 1): 75 in stock" in out
    assert level("1") == 75
    adjustment, opening = history("1")
    assert (opening.reason, opening.delta) == ("opening", 70)
    assert (adjustment.delta, adjustment.reason, adjustment.who) == (5, "returned", getpass.getuser())
    assert (adjustment.reference, adjustment.note) == ("RMA-42", "box dented")


def test_add_without_a_reason_is_received(catalog):
    assert "76 in stock" in stock("1", "--add", "6")
    assert history("1")[0].reason == "received"


def test_remove_takes_stock_away(catalog):
    out = stock("4", "--remove", "2", "--reason", "damaged", "--history")
    assert "Removed 2." in out and "Pixel 9 (product 4): 10 in stock" in out
    assert out.splitlines()[-2].endswith(f"-2 -> 10  {getpass.getuser()}  damaged")
    assert out.splitlines()[-1].endswith("+12 -> 12  import  opening")
    assert level("4") == 10


def test_each_run_is_its_own_adjustment(catalog):
    stock("1", "--add", "1")
    stock("1", "--add", "1")
    assert level("1") == 72 and [h.reason for h in history("1")] == ["received", "received", "opening"]


@pytest.mark.parametrize(
    "args,message",
    [
        (["999"], "No product with ID '999'"),
        (["a b"], "Product ID must be 1 to 64 letters"),
        (["999", "--add", "1"], "No product with ID '999'"),
        (["2", "--remove", "4", "--reason", "damaged"], "Only 3 in stock for product 2; cannot take 4."),
        (["1", "--add", "0"], "Quantity must be between 1 and 1,000,000."),
        (["1", "--add", "-3"], "Quantity must be between 1 and 1,000,000."),
        (["1", "--add", "1000001"], "Quantity must be between 1 and 1,000,000."),
        (["1", "--add", "1.5"], "invalid int value: '1.5'"),
        (["1", "--add", "many"], "invalid int value: 'many'"),
        (["1", "--remove", "1"], "Give a --reason for --remove."),
        (["1", "--remove", "1", "--reason", "  "], "Give a --reason for --remove."),
        (["1", "--add", "1", "--remove", "1", "--reason", "x"], "not allowed with argument"),
        (["1", "--reason", "why"], "--reason goes with --add or --remove."),
        (["1", "--add", "1", "--reason", "Shipment 42"], "--reason must be one of: received, returned, damaged"),
        (["1", "--add", "1", "--reason", "damaged"], "“damaged” is not a reason for an increase."),
        (["1", "--remove", "1", "--reason", "returned"], "“returned” is not a reason for a decrease."),
        (["1", "--add", "1", "--reference", "x" * 101], "Reference must be at most 100 characters."),
        ([], "the following arguments are required: product_id"),
    ],
)
def test_errors_are_a_command_error_and_change_nothing(catalog, args, message):
    with pytest.raises(CommandError, match=message.replace(".", r"\.").replace("(", r"\(")):
        stock(*args)
    assert level("1") == 70 and level("2") == 3
    assert [h.reason for h in history("1") + history("2")] == ["opening", "opening"]


def test_dynamodb_unavailable_is_a_command_error(catalog):
    with Stubber(dynamo.client()) as stub:
        stub.add_client_error("get_item", service_error_code="ThrottlingException", http_status_code=400)
        with pytest.raises(CommandError, match="DynamoDB is unavailable"):
            stock("1")


def test_unreachable_dynamodb_is_a_command_error(settings):
    settings.DYNAMODB_ENDPOINT_URL = "http://127.0.0.1:9"
    settings.DYNAMODB_MAX_ATTEMPTS = 1
    try:
        with pytest.raises(CommandError, match="DynamoDB cannot be reached"):
            stock("1", "--add", "1")
    finally:
        dynamo.reset_client()


def test_from_the_shell_an_error_exits_nonzero(tmp_path):
    """A real process with DynamoDB out of reach: a clear message on stderr, exit status 1."""
    env = {"PATH": "/usr/bin:/bin", "DJANGO_SETTINGS_MODULE": "storefront.settings",
           "DJANGO_SECRET_KEY": "tests-only-not-a-secret", "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
           "DYNAMODB_ENDPOINT_URL": "http://127.0.0.1:9", "DYNAMODB_MAX_ATTEMPTS": "1"}
    result = subprocess.run(
        [sys.executable, "manage.py", "stock", "1"], cwd=REPO, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 1
    assert "CommandError: DynamoDB cannot be reached" in result.stderr
