"""A DynamoDB endpoint of scripted answers, for tests of what the shop does when DynamoDB throttles,
stalls or answers oddly (the client's retries, the request metrics)."""
import json
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Scripted:
    """A DynamoDB endpoint answering each POST with the next (status, body, headers, delay) of
    `script` (the last one repeats); `requests` keeps each request's headers and body."""

    def __init__(self, script):
        self.script, self.requests = list(script), []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                owner.requests.append((dict(self.headers), body))
                status, answer, headers, delay = owner.script[min(len(owner.requests), len(owner.script)) - 1]
                time.sleep(delay)
                data = json.dumps(answer).encode()
                try:
                    self.send_response(status)
                    headers = {"Content-Type": "application/x-amz-json-1.0", "x-amz-crc32": str(zlib.crc32(data)),
                               **headers}
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # a stalled answer the client has given up on

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


THROTTLED = (400, {"__type": "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException",
                   "message": "Rate exceeded"}, {}, 0)
