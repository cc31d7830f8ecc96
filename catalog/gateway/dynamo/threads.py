"""Sending many requests at once, each in a copy of the caller's context (its time budget)."""
from __future__ import annotations

import contextvars
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

# Bulk writes (the importer) send this many BatchWriteItem requests at once, as AWS advises for loading
# data: each waits on the network (or on DynamoDB Local's other core), not on this process.
BATCH_WRITERS = 4
# A list merged from many shards (merged.py, the ledger) sends its Queries on this many threads (the
# client's connection pool, DYNAMODB_MAX_POOL_CONNECTIONS, is 32 by default).
SHARD_READERS = 8


def in_parallel(jobs: Any, send: Any, *, done: Any = None, workers: Any = BATCH_WRITERS) -> None:
    """`send(job)` for every job on `workers` threads, each in a copy of the caller's context (its
    time budget); `done(job)` in the calling thread, in order, as they finish. The first failure
    stops the jobs not yet started and is raised."""
    jobs = list(jobs)
    if len(jobs) <= 1:
        for job in jobs:
            send(job)
            if done:
                done(job)
        return
    context = contextvars.copy_context()
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="dynamodb-batch") as pool:
        futures = [pool.submit(context.copy().run, send, job) for job in jobs]
        try:
            for job, future in zip(jobs, futures):
                future.result()
                if done:
                    done(job)
        except BaseException:
            for future in futures:
                future.cancel()
            raise


def thread_safe(callback: Any) -> Any:
    """`callback`, called by one thread at a time (None stays None)."""
    if callback is None:
        return None
    lock = threading.Lock()

    def call(*args: Any) -> None:
        with lock:
            callback(*args)

    return call
