"""A write whose answer was lost: OutcomeUnknown, not a plain CatalogUnavailable."""
from __future__ import annotations

import contextlib
from collections.abc import Iterator

from botocore.exceptions import ClientError, EndpointConnectionError

from ..errors import CatalogUnavailable, OutcomeUnknown
from . import budget
from .boundary import translate_errors

# Failures after which a write may or may not have been applied: DynamoDB had the request (or may
# have had it) but its answer was lost. A 4xx refusal (throttling, ...) is an answer: not applied.
_NOT_SENT = (EndpointConnectionError,)


@contextlib.contextmanager
def write_outcome() -> Iterator[None]:
    """Around one write request (with botocore's retries): when DynamoDB's answer is lost (a read
    timeout, a closed connection, a 5xx, the budget spent after an attempt went out), the write
    may still commit: raise OutcomeUnknown, not a plain CatalogUnavailable."""
    with budget.counting_sends() as sends:
        try:
            with translate_errors():
                yield
        except CatalogUnavailable as exc:
            cause = exc.__cause__
            answered = isinstance(cause, ClientError) and cause.response.get("ResponseMetadata", {}).get(
                "HTTPStatusCode", 0) < 500
            never_sent = not sends or (len(sends) == 1 and isinstance(cause, _NOT_SENT))
            if answered or never_sent:
                raise
            raise OutcomeUnknown(
                "DynamoDB did not confirm this change in time: it may or may not have been applied."
            ) from exc
