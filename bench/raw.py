"""The raw DynamoDB request behind each page, alone: the exact requests the page made
(recorded by the meter while it rendered), sent again and again, one after the other, through
the same boto3 client and to the same DynamoDB Local. What a page costs above this is Django,
the templates and HTTP. The floor: the same requests sent as bare signed HTTP requests (the lean
client of the hot reads), what is left once boto3's request pipeline is gone."""

import functools
import threading
import time

from botocore import xform_name

from catalog.gateway import client as dynamo
from catalog.gateway.lean import OPERATIONS as LEAN_OPERATIONS


def time_calls(calls, iterations, client=None, warmup=10, floor=False):
    """Durations (seconds) of sending `calls` (a page's requests, in order), `iterations` times.
    `floor`: the GetItem and Query requests as one signed HTTP request each, without boto3 (the
    app's lean client, catalog/gateway/lean.py): the least a page's request can cost here."""
    client = client or dynamo.client()
    lean = dynamo.lean_client() if floor else None
    if floor and lean is None:
        raise RuntimeError("the floor needs DYNAMODB_LEAN_READS on")
    methods = [(_sender(client, lean if floor else None, operation), params) for operation, params in calls]
    durations = []
    for i in range(warmup + iterations):
        start = time.perf_counter()
        for method, params in methods:
            method(params)
        if i >= warmup:
            durations.append(time.perf_counter() - start)
    return durations


def _sender(client, lean, operation):
    """A function that sends one `operation` request (its parameters as one dict)."""
    if lean is not None and operation in LEAN_OPERATIONS:
        return functools.partial(lean.call, operation)
    method = getattr(client, xform_name(operation))
    return lambda params: method(**params)


def describe(operation, params):
    """A short human description: "Query GSI1 GSI1PK = :pk AND begins_with(...) Limit 25"."""
    parts = [operation]
    if "IndexName" in params:
        parts.append(params["IndexName"])
    if "KeyConditionExpression" in params:
        parts.append(params["KeyConditionExpression"])
    if "Key" in params:
        parts.append("Key " + "/".join(next(iter(v.values())) for v in params["Key"].values()))
    if "Limit" in params:
        parts.append(f"Limit {params['Limit']}")
    if "ExclusiveStartKey" in params:
        parts.append("ExclusiveStartKey")
    return " ".join(parts)


def warm_up(call_lists, total, threads=4, client=None):
    """Send `total` requests (cycling through `call_lists`) from a few threads. DynamoDB Local
    runs on the JVM: its first few thousand queries are up to twice as slow as later ones,
    which would otherwise bias whichever catalog or page is measured first."""
    client = client or dynamo.client()
    flat = [(getattr(client, xform_name(op)), params) for calls in call_lists for op, params in calls]
    if not flat:
        return
    per_thread = max(1, total // threads)

    def work(offset):
        for i in range(per_thread):
            method, params = flat[(offset + i) % len(flat)]
            method(**params)

    workers = [threading.Thread(target=work, args=(n,)) for n in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
