"""Text normalisation for name order and search: accents dropped (Unicode NFKD), casefolded,
split into words of letters and digits.

"Škoda e-tron GT" -> words ["skoda", "e", "tron", "gt"] plus "etron" (a word written with
hyphens or dots is also indexed joined up), so "e-tron", "etron" and "tron" all find it.
"""
from __future__ import annotations

import re
import unicodedata
from typing import Any

MIN_TERM = 2  # a search word needs at least this many characters to be looked up
MAX_TERM = 12  # prefixes are indexed up to this length; a longer word is looked up by its first 12
MAX_QUERY = 100  # characters of a query read; the rest is cut
MAX_WORDS = 8

_WORD = re.compile(r"\w+")


def has_control_characters(value: str) -> bool:
    """Whether a one-line text holds a character of Unicode's "other" categories (C*: controls such as
    CR, LF and tab, invisible format characters, unassigned ones): the shop refuses them in names
    (its forms and the catalog import), where they could break an email header or a page's layout."""
    return any(unicodedata.category(ch).startswith("C") for ch in value)


def fold(text: str) -> str:
    """Accents dropped and casefolded: "Ärger" -> "arger"."""
    decomposed = unicodedata.normalize("NFKD", str(text))
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def _parts(chunk: Any) -> list[Any]:
    return [p for p in _WORD.findall(chunk.replace("_", " "))]


def words(text: str) -> list[str]:
    """The words of a text, in order, each once: letters and digits of every whitespace-separated
    chunk, and the chunk joined up when it had several ("e-tron" -> "e", "tron", "etron")."""
    out = []
    for chunk in fold(text).split():
        parts = _parts(chunk)
        out.extend(parts)
        if len(parts) > 1:
            out.append("".join(parts))
    return list(dict.fromkeys(out))


def normalise_name(name: str) -> str:
    """The name as it sorts: its words (not the joined-up forms) separated by one space."""
    return " ".join(p for chunk in fold(name).split() for p in _parts(chunk))


def terms(name: str) -> set[Any]:
    """Every search term a product name is found by: each word's prefixes of MIN_TERM to
    MAX_TERM characters (a shorter word is itself a term only if it has MIN_TERM characters)."""
    found = set()
    for word in words(name):
        for n in range(MIN_TERM, min(len(word), MAX_TERM) + 1):
            found.add(word[:n])
    return found


def query_words(query: str) -> list[str]:
    """The words of a search query, cut to MAX_QUERY characters and MAX_WORDS words."""
    return words(str(query)[:MAX_QUERY])[:MAX_WORDS]


def lookup_term(qwords: Any) -> Any | None:
    """The term to Query for: the longest word (the one likely to match fewest products), cut
    to MAX_TERM; None if no word is long enough."""
    candidates = [w for w in qwords if len(w) >= MIN_TERM]
    if not candidates:
        return None
    return max(candidates, key=len)[:MAX_TERM]


def matches(qwords: Any, name: str) -> bool:
    """Whether every query word is the start of some word of the name."""
    name_words = words(name)
    return all(any(w.startswith(q) for w in name_words) for q in qwords)
