"""A throwaway Redis server for the tests (Debian's `redis-server`), like postgres_local.

It listens on 127.0.0.1 only, on a free port, keeps nothing on disk (no RDB snapshots, no append-only
file), works in a temporary directory and deletes it when stopped. `start(port=...)` starts one again
on a port it had (a test of the shop's answers while Redis is down, and after it is back).

    python tools/redis_local.py run -- python -m pytest tests/shop   # CACHE_URL set for the command
"""
import argparse
import os
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
    process: subprocess.Popen
    directory: Path
    port: int

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def executable() -> str:
    found = shutil.which("redis-server") or "/usr/bin/redis-server"  # /usr/bin: root's PATH may lack it
    if not Path(found).exists():
        raise Missing("Redis is needed for these tests (Debian: apt-get install redis-server; `make test` does it).")
    return found


def start(port: int | None = None, timeout: float = 30) -> Server:
    """Start redis-server in a temporary directory; returns a Server once it answers PING."""
    binary = executable()
    port = port or free_port()
    directory = Path(tempfile.mkdtemp(prefix="redis-test-"))
    command = [binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(directory),
               "--save", "", "--appendonly", "no", "--protected-mode", "yes", "--daemonize", "no",
               "--logfile", str(directory / "redis.log")]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    server = Server(process=process, directory=directory, port=port)
    try:
        _wait_ready(server, timeout)
    except BaseException:
        stop(server)
        raise
    return server


def _ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def _wait_ready(server: Server, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            log = server.directory / "redis.log"
            detail = log.read_text()[-2000:] if log.exists() else ""
            raise Missing(f"redis-server exited with code {server.process.returncode}: {detail}")
        if _ping(server.port):
            return
        time.sleep(0.05)
    raise Missing(f"redis-server did not answer on port {server.port} within {timeout}s")


def stop(server: Server) -> None:
    """Stop the server (what it holds is lost) and delete its directory."""
    if server.process.poll() is None:
        server.process.terminate()
        try:
            server.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.process.kill()
            server.process.wait()
    shutil.rmtree(server.directory, ignore_errors=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="action", required=True)
    run = sub.add_parser("run", help="start a throwaway server, run a command with CACHE_URL set, stop it")
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
        print(f"Redis on 127.0.0.1:{server.port} (throwaway); CACHE_URL={server.url}", flush=True)
        return subprocess.call(command, env={**os.environ, "CACHE_URL": server.url})
    finally:
        stop(server)


if __name__ == "__main__":
    sys.exit(main())
