"""localstripe (PyPI, pinned in requirements-dev.txt): a stateful fake Stripe server with a fake Stripe.js
and signed webhooks, for `make run` and the tests. Never used in production (STRIPE_API_BASE unset).

    python tools/stripe_local.py run --port 8420 [--webhook URL --secret whsec_...] [--keep]

It serves Stripe's API under http://127.0.0.1:PORT/v1/ and Stripe.js at http://127.0.0.1:PORT/js.stripe.com/v3/.
localstripe writes its whole state to /tmp/localstripe.pickle after every change (one file for every
localstripe on the machine); without --keep (tests) it keeps its state in memory only.
"""
import argparse
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass

WEBHOOK_ID = "fromatoz"


class Missing(RuntimeError):
    pass


@dataclass
class Server:
    process: subprocess.Popen
    port: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(port: int, keep: bool) -> None:
    """Run localstripe in this process (its own `start`, on 127.0.0.1 only)."""
    try:
        from aiohttp import web
        from localstripe import resources, server
    except ImportError as exc:
        raise Missing("localstripe is not installed: pip install -r requirements-dev.txt") from exc
    if keep:
        resources.store.try_load_from_disk()
    else:
        resources.Store.dump_to_disk = lambda self: None
    web.run_app(server.app, host="127.0.0.1", port=port, print=None)


def register_webhook(url: str, *, endpoint: str, secret: str, events=None) -> None:
    """Tell localstripe where to send its (signed) webhooks: localstripe's own /_config/webhooks/."""
    fields = [("url", endpoint), ("secret", secret)] + [("events[]", e) for e in (events or ())]
    body = "&".join(f"{k}={urllib.request.quote(v, safe='')}" for k, v in fields).encode()
    request = urllib.request.Request(f"{url}/_config/webhooks/{WEBHOOK_ID}", data=body, method="POST")
    urllib.request.urlopen(request, timeout=5).close()


def wait_ready(url: str, process: subprocess.Popen | None = None, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise Missing(f"localstripe exited with code {process.returncode}")
        try:
            urllib.request.urlopen(f"{url}/js.stripe.com/v3/", timeout=1).close()
            return
        except urllib.error.HTTPError:
            return
        except OSError:
            time.sleep(0.1)
    raise Missing(f"localstripe did not answer at {url} within {timeout}s")


def start(port: int | None = None, log=None) -> Server:
    """Start localstripe in the background (state in memory only); returns it once it answers."""
    port = port or free_port()
    process = subprocess.Popen([sys.executable, __file__, "run", "--port", str(port)],
                               stdout=log or subprocess.DEVNULL, stderr=subprocess.STDOUT)
    server = Server(process=process, port=port)
    try:
        wait_ready(server.url, process)
    except BaseException:
        stop(server)
        raise
    return server


def stop(server: Server) -> None:
    if server.process.poll() is None:
        server.process.terminate()
        try:
            server.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.process.kill()
            server.process.wait()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="action", required=True)
    run = sub.add_parser("run", help="run localstripe in the foreground")
    run.add_argument("--port", type=int, default=8420)
    run.add_argument("--keep", action="store_true", help="keep its state in /tmp/localstripe.pickle")
    hook = sub.add_parser("webhook", help="register the shop's webhook with a running localstripe")
    hook.add_argument("--url", required=True, help="localstripe's address")
    hook.add_argument("--endpoint", required=True)
    hook.add_argument("--secret", required=True)
    args = parser.parse_args(argv)
    try:
        if args.action == "run":
            _serve(args.port, args.keep)
        else:
            wait_ready(args.url)
            register_webhook(args.url, endpoint=args.endpoint, secret=args.secret)
    except Missing as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
