"""The lean client's HTTP/1.1 (catalog/gateway/transport.py): keep-alive connections that survive
a server closing them, chunked answers, answers cut short, and TLS that verifies the server."""
import datetime
import json
import socket
import ssl
import threading
import zlib

import pytest
from botocore.credentials import Credentials
from botocore.exceptions import ConnectionClosedError, EndpointConnectionError
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from catalog.gateway import transport
from catalog.gateway.lean import LeanClient

QUERY = {"TableName": "t", "KeyConditionExpression": "PK = :pk", "ExpressionAttributeValues": {":pk": {"S": "P#1"}}}
ANSWER = {"Items": [{"PK": {"S": "P#1"}}], "Count": 1, "ScannedCount": 1}


def answer(body=ANSWER, *, chunked=False, close=False, cut=False):
    """The bytes of one HTTP answer."""
    data = json.dumps(body).encode()
    head = ["HTTP/1.1 200 OK", "Content-Type: application/x-amz-json-1.0", f"x-amz-crc32: {zlib.crc32(data)}"]
    if close:
        head.append("Connection: close")
    if chunked:
        head.append("Transfer-Encoding: chunked")
        half = len(data) // 2
        payload = b"".join(f"{len(p):x}\r\n".encode() + p + b"\r\n" for p in (data[:half], data[half:])) + b"0\r\n\r\n"
    else:
        head.append(f"Content-Length: {len(data)}")
        payload = data[: len(data) // 2] if cut else data
    return ("\r\n".join(head) + "\r\n\r\n").encode() + payload


class RawServer:
    """A TCP server that reads each HTTP request and sends `reply(n)` (n counts requests from 0);
    after a reply it closes the connection if `close_after(n)`. Counts connections."""

    def __init__(self, reply, close_after=lambda n: False, tls_context=None):
        self.reply, self.close_after, self.tls_context = reply, close_after, tls_context
        self.requests, self.connections = 0, 0
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"{'https' if tls_context else 'http'}://localhost:{self.listener.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn):
        try:
            if self.tls_context:
                conn = self.tls_context.wrap_socket(conn, server_side=True)
            data = b""
            while True:
                while b"\r\n\r\n" not in data:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    data += chunk
                head, _, data = data.partition(b"\r\n\r\n")
                length = int(next(line.split(b":")[1] for line in head.split(b"\r\n")
                                  if line.lower().startswith(b"content-length")))
                while len(data) < length:
                    data += conn.recv(65536)
                data = data[length:]
                n, self.requests = self.requests, self.requests + 1
                conn.sendall(self.reply(n))
                if self.close_after(n):
                    return
        except (OSError, ssl.SSLError):
            return
        finally:
            conn.close()

    def close(self):
        self.listener.close()


@pytest.fixture
def serve():
    servers = []

    def make(*args, **kwargs):
        servers.append(RawServer(*args, **kwargs))
        return servers[-1]

    yield make
    for server in servers:
        server.close()


def client(url, pauses, **kwargs):
    return LeanClient(endpoint_url=url, region="eu-central-1", credentials=Credentials("AKIDTEST", "secret"),
                      connect_timeout=1.0, read_timeout=5.0, max_attempts=3, max_pool_connections=4,
                      sleep=pauses.append, **kwargs)


def test_requests_share_one_keep_alive_connection(serve):
    server, pauses = serve(lambda n: answer()), []
    lean = client(server.url, pauses)
    for _ in range(3):
        assert lean.call("Query", QUERY)["Items"] == ANSWER["Items"]
    assert (server.requests, server.connections, pauses) == (3, 1, [])


def test_a_connection_the_server_closed_while_idle_is_not_used_again(serve):
    server, pauses = serve(lambda n: answer(), close_after=lambda n: True), []  # the server hangs up after each
    lean = client(server.url, pauses)
    for _ in range(3):
        assert lean.call("Query", QUERY)["Count"] == 1
    assert (server.requests, server.connections) == (3, 3)
    assert pauses == []  # no request failed on a dead connection


def test_a_kept_connection_found_closed_on_use_is_replaced_and_the_read_sent_again(serve, monkeypatch):
    server, pauses = serve(lambda n: answer(), close_after=lambda n: True), []
    lean = client(server.url, pauses)
    lean.call("Query", QUERY)
    monkeypatch.setattr(transport, "_dropped", lambda sock: False)  # the close lands just after the check
    assert lean.call("Query", QUERY)["Count"] == 1
    assert (server.requests, server.connections, pauses) == (2, 2, [])


def test_an_answer_that_says_connection_close_opens_a_new_connection_next_time(serve):
    server, pauses = serve(lambda n: answer(close=n == 0)), []
    lean = client(server.url, pauses)
    lean.call("Query", QUERY)
    lean.call("Query", QUERY)
    lean.call("Query", QUERY)
    assert (server.connections, pauses) == (2, [])


def test_a_chunked_answer_is_read_whole(serve):
    big = {"Items": [{"PK": {"S": f"P#{i}"}, "name": {"S": "x" * 200}} for i in range(400)], "Count": 400}
    server, pauses = serve(lambda n: answer(big, chunked=True)), []
    lean = client(server.url, pauses)
    assert lean.call("Query", QUERY) == big
    assert lean.call("Query", QUERY) == big  # and the connection is reused after it
    assert server.connections == 1


def test_an_answer_cut_short_is_asked_again_on_a_new_connection(serve):
    server, pauses = serve(lambda n: answer(cut=n == 0), close_after=lambda n: n == 0), []
    lean = client(server.url, pauses)
    assert lean.call("Query", QUERY)["Count"] == 1
    assert server.requests == 2 and len(pauses) == 1


def test_an_answer_cut_short_every_time_is_a_closed_connection(serve):
    server = serve(lambda n: answer(cut=True), close_after=lambda n: True)
    with pytest.raises(ConnectionClosedError):
        client(server.url, []).call("Query", QUERY)
    assert server.requests == 3


def test_idle_connections_kept_are_at_most_the_pool_size(serve):
    server = serve(lambda n: answer())
    endpoint = transport.Endpoint(server.url, maxsize=2)
    socks = [endpoint._take(1.0)[0] for _ in range(4)]
    for sock in socks:
        endpoint._give_back(sock)
    assert len(endpoint._idle) == 2
    assert sum(s.fileno() == -1 for s in socks) == 2  # the others were closed
    endpoint.close()


# --- TLS -----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def certificate(tmp_path_factory):
    """A self-signed certificate for "localhost": (cert path, key path)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost")]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    folder = tmp_path_factory.mktemp("tls")
    (folder / "cert.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (folder / "key.pem").write_bytes(key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    return str(folder / "cert.pem"), str(folder / "key.pem")


@pytest.fixture
def tls_server(serve, certificate):
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(*certificate)
    return serve(lambda n: answer(), tls_context=context)


def test_tls_answers_from_a_server_whose_certificate_verifies(tls_server, certificate):
    endpoint = transport.Endpoint(tls_server.url, maxsize=2, ca_certs=certificate[0])
    reply = endpoint.request(b"POST / HTTP/1.1\r\nhost: localhost\r\ncontent-length: 2\r\n\r\n", b"{}",
                             connect_timeout=1.0, read_timeout=5.0)
    assert reply.status == 200 and json.loads(reply.body) == ANSWER


def test_tls_refuses_a_server_whose_certificate_does_not_verify(tls_server):
    pauses = []
    with pytest.raises(EndpointConnectionError):
        client(tls_server.url, pauses).call("Query", QUERY)  # the system's CAs do not know it
    assert tls_server.requests == 0
