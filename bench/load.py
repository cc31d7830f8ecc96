"""The site served as production serves it (gunicorn with scripts/run.sh's worker class and flags, DEBUG off,
whitenoise), and wrk to load it."""

import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from tools.dynamodb_local import free_port

ROOT = Path(__file__).resolve().parent.parent
RUN_SCRIPT = ROOT / "scripts" / "run.sh"
LUA = Path(__file__).with_name("wrk_report.lua")


def gunicorn_flags(root=ROOT):
    """The worker flags of `root`'s scripts/run.sh (its defaults, or WEB_CONCURRENCY /
    GUNICORN_THREADS): each tree is served with its own worker class."""
    text = (Path(root) / RUN_SCRIPT.relative_to(ROOT)).read_text()
    found = {}
    for var in ("WEB_CONCURRENCY", "GUNICORN_THREADS"):
        match = re.search(r"\$\{" + var + r":-(\d+)\}", text)
        if not match:
            raise RuntimeError(f"scripts/run.sh no longer has ${{{var}:-N}}: update bench/load.py")
        found[var] = int(os.environ.get(var) or match.group(1))
    worker_class = re.search(r"--worker-class ([\w.]+)", text).group(1)
    if "--worker-tmp-dir" not in text:
        raise RuntimeError("scripts/run.sh no longer passes --worker-tmp-dir: update bench/load.py")
    # run.sh's choice: GUNICORN_WORKER_TMP_DIR, else /dev/shm where there is one, else gunicorn's default
    tmp_dir = os.environ.get("GUNICORN_WORKER_TMP_DIR") or ("/dev/shm" if os.path.isdir("/dev/shm") else None)
    return {
        "worker_class": worker_class, "workers": found["WEB_CONCURRENCY"], "threads": found["GUNICORN_THREADS"],
        "worker_tmp_dir": tmp_dir,
    }


def _stat_fields(pid):
    """The fields of /proc/<pid>/stat after the command name (which may hold spaces and
    parentheses), from the process's state on; None where there is no such file."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def process_cpu_seconds(pid):
    """The CPU time process `pid` has used so far, all its threads, ended ones too (Linux's
    /proc/<pid>/stat: user and system time, in clock ticks), in seconds. None where there is no
    /proc or the process is gone. (Each thread's own nanosecond count in /proc/<pid>/task would
    lose the threads that have ended.)"""
    fields = _stat_fields(pid)
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK") if fields else None


def child_pids(pid):
    """The processes whose parent is `pid` (gunicorn's workers, for its master)."""
    children = []
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else []:
        fields = _stat_fields(entry) if entry.isdigit() else None
        if fields and fields[1] == str(pid):  # state, then the parent's pid
            children.append(int(entry))
    return children


def cpu_ms_per_request(before, after, requests):
    """The workers' CPU a request between two `Server.worker_cpu` readings, in ms; None if either
    is missing or a worker was replaced in between (its time would be lost)."""
    if not before or not after or set(before) != set(after) or not requests:
        return None
    return round(sum(after[pid] - before[pid] for pid in after) * 1000 / requests, 3)


def collectstatic(env, root=ROOT):
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"], cwd=root, env=env, check=True
    )


class Server:
    """gunicorn on a free loopback port, serving one table (the code of `root`: this checkout,
    or another commit's, for bench/compare.py)."""

    def __init__(self, env, log_path, root=ROOT):
        self.env = env
        self.root = Path(root)
        self.log_path = Path(log_path)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.flags = gunicorn_flags(self.root)
        self.process = None

    def __enter__(self):
        self.log = open(self.log_path, "wb")
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "storefront.wsgi:application",
                "--bind",
                f"127.0.0.1:{self.port}",
                "--worker-class",
                self.flags["worker_class"],
                "--workers",
                str(self.flags["workers"]),
                "--threads",
                str(self.flags["threads"]),
                *(["--worker-tmp-dir", self.flags["worker_tmp_dir"]] if self.flags["worker_tmp_dir"] else []),
                "--access-logfile",
                "-",
            ],
            cwd=self.root,
            env=self.env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        self._wait_ready()
        return self

    def _wait_ready(self, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"gunicorn exited with {self.process.returncode}; see {self.log_path}")
            try:
                with urllib.request.urlopen(self.url + "/", timeout=2) as response:
                    if response.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                time.sleep(0.2)
        raise RuntimeError(f"gunicorn did not answer within {timeout}s; see {self.log_path}")

    def worker_cpu(self):
        """{worker pid: CPU seconds used so far} of gunicorn's workers (every thread: the one that
        waits on the sockets and those that answer); None where /proc cannot tell. The master, which
        only watches its workers, is left out."""
        seconds = {pid: process_cpu_seconds(pid) for pid in child_pids(self.process.pid)}
        if not seconds or None in seconds.values():
            return None
        return seconds

    def get(self, path):
        with urllib.request.urlopen(self.url + path, timeout=10) as response:
            return response.read().decode()

    def __exit__(self, *exc):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()
        return False


def wrk_available():
    return shutil.which("wrk") is not None


def wrk(url, *, concurrency, duration, headers=None, method="GET", body=None, flow=None, sessions=None):
    """One load point: `concurrency` connections for `duration` seconds. Returns the figures.

    `flow` ("stock_post", "checkout") loads a POST flow instead: one thread a connection, each
    with its own signed-in session from the file `sessions` (see bench/flows.py, wrk_report.lua)."""
    threads = concurrency if flow else max(1, min(concurrency, os.cpu_count() or 1))
    cmd = [
        "wrk",
        "-t",
        str(threads),
        "-c",
        str(concurrency),
        "-d",
        f"{max(1, round(duration))}s",
        "--timeout",
        "10s",
        "-s",
        str(LUA),
    ]
    for name, value in (headers or {}).items():
        cmd += ["-H", f"{name}: {value}"]
    cmd += [url, "--"] + (["flow", flow, str(sessions)] if flow else [method, body or ""])
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=duration + 60)
    line = next((ln for ln in out.stdout.splitlines() if ln.startswith("BENCH_JSON ")), None)
    if out.returncode != 0 or line is None:
        raise RuntimeError(f"wrk failed ({out.returncode}): {out.stderr or out.stdout}")
    raw = json.loads(line[len("BENCH_JSON ") :])
    socket_errors = raw["connect"] + raw["read"] + raw["write"] + raw["timeout"]
    seconds = raw["duration_us"] / 1e6
    return {
        "concurrency": concurrency,
        "seconds": round(seconds, 2),
        "requests": raw["requests"],
        "rps": round(raw["requests"] / seconds, 1) if seconds else 0.0,
        "p50_ms": round(raw["p50_us"] / 1000, 2),
        "p95_ms": round(raw["p95_us"] / 1000, 2),
        "p99_ms": round(raw["p99_us"] / 1000, 2),
        "max_ms": round(raw["max_us"] / 1000, 2),
        "non2xx": raw["non2xx"],
        "socket_errors": socket_errors,
        "errors": raw["non2xx"] + socket_errors,
    }
