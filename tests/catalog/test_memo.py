"""catalog.memo: markup kept while what it was made from stays the same."""
from catalog.memo import Memo


def test_the_memo_makes_a_value_once_while_its_sources_are_the_same_objects():
    memo, made = Memo(8), []
    counts = {"1": 2}

    def make():
        made.append(1)
        return f"Cars ({counts['1']})"

    assert memo.get("k", (counts,), make) == memo.get("k", (counts,), make) == "Cars (2)"
    assert len(made) == 1
    # The names read anew: equal values, but new objects; the value is made again from them.
    counts = {"1": 2}
    memo.get("k", (counts,), make)
    counts = {"1": 7}
    assert memo.get("k", (counts,), make) == "Cars (7)"
    assert len(made) == 3


def test_the_memo_holds_at_most_its_size_and_drops_the_oldest_first():
    memo, source = Memo(2), object()
    for key in "abc":
        memo.get(key, (source,), lambda key=key: key.upper())
    assert memo.get("c", (source,), lambda: "new c") == "C"  # still held
    assert memo.get("b", (source,), lambda: "new b") == "B"
    assert memo.get("a", (source,), lambda: "new a") == "new a"  # the oldest was dropped
