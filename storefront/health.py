"""Health checks for a load balancer, every few seconds, without a session or a CSRF cookie:

- `/healthz`: the process answers. Touches nothing: 200 `{"status": "ok"}`.
- `/readyz`: this server can serve shoppers: DynamoDB answers (one GetItem of a key that is never
  written), the accounts database answers (`SELECT 1`), and the table's migrations are current; all
  within the request's read budget (DYNAMODB_READ_BUDGET). 200 `{"status": "ready", ...}` or 503
  `{"status": "unavailable", ...}` with each check's result.
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

from catalog.gateway import CatalogUnavailable, budget
from catalog.gateway.alerts import note_table_state
from catalog.gateway.client import table_name
from catalog.gateway.migrations import table_state
from catalog.gateway.schema import table_ping

log = logging.getLogger(__name__)


@never_cache
@require_safe
def healthz(request):
    return JsonResponse({"status": "ok"})


@never_cache
@require_safe
def readyz(request):
    database = _database_probe()  # runs beside the DynamoDB checks, on its own thread
    checks = {}
    started = time.perf_counter()
    try:
        table_ping(table_name=table_name())
        checks["dynamodb"] = _passed(started)
        state = table_state(table=table_name())
        note_table_state([s.name for s in state.pending])  # what this server's stock writes need to know
        # Steps this code serves without (online ones, run after a deploy) leave the server ready.
        checks["migrations"] = {"ok": not state.required, "pending": [s.name for s in state.pending]}
    except CatalogUnavailable as exc:
        checks["dynamodb"] = _failed(started, str(exc))
        checks["migrations"] = {"ok": False, "error": "not known: DynamoDB does not answer"}
    checks["database"] = _database_result(database, started)
    ready = all(check["ok"] for check in checks.values())
    _log_change(ready, checks)
    return JsonResponse({"status": "ready" if ready else "unavailable", "checks": checks},
                        status=200 if ready else 503)


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
