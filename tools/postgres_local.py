"""A throwaway PostgreSQL server for the tests (Debian's `postgresql` package), like dynamodb_local.

initdb and pg_ctl refuse to run as root, and CI runs as root: then they run as the `postgres` OS user
(runuser). The cluster lives in a temporary directory, listens on 127.0.0.1 only, on a free port,
trusts local connections (nobody else can reach it) and is deleted when stopped.

    python tools/postgres_local.py run -- python -m pytest tests/shop   # DATABASE_URL set for the command
"""
import argparse
import glob
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path


class Missing(RuntimeError):
    pass


@dataclass
class Server:
    directory: Path
    port: int
    as_user: str | None

    @property
    def url(self):
        return f"postgres://postgres@127.0.0.1:{self.port}/postgres"

    def url_for(self, database):
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}"


def bin_dir():
    """Where initdb and pg_ctl are: the newest /usr/lib/postgresql/<version>/bin, or the PATH."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[4]))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    if initdb:
        return Path(initdb).resolve().parent
    raise Missing("PostgreSQL is needed for these tests (Debian: apt-get install postgresql; `make test` does it).")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _run_as(user, cmd, **kwargs):
    if user is not None:
        cmd = ["runuser", "-u", user, "--", *cmd]
    return subprocess.run(cmd, check=True, **kwargs)


def start(timeout=60):
    """initdb in a temporary directory and start the server; returns a Server."""
    bindir = bin_dir()
    as_user = None
    directory = Path(tempfile.mkdtemp(prefix="pg-test-"))
    if os.geteuid() == 0:
        as_user = "postgres"
        try:
            entry = pwd.getpwnam(as_user)
        except KeyError:
            raise Missing("As root this needs the `postgres` OS user (the postgresql package makes it).") from None
        os.chown(directory, entry.pw_uid, entry.pw_gid)
    data = directory / "data"
    port = free_port()
    try:
        _run_as(as_user, [str(bindir / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust",
                          "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"],
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        options = (f"-p {port} -c listen_addresses=127.0.0.1 -k {directory} -c fsync=off "
                   "-c synchronous_commit=off -c full_page_writes=off -c max_connections=100")
        _run_as(as_user, [str(bindir / "pg_ctl"), "-D", str(data), "-l", str(directory / "log"), "-o", options,
                          "-w", "-t", str(timeout), "start"],
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    except subprocess.CalledProcessError as exc:
        log = directory / "log"
        detail = (exc.stderr or b"").decode(errors="replace") + (log.read_text() if log.exists() else "")
        shutil.rmtree(directory, ignore_errors=True)
        raise Missing(f"PostgreSQL did not start: {detail.strip()[-2000:]}") from None
    server = Server(directory=directory, port=port, as_user=as_user)
    _wait_ready(server, timeout)
    return server


def _wait_ready(server, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", server.port)) == 0:
                return
        time.sleep(0.1)
    stop(server)
    raise Missing(f"PostgreSQL did not answer on port {server.port} within {timeout}s")


def stop(server):
    """Stop the server (fast shutdown) and delete its directory."""
    try:
        _run_as(server.as_user, [str(bin_dir() / "pg_ctl"), "-D", str(server.directory / "data"), "-m", "fast",
                                 "-w", "stop"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except subprocess.CalledProcessError:
        pass
    shutil.rmtree(server.directory, ignore_errors=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="action", required=True)
    run = sub.add_parser("run", help="start a throwaway server, run a command with DATABASE_URL set, stop it")
    run.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command to run after --")
    try:
        server = start()
    except Missing as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    try:
        print(f"PostgreSQL on 127.0.0.1:{server.port} (throwaway); DATABASE_URL={server.url}", flush=True)
        return subprocess.call(command, env={**os.environ, "DATABASE_URL": server.url})
    finally:
        stop(server)


if __name__ == "__main__":
    sys.exit(main())
