"""A probe beside `make bench`'s load points, in a process of its own: every 100 ms one GetItem through the
gateway; it writes down each read slower than 100 ms or failed and each wake-up of its own more than 50 ms
late (the host, not DynamoDB Local). docs/benchmarks.md tells how to read it.

    python -m bench.stalls OUT_FILE PRODUCT_ID   (Django settings and DYNAMODB_TABLE from the environment)

It stops on SIGTERM, or by itself when the process that started it is gone.
"""

import os
import signal
import sys
import time
from datetime import datetime
from pathlib import Path

INTERVAL = 0.1
SLOW_READ = 0.1
LATE_WAKE = 0.05
STARTED = "probe started"
STOPPED = "probe stopped"


def probe(out, product_id, *, interval=INTERVAL, stop=lambda: False, clock=time.monotonic, sleep=time.sleep,
          counts=None):
    """Read product `product_id` every `interval` seconds until `stop()`, writing each slow or failed read and
    late wake-up to `out`; counts in `counts` as it goes. Returns (reads, slow or failed reads, late wake-ups)."""
    from catalog.gateway.catalog import products

    counts = counts if counts is not None else {}
    counts.update(reads=0, slow=0, late=0)
    while not stop():
        due = clock() + interval
        sleep(interval)
        woke = clock()
        if woke - due > LATE_WAKE:
            counts["late"] += 1
            out.write(f"{_now()} late-wake {1000 * (woke - due):.0f} ms\n")
        failure = None
        try:
            products.product_get(product_id=product_id)
        except Exception as error:  # noqa: BLE001 - any failure is what the probe is there to write down
            failure = type(error).__name__
        took = clock() - woke
        counts["reads"] += 1
        if failure or took > SLOW_READ:
            counts["slow"] += 1
            out.write(f"{_now()} {'failed-read (' + failure + ')' if failure else 'slow-read'} {1000 * took:.0f} ms\n")
        out.flush()
    return counts["reads"], counts["slow"], counts["late"]


def summary(path):
    """What a probe's log says: {"started", "reads", "slow_reads", "failed_reads", "longest_read_ms",
    "late_wakes", "longest_late_ms"}; "reads" is None unless the probe wrote how many it made."""
    found = {"slow-read": [], "failed-read": [], "late-wake": []}
    started, reads = False, None
    for line in Path(path).read_text().splitlines() if Path(path).exists() else []:
        parts = line.split()
        if line[13:].startswith(STARTED):
            started = True
        elif line[13:].startswith(STOPPED):
            reads = int(parts[-2])
        elif len(parts) >= 4 and parts[1] in found:
            found[parts[1]].append(float(parts[-2]))
    return {"started": started, "reads": reads, "slow_reads": len(found["slow-read"]),
            "failed_reads": len(found["failed-read"]),
            "longest_read_ms": max(found["slow-read"] + found["failed-read"], default=0),
            "late_wakes": len(found["late-wake"]), "longest_late_ms": max(found["late-wake"], default=0)}


def _now():
    return datetime.now().astimezone().strftime("%H:%M:%S.%f")[:-3]


def main(argv):
    import django

    parent = os.getppid()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    django.setup()
    counts = {}
    with open(argv[0], "a") as out:
        out.write(f"{_now()} {STARTED}: a GetItem every {INTERVAL * 1000:.0f} ms\n")
        out.flush()
        try:
            probe(out, argv[1], stop=lambda: os.getppid() != parent, counts=counts)
        finally:
            out.write(f"{_now()} {STOPPED}: {counts.get('reads', 0)} reads\n")


if __name__ == "__main__":
    main(sys.argv[1:])
