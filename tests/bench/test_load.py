"""bench/load.py's reading of gunicorn's CPU time, against real processes (Linux's /proc)."""
import subprocess
import sys
import textwrap
from types import SimpleNamespace

import pytest

from bench.load import Server, child_pids, cpu_ms_per_request, process_cpu_seconds

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads Linux's /proc")

# Uses `seconds` of CPU in two threads (half each), then says so and waits for its standard input.
SPIN = textwrap.dedent("""
    import sys, threading, time
    def spin(seconds):
        end = time.thread_time() + seconds
        while time.thread_time() < end:
            pass
    threads = [threading.Thread(target=spin, args=(float(sys.argv[1]) / 2,)) for _ in range(2)]
    for t in threads: t.start()
    for t in threads: t.join()
    print("spun", flush=True)
    sys.stdin.read()
""")


def _spinner(seconds):
    process = subprocess.Popen(
        [sys.executable, "-c", SPIN, str(seconds)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert process.stdout.readline() == "spun\n"
    return process


def _stop(process):
    process.stdin.close()
    process.wait(timeout=10)


def test_a_process_cpu_time_counts_every_thread():
    process = _spinner(0.4)
    try:
        used = process_cpu_seconds(process.pid)
    finally:
        _stop(process)
    # the 0.4 s spun in two threads that have ended since, and the interpreter's start on top
    assert 0.4 <= used < 5
    assert process_cpu_seconds(process.pid) is None  # gone


MASTER = textwrap.dedent("""
    import subprocess, sys
    kids = [subprocess.Popen([sys.executable, "-c", sys.argv[1], "0.1"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True) for _ in range(2)]
    for kid in kids:
        kid.stdout.readline()
    print(" ".join(str(kid.pid) for kid in kids), flush=True)
    sys.stdin.read()
    for kid in kids:
        kid.stdin.close()
        kid.wait()
""")


def test_the_workers_of_a_master_are_its_children_and_each_has_its_cpu_time():
    master = subprocess.Popen(
        [sys.executable, "-c", MASTER, SPIN], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        kids = sorted(int(pid) for pid in master.stdout.readline().split())
        assert sorted(child_pids(master.pid)) == kids
        # Server.worker_cpu reads those children (not the master), one figure a worker
        server = Server.__new__(Server)
        server.process = SimpleNamespace(pid=master.pid)
        cpu = server.worker_cpu()
        assert sorted(cpu) == kids and all(seconds >= 0.1 for seconds in cpu.values())
    finally:
        _stop(master)


def test_cpu_a_request_is_the_workers_time_between_two_readings():
    before, after = {10: 1.0, 11: 2.0}, {10: 1.3, 11: 2.1}
    assert cpu_ms_per_request(before, after, 200) == 2.0  # 0.4 s of CPU over 200 requests
    # a worker replaced meanwhile (its time lost), no reading, or no request: no figure
    assert cpu_ms_per_request(before, {10: 1.3, 12: 0.1}, 200) is None
    assert cpu_ms_per_request(None, after, 200) is None
    assert cpu_ms_per_request(before, after, 0) is None
