"""The error boundary: botocore's exceptions become the project's (errors.py) here, so nothing
outside the gateway sees one."""
from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator

from botocore.exceptions import BotoCoreError, ClientError

from ..errors import CatalogUnavailable

log = logging.getLogger(__name__)

# Error codes that mean "DynamoDB is not able to serve us now" rather than "your request is wrong".
UNAVAILABLE_CODES = {
    "ProvisionedThroughputExceededException",
    "ThrottlingException",
    "RequestLimitExceeded",
    "InternalServerError",
    "ServiceUnavailable",
    "ResourceNotFoundException",  # the table is missing: an operator problem, not a shopper's
    "UnrecognizedClientException",
    "InvalidSignatureException",
    "AccessDeniedException",
    "ExpiredTokenException",
}


def error_code(exc: BaseException | None) -> str:
    return exc.response.get("Error", {}).get("Code", "") if isinstance(exc, ClientError) else ""


@contextlib.contextmanager
def translate_errors() -> Iterator[None]:
    """Turn transport failures and DynamoDB's service-side failures into CatalogUnavailable.

    ClientErrors that the caller understands (conditional check failures, cancelled
    transactions) pass through for the caller to interpret.
    """
    try:
        yield
    except ClientError as exc:
        code = error_code(exc)
        if code in UNAVAILABLE_CODES or exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0) >= 500:
            log.warning("DynamoDB unavailable: %s", code)
            raise CatalogUnavailable(f"DynamoDB is unavailable ({code})") from exc
        raise
    except BotoCoreError as exc:
        log.warning("DynamoDB unreachable: %s", exc)
        raise CatalogUnavailable("DynamoDB cannot be reached") from exc
