"""The error boundary (catalog/gateway/dynamo/boundary.py), on moto: an unreachable or throttling DynamoDB
is CatalogUnavailable, and the next request works again."""
import pytest
from botocore.stub import Stubber

from catalog import gateway
from catalog.gateway import client as dynamo
from catalog.gateway.errors import CatalogUnavailable


def test_unreachable_dynamodb_becomes_catalog_unavailable(settings):
    settings.DYNAMODB_ENDPOINT_URL = "http://127.0.0.1:9"
    settings.DYNAMODB_MAX_ATTEMPTS = 1
    settings.DYNAMODB_CONNECT_TIMEOUT = 0.5
    try:
        with pytest.raises(CatalogUnavailable):
            gateway.brands_all()
    finally:
        dynamo.reset_client()


@pytest.mark.parametrize(
    "code", ["ProvisionedThroughputExceededException", "ThrottlingException", "InternalServerError"]
)
def test_throttling_becomes_catalog_unavailable(catalog, code):
    with Stubber(dynamo.client()) as stub:
        stub.add_client_error("get_item", service_error_code=code, http_status_code=400)
        with pytest.raises(CatalogUnavailable):
            gateway.product_get(product_id="1")
    assert gateway.product_get(product_id="1").name == "Model 3"  # and it recovers
