"""BatchGetItem's keys left unprocessed (catalog/gateway/dynamo/batches.py), on moto: asked for again, and
CatalogUnavailable once they never are."""
import pytest

from catalog import gateway
from catalog.gateway import client as dynamo
from catalog.gateway.dynamo import batches
from catalog.gateway.errors import CatalogUnavailable


def _unprocessed(monkeypatch, *, times):
    """BatchGetItem answers its first `times` calls with every key left unprocessed."""
    ddb_client = dynamo.client()
    real, calls = ddb_client.batch_get_item, []

    def flaky(RequestItems):
        calls.append(1)
        if len(calls) <= times:
            return {"Responses": {}, "UnprocessedKeys": RequestItems}
        return real(RequestItems=RequestItems)

    monkeypatch.setattr(ddb_client, "batch_get_item", flaky)
    monkeypatch.setattr(batches, "pause", lambda attempt, **kwargs: None)
    return calls


def test_keys_left_unprocessed_are_asked_for_again(catalog, monkeypatch):
    calls = _unprocessed(monkeypatch, times=2)
    products = gateway.products_get_many(product_ids=["1", "2", "4"])
    assert sorted(products) == ["1", "2", "4"] and products["2"].stock_level == 3
    assert len(calls) == 3


def test_keys_never_processed_make_the_catalog_unavailable(catalog, monkeypatch):
    calls = _unprocessed(monkeypatch, times=1_000)
    with pytest.raises(CatalogUnavailable):
        gateway.products_get_many(product_ids=["1", "2"])
    assert len(calls) == batches.UNPROCESSED_ATTEMPTS
