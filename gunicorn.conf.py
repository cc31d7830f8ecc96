"""gunicorn's settings for this project, read by gunicorn from the directory it starts in
(`make run`, the README's deployment and the bench all start it here).

gunicorn sends `Server: gunicorn` with every answer and has no setting for it; the name of the
software behind a site helps only those looking for its weaknesses. The header keeps a neutral value.

Metrics of several workers (prometheus_client's multiprocess mode): each worker writes its figures
to files in PROMETHEUS_MULTIPROC_DIR and /metrics adds up every file. The directory is made empty
for each start of the server (figures of an earlier run would be added in): a new one of its own
when PROMETHEUS_MULTIPROC_DIR is not set (in /dev/shm where there is one; removed at the end), or
the one set, emptied. A worker that ends is marked dead (`child_exit`): its counters stay in the
sums, its live gauges go.
"""
import os
import shutil
import tempfile
from pathlib import Path

import gunicorn.http.wsgi

gunicorn.http.wsgi.SERVER = "Fromatoz"

_made_dir = None


def _json_lines(server):
    """gunicorn's own lines (workers started, timed out, ended) in the site's log format (LOG_FORMAT, as
    storefront/settings.py reads it): JSON by default, one object a line like the app's. Its access log
    stays off (the app writes a line per request: storefront/requestlog.py)."""
    if os.environ.get("LOG_FORMAT", "").strip().lower() not in ("", "json"):
        return
    from pythonjsonlogger.json import JsonFormatter

    formatter = JsonFormatter("%(levelname)s %(name)s %(message)s", timestamp="time",
                              rename_fields={"levelname": "level", "name": "logger"})
    for handler in server.log.error_log.handlers:
        handler.setFormatter(formatter)


def on_reload(server):
    _json_lines(server)


def on_starting(server):
    global _made_dir
    _json_lines(server)
    given = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if given:
        path = Path(given)
        path.mkdir(parents=True, exist_ok=True)
        for stale in path.glob("*.db"):
            stale.unlink()
    else:
        _made_dir = tempfile.mkdtemp(prefix="fromatoz-metrics-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = _made_dir  # the workers inherit it
    server.log.info("Metrics of every worker in %s", os.environ["PROMETHEUS_MULTIPROC_DIR"])


def child_exit(server, worker):
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)


def on_exit(server):
    if _made_dir:
        shutil.rmtree(_made_dir, ignore_errors=True)
