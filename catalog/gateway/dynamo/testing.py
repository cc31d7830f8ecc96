"""For tests and benchmarks, not the apps: counting the DynamoDB requests made, and deleting a table."""
from __future__ import annotations

import threading
from typing import Any, Literal

from ..table.schema import table_delete
from .client import client

__all__ = ["RequestCounter", "count_requests", "table_delete"]


class RequestCounter:
    """Counts the DynamoDB requests made while it is active, by operation name.

    Counting hooks the boto3 client's own event system, so it sees each API call once (retries of
    a call are not counted again).
    """

    def __init__(self) -> None:
        self.operations: list[str] = []
        self._lock = threading.Lock()

    def _count(self, model: Any, **kwargs: Any) -> None:
        with self._lock:
            self.operations.append(model.name)

    @property
    def total(self) -> int:
        return len(self.operations)

    def __enter__(self) -> RequestCounter:
        client().meta.events.register("before-call.dynamodb", self._count)
        return self

    def __exit__(self, *exc: Any) -> Literal[False]:
        client().meta.events.unregister("before-call.dynamodb", self._count)
        return False


def count_requests() -> RequestCounter:
    return RequestCounter()
