"""What DynamoDB did for a piece of work: the requests (with their exact parameters) and the
capacity it consumed, seen through botocore's own events on the app's client.

The app's gateway is not touched: `ReturnConsumedCapacity` is added to each request on its way
out (before-parameter-build) and `ConsumedCapacity` read from each parsed answer (after-call).
"""

import copy
import threading

from catalog.gateway import client as dynamo

READS = {"GetItem", "Query", "Scan", "BatchGetItem", "TransactGetItems"}
WRITES = {"PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems"}


class Meter:
    """Use as a context manager around the work to measure."""

    def __init__(self, client=None):
        self.client = client
        self.calls = []  # (operation, parameters as the app built them)
        self.read_units = 0.0
        self.write_units = 0.0
        self._lock = threading.Lock()

    def _before(self, params, model, **kwargs):
        with self._lock:
            self.calls.append((model.name, copy.deepcopy(params)))
        if model.name in READS or model.name in WRITES:
            params["ReturnConsumedCapacity"] = "TOTAL"

    def _after(self, parsed, model, **kwargs):
        consumed = parsed.get("ConsumedCapacity") if isinstance(parsed, dict) else None
        if not consumed:
            return
        with self._lock:
            for entry in consumed if isinstance(consumed, list) else [consumed]:
                units = float(entry.get("CapacityUnits", 0))
                read = entry.get("ReadCapacityUnits")
                write = entry.get("WriteCapacityUnits")
                if read is not None or write is not None:
                    self.read_units += float(read or 0)
                    self.write_units += float(write or 0)
                elif model.name in WRITES:
                    self.write_units += units
                else:
                    self.read_units += units

    @property
    def operations(self):
        counts = {}
        for name, _ in self.calls:
            counts[name] = counts.get(name, 0) + 1
        return counts

    def summary(self):
        return {
            "requests": len(self.calls),
            "operations": self.operations,
            "read_units": round(self.read_units, 2),
            "write_units": round(self.write_units, 2),
        }

    def __enter__(self):
        events = (self.client or dynamo.client()).meta.events
        events.register("before-parameter-build.dynamodb", self._before)
        events.register("after-call.dynamodb", self._after)
        return self

    def __exit__(self, *exc):
        events = (self.client or dynamo.client()).meta.events
        events.unregister("before-parameter-build.dynamodb", self._before)
        events.unregister("after-call.dynamodb", self._after)
        return False


def percentile(sorted_values, q):
    """The q-th percentile (0-100) of already sorted values, interpolated linearly."""
    if not sorted_values:
        return None
    position = (len(sorted_values) - 1) * q / 100
    low = int(position)
    high = min(low + 1, len(sorted_values) - 1)
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) * (position - low)


def latency_summary(seconds):
    """p50/p95/p99 and mean in milliseconds of a list of durations in seconds."""
    values = sorted(s * 1000 for s in seconds)
    return {
        "n": len(values),
        "p50_ms": round(percentile(values, 50), 3),
        "p95_ms": round(percentile(values, 95), 3),
        "p99_ms": round(percentile(values, 99), 3),
        "mean_ms": round(sum(values) / len(values), 3),
    }
