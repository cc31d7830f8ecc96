"""Health checks for a load balancer, every few seconds, without a session or a CSRF cookie:

- `/healthz`: the process answers. Touches nothing: 200 `{"status": "ok"}`.
- `/readyz`: this server can serve shoppers: DynamoDB answers (one GetItem of a key that is never
  written), the accounts database answers (`SELECT 1`), and the table's migrations are current; all
  within the request's read budget (DYNAMODB_READ_BUDGET). To the metrics networks (the TCP peer) or
  with METRICS_TOKEN (storefront.metrics.allowed): 200 `{"status": "ready", ...}` or 503
  `{"status": "unavailable", ...}` with each check's result; to anyone else only 200 `{"status": "ok"}`
  or 503 `{"status": "unavailable"}`: no host, port, error text or migration names.

The table's checks (the GetItem and the migrations' Query) are kept TABLE_CHECK_SECONDS in this
process: a flood of /readyz costs DynamoDB at most one check per process every few seconds. A memo of
the process, not Django's cache: readiness is this server's own (its network, its credentials), which
another server's answer in a shared cache must not stand for, and the check must not depend on Redis.
"""
import logging
import threading
import time
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout

from django.db import DatabaseError, connections
from django.http import JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from catalog.gateway import CatalogUnavailable, budget, table_name
from catalog.gateway.table import table_ping
from catalog.gateway.table.migrations import STEPS, table_state
from storefront.metrics import allowed

log = logging.getLogger(__name__)

# Seconds the table's checks are kept: a cost bound (below a load balancer's interval), not a limit.
TABLE_CHECK_SECONDS = 3.0
_clock = time.monotonic


@never_cache
@require_safe
def healthz(request):
    return JsonResponse({"status": "ok"})


@never_cache
@require_safe
def readyz(request):
    database = _database_probe()  # runs beside the DynamoDB checks, on its own thread
    started = time.perf_counter()
    checks = dict(_table_checks())
    checks["database"] = _database_result(database, started)
    ready = all(check["ok"] for check in checks.values())
    _log_change(ready, checks)
    status = 200 if ready else 503
    if not allowed(request):
        return JsonResponse({"status": "ok" if ready else "unavailable"}, status=status)
    return JsonResponse({"status": "ready" if ready else "unavailable", "checks": checks}, status=status)


# --- the table: DynamoDB answers, the migrations are current; kept a few seconds --------------------

_table_lock = threading.Lock()
_table_kept = None  # (when, checks): the last table checks of this process


def _table_checks() -> dict:
    """The table's checks, from the memo while it is younger than TABLE_CHECK_SECONDS. One thread checks
    while the others wait for its result (the check is bounded by the read budget)."""
    global _table_kept
    with _table_lock:
        if _table_kept is None or _clock() - _table_kept[0] >= TABLE_CHECK_SECONDS:
            _table_kept = (_clock(), _check_table())
        return _table_kept[1]


def forget() -> None:
    """Drop the kept table checks: the next /readyz checks the table again."""
    global _table_kept
    with _table_lock:
        _table_kept = None


def _check_table() -> dict:
    checks = {}
    started = time.perf_counter()
    try:
        table_ping(table_name=table_name())
        checks["dynamodb"] = _passed(started)
        state = table_state(table=table_name(), steps=STEPS)
        # Steps this code serves without (online ones, run after a deploy) leave the server ready.
        checks["migrations"] = {"ok": not state.required, "pending": [s.name for s in state.pending]}
    except CatalogUnavailable as exc:
        checks["dynamodb"] = _failed(started, str(exc))
        checks["migrations"] = {"ok": False, "error": "not known: DynamoDB does not answer"}
    return checks


def _passed(started):
    return {"ok": True, "ms": round((time.perf_counter() - started) * 1000, 1)}


def _failed(started, error):
    return {"ok": False, "ms": round((time.perf_counter() - started) * 1000, 1), "error": error}


# --- the accounts database ------------------------------------------------------------------
# A `SELECT 1` on a thread of its own with a connection of its own, waited for only as long as the
# request's budget has left: a database that does not answer (a frozen server, a lost network) holds
# up that thread, never the check. While one probe is still waiting, the next check waits for the
# same one instead of starting another: a stalled database costs one thread, not one per check.

_probe_lock = threading.Lock()
_probe = None


def _database_probe():
    global _probe
    with _probe_lock:
        if _probe is None or _probe.done():
            _probe = Future()
            threading.Thread(target=_select_one, args=(_probe,), name="readyz-database", daemon=True).start()
        return _probe


def _select_one(result):
    try:
        with connections["default"].cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
        result.set_result(True)
    except BaseException as exc:  # handed to the check; nothing else would see it
        result.set_exception(exc)
    finally:
        connections.close_all()  # this thread's connection


def _database_result(probe, started):
    current = budget.current()
    wait = max(current.remaining(), 0.0) if current is not None else 1.0
    try:
        probe.result(timeout=wait)
    except FutureTimeout:
        return _failed(started, f"no answer within {time.perf_counter() - started:.2f} s")
    except DatabaseError as exc:
        return _failed(started, f"{type(exc).__name__}: {exc}".strip())
    return _passed(started)


# --- what the log says: each change, not each check ---------------------------------------------

_was_ready = None


def _log_change(ready, checks):
    global _was_ready
    if ready == _was_ready:
        return
    _was_ready = ready
    if ready:
        log.info("readyz: ready")
    else:
        failing = {name: check.get("error", check.get("pending")) for name, check in checks.items() if not check["ok"]}
        log.warning("readyz: not ready: %s", failing, extra={"checks": checks})
