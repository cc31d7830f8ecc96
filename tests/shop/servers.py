"""App servers for tests that talk HTTP to the shop as a browser would: gunicorn processes on free
loopback ports, on a throwaway PostgreSQL database and a DynamoDB Local table."""
import os
import re
import subprocess
import sys
import time

import requests

from bench.load import gunicorn_flags
from tests.helpers import REPO
from tools import dynamodb_local
from tools.dynamodb_local import free_port

TIMEOUT = 30  # seconds for any one HTTP request (a loaded 2-core machine is slow, never stuck this long)


class AppServer:
    """gunicorn on a free loopback port; always stopped on the way out."""

    def __init__(self, env, log_path, *, workers=1, threads=2):
        self.env, self.log_path, self.port = env, log_path, free_port()
        self.workers, self.threads = workers, threads
        self.url = f"http://127.0.0.1:{self.port}"

    def __enter__(self):
        self.log = open(self.log_path, "wb")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "storefront.wsgi:application", "--bind", f"127.0.0.1:{self.port}",
             "--worker-class", gunicorn_flags()["worker_class"],
             "--workers", str(self.workers), "--threads", str(self.threads)],
            cwd=REPO, env=self.env, stdout=self.log, stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"gunicorn exited: {self.log_path.read_text()[-2000:]}")
            try:
                requests.get(self.url + "/", timeout=TIMEOUT)
                return self
            except requests.RequestException:
                time.sleep(0.2)
        raise RuntimeError(f"gunicorn did not answer within 60 s: {self.log_path.read_text()[-2000:]}")

    def __exit__(self, *exc):
        dynamodb_local.stop(self.process)  # terminate, then kill if it has not stopped within 10 s
        self.log.close()
        return False


def csrf(html):
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)


def hidden(html, name):
    return re.search(rf'name="{name}" value="([^"]+)"', html).group(1)


def app_env(settings, database_url):
    """The environment of an app server on `database_url` and the test's DynamoDB Local table."""
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))},
        "DJANGO_SETTINGS_MODULE": "storefront.settings",
        "DJANGO_SECRET_KEY": "two-servers-one-secret",
        "DJANGO_DEBUG": "1",  # static files from the app folders (no collectstatic)
        "DATABASE_URL": database_url,
        "DATABASE_CONN_MAX_AGE": "60",
        "DYNAMODB_ENDPOINT_URL": settings.DYNAMODB_ENDPOINT_URL,
        "DYNAMODB_TABLE": settings.DYNAMODB_TABLE,
        "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
        "STOCK_HOLD_SECONDS": str(settings.STOCK_HOLD_SECONDS),  # timed holds as the test has them (off: 0)
    }


def manage(env, *args, timeout=120):
    """`manage.py <args>` in that environment (what a release runs); its output."""
    return subprocess.run([sys.executable, "manage.py", *args], cwd=REPO, env=env, check=True, timeout=timeout,
                          capture_output=True, text=True).stdout
