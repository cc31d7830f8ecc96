"""DynamoDB Local, the emulator AWS publishes: fetch it, check it, run it.

It is not on PyPI; AWS's npm package amplify-dynamodb-simulator carries it. We fetch that one
tarball with `npm pack`, check its sha256, and unpack the emulator under var/ (git-ignored).

    python tools/dynamodb_local.py install
    python tools/dynamodb_local.py run --port 8001 --db-path var/dynamodb

A relative --db-path is the caller's (from where the command is run), not the emulator's folder.
"""
import argparse
import os
import shutil
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

try:  # imported as tools.<name> (tests) or run as tools/<name>.py (make)
    from tools.npm_tarball import Missing, fetch
except ImportError:
    from npm_tarball import Missing, fetch

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "amplify-dynamodb-simulator@2.9.30"
SHA256 = "3503ffac19f183407909fecdacf4db51ab1fdad1da7b2f177016670b2d80e4b9"
HOME = Path(os.environ.get("DYNAMODB_LOCAL_HOME", ROOT / "var" / "dynamodb-local"))
JAR = HOME / "DynamoDBLocal.jar"
LIB = HOME / "DynamoDBLocal_lib"


def installed():
    marker = HOME / ".sha256"
    return JAR.is_file() and LIB.is_dir() and marker.is_file() and marker.read_text().strip() == SHA256


def install(quiet=False):
    """Fetch, check and unpack the emulator, unless it is there already."""
    if installed():
        return HOME
    with tempfile.TemporaryDirectory() as tmp:
        tarball = fetch(PACKAGE, SHA256, tmp, quiet=quiet)
        staging = Path(tmp) / "unpacked"
        with tarfile.open(tarball) as tar:
            members = [m for m in tar.getmembers() if m.name.startswith("package/emulator/")]
            tar.extractall(staging, members=members, filter="data")
        if HOME.exists():
            shutil.rmtree(HOME)
        HOME.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(staging / "package" / "emulator"), HOME)
        (HOME / ".sha256").write_text(SHA256 + "\n")
    if not quiet:
        print(f"DynamoDB Local installed in {HOME}")
    return HOME


# The JVM's performance counters live in a file it maps under /tmp, written at every safepoint: on
# a disk-backed /tmp a write that waits for the disk stops the whole JVM meanwhile (a known cause
# of pauses of a second or more). Nothing here reads those counters (jstat, jps).
JAVA_OPTIONS = ["-XX:+PerfDisableSharedMem"]


def command(port, db_path=None, java_options=()):
    if not shutil.which("java"):
        raise Missing(
            "Java 17 is needed to run DynamoDB Local (apt-get install openjdk-17-jre-headless), "
            "or set DYNAMODB_ENDPOINT_URL to a DynamoDB you already have (empty for AWS)."
        )
    cmd = ["java", *JAVA_OPTIONS, *java_options, f"-Djava.library.path={LIB}", "-jar", str(JAR), "-port", str(port)]
    if db_path is None:
        cmd.append("-inMemory")
    else:
        Path(db_path).mkdir(parents=True, exist_ok=True)
        cmd += ["-dbPath", str(db_path)]
    return cmd + ["-sharedDb", "-disableTelemetry"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_ready(url, process=None, timeout=60):
    """Wait until DynamoDB Local answers HTTP at `url`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise Missing(f"DynamoDB Local exited with code {process.returncode}")
        try:
            urllib.request.urlopen(url, timeout=1)
            return
        except urllib.error.HTTPError:
            return  # it answers (400 to a bare GET): it is up
        except OSError:
            time.sleep(0.2)
    raise Missing(f"DynamoDB Local did not answer at {url} within {timeout}s")


def start(port=None, db_path=None, log=None, java_options=()):
    """Start DynamoDB Local in the background; returns (process, endpoint_url). `java_options` go
    to the JVM (the bench logs its pauses with them)."""
    install(quiet=True)
    port = port or free_port()
    process = subprocess.Popen(
        command(port, db_path, java_options), cwd=HOME, stdout=log or subprocess.DEVNULL, stderr=subprocess.STDOUT
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_ready(url, process)
    except BaseException:
        stop(process)
        raise
    return process, url


def stop(process):
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def move_old_data(old, new):
    """Move the files of an earlier `make run` from where the emulator puts a relative data path (`old`:
    resolved inside the emulator's folder, its working directory) to `new`, once: only when `new` has
    no data yet. Returns the files moved."""
    old, new = Path(old), Path(new)
    if not old.is_dir() or old.resolve() == new.resolve():
        return []
    files = [f for f in old.iterdir() if f.is_file()]
    if not files or any(new.glob("*.db")):
        return []
    new.mkdir(parents=True, exist_ok=True)
    for f in files:
        shutil.move(str(f), new / f.name)
    try:
        old.rmdir()
    except OSError:
        pass  # something else is in it: leave it
    return files


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="action", required=True)
    sub.add_parser("install", help="fetch, check and unpack DynamoDB Local")
    run = sub.add_parser("run", help="run DynamoDB Local in the foreground")
    run.add_argument("--port", type=int, default=8001)
    run.add_argument("--db-path", default=str(ROOT / "var" / "dynamodb"))
    args = parser.parse_args(argv)
    try:
        install()
        if args.action == "run":
            # The data path is resolved before the emulator's folder becomes the working directory.
            db_path = Path(args.db_path).resolve()
            if not Path(args.db_path).is_absolute():
                moved = move_old_data(HOME / args.db_path, db_path)
                if moved:
                    print(f"Moved the data of an earlier run from {HOME / args.db_path} to {db_path}", file=sys.stderr)
            os.chdir(HOME)
            os.execvp("java", command(args.port, db_path))
    except Missing as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
