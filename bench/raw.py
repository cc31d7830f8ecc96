"""The raw DynamoDB request behind each page, alone: the exact requests the page made
(recorded by the meter while it rendered), sent again and again, one after the other, through
the same boto3 client and to the same DynamoDB Local. What a page costs above this is Django,
the templates and HTTP."""

import threading
import time

from botocore import xform_name

from catalog.gateway import client as dynamo


def time_calls(calls, iterations, client=None, warmup=10):
    """Durations (seconds) of sending `calls` (a page's requests, in order), `iterations` times."""
    client = client or dynamo.client()
    methods = [(getattr(client, xform_name(operation)), params) for operation, params in calls]
    durations = []
    for i in range(warmup + iterations):
        start = time.perf_counter()
        for method, params in methods:
            method(**params)
        if i >= warmup:
            durations.append(time.perf_counter() - start)
    return durations


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
