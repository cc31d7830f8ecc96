"""/readyz and a stalled accounts database: a real gunicorn on a throwaway PostgreSQL whose server is
frozen (SIGSTOP): 503 within the read budget, naming the database, while DynamoDB answers; ready again
after SIGCONT, without a restart."""
import os
import signal
import subprocess
import sys
import time

import pytest
import requests

from tests.helpers import REPO
from tests.shop.test_two_servers import AppServer

pytestmark = [pytest.mark.dynamodb_local, pytest.mark.servers]

READ_BUDGET = 1.0
SLACK = 1.5  # a correctness bound, not a speed figure: without the budget the check waited for ever


def readyz(server):
    start = time.monotonic()
    response = requests.get(server.url + "/readyz", timeout=30)
    return response, time.monotonic() - start


def test_readyz_is_503_within_the_budget_while_the_database_is_frozen_and_200_after(
        local_catalog, settings, postgres_server, tmp_path):
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))},
        "DJANGO_SETTINGS_MODULE": "storefront.settings", "DJANGO_SECRET_KEY": "readyz-database",
        "DJANGO_DEBUG": "1", "DATABASE_URL": postgres_server.url, "DATABASE_CONN_MAX_AGE": "60",
        "DYNAMODB_ENDPOINT_URL": settings.DYNAMODB_ENDPOINT_URL, "DYNAMODB_TABLE": settings.DYNAMODB_TABLE,
        "DYNAMODB_READ_BUDGET": str(READ_BUDGET), "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
    }
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=REPO, env=env, check=True,
                   timeout=120)
    postmaster = int((postgres_server.directory / "data" / "postmaster.pid").read_text().split()[0])
    with AppServer(env, tmp_path / "gunicorn.log") as server:
        assert readyz(server)[0].status_code == 200
        os.kill(postmaster, signal.SIGSTOP)
        try:
            for _ in range(2):  # the second check while the first's probe still waits: no pile-up
                response, seconds = readyz(server)
                assert response.status_code == 503 and seconds < READ_BUDGET + SLACK
                checks = response.json()["checks"]
                assert checks["database"]["ok"] is False and "no answer within" in checks["database"]["error"]
                assert checks["dynamodb"]["ok"] is True
        finally:
            os.kill(postmaster, signal.SIGCONT)
        deadline = time.monotonic() + 20
        while readyz(server)[0].status_code != 200:
            assert time.monotonic() < deadline, "not ready again after the database came back"
            time.sleep(0.5)
