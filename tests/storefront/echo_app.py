"""A WSGI application for the gunicorn worker's tests: answers each request with its own path,
so a client can tell which request an answer belongs to."""


def application(environ, start_response):
    body = environ["PATH_INFO"].encode()
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
    return [body]
