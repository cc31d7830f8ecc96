"""A faster reading of DynamoDB's successful read answers, through botocore's public events.

botocore parses every JSON answer by walking the operation's output shape (for a 25-item Query,
about 940 calls, a millisecond here) to turn blobs and timestamps into Python types. The answers
of GetItem, Query and BatchGetItem hold neither, unless an attribute is binary (`B`, `BS`), which
this table never stores: for those answers, without such a type tag in the body, the plain
`json.loads` result is exactly what the shape walk would give.

botocore emits `before-parse.dynamodb.<operation>` with the answer (`response_dict`) and a
`customized_response_dict` whose keys it lays over the parsed answer (its own S3 handlers change
`response_dict` there the same way). The handler puts the decoded body in the latter and leaves
botocore's unmodified parser an empty body, so it still adds the answer's metadata. Everything else
(errors, other operations, any body with a binary tag) is parsed by botocore as before, and
everything around the parse (signing, retries, the CRC32 check on the HTTP answer, timeouts, error
mapping) is botocore's. tests/gateway/dynamo/test_wire.py checks the result is what botocore alone gives.
"""
from __future__ import annotations

import json
from typing import Any

# The operations whose successful answers are plain JSON unless an attribute is binary.
PLAIN_READS = ("GetItem", "Query", "BatchGetItem")
BINARY_TAGS = (b'"B":', b'"BS":')


def before_parse(response_dict: Any, customized_response_dict: Any, **kwargs: Any) -> None:
    body = response_dict["body"]
    if response_dict["status_code"] != 200 or not body or any(tag in body for tag in BINARY_TAGS):
        return
    customized_response_dict.update(json.loads(body))
    response_dict["body"] = b"{}"


def install(client: Any) -> Any:
    for operation in PLAIN_READS:
        client.meta.events.register(f"before-parse.dynamodb.{operation}", before_parse)
    return client
