"""Consumed capacity of each DynamoDB request, by table or index AND by partition key (docs/scale.md).

Hooked on the app's botocore client: a read is charged what DynamoDB Local reports (a BatchGetItem replayed
key by key); a write (each action of a transaction too) is replayed alone on a shadow table holding the item
as it was, and charged what Local reports there, twice when transactional. `item_size` is DynamoDB's
documented size rule (tests/bench/test_capacity.py checks the measured charges against those rules).
"""

import copy
import math
import re
import threading
from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal

from catalog.gateway import client as dynamo
from catalog.gateway.table import create_table_request, table_delete, table_ensure

READS = {"GetItem", "Query", "Scan", "BatchGetItem", "TransactGetItems"}
WRITES = {"PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems"}


@dataclass(frozen=True)
class Charge:
    where: str  # "table" or an index name
    pk: str  # the partition key value
    kind: str  # the item kind: the sort key's first part (METADATA, STOCK, TOKEN, ORDER, ...) or "query"
    rw: str  # "R" or "W"
    units: float


@dataclass
class Call:
    operation: str
    reported: dict  # {where: {"R": u, "W": u}} as DynamoDB Local said
    charges: list = field(default_factory=list)


def schema_indexes(table="x"):
    """{index name: (hash key attribute, range key attribute, projection)} from the one table definition."""
    indexes = {}
    for gsi in create_table_request(table).get("GlobalSecondaryIndexes", []):
        schema = {k["KeyType"]: k["AttributeName"] for k in gsi["KeySchema"]}
        indexes[gsi["IndexName"]] = (schema["HASH"], schema.get("RANGE"), gsi["Projection"])
    return indexes


def table_keys(table="x"):
    schema = {k["KeyType"]: k["AttributeName"] for k in create_table_request(table)["KeySchema"]}
    return schema["HASH"], schema.get("RANGE")


def _kind(item_key):
    sk = (item_key or {}).get(table_keys()[1], {})
    value = next(iter(sk.values()), "") if isinstance(sk, dict) else str(sk)
    return str(value).split("#", 1)[0] or "?"


def _s(attr):
    """The string (or number) value of a wire-format attribute value."""
    return next(iter(attr.values())) if attr else None


class CapacityMeter:
    """Use as a context manager around the work to measure: `calls` lists what each request cost."""

    def __init__(self):
        self.calls = []
        self._lock = threading.Lock()
        self._pending = threading.local()
        self._own = None  # the meter's own client: its requests are not measured as the app's
        self.shadow = None
        self.indexes = schema_indexes()
        self.hash_key, self.range_key = table_keys()

    def _before(self, params, model, **kwargs):
        if model.name not in READS | WRITES:
            return
        params["ReturnConsumedCapacity"] = "INDEXES"
        self._pending.old = self._old_items(model.name, params) if model.name in WRITES else None
        self._pending.params = copy.deepcopy(params)

    def _after(self, http_response, parsed, model, **kwargs):
        if model.name not in READS | WRITES:
            return
        params, old = getattr(self._pending, "params", None), getattr(self._pending, "old", None)
        if params is None or not 200 <= http_response.status_code < 300:
            return  # a refused request (a lost race): the scenarios measured here do not lose any
        call = Call(model.name, reported=self._reported(model.name, parsed.get("ConsumedCapacity")))
        if model.name == "GetItem":
            call.charges = [self._read_charge(params["Key"], call.reported)]
        elif model.name == "Query":
            call.charges = [self._query_charge(params, call.reported)]
        elif model.name == "BatchGetItem":
            call.charges = self._batch_get_charges(params)
        elif model.name in WRITES:
            call.charges = self._write_charges(model.name, params, old)
        with self._lock:
            self.calls.append(call)

    @staticmethod
    def _reported(operation, consumed):
        out = {}
        rw = "W" if operation in WRITES else "R"
        for entry in consumed if isinstance(consumed, list) else [consumed] if consumed else []:
            parts = [("table", entry.get("Table"))] + list((entry.get("GlobalSecondaryIndexes") or {}).items())
            for where, part in parts:
                if part:
                    units = part.get("WriteCapacityUnits" if rw == "W" else "ReadCapacityUnits")
                    units = part.get("CapacityUnits", 0) if units is None else units
                    out.setdefault(where, {"R": 0.0, "W": 0.0})[rw] += float(units)
        return out

    def _read_charge(self, key, reported):
        return Charge("table", _s(key[self.hash_key]), _kind(key), "R", reported.get("table", {}).get("R", 0.0))

    def _query_charge(self, params, reported):
        where = params.get("IndexName") or "table"
        hash_key = self.indexes[where][0] if where != "table" else self.hash_key
        names = {v: k for k, v in (params.get("ExpressionAttributeNames") or {}).items()}
        placeholder = names.get(hash_key, hash_key)
        match = re.search(rf"(?:^|\(|\s){re.escape(placeholder)}\s*=\s*(:\w+)", params["KeyConditionExpression"])
        pk = _s(params["ExpressionAttributeValues"][match.group(1)]) if match else "?"
        return Charge(where, pk, "query", "R", reported.get(where, {}).get("R", 0.0))

    def _batch_get_charges(self, params):
        """Each key of a BatchGetItem read again alone, with the same consistency."""
        def cost(table, key, consistent):
            answer = self._own.get_item(TableName=table, Key=key, ConsistentRead=consistent,
                                        ReturnConsumedCapacity="INDEXES")
            return self._read_charge(key, self._reported("GetItem", answer.get("ConsumedCapacity")))

        return [cost(table, key, request.get("ConsistentRead", False))
                for table, request in params["RequestItems"].items() for key in request["Keys"]]

    def _actions(self, operation, params):
        """(action type, its parameters as a single write, transactional?) of a write request."""
        if operation in ("PutItem", "UpdateItem", "DeleteItem"):
            return [(operation[:-4], dict(params), False)]
        if operation == "BatchWriteItem":  # {"PutRequest": body} or {"DeleteRequest": body}
            return [(kind.removesuffix("Request"), {"TableName": table, **body}, False)
                    for table, requests in params["RequestItems"].items() for r in requests for kind, body in r.items()]
        return [(kind, dict(body), True) for action in params["TransactItems"] for kind, body in action.items()]

    def _item_key(self, kind, body):
        if kind == "Put":
            return {k: body["Item"][k] for k in (self.hash_key, self.range_key) if k}
        return body["Key"]

    def _old_items(self, operation, params):
        return [self._own.get_item(TableName=body["TableName"], Key=self._item_key(kind, body), ConsistentRead=True)
                .get("Item") for kind, body, _ in self._actions(operation, params)]

    def _write_charges(self, operation, params, olds):
        charges = []
        for (kind, body, transactional), old in zip(self._actions(operation, params), olds):
            key = self._item_key(kind, body)
            item_kind = _kind(key)
            factor = 2 if transactional else 1
            if kind == "ConditionCheck":
                # Not replayable as a write; DynamoDB charges it like a transactional write of the item.
                units = 2 * math.ceil(item_size(old or {}) / 1024) if old else 2
                charges.append(Charge("table", _s(key[self.hash_key]), item_kind, "W", float(units)))
                continue
            # The shadow starts from the item as it was, then the action is replayed there alone.
            if old is None:
                self._own.delete_item(TableName=self.shadow, Key=key)
            else:
                self._own.put_item(TableName=self.shadow, Item=old)
            replay = {**body, "TableName": self.shadow, "ReturnConsumedCapacity": "INDEXES"}
            replay.pop("ReturnValuesOnConditionCheckFailure", None)
            answer = getattr(self._own, f"{kind.lower()}_item")(**replay)  # put_item, update_item, delete_item
            reported = self._reported("PutItem", answer.get("ConsumedCapacity"))
            new = self._own.get_item(TableName=self.shadow, Key=key, ConsistentRead=True).get("Item")
            for where, units in reported.items():
                if where == "table":
                    charges.append(Charge("table", _s(key[self.hash_key]), item_kind, "W", units["W"] * factor))
                    continue
                hash_key = self.indexes[where][0]
                pks = [pk for pk in dict.fromkeys(_s((i or {}).get(hash_key)) for i in (old, new)) if pk] or ["?"]
                for pk in pks:  # a key change is a delete under the old key and a put under the new
                    charges.append(Charge(where, pk, item_kind, "W", units["W"] * factor / len(pks)))
        return charges

    def _hooks(self):
        return (("before-parameter-build.dynamodb", self._before), ("after-call.dynamodb", self._after))

    def __enter__(self):
        self._own = dynamo._build_client()
        self.shadow = f"{dynamo.table_name()}-shadow"
        table_ensure(self.shadow)
        for event, hook in self._hooks():
            dynamo.client().meta.events.register(event, hook)
        return self

    def __exit__(self, *exc):
        for event, hook in self._hooks():
            dynamo.client().meta.events.unregister(event, hook)
        table_delete(self.shadow)
        return False

    def reset(self):
        with self._lock:
            self.calls = []

    def charges(self):
        return [c for call in self.calls for c in call.charges]

    def reported_totals(self):
        totals = {}
        for call in self.calls:
            for where, units in call.reported.items():
                t = totals.setdefault(where, {"R": 0.0, "W": 0.0})
                t["R"], t["W"] = t["R"] + units["R"], t["W"] + units["W"]
        return totals

    def operations(self):
        return dict(Counter(call.operation for call in self.calls))


# --- DynamoDB's documented size rules (developer guide, "Item sizes and formats") ---------------

def _value_size(value):
    (kind, v), = value.items()
    if kind in ("SS", "NS", "BS"):
        return sum(_value_size({kind[0]: e}) for e in v)
    if kind in ("L", "M"):
        entries = v.items() if kind == "M" else (("", e) for e in v)
        return 3 + sum(len(k.encode()) + _value_size(e) + 1 for k, e in entries)
    if kind == "N":
        return math.ceil(len(Decimal(v).normalize().as_tuple().digits) / 2) + 1
    return {"S": lambda: len(v.encode()), "B": lambda: len(v), "BOOL": lambda: 1, "NULL": lambda: 1}[kind]()


def item_size(item):
    """Bytes of a wire-format item: attribute names plus values."""
    return sum(len(name.encode()) + _value_size(value) for name, value in item.items())

