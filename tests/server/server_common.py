"""Helpers of the service tests: start `polycodec serve` on 127.0.0.1 with ephemeral ports,
talk to it with the real curl and with raw TCP frames (DESIGN sections 4 and 5)."""
import json
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import unittest

# The source tree, the fixtures and the polycodec binary as the differential tests find them.
sys.path.insert(1, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "differential"))
from common import FIXTURES, SOURCE_DIR, fixture, polycodec_bin  # noqa: E402,F401


def loadtest_bin():
    b = os.environ.get("POLYCODEC_LOADTEST_BIN")
    if not b or not os.path.exists(b):
        raise unittest.SkipTest("POLYCODEC_LOADTEST_BIN is not set (run through ctest)")
    return b


def schema_dir():
    """The postcard schemas of the fixtures (schema=records, schema=bench)."""
    return os.path.join(FIXTURES, "schemas")


class Server:
    """A running `polycodec serve`; its log lines are collected in the background."""

    def __init__(self, *args, env=None, timeout=15):
        cmd = [polycodec_bin(), "serve", "--host", "127.0.0.1", "--http-port", "0",
               "--tcp-port", "0", *args]
        e = dict(os.environ)
        e.update(env or {})
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=e)
        self.lines = []
        self._cv = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        # The startup line, in text (key=value) or json log format.
        line = self.wait_for(r'event=started|"event":"started"', timeout)
        self.http_port = int(re.search(r'http_port"?[=:](-?\d+)', line).group(1))
        self.tcp_port = int(re.search(r'tcp_port"?[=:](-?\d+)', line).group(1))
        self.base = "http://127.0.0.1:%d" % self.http_port

    def _read(self):
        for raw in self.proc.stderr:
            with self._cv:
                self.lines.append(raw.decode("utf-8", "replace").rstrip("\n"))
                self._cv.notify_all()
        with self._cv:
            self._cv.notify_all()

    def wait_for(self, pattern, timeout=10):
        """The first log line matching `pattern`, waiting up to `timeout` seconds."""
        deadline = time.monotonic() + timeout
        rx = re.compile(pattern)
        with self._cv:
            while True:
                for line in self.lines:
                    if rx.search(line):
                        return line
                left = deadline - time.monotonic()
                if left <= 0 or (self.proc.poll() is not None and not self._reader.is_alive()):
                    raise AssertionError("no log line matching %r; log:\n%s"
                                         % (pattern, "\n".join(self.lines)))
                self._cv.wait(min(left, 0.2))

    def stop(self, sig=signal.SIGTERM, timeout=20):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError("server did not exit within %ss" % timeout)
        finally:
            self._reader.join(5)
            self.proc.stderr.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self._reader.join(5)
        self.proc.stderr.close()


class Response:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers  # lower-case name -> value (last one wins)
        self.body = body

    def json(self):
        return json.loads(self.body)

    def __repr__(self):
        return "<%d %r %r>" % (self.status, self.headers, self.body[:300])


def parse_http_head(head):
    """(status, headers by lower-case name) of an HTTP/1.1 response head (bytes, without the
    blank line that ends it)."""
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        k, v = line.split(":", 1)
        headers[k.strip().lower()] = v.strip()
    return int(lines[0].split()[1]), headers


def read_http_response(sock, buf=b""):
    """One HTTP/1.1 answer with a Content-Length from `sock`, after the bytes `buf` already
    read: (status, headers, body, the bytes read past it)."""
    while b"\r\n\r\n" not in buf:
        chunk = sock.recv(65536)
        if not chunk:
            raise EOFError("closed in the head: %r" % buf)
        buf += chunk
    head, _, rest = buf.partition(b"\r\n\r\n")
    status, headers = parse_http_head(head)
    n = int(headers.get("content-length", "0"))
    while len(rest) < n:
        chunk = sock.recv(65536)
        if not chunk:
            raise EOFError("closed in the body")
        rest += chunk
    return status, headers, rest[:n], rest[n:]


def curl(url, data=None, headers=(), method=None, extra=(), timeout=30):
    """Runs the real curl; returns a Response of the last answer."""
    with tempfile.TemporaryDirectory() as d:
        body_path = os.path.join(d, "body")
        head_path = os.path.join(d, "head")
        cmd = ["curl", "-sS", "-o", body_path, "-D", head_path, "-w", "%{http_code}",
               "--max-time", str(timeout)]
        for h in headers:
            cmd += ["-H", h]
        if method:
            cmd += ["-X", method]
        if data is not None:
            data_path = os.path.join(d, "data")
            with open(data_path, "wb") as f:
                f.write(data)
            cmd += ["--data-binary", "@" + data_path]
        cmd += list(extra)
        cmd.append(url)
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout + 10)
        if p.returncode != 0:
            raise AssertionError("curl %s failed (%d): %s" % (url, p.returncode, p.stderr.decode()))
        status = int(p.stdout.decode() or 0)
        headers = {}
        with open(head_path, "rb") as f:
            blocks = f.read().decode("latin-1").split("\r\n\r\n")
        # The last non-empty block is the final answer (after any 100 Continue).
        for block in [b for b in blocks if b.strip()][-1:]:
            for line in block.split("\r\n")[1:]:
                if ":" in line:
                    k, v = line.split(":", 1)
                    headers[k.strip().lower()] = v.strip()
        body = b""
        if os.path.exists(body_path):
            with open(body_path, "rb") as f:
                body = f.read()
        return Response(status, headers, body)


def implemented_formats(server):
    """[(id, name, canonical media type, caps)] of the implemented formats, from /formats."""
    r = curl(server.base + "/formats")
    assert r.status == 200, r
    return [(f["id"], f["name"], f["media_types"][0], f["capabilities"])
            for f in r.json() if f["implemented"]]


def all_formats(server):
    r = curl(server.base + "/formats")
    return [(f["id"], f["name"], f["media_types"][0], f["implemented"]) for f in r.json()]


# ---- TCP frames (DESIGN section 5), written with struct, independent of proto/ ----

HEADER = struct.Struct(">2sBBIBBHI")


def request_frame(req_id, from_id, to_id, document, options=b"", flags=0, magic=b"PC",
                  version=1, payload_length=None):
    payload = options + document
    n = len(payload) if payload_length is None else payload_length
    return HEADER.pack(magic, version, flags, req_id, from_id, to_id, len(options), n) + payload


def read_exact(sock, n):
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise EOFError("connection closed after %d of %d bytes" % (len(buf), n))
        buf += chunk
    return buf


def read_response(sock):
    """(status, request id, output format, payload)."""
    head = read_exact(sock, 16)
    magic, version, status, req_id, fmt, zero, reserved, n = HEADER.unpack(head)
    assert magic == b"PC" and version == 1 and zero == 0 and reserved == 0, head
    return status, req_id, fmt, read_exact(sock, n)


def is_closed(sock, timeout=5):
    """True when the peer closed the connection (EOF or reset) within `timeout`."""
    sock.settimeout(timeout)
    try:
        return sock.recv(1) == b""
    except (ConnectionResetError, BrokenPipeError):
        return True
    except socket.timeout:
        return False


def tcp_connect(server, timeout=30):
    s = socket.create_connection(("127.0.0.1", server.tcp_port), timeout=timeout)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def read_until_closed(sock, timeout, must_close=True):
    """Everything the peer sends until it closes (EOF or reset). After `timeout` without the
    close: an AssertionError when `must_close`, else what came so far."""
    sock.settimeout(timeout)
    data = b""
    try:
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                return data
            data += chunk
    except ConnectionResetError:
        return data
    except socket.timeout:
        if must_close:
            raise AssertionError("still open after %ss (received %r)" % (timeout, data[:64]))
        return data


def pipeline_frames_in_order(test, server, n, from_id=1, to_id=1):
    """Sends n JSON frames on one connection from a writer thread while reading, as a
    pipelining client does; checks every answer, in order."""
    frames = b"".join(request_frame(i, from_id, to_id, b'{"i": %d}' % i) for i in range(n))
    with tcp_connect(server) as s:
        writer = threading.Thread(target=s.sendall, args=(frames,))
        writer.start()
        for i in range(n):
            status, rid, fmt, payload = read_response(s)
            test.assertEqual((status, rid, fmt), (0, i, to_id))
            test.assertEqual(payload, b'{"i":%d}' % i)
        writer.join()
