"""A probe run beside the load points of `make bench`, in a process of its own: every 100 ms it
reads one product (one GetItem, through the gateway) and writes down any read slower than 100 ms,
and any wake-up of its own more than 50 ms late (the host not running it: the machine, not
DynamoDB Local). Set beside the load points' slowest answers and the JVM's pause log, it tells a
pause of DynamoDB Local from a stall of the whole machine.

    python -m bench.stalls OUT_FILE PRODUCT_ID   (Django settings and DYNAMODB_TABLE from the environment)
"""

import sys
import time
from datetime import datetime
from pathlib import Path

INTERVAL = 0.1
SLOW_READ = 0.1
LATE_WAKE = 0.05


def probe(out, product_id, *, interval=INTERVAL, stop=lambda: False, clock=time.monotonic, sleep=time.sleep):
    """Read product `product_id` every `interval` seconds until `stop()`; write a line to `out`
    for each slow read or late wake-up. Returns (reads, slow reads, late wake-ups)."""
    from catalog.gateway import products
    from catalog.gateway.errors import CatalogError

    reads = slow = late = 0
    while not stop():
        due = clock() + interval
        sleep(interval)
        woke = clock()
        if woke - due > LATE_WAKE:
            late += 1
            out.write(f"{_now()} late-wake {1000 * (woke - due):.0f} ms\n")
        failure = None
        try:
            products.product_get(product_id=product_id)
        except CatalogError as error:
            failure = type(error).__name__
        took = clock() - woke
        reads += 1
        if failure or took > SLOW_READ:
            slow += 1
            out.write(f"{_now()} {'failed-read (' + failure + ')' if failure else 'slow-read'} {1000 * took:.0f} ms\n")
        out.flush()
    return reads, slow, late


def summary(path):
    """What a probe's log says: {"slow_reads", "longest_read_ms", "late_wakes", "longest_late_ms"}."""
    found = {"slow-read": [], "failed-read": [], "late-wake": []}
    for line in Path(path).read_text().splitlines() if Path(path).exists() else []:
        parts = line.split()
        if len(parts) >= 4 and parts[1] in found:
            found[parts[1]].append(float(parts[-2]))
    reads = found["slow-read"] + found["failed-read"]
    return {
        "slow_reads": len(found["slow-read"]),
        "failed_reads": len(found["failed-read"]),
        "longest_read_ms": max(reads, default=0),
        "late_wakes": len(found["late-wake"]),
        "longest_late_ms": max(found["late-wake"], default=0),
    }


def _now():
    return datetime.now().astimezone().strftime("%H:%M:%S.%f")[:-3]


def main(argv):
    import django

    django.setup()
    with open(argv[0], "a") as out:
        out.write(f"{_now()} probe started: a GetItem every {INTERVAL * 1000:.0f} ms\n")
        out.flush()
        probe(out, argv[1])


if __name__ == "__main__":
    main(sys.argv[1:])
