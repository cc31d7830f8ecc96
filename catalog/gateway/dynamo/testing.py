"""For tests and benchmarks, not the apps: counting the DynamoDB requests made, and deleting a table."""
import threading

from ..table.schema import table_delete
from .client import client

__all__ = ["RequestCounter", "count_requests", "table_delete"]


class RequestCounter:
    """Counts the DynamoDB requests made while it is active, by operation name.

    Counting hooks the boto3 client's own event system, so it sees each API call once (retries of
    a call are not counted again).
    """

    def __init__(self):
        self.operations = []
        self._lock = threading.Lock()

    def _count(self, model, **kwargs):
        with self._lock:
            self.operations.append(model.name)

    @property
    def total(self):
        return len(self.operations)

    def __enter__(self):
        client().meta.events.register("before-call.dynamodb", self._count)
        return self

    def __exit__(self, *exc):
        client().meta.events.unregister("before-call.dynamodb", self._count)
        return False


def count_requests():
    return RequestCounter()
