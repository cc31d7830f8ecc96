"""Several gunicorn workers' metrics add up (prometheus_client's multiprocess mode, set up by
gunicorn.conf.py): a real gunicorn with two workers on loopback, its workers replaced one by one
(the counts of the ended ones stay in the sums), and a new start of the server counts from zero."""
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor

import psutil
from prometheus_client.parser import text_string_to_metric_families

from bench.load import gunicorn_flags
from tests.helpers import REPO
from tests.storefront.test_deploy import PRODUCTION

HEALTHZ_200 = ("fromatoz_http_requests_total",
               {"method": "GET", "status": "200", "view": "healthz"})


class Gunicorn:
    def __init__(self, tmp_path, **variables):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("DJANGO_", "DYNAMODB_", "PROMETHEUS_", "OTEL_"))}
        env.update(PRODUCTION, DJANGO_SETTINGS_MODULE="storefront.settings", DJANGO_HTTPS="0",
                   DJANGO_ALLOWED_HOSTS="127.0.0.1", DYNAMODB_ENDPOINT_URL="http://127.0.0.1:9", **variables)
        self.log_path = tmp_path / f"gunicorn-{self.port}.log"
        self.log = open(self.log_path, "wb")
        self.process = subprocess.Popen(
            [str(REPO / ".venv" / "bin" / "gunicorn"), "storefront.wsgi:application", "--bind",
             f"127.0.0.1:{self.port}", "--worker-class", gunicorn_flags()["worker_class"], "--workers", "2",
             "--threads", "2"],
            cwd=REPO, env=env, stdout=self.log, stderr=subprocess.STDOUT,
        )
        self.wait_workers(2)

    def get(self, path):
        """GET on a new connection (so that the requests spread over the workers)."""
        deadline = time.monotonic() + 30
        while True:
            connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
            try:
                connection.request("GET", path)
                response = connection.getresponse()
                return response.status, response.read().decode()
            except OSError:
                assert time.monotonic() < deadline, self.log_path.read_text()
                time.sleep(0.2)
            finally:
                connection.close()

    def healthz(self, times):
        with ThreadPoolExecutor(8) as pool:
            assert set(pool.map(lambda _: self.get("/healthz")[0], range(times))) == {200}

    def counted(self):
        status, text = self.get("/metrics")
        assert status == 200, text
        name, labels = HEALTHZ_200
        return sum(sample.value for family in text_string_to_metric_families(text) for sample in family.samples
                   if sample.name == name and sample.labels == labels)

    def wait_workers(self, count, other_than=()):
        deadline = time.monotonic() + 30
        while True:
            workers = [c.pid for c in psutil.Process(self.process.pid).children() if c.pid not in other_than]
            if len(workers) >= count and self.get("/metrics")[0] == 200:  # not a /healthz: those are counted
                return workers
            assert time.monotonic() < deadline, "gunicorn's workers did not start"
            time.sleep(0.2)

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=20)
        self.log.close()
        return self.log_path.read_text()


def test_two_workers_counts_add_up_and_stay_when_the_workers_are_replaced(tmp_path):
    server = Gunicorn(tmp_path)
    try:
        before = server.counted()
        assert before == 0  # a directory of its own: nothing from an earlier run
        server.healthz(20)
        assert server.counted() == before + 20
        first = server.wait_workers(2)
        for pid in first:  # every worker that counted ends; gunicorn starts new ones (child_exit marks them dead)
            os.kill(pid, signal.SIGTERM)
            server.wait_workers(1, other_than=first)
        assert not set(server.wait_workers(2, other_than=first)) & set(first)
        server.healthz(20)
        assert server.counted() == before + 40
    finally:
        log = server.stop()
    started = [json.loads(line) for line in log.splitlines() if "Metrics of every worker" in line]
    assert started and started[0]["logger"] == "gunicorn.error"  # gunicorn's lines are JSON too (LOG_FORMAT)
    metrics_dir = re.search(r"Metrics of every worker in (\S+)", started[0]["message"]).group(1)
    assert not os.path.exists(metrics_dir)  # a directory of its own, removed at the end


def test_a_new_start_counts_from_zero_in_the_directory_it_was_given(tmp_path):
    given = tmp_path / "metrics"
    first = Gunicorn(tmp_path, PROMETHEUS_MULTIPROC_DIR=str(given))
    try:
        first.healthz(10)
        counted_first = first.counted()
        assert counted_first >= 10
    finally:
        first.stop()
    assert list(given.glob("*.db"))  # what the first run's workers left
    second = Gunicorn(tmp_path, PROMETHEUS_MULTIPROC_DIR=str(given))
    try:
        before = second.counted()
        assert before < counted_first  # the first run's figures are gone, not added in
        second.healthz(3)
        assert second.counted() == before + 3
    finally:
        second.stop()

