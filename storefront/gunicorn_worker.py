"""gunicorn's threaded worker, serving a kept-alive connection's next request in the thread that
served the last one (`scripts/run.sh`: `--worker-class storefront.gunicorn_worker.ThreadWorker`).

gunicorn's gthread worker hands every request on a kept-alive connection over twice: its main
thread waits on the sockets and gives a readable connection to a pool thread, and the pool thread
gives the connection back through a pipe once it has answered. Each hand-off wakes a thread and
moves the connection in and out of the poller. Measured on the development machine with a
trivial WSGI application and wrk at concurrency 1, that was half of gunicorn's own time: p50
0.33 ms and 0.34 ms of CPU a request, against 0.15 ms and 0.15 ms when the thread that answered
waits a moment for the same connection's next request (README, Benchmarks).

This worker does that wait, and only while no other connection is waiting for a thread: for
LINGER_SECONDS after an answer it polls the connection, serves the next request itself if one
comes, and otherwise hands the connection back to gunicorn's poller as gthread does. Clients that
send requests back to back on one connection (a reverse proxy's pooled connections under load,
HTMX, a load generator) skip both hand-offs; a browser that goes quiet after a page costs a thread
LINGER_SECONDS of waiting and no CPU. Everything else is gunicorn's: parsing, keep-alive limits
and timeouts, max_requests, graceful stop (a stopping worker does not wait for more), the access
log, HTTP/2 and TLS connections (served as gthread serves them: no waiting here).
"""

import select
import threading

from gunicorn.workers import gthread

# How long a thread waits for the next request on a connection it has just answered. wrk's next
# request at concurrency 1 comes 0.05-0.2 ms after the answer on the development machine; a
# reverse proxy's under load, at once. Short enough that a thread waiting in vain is soon free.
LINGER_SECONDS = 0.002


class ThreadWorker(gthread.ThreadWorker):
    def init_process(self):
        # Connections handed to the thread pool that no thread has taken yet: while there is one,
        # no thread waits on its own connection.
        self._queued = 0
        self._queued_lock = threading.Lock()
        super().init_process()

    def enqueue_req(self, conn):
        with self._queued_lock:
            self._queued += 1
        try:
            super().enqueue_req(conn)
        except BaseException:  # the pool is shut down: nothing was queued
            with self._queued_lock:
                self._queued -= 1
            raise

    def handle(self, conn):
        with self._queued_lock:
            self._queued -= 1
        keepalive = super().handle(conn)
        while keepalive is True and self._next_request_ready(conn):
            keepalive = super().handle(conn)
        return keepalive

    def _next_request_ready(self, conn):
        """Whether this thread should serve the connection's next request itself: it has come
        within LINGER_SECONDS, the worker is not stopping, and no other connection waits."""
        if not self.alive or conn.is_http2 or self.cfg.is_ssl:
            return False
        with self._queued_lock:
            if self._queued:
                return False
        if conn.parser.unreader.buf.getvalue():  # read ahead already (a pipelined request)
            return True
        poller = select.poll()  # poll, not select: no limit on the descriptor's number
        poller.register(conn.sock, select.POLLIN)
        return bool(poller.poll(LINGER_SECONDS * 1000))
