"""The DynamoDB client (catalog/gateway/dynamo/client.py): what AWS sees of the shop's requests, and one
client a process, built again when the settings change."""
import boto3
import botocore
from botocore.config import Config

from catalog.gateway import client as dynamo
from catalog.gateway import codec, keys
from catalog.gateway.catalog import products


def _user_agents(client, call):
    seen = []

    def record(request, **kwargs):
        seen.append(request.headers["User-Agent"])

    client.meta.events.register("before-sign.dynamodb.*", record)
    try:
        call()
    finally:
        client.meta.events.unregister("before-sign.dynamodb.*", record)
    return seen


def test_requests_name_boto3_and_botocore_as_plain_boto3_does(catalog):
    """An operator finds the shop's calls in CloudTrail by the SDK's User-Agent: the header the client
    builds once is plain boto3's, without the per-request list of features used."""
    app = dynamo.client()
    plain = boto3.session.Session().client(
        "dynamodb", endpoint_url=app.meta.endpoint_url, region_name=app.meta.region_name,
        aws_access_key_id="local", aws_secret_access_key="local", config=Config(retries={"mode": "standard"}),
    )
    key = codec.serialize(keys.product_key("1"))
    ours = _user_agents(app, lambda: products.product_get(product_id="1"))
    theirs = _user_agents(plain, lambda: plain.get_item(TableName=dynamo.table_name(), Key=key))

    def without_features(agent):
        return " ".join(part for part in agent.split() if not part.startswith("m/"))

    assert ours and ours[0].startswith(f"Boto3/{boto3.__version__} ")
    assert ours[0].endswith(" Botocore/" + botocore.__version__)
    assert ours == [without_features(theirs[0])]


def test_the_operators_app_id_stays_in_the_header(catalog, monkeypatch):
    """AWS_SDK_UA_APP_ID names the application in every request, as boto3 does."""
    monkeypatch.setenv("AWS_SDK_UA_APP_ID", "fromatoz-eu")
    dynamo.reset_client()
    try:
        agents = _user_agents(dynamo.client(), lambda: products.product_get(product_id="1"))
    finally:
        dynamo.reset_client()
    assert " app/fromatoz-eu " in agents[0]


def test_the_client_is_built_once_and_rebuilt_when_settings_change(ddb, settings):
    first = dynamo.client()
    assert dynamo.client() is first
    settings.DYNAMODB_READ_TIMEOUT = 1.5
    assert dynamo.client() is not first
    assert dynamo.client().meta.config.read_timeout == 1.5
