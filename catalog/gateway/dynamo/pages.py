"""Reading a key range: one Query a page, with a signed cursor bound to the range it came from.

Every list of the gateway (product lists, stock history, a customer's orders, brands and
categories) is a `KeyRange` read through `query_page`, `query_items` or `query_all`.

A list index is read under its v2 name (keys.list_index: the one projecting the stock band).
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from .. import keys
from ..errors import InvalidCursor
from . import cursor
from .boundary import translate_errors
from .client import read, table_name
from .codec import Item, deserialize, serialize
from .conditions import Attr, Condition, Key, all_of, expression

T = TypeVar("T")


@dataclass(frozen=True)
class Page(Generic[T]):
    items: Sequence[T]
    next_cursor: str | None = None
    total: int | None = None  # how many the whole list has, where the read told it (a search)

    def __iter__(self) -> Iterator[T]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)



def index_to_read(prefix: str) -> str:
    """The name of the index to Query for key attributes `prefix` (keys.index_key_prefix)."""
    return keys.list_index(prefix)


def read_query(params: dict[str, Any], send: Any = None) -> Any:
    """One Query (`send(params)`, by default client.read's) inside translate_errors."""
    send = send or (lambda p: read("Query", p))
    with translate_errors():
        return send(params)


@dataclass(frozen=True)
class KeyRange:
    """The items of one partition of the table or of an index, optionally only those whose
    sort key starts with `prefix`, in sort-key order (`forward=False`: newest/highest first).
    `index` names the index by its key attributes' prefix (keys.GSI1, ...): params() names the one
    to read (index_to_read)."""

    partition: str
    prefix: str | None = None
    index: str | None = None  # None: the table itself
    forward: bool = True
    consistent: bool = False
    # ((attribute, value), ...) that a shown item must have: a FilterExpression (the Query still
    # reads `Limit` items of the range; those that do not match are not returned).
    filters: tuple = ()

    @property
    def key_attributes(self) -> tuple[str, str]:
        """The names of the partition and sort key of the table or index read."""
        return (f"{self.index}PK", f"{self.index}SK") if self.index else ("PK", "SK")

    @property
    def key_names(self) -> tuple[Any, ...]:
        """What a position in the range is made of (LastEvaluatedKey's attributes)."""
        return ("PK", "SK", *self.key_attributes) if self.index else ("PK", "SK")

    @property
    def scope(self) -> str:
        """What a cursor is bound to: a cursor of one range does not open another."""
        scope = f"{self.index or 'table'}:{self.partition}:{self.prefix or ''}"
        scope += "".join(f":{name}={value}" for name, value in self.filters)
        return scope if self.forward else f"{scope}:desc"  # a cursor of one direction opens not the other

    def params(self, *, limit: int | None = None, sort: Condition | None = None) -> dict[str, Any]:
        """The Query of the range; `sort`: a condition on the sort key instead of the prefix's (merged.py)."""
        pk_name, sk_name = self.key_attributes
        if sort is None and self.prefix:
            sort = Key(sk_name).begins_with(self.prefix)
        params = {
            "TableName": table_name(),
            **expression(key=all_of(Key(pk_name).eq(self.partition), sort),
                         filter=all_of(*(Attr(name).eq(value) for name, value in self.filters))),
            "ScanIndexForward": self.forward,
        }
        if self.index:
            params["IndexName"] = index_to_read(self.index)
        elif self.consistent:
            params["ConsistentRead"] = True
        if limit is not None:
            params["Limit"] = limit
        return params

    def start_key(self, after: str | None) -> dict[str, Any]:
        """The position a cursor names, checked to lie in this range (a cursor signed for the
        same scope always does; this keeps a malformed key from ever reaching DynamoDB)."""
        key = cursor.decode(after, scope=self.scope, key_names=self.key_names)
        pk_name, sk_name = self.key_attributes
        if key[pk_name] != self.partition or not key[sk_name].startswith(self.prefix or ""):
            raise InvalidCursor()
        return key

    def encode(self, key: dict[str, Any]) -> Any:
        return cursor.encode({name: key[name] for name in self.key_names}, scope=self.scope)


def query_items(
    key_range: Any, *, limit: int | None, after: str | None = None
) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """One Query: up to `limit` items from the cursor `after` on. Returns (items, last_key),
    `last_key` being DynamoDB's LastEvaluatedKey (None at the end of the range)."""
    params = key_range.params(limit=limit)
    if after is not None:
        params["ExclusiveStartKey"] = serialize(key_range.start_key(after))
    response = read_query(params)
    last = response.get("LastEvaluatedKey")
    return [deserialize(i) for i in response["Items"]], deserialize(last) if last else None


def query_page(key_range: Any, *, size: int, after: str | None = None, build: Any) -> Page[Any]:
    """One page of `size` entities (`build(item)` each): one Query that asks for one item more
    than it shows, so the next cursor is only given when there is more to show."""
    items, last = query_items(key_range, limit=size + 1, after=after)
    next_key = None
    if len(items) > size:
        items = items[:size]
        next_key = items[-1]
    elif last is not None:
        # DynamoDB stopped early (1 MB page, or a filter dropped items): carry on from there
        next_key = last
    return Page(items=[build(i) for i in items], next_cursor=key_range.encode(next_key) if next_key else None)


def query_all(key_range: Any) -> list[Any]:
    """Every item of a range (a short one: brands, categories), following LastEvaluatedKey."""
    items: list[Item] = []
    params = key_range.params()
    while True:
        response = read_query(params)
        items.extend(deserialize(i) for i in response["Items"])
        if "LastEvaluatedKey" not in response:
            return items
        params["ExclusiveStartKey"] = response["LastEvaluatedKey"]
