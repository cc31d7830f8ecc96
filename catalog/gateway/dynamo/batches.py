"""BatchGetItem and BatchWriteItem: many keys or items in as few requests as DynamoDB allows,
sending again what it leaves unprocessed."""
from __future__ import annotations

from typing import Any

from ..errors import CatalogUnavailable
from .backoff import pause
from .boundary import translate_errors
from .client import client, table_name
from .codec import Item, deserialize, serialize
from .threads import in_parallel, thread_safe

BATCH_GET_SIZE = 100
BATCH_WRITE_SIZE = 25
UNPROCESSED_ATTEMPTS = 10


def _until_processed(
    operation: str, request: dict[str, Any], leftover: Any, *, on_request: Any, gave_up: Any
) -> list[Any]:
    """Send a batch request (`operation`: "BatchGetItem" or "BatchWriteItem") again with what
    DynamoDB left unprocessed (the response's `leftover` key), with backoff, until nothing is
    left. Returns the responses."""
    send = getattr(client(), {"BatchGetItem": "batch_get_item", "BatchWriteItem": "batch_write_item"}[operation])
    responses = []
    for attempt in range(UNPROCESSED_ATTEMPTS):
        with translate_errors():
            response = send(RequestItems=request)
        if on_request:
            on_request(operation)
        responses.append(response)
        request = response.get(leftover) or {}
        if not request:
            return responses
        pause(attempt, first=0.05, most=2.0)
    raise CatalogUnavailable(gave_up)


def batch_get(
    item_keys: Any, *, projection: Any = None, names: Any = None, consistent: bool = False, on_request: Any = None
) -> list[Any]:
    """GetItem for many keys: BatchGetItem, 100 keys a request, retrying UnprocessedKeys with
    backoff. Returns the items found (deserialized), in no particular order."""
    table = table_name()
    found: list[Item] = []
    for start in range(0, len(item_keys), BATCH_GET_SIZE):
        request = {table: {"Keys": [serialize(k) for k in item_keys[start : start + BATCH_GET_SIZE]],
                           "ConsistentRead": consistent}}
        if projection:
            request[table]["ProjectionExpression"] = projection
        if names:
            request[table]["ExpressionAttributeNames"] = names
        for response in _until_processed("BatchGetItem", request, "UnprocessedKeys", on_request=on_request,
                                         gave_up="DynamoDB kept leaving keys unprocessed"):
            found.extend(deserialize(i) for i in response["Responses"].get(table, []))
    return found


def batch_write(*, puts: Any = (), deletes: Any = (), on_request: Any = None, progress: Any = None) -> None:
    """PutItem and DeleteItem (by key) for many items: BatchWriteItem, 25 a request and
    BATCH_WRITERS requests at once, retrying UnprocessedItems with backoff. A key may not be both
    put and deleted (the order of the writes is not kept)."""
    table = table_name()
    writes = [{"PutRequest": {"Item": serialize(i)}} for i in puts]
    writes += [{"DeleteRequest": {"Key": serialize(k)}} for k in deletes]
    chunks = [writes[start : start + BATCH_WRITE_SIZE] for start in range(0, len(writes), BATCH_WRITE_SIZE)]
    counted = thread_safe(on_request)

    def send(chunk: Any) -> None:
        _until_processed(
            "BatchWriteItem", {table: chunk}, "UnprocessedItems", on_request=counted,
            gave_up="DynamoDB kept leaving items unprocessed; the write stopped part way",
        )

    in_parallel(chunks, send, done=(lambda chunk: progress(len(chunk))) if progress else None)
