"""The gunicorn worker that `make run` serves with (storefront/gunicorn_worker.py), in a real
gunicorn on loopback: every request on a kept-alive connection is answered, in order, and logged;
a connection that goes quiet is still served when it speaks again; a client that keeps sending
does not keep anyone else waiting; a stopping server closes such a connection and exits."""
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest

from bench.load import gunicorn_flags
from storefront.gunicorn_worker import LINGER_SECONDS
from tests.helpers import REPO
from tools.dynamodb_local import free_port

TIMEOUT = 30  # seconds for any one answer (a loaded 2-core machine is slow, never stuck this long)


@pytest.fixture
def serve(tmp_path):
    """serve(threads=N): gunicorn with run.sh's worker class and one worker of N threads, serving
    tests/storefront/echo_app.py; yields (port, access log path, process)."""
    started = []

    def start(threads=2):
        port, log = free_port(), tmp_path / "access.log"
        process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "tests.storefront.echo_app:application",
             "--bind", f"127.0.0.1:{port}", "--worker-class", gunicorn_flags()["worker_class"],
             "--workers", "1", "--threads", str(threads), "--access-logfile", str(log),
             "--graceful-timeout", "10"],
            cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        started.append(process)
        deadline = time.monotonic() + 30
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) as s:
                    ask(s, "/ready")
                    break
            except OSError:
                assert process.poll() is None and time.monotonic() < deadline, "gunicorn did not start"
                time.sleep(0.1)
        return port, log, process

    yield start
    for process in started:
        if process.poll() is None:
            process.kill()
            process.wait()


def request(path):
    return f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()


def read_answer(s, buffer):
    """One answer from socket `s` ({"status", "headers", "body"}) and the bytes read past it;
    None where the server closed the connection first."""
    while b"\r\n\r\n" not in buffer:
        chunk = s.recv(65536)
        if not chunk:
            return None, buffer
        buffer += chunk
    head, buffer = buffer.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:])}
    length = int(headers.get("content-length", 0))
    while len(buffer) < length:
        chunk = s.recv(65536)
        if not chunk:
            return None, buffer
        buffer += chunk
    answer = {"status": lines[0], "headers": headers, "body": buffer[:length].decode()}
    return answer, buffer[length:]


def ask(s, path):
    s.settimeout(TIMEOUT)
    s.sendall(request(path))
    answer, rest = read_answer(s, b"")
    assert answer is not None, f"the server closed the connection instead of answering {path}"
    assert rest == b""
    return answer


def test_every_request_on_a_kept_alive_connection_is_answered_and_logged(serve):
    port, log, _ = serve()
    with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) as s:
        bodies = [ask(s, f"/page/{n}")["body"] for n in range(200)]
    assert bodies == [f"/page/{n}" for n in range(200)]  # one connection, each its own answer
    deadline = time.monotonic() + TIMEOUT
    while log.read_text().count("/page/") < 200 and time.monotonic() < deadline:
        time.sleep(0.05)
    logged = [line for line in log.read_text().splitlines() if "/page/" in line]
    assert len(logged) == 200 and all('" 200 ' in line for line in logged)


def test_pipelined_requests_are_answered_in_order(serve):
    port, _, _ = serve()
    with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) as s:
        s.sendall(b"".join(request(f"/{name}") for name in ("first", "second", "third")))
        buffer, bodies = b"", []
        for _ in range(3):
            answer, buffer = read_answer(s, buffer)
            bodies.append(answer["body"])
        assert bodies == ["/first", "/second", "/third"]
        assert ask(s, "/fourth")["body"] == "/fourth"


def test_a_connection_quiet_for_longer_than_the_wait_is_served_when_it_speaks_again(serve):
    port, _, _ = serve()
    with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) as s:
        assert ask(s, "/before")["body"] == "/before"
        time.sleep(LINGER_SECONDS * 50)  # the thread has long handed the connection back
        assert ask(s, "/after")["body"] == "/after"
        assert ask(s, "/at-once")["body"] == "/at-once"


def test_a_client_sending_back_to_back_does_not_keep_another_waiting(serve):
    """One thread, two connections: the first keeps DEPTH requests waiting on its connection (it
    sends the next before reading an answer) until the second has its answer, or LIMIT answers.
    While the second waits, the first gets a few answers at most: the thread serves it no longer
    once another connection waits (without that rule it went on for hundreds to thousands, until
    the sending client happened to pause)."""
    DEPTH, LIMIT = 8, 20_000
    port, _, _ = serve(threads=1)
    second_answered = threading.Event()
    answered = []

    def keep_sending():
        with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) as s:
            s.sendall(request("/busy") * DEPTH)
            buffer = b""
            while not second_answered.is_set() and len(answered) < LIMIT:
                answer, buffer = read_answer(s, buffer)
                assert answer["body"] == "/busy"
                answered.append(1)
                s.sendall(request("/busy"))

    busy = threading.Thread(target=keep_sending)
    busy.start()
    try:
        while not answered:  # the first connection is being served back to back
            assert busy.is_alive()
            time.sleep(0.001)
        with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) as s:
            before = len(answered)
            assert ask(s, "/other")["body"] == "/other"
            meanwhile = len(answered) - before
        second_answered.set()
    finally:
        busy.join(timeout=TIMEOUT)
    assert meanwhile < 100, f"the first connection got {meanwhile} answers while the second waited"


def test_a_stopping_server_closes_a_busy_kept_alive_connection_and_exits(serve):
    port, _, process = serve()
    with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) as s:
        assert ask(s, "/one")["body"] == "/one"
        process.send_signal(signal.SIGTERM)
        closed = False
        for n in range(10_000):  # requests back to back until the server says it is closing
            s.sendall(request(f"/more/{n}"))
            answer, _ = read_answer(s, b"")
            if answer is None or answer["headers"].get("connection", "").lower() == "close":
                closed = True
                break
        assert closed
    assert process.wait(timeout=TIMEOUT) == 0
