#!/usr/bin/env python
"""The CPU time of rendering pages in-process, for `make bench-compare`.

Run with the working directory at a tree's root (this tree's or REF's) and the environment of the
bench's servers (settings, table, DynamoDB Local's endpoint); it imports that tree's code, so the
same script measures both sides. Reads a JSON list of pages ({"name", "path", "headers"}) on
standard input, calls the tree's WSGI application directly for each (as gunicorn would, without
the socket), and prints {name: {"cpu_ms": p50}} as JSON.

CPU time (`time.thread_time`) is the app's own work on a request: Python, Django, the gateway.
It leaves out the wait for DynamoDB's answer, and usually moves far less between rounds than wall
time over HTTP (in one run on the development machine every round stayed within a tenth of the
median, where wall time moved by a third); a busy host still moves it, so compare several rounds.
"""
import argparse
import io
import json
import os
import statistics
import sys
import time


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--iterations", type=int, default=300, help="renders timed per page (default 300)")
    parser.add_argument("--warmup", type=int, default=30, help="renders before timing, per page (default 30)")
    return parser.parse_args(argv)


def environ_for(path, headers):
    base, _, query = path.partition("?")
    environ = {
        "REQUEST_METHOD": "GET",
        "PATH_INFO": base,
        "QUERY_STRING": query,
        "SCRIPT_NAME": "",
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "HTTP_HOST": "127.0.0.1",
        "REMOTE_ADDR": "127.0.0.1",
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": "http",
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": False,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }
    environ.update({f"HTTP_{k.upper().replace('-', '_')}": v for k, v in headers.items()})
    return environ


def render(application, environ):
    """One request through the WSGI application; the status line, with the body read whole."""
    status = []
    environ = {**environ, "wsgi.input": io.BytesIO(b"")}
    body = application(environ, lambda line, headers, exc_info=None: status.append(line))
    try:
        b"".join(body)
    finally:
        getattr(body, "close", lambda: None)()
    return status[0]


def measure(application, pages, iterations, warmup):
    results = {}
    for page in pages:
        environ = environ_for(page["path"], page.get("headers", {}))
        for _ in range(warmup):
            status = render(application, environ)
            if not status.startswith("200"):
                raise SystemExit(f"{page['name']} {page['path']}: {status}")
        cpu = []
        for _ in range(iterations):
            started = time.thread_time()
            status = render(application, environ)
            cpu.append(time.thread_time() - started)
            if not status.startswith("200"):  # a page that fails is not a fast page
                raise SystemExit(f"{page['name']} {page['path']}: {status}")
        results[page["name"]] = {"cpu_ms": round(statistics.median(cpu) * 1000, 4)}
    return results


def main(argv=None):
    args = parse_args(argv)
    sys.path.insert(0, os.getcwd())  # the tree being measured, not this script's
    from django.core.wsgi import get_wsgi_application

    application = get_wsgi_application()
    import storefront

    code = os.path.dirname(os.path.dirname(os.path.abspath(storefront.__file__)))
    if code != os.path.abspath(os.getcwd()):
        raise SystemExit(f"measuring the code in {code}, not the tree in {os.getcwd()}")
    pages = json.load(sys.stdin)
    print(json.dumps(measure(application, pages, args.iterations, args.warmup)))
    return 0


if __name__ == "__main__":
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]
    sys.exit(main())
