"""The one way this project keeps rendered markup in a process: a bounded memo whose key is built
here, from what the caller names plus everything every fragment depends on (the script prefix and
the URL conf of the request being served), so that no request can change what another sees."""
import threading

from django.urls import get_script_prefix, get_urlconf


def here():
    """What every kept fragment depends on besides its own values: the request's script prefix and URL conf."""
    return get_script_prefix(), get_urlconf()


class Memo:
    """Values (markup) kept per key while their sources stay the very same objects. The caller's
    key holds the values a result is made from; `sources` the objects it is made from, if any: a
    list page's filter chips are made from the names the cache holds.

    catalog.names gives every request the same objects until the names are read anew (the TTL, a
    forget, another server's refill); then they are new objects, and a held value whose sources
    are not identical (`is`) is made again. The held values keep their sources alive, so an
    identity is never reused by another object while it is compared. At most `size` values are
    held; the oldest goes first."""

    def __init__(self, size):
        self.size = size
        self._held = {}
        self._lock = threading.Lock()

    def get(self, key, sources, make, where=None):
        """The value kept for `key` (and `where`: here(), passed by a caller that asks for many values in
        one request), made by `make()` if there is none or its sources are not `sources`."""
        key = (key, where or here())
        held = self._held.get(key)
        if held is not None and (not held[0] if not sources else len(held[0]) == len(sources) and all(
                a is b for a, b in zip(held[0], sources))):
            return held[1]
        value = make()
        with self._lock:
            self._held.pop(key, None)
            while len(self._held) >= self.size:
                del self._held[next(iter(self._held))]
            self._held[key] = (tuple(sources), value)
        return value

    def __len__(self):
        return len(self._held)

    def clear(self):
        with self._lock:
            self._held.clear()
