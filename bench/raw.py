"""The raw DynamoDB request behind each page, alone: the exact requests the page made
(recorded by the meter while it rendered), sent again and again, one after the other, through
the same boto3 client and to the same DynamoDB Local. What a page costs above this is Django,
the templates and HTTP. The floor: the same requests signed with botocore's SigV4 signer and sent
on its URLLib3Session, without the client's request pipeline (validation, events, retries), what
is left once boto3's own bookkeeping is gone."""

import json
import socket
import threading
import time

import botocore.session
from botocore import xform_name
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from botocore.httpsession import URLLib3Session

from catalog.gateway import client as dynamo


def time_calls(calls, iterations, client=None, warmup=10, floor=False):
    """Durations (seconds) of sending `calls` (a page's requests, in order), `iterations` times.
    `floor`: each request as one signed HTTP POST (`_floor_sender`), not through the client."""
    client = client or dynamo.client()
    sender = _floor_sender(client) if floor else _sender(client)
    methods = [(sender(operation), params) for operation, params in calls]
    durations = []
    for i in range(warmup + iterations):
        start = time.perf_counter()
        for method, params in methods:
            method(params)
        if i >= warmup:
            durations.append(time.perf_counter() - start)
    return durations


def _sender(client):
    """For an operation, a function that sends one request of it (its parameters as one dict)."""
    def sender(operation):
        method = getattr(client, xform_name(operation))
        return lambda params: method(**params)
    return sender


def _floor_sender(client):
    """As _sender, but each request a POST of its JSON signed by botocore's SigV4Auth with the
    client's credentials and sent on a URLLib3Session; the answer's JSON is parsed, nothing else."""
    # the app's client signs with the session's credentials, or "local" ones for DynamoDB Local
    credentials = botocore.session.get_session().get_credentials() or Credentials("local", "local")
    signer = SigV4Auth(credentials.get_frozen_credentials(), "dynamodb", client.meta.region_name)
    session = URLLib3Session(socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)])  # as botocore's client
    url = client.meta.endpoint_url

    def sender(operation):
        headers = {"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": f"DynamoDB_20120810.{operation}"}

        def send(params):
            request = AWSRequest("POST", url + "/", data=json.dumps(params).encode(), headers=dict(headers))
            signer.add_auth(request)
            response = session.send(request.prepare())
            if response.status_code != 200:
                raise RuntimeError(f"{operation}: HTTP {response.status_code} {response.content[:200]!r}")
            return json.loads(response.content)
        return send
    return sender


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
