"""One list read from several key ranges at once: sharded partitions (open orders, a product's
buyers) or a product's stock history beside its sales. One Query a range a page, merged in order.

Every range's sort key is its prefix and then the item's place in the merged order (an order ID, or
"<time>#<id>"), the same kind of text in every range, unique. Each range is read in the list's order,
`size + 1` items a page, from just after the last item shown (a BETWEEN on the sort key). The page
shows the first `size` of them in the merged order, but never an item that comes after the last item
read of a range that has more (an unread item of that range might come before it): so the page is
exactly the start of the rest of the merged list, and each range reads at most `size + 1` items. The
cursor is small whatever the number of ranges: the place of the last item taken, and which ranges are
done (those are not read again). `keep(item)` drops an item from what is shown (it is still taken),
so a page may be short; its cursor carries on.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidCursor
from . import cursor
from .codec import deserialize
from .conditions import Key
from .pages import KeyRange, Page, read_query
from .threads import SHARD_READERS, in_parallel

HIGHEST = "~"  # above every character of an order ID or a time stamp


def _keep_all(item: dict[str, Any]) -> bool:
    return True


@dataclass(frozen=True)
class Stream:
    """A key range of the merged list (its `prefix`, if any, is what every sort key starts with);
    `keep(item)`: whether a taken item is shown."""

    key_range: KeyRange
    keep: Callable = _keep_all

    def place(self, item: dict[str, Any]) -> Any:
        """The item's place in the merged order: its sort key after the range's prefix."""
        return item[self.key_range.key_attributes[1]][len(self.key_range.prefix or ""):]

    def params(self, *, limit: int | None, after: str | None) -> dict[str, Any]:
        """The range's Query from just after `after` (a place; None: from the start)."""
        if after is None:
            return self.key_range.params(limit=limit)
        sort_key = Key(self.key_range.key_attributes[1])
        prefix, forward = self.key_range.prefix, self.key_range.forward
        if prefix:  # within the prefix: BETWEEN (which includes `after`: the reader drops it)
            low, high = (prefix + after, prefix + HIGHEST) if forward else (prefix, prefix + after)
            sort = sort_key.between(low, high)
        else:
            sort = sort_key.gt(after) if forward else sort_key.lt(after)
        return self.key_range.params(limit=limit, sort=sort)


def _scope(streams: Any) -> str:
    return "merged:" + "|".join(s.key_range.scope for s in streams)


def _state(streams: Any, after: str | None) -> tuple[None, dict[int, bool]] | tuple[Any, dict[int, Any]]:
    """(the place of the last item taken or None, {stream number: done}) from a cursor of this list."""
    if after is None:
        return None, dict.fromkeys(range(len(streams)), False)
    raw = cursor.decode(after, scope=_scope(streams), key_names=("after", "done"))
    if len(raw["done"]) != len(streams) or set(raw["done"]) - {"0", "1"} or not raw["after"]:
        raise InvalidCursor()
    return raw["after"], {i: flag == "1" for i, flag in enumerate(raw["done"])}


def merged_page(streams: Any, *, size: int, after: str | None = None, build: Any) -> Page[Any]:
    """One page of the merged list (every range in the same direction): `build(item)` for each shown
    item, and the cursor of the next page (None at the end). One Query for each range not done yet
    (sent at once, SHARD_READERS at a time)."""
    last, done = _state(streams, after)
    live = [i for i, finished in done.items() if not finished]
    descending = not streams[0].key_range.forward
    read = {}

    def send(i: int) -> None:
        response = read_query(streams[i].params(limit=size + 2, after=last))
        items = [deserialize(x) for x in response["Items"]]
        items = [x for x in items if streams[i].place(x) != last]  # BETWEEN includes the bound
        more = "LastEvaluatedKey" in response and len(items) > 0
        read[i] = (items[:size + 1], more or len(items) > size + 1)

    in_parallel(live, send, workers=SHARD_READERS)

    def before(a: Any, b: Any) -> Any:  # place a comes before place b in the list's order
        return a > b if descending else a < b

    # The last item read of each range with more: nothing after the first of them can be shown yet.
    frontier = None
    for i in live:
        items, more = read[i]
        if items and (more or len(items) > size):
            end = streams[i].place(items[-1])
            if frontier is None or before(end, frontier):
                frontier = end
    candidates = sorted(
        ((streams[i].place(item), i, item) for i in live for item in read[i][0]),
        key=lambda entry: entry[:2], reverse=descending,
    )
    shown: list[Any] = []
    taken = dict.fromkeys(live, 0)
    for place, i, item in candidates:
        if len(shown) == size or (frontier is not None and before(frontier, place)):
            break
        taken[i] += 1
        last = place
        if streams[i].keep(item):
            shown.append(build(item))
    for i in live:
        items, more = read[i]
        done[i] = taken[i] == len(items) and not more and len(items) <= size
    if all(done.values()):
        return Page(items=shown)
    flags = "".join("1" if done[i] else "0" for i in range(len(streams)))
    return Page(items=shown, next_cursor=cursor.encode({"after": last, "done": flags}, scope=_scope(streams)))


def merged_all(streams: Any, *, build: Any, size: int = 500) -> Iterator[Any]:
    """Every item of the merged list, page by page (a generator: downloads stream it)."""
    after = None
    while True:
        page = merged_page(streams, size=size, after=after, build=build)
        yield from page.items
        if not page.next_cursor:
            return
        after = page.next_cursor
