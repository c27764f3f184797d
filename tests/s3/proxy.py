#!/usr/bin/env python3
"""A loopback HTTP proxy in front of the test S3 server (scripts/s3.sh),
for the object storage tests: it forwards every request unchanged, writes
one line per request to a log (method, path and query, the status it
answered) and, when the rules file says so, answers some requests itself
with an S3 error instead of forwarding them.

    proxy.py UPSTREAM LOG RULES PORTFILE

UPSTREAM is the server's endpoint (http://127.0.0.1:PORT); the proxy
listens on a free loopback port it writes to PORTFILE. RULES is read
before each request; each line is

    STATUS N [METHOD [TEXT]]  answer STATUS (503: S3's SlowDown) to the
                          next N requests (of METHOD only, and whose path
                          and query contain TEXT, when given); N counts
                          down in the file
    STATUS every K [METHOD]   answer STATUS to every K-th request

STATUS may also be "drop" (close the connection without answering, as a
server that went down) or "hang" (answer nothing for 600 s, as a server
that stopped responding).

A missing or empty rules file forwards everything.
"""
import http.client
import http.server
import os
import socket
import socketserver
import sys
import threading
import time
import urllib.parse

UPSTREAM = urllib.parse.urlparse(sys.argv[1])
LOG, RULES, PORTFILE = sys.argv[2], sys.argv[3], sys.argv[4]
LOCK = threading.Lock()
COUNT = [0]

ERRORS = {
    503: ("SlowDown", "Please reduce your request rate."),
    500: ("InternalError", "We encountered an internal error. Please try again."),
    403: ("AccessDenied", "Access Denied"),
    404: ("NoSuchKey", "The specified key does not exist."),
}


def matches(w, method, path):
    """Whether rule words w[2:] (METHOD, TEXT) select this request."""
    return (len(w) < 3 or w[2] == method) and (len(w) < 4 or w[3] in path)


def injected(method, path):
    """The status to answer instead of forwarding, or None (under LOCK)."""
    COUNT[0] += 1
    try:
        with open(RULES) as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        return None
    out, status = [], None
    for line in lines:
        w = line.split()
        if status is None and len(w) >= 2 and w[1] == "every":
            k = int(w[2])
            if (len(w) < 4 or w[3] == method) and COUNT[0] % k == 0:
                status = w[0]
        elif status is None and len(w) >= 2 and int(w[1]) > 0 and \
                matches(w, method, path):
            status = w[0]
            w[1] = str(int(w[1]) - 1)
        out.append(" ".join(w))
    if status is not None:
        tmp = RULES + ".tmp"
        with open(tmp, "w") as f:
            f.write("\n".join(out) + "\n")
        os.replace(tmp, RULES)
    return status


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def note(self, status):
        with LOCK:
            with open(LOG, "a") as f:
                f.write(f"{self.command} {self.path} {status}\n")

    def handle_one(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else None
        with LOCK:
            status = injected(self.command, self.path)
        if status == "drop":
            self.note("drop")
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        if status == "hang":
            self.note("hang")
            time.sleep(600)
            return
        if status is not None:
            status = int(status)
            code, msg = ERRORS.get(status, ("Error", "injected"))
            out = (f'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>{code}'
                   f'</Code><Message>{msg}</Message></Error>').encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/xml")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(out)
            self.note(status)
            return
        conn = http.client.HTTPConnection(UPSTREAM.hostname, UPSTREAM.port,
                                          timeout=60)
        headers = {k: v for k, v in self.headers.items()
                   if k.lower() not in ("connection", "keep-alive")}
        conn.request(self.command, self.path, body=body, headers=headers)
        r = conn.getresponse()
        data = r.read() if self.command != "HEAD" else b""
        self.send_response(r.status, r.reason)
        for k, v in r.getheaders():
            if k.lower() not in ("connection", "keep-alive", "transfer-encoding",
                                 "content-length"):
                self.send_header(k, v)
        length = r.getheader("Content-Length")
        if self.command == "HEAD" and length is not None:
            self.send_header("Content-Length", length)
        else:
            self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if data:
            self.wfile.write(data)
        conn.close()
        self.note(r.status)

    do_GET = do_HEAD = do_PUT = do_POST = do_DELETE = handle_one


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


srv = Server(("127.0.0.1", 0), Handler)
with open(PORTFILE + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
os.replace(PORTFILE + ".tmp", PORTFILE)
srv.serve_forever()
