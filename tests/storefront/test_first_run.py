"""The first run: DynamoDB Local's data lands where the README says (var/dynamodb/), an
earlier shop's data is moved there once, `manage.py` in a second terminal reads the settings
`make run` chose, and the demo import says what it is doing."""
import json
import os
import subprocess
import sys
import time
from io import StringIO

import boto3
import pytest
from django.core.management import call_command

from tests.helpers import REPO, small_catalog
from tools import dynamodb_local


def test_an_earlier_shops_data_is_moved_to_the_documented_folder_once(tmp_path):
    old, new = tmp_path / "dynamodb-local" / "var" / "dynamodb", tmp_path / "var" / "dynamodb"
    old.mkdir(parents=True)
    (old / "shared-local-instance.db").write_bytes(b"the shop's orders")
    moved = dynamodb_local.move_old_data(old, new)
    assert [f.name for f in moved] == ["shared-local-instance.db"]
    assert (new / "shared-local-instance.db").read_bytes() == b"the shop's orders"
    assert not old.exists()
    # Once: data already in the documented folder is never overwritten by a stray old copy.
    old.mkdir(parents=True)
    (old / "shared-local-instance.db").write_bytes(b"stale")
    assert dynamodb_local.move_old_data(old, new) == []
    assert (new / "shared-local-instance.db").read_bytes() == b"the shop's orders"


@pytest.mark.dynamodb_local
def test_make_runs_relative_data_path_is_the_callers_not_the_emulators(tmp_path):
    """`tools/dynamodb_local.py run --db-path var/dynamodb`, as scripts/run.sh calls it from the
    project folder, keeps the table in <that folder>/var/dynamodb/ and moves an earlier run's data."""
    dynamodb_local.install(quiet=True)
    home = tmp_path / "emulator"  # a copy of the emulator's folder (links), so nothing shared is touched
    home.mkdir()
    for name in ("DynamoDBLocal.jar", "DynamoDBLocal_lib", ".sha256"):
        (home / name).symlink_to(dynamodb_local.HOME / name)
    earlier = home / "var" / "dynamodb"  # where a run before this fix put the data
    earlier.mkdir(parents=True)
    project = tmp_path / "shop"
    project.mkdir()
    port = dynamodb_local.free_port()
    env = {**os.environ, "DYNAMODB_LOCAL_HOME": str(home)}
    # An earlier shop: its data, written where the old helper put it, by a first run there.
    process = subprocess.Popen(
        [sys.executable, str(REPO / "tools" / "dynamodb_local.py"), "run", "--port", str(port),
         "--db-path", str(earlier)], cwd=project, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        dynamodb_local.wait_ready(url, process)
        db = boto3.client("dynamodb", endpoint_url=url, region_name="eu-central-1", aws_access_key_id="x",
                          aws_secret_access_key="x")
        db.create_table(TableName="shop", KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}],
                        AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"}],
                        BillingMode="PAY_PER_REQUEST")
    finally:
        dynamodb_local.stop(process)
    assert (earlier / "shared-local-instance.db").is_file()

    # `make run` now: a relative path, from the project folder.
    process = subprocess.Popen(
        [sys.executable, str(REPO / "tools" / "dynamodb_local.py"), "run", "--port", str(port),
         "--db-path", "var/dynamodb"], cwd=project, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        dynamodb_local.wait_ready(url, process)
        db = boto3.client("dynamodb", endpoint_url=url, region_name="eu-central-1", aws_access_key_id="x",
                          aws_secret_access_key="x")
        assert db.list_tables()["TableNames"] == ["shop"]  # the earlier shop's table, moved along
        db.create_table(TableName="more", KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}],
                        AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"}],
                        BillingMode="PAY_PER_REQUEST")
        time.sleep(0.5)
    finally:
        dynamodb_local.stop(process)
    assert (project / "var" / "dynamodb" / "shared-local-instance.db").is_file()
    assert not (home / "var" / "dynamodb" / "shared-local-instance.db").exists()


def _settings_in_subprocess(tmp_path, env_file_text, **environment):
    """What storefront.settings decides in a fresh `manage.py`-like process."""
    run_env = tmp_path / "run.env"
    run_env.write_text(env_file_text)
    env = {k: v for k, v in os.environ.items()
           if k not in ("DJANGO_SECRET_KEY", "DYNAMODB_ENDPOINT_URL", "DJANGO_SETTINGS_MODULE")}
    env.update(DJANGO_RUN_ENV_FILE=str(run_env), **environment)
    code = ("from django.conf import settings; import django; django.setup(); "
            "print(settings.SECRET_KEY); print(settings.DYNAMODB_ENDPOINT_URL)")
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, env={**env, "DJANGO_SETTINGS_MODULE":
                            "storefront.settings"}, capture_output=True, text=True, check=True)
    return result.stdout.split()


def test_manage_py_in_a_second_terminal_uses_the_settings_make_run_chose(tmp_path):
    chosen = 'DJANGO_SECRET_KEY="from-make-run"\nDYNAMODB_ENDPOINT_URL="http://127.0.0.1:8001"\n'
    assert _settings_in_subprocess(tmp_path, chosen) == ["from-make-run", "http://127.0.0.1:8001"]
    # The environment still wins.
    assert _settings_in_subprocess(tmp_path, chosen, DJANGO_SECRET_KEY="mine") == ["mine", "http://127.0.0.1:8001"]


def test_the_run_file_is_never_committed():
    ignored = subprocess.run(["git", "check-ignore", "var/run.env"], cwd=REPO, capture_output=True, text=True)
    assert ignored.returncode == 0


def test_the_import_says_what_it_is_doing_stage_by_stage(ddb, tmp_path):
    catalog = tmp_path / "catalog.json"
    catalog.write_text(json.dumps(small_catalog()))
    out = StringIO()
    call_command("import_catalog", str(catalog), stdout=out)
    text = out.getvalue()
    stages = [line.split()[2:] for line in text.splitlines() if line.startswith("Writing ")]
    assert [" ".join(s).rstrip("…") for s in stages] == ["products", "search terms", "term counts"]
    assert "Writing 8 products…" in text and text.index("Writing") < text.index("Imported")
