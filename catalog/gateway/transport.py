"""The lean client's HTTP/1.1: keep-alive connections to one endpoint, answers parsed by httptools.

urllib3 and http.client spent most of the lean client's own time on a page: http.client reads an
answer's headers through the email package's parser, and urllib3 wraps every request in its pool,
timeout and retry objects. This sends one request as one `sendall` and hands the answer to
httptools (the llhttp parser, in C; uvicorn's), which also undoes chunked encoding. What it keeps:

- **connections**: a pool of at most `maxsize` idle keep-alive connections; one that the server
  closed while idle (readable before we sent anything) is dropped before use, as urllib3 does; an
  answer that asks for `Connection: close` (or is cut off) closes its connection;
- **TLS**: for an https endpoint, the system's verification (certificate chain against
  `ca_certs`, host name) through `ssl.create_default_context`;
- **timeouts**: a connect timeout for opening a connection and a read timeout for each wait on
  the socket (as urllib3's);
- **failures** as the caller's exceptions: `ConnectFailed` (nothing listens, no route, TLS
  refused), `ConnectTimedOut`, `ReadTimedOut`, `Broken` (the connection closed or broke mid-answer,
  or the answer was not HTTP). lean.py maps them onto botocore's and retries them.
"""
import select
import socket
import ssl
import threading
from urllib.parse import urlsplit

import httptools

RECEIVE_SIZE = 65536


class TransportError(Exception):
    pass


class ConnectFailed(TransportError):
    pass


class ConnectTimedOut(TransportError):
    pass


class ReadTimedOut(TransportError):
    pass


class Broken(TransportError):
    pass


class _ClosedUnanswered(Broken):
    """The connection closed (or was reset) before any of the answer came."""


class Answer:
    """One HTTP answer: `status`, `headers` (lower-case names, str values), `body` (bytes)."""

    __slots__ = ("status", "headers", "_body", "complete", "keep_alive", "parser")

    def __init__(self):
        self.status, self.headers, self._body, self.complete, self.keep_alive = 0, {}, [], False, False
        self.parser = httptools.HttpResponseParser(self)

    # httptools' callbacks
    def on_header(self, name, value):
        self.headers[name.decode("latin-1").lower()] = value.decode("latin-1")

    def on_body(self, body):
        self._body.append(body)

    def on_message_complete(self):
        # asked here: once the message is over, httptools no longer knows (it answers False)
        self.keep_alive = self.parser.should_keep_alive()
        self.status = self.parser.get_status_code()
        self.complete = True

    @property
    def body(self):
        return b"".join(self._body)


def _dropped(sock):
    """Whether an idle connection was closed by the server (or has unasked-for bytes): readable,
    or in error, before we sent anything. poll, not select: any file descriptor number."""
    poller = select.poll()
    try:
        poller.register(sock, select.POLLIN | select.POLLERR | select.POLLHUP)
        return bool(poller.poll(0))
    except (OSError, ValueError):
        return True


class Endpoint:
    """Keep-alive HTTP/1.1 connections to one endpoint URL; thread-safe (a connection is used by
    one request at a time)."""

    def __init__(self, url, *, maxsize, ca_certs=None, socket_options=()):
        parts = urlsplit(url)
        self.tls = parts.scheme == "https"
        self.host_name = parts.hostname
        self.port = parts.port or (443 if self.tls else 80)
        self.maxsize = maxsize
        self.socket_options = tuple(socket_options)
        self.context = ssl.create_default_context(cafile=ca_certs) if self.tls else None
        self._idle = []
        self._lock = threading.Lock()

    def _connect(self, timeout):
        try:
            sock = socket.create_connection((self.host_name, self.port), timeout=timeout)
        except TimeoutError as exc:
            raise ConnectTimedOut(str(exc)) from exc
        except OSError as exc:
            raise ConnectFailed(str(exc)) from exc
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            for option in self.socket_options:
                sock.setsockopt(*option)
            if self.context is not None:
                sock = self.context.wrap_socket(sock, server_hostname=self.host_name)
        except TimeoutError as exc:
            sock.close()
            raise ConnectTimedOut(str(exc)) from exc
        except OSError as exc:  # ssl.SSLError included: a certificate that does not verify
            sock.close()
            raise ConnectFailed(str(exc)) from exc
        return sock

    def _take(self, connect_timeout):
        """(a connection, whether it was used before)."""
        with self._lock:
            while self._idle:
                sock = self._idle.pop()
                if not _dropped(sock):
                    return sock, True
                sock.close()
        return self._connect(connect_timeout), False

    def _give_back(self, sock):
        with self._lock:
            if len(self._idle) < self.maxsize:
                self._idle.append(sock)
                return
        sock.close()

    def close(self):
        with self._lock:
            idle, self._idle = self._idle, []
        for sock in idle:
            sock.close()

    def request(self, head, body, *, connect_timeout, read_timeout):
        """Send `head` (the request line and headers, ending in a blank line) and `body`; the
        Answer. A kept connection that turns out closed before any of the answer came (the server
        closed it just as it was taken) is replaced by a new one and the request sent again, once:
        these are reads, safe to send twice. The connection goes back to the pool only after a
        complete keep-alive answer."""
        sock, reused = self._take(connect_timeout)
        try:
            return self._exchange(sock, head + body, read_timeout)
        except _ClosedUnanswered:
            if not reused:
                raise
        return self._exchange(self._connect(connect_timeout), head + body, read_timeout)

    def _exchange(self, sock, request, read_timeout):
        answer = Answer()
        reusable, received = False, False
        try:
            sock.settimeout(read_timeout)
            sock.sendall(request)
            buffer = bytearray(RECEIVE_SIZE)
            view = memoryview(buffer)
            while not answer.complete:
                size = sock.recv_into(buffer)
                if not size:
                    closed = Broken if received else _ClosedUnanswered
                    raise closed("the connection closed before the whole answer came")
                received = True
                answer.parser.feed_data(view[:size])
            reusable = answer.keep_alive
            return answer
        except TimeoutError as exc:
            raise ReadTimedOut(str(exc)) from exc
        except (ConnectionResetError, BrokenPipeError) as exc:
            if received:
                raise Broken(str(exc)) from exc
            raise _ClosedUnanswered(str(exc)) from exc
        except (OSError, httptools.HttpParserError) as exc:
            raise Broken(str(exc)) from exc
        finally:
            answer.parser = None  # it refers to the answer: no cycle left behind
            if reusable:
                self._give_back(sock)
            else:
                sock.close()
