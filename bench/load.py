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
        flags = self.flags
        tmp_dir = ["--worker-tmp-dir", flags["worker_tmp_dir"]] if flags["worker_tmp_dir"] else []
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "storefront.wsgi:application", "--bind", f"127.0.0.1:{self.port}",
             "--worker-class", flags["worker_class"], "--workers", str(flags["workers"]),
             "--threads", str(flags["threads"]), *tmp_dir, "--access-logfile", "-"],
            cwd=self.root, env=self.env, stdout=self.log, stderr=subprocess.STDOUT,
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


def wrk(url, *, concurrency, duration, headers=None, method="GET", body=None):
    """One load point: `concurrency` connections for `duration` seconds; wrk's figures (bench/wrk_report.lua)."""
    cmd = ["wrk", "-t", str(max(1, min(concurrency, os.cpu_count() or 1))), "-c", str(concurrency),
           "-d", f"{max(1, round(duration))}s", "--timeout", "10s", "-s", str(LUA)]
    for name, value in (headers or {}).items():
        cmd += ["-H", f"{name}: {value}"]
    out = subprocess.run([*cmd, url, "--", method, body or ""], capture_output=True, text=True, timeout=duration + 60)
    line = next((ln for ln in out.stdout.splitlines() if ln.startswith("BENCH_JSON ")), None)
    if out.returncode != 0 or line is None:
        raise RuntimeError(f"wrk failed ({out.returncode}): {out.stderr or out.stdout}")
    raw = json.loads(line[len("BENCH_JSON "):])
    seconds, socket_errors = raw["duration_us"] / 1e6, raw["connect"] + raw["read"] + raw["write"] + raw["timeout"]
    return {"concurrency": concurrency, "seconds": round(seconds, 2), "requests": raw["requests"],
            "rps": round(raw["requests"] / seconds, 1) if seconds else 0.0,
            **{f"{k}_ms": round(raw[f"{k}_us"] / 1000, 2) for k in ("p50", "p95", "p99", "max")},
            "non2xx": raw["non2xx"], "socket_errors": socket_errors, "errors": raw["non2xx"] + socket_errors}
