"""The raw DynamoDB request behind each page, alone: the exact requests the page made
(recorded by the meter while it rendered), sent again and again, one after the other, through
the same boto3 client and to the same DynamoDB Local. What a page costs above this is Django,
the templates and HTTP."""
import time

from botocore import xform_name

from catalog import dynamo

from .meter import latency_summary


def time_requests(calls, iterations, client=None, warmup=20):
    """Latency summary of sending `calls` (a page's requests, in order) `iterations` times."""
    client = client or dynamo.client()
    methods = [(getattr(client, xform_name(operation)), params) for operation, params in calls]
    durations = []
    for i in range(warmup + iterations):
        start = time.perf_counter()
        for method, params in methods:
            method(**params)
        if i >= warmup:
            durations.append(time.perf_counter() - start)
    summary = latency_summary(durations)
    summary["requests"] = [describe(operation, params) for operation, params in calls]
    return summary


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
