"""A faster reading of DynamoDB's successful read answers, inside botocore.

botocore parses every JSON answer by walking the operation's output shape (for a 25-item Query,
about 940 calls, a millisecond here) to turn blobs and timestamps into Python types. The answers
of GetItem, Query and BatchGetItem hold neither, unless an attribute is binary (`B`, `BS`), which
this table never stores: for those answers, without such a type tag in the body, the plain
`json.loads` result is exactly what the shape walk would give. Everything else (errors, other
operations, any body with a binary tag) goes through botocore's own parser unchanged, and
everything around the parse (signing, retries, timeouts, credential refresh, error mapping) is
botocore's as before. tests/gateway/test_wire.py checks the two parsers agree.
"""
from botocore.parsers import PROTOCOL_PARSERS, JSONParser, ResponseParserFactory

# The output shapes whose successful answers are plain JSON unless an attribute is binary.
PLAIN_OUTPUTS = frozenset({"GetItemOutput", "QueryOutput", "BatchGetItemOutput"})
BINARY_TAGS = (b'"B":', b'"BS":')


class FastReadParser(JSONParser):
    def _handle_json_body(self, raw_body, shape):
        if (
            shape is not None
            and shape.name in PLAIN_OUTPUTS
            and raw_body
            and not any(tag in raw_body for tag in BINARY_TAGS)
        ):
            return self._parse_body_as_json(raw_body)
        return super()._handle_json_body(raw_body, shape)


class FastReadParserFactory(ResponseParserFactory):
    """botocore's parser factory, with FastReadParser for the JSON protocol (DynamoDB's)."""

    def create_parser(self, protocol_name):
        if PROTOCOL_PARSERS[protocol_name] is JSONParser:
            return FastReadParser(**self._defaults)
        return super().create_parser(protocol_name)
