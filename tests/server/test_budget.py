"""The memory budget and admission of DESIGN section 13, on a server with --memory-budget 64MiB:
a storm of 40 concurrent ~8 MB JSON -> MessagePack uploads (every answer 200 or 503 with
Retry-After, the 200s checked against Python's json and an independent MessagePack reader, the
server's RSS within idle + 1.25 x budget, /healthz answering throughout, the rejection counter
equal to the 503s, the reserved bytes back to 0), the 413 of a request that could never fit
(naming stream=true), refusals before the body with Expect: 100-continue, refused bodies read
and dropped (a client that sends everything before reading still gets the answer), chunked
bodies growing their reservation, and TCP status 5 / 4 with the connection kept."""
import http.client
import json
import os
import random
import re
import socket
import struct
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_common import (Server, read_exact, read_response, read_until_closed, request_frame,
                           tcp_connect)

try:
    import msgpack  # Debian's python3-msgpack, when installed
except ImportError:
    msgpack = None

MIB = 1 << 20
BUDGET = 64 * MIB
MAX_BODY = 16 * MIB
JSON = 1
MSGPACK = 8
# transcode.hpp: request_memory_factor and request_memory_overhead.
FACTOR = 6
OVERHEAD = 256 * 1024


def reservation(n):
    return FACTOR * n + OVERHEAD


# ---- an independent MessagePack reader (the spec's formats, nothing from the server) ----

def unpack(data):
    """The one value of `data`, per the MessagePack spec; raises on trailing bytes."""
    value, pos = _unpack(data, 0)
    if pos != len(data):
        raise ValueError("%d trailing bytes" % (len(data) - pos))
    return value


def _unpack(b, i):
    t = b[i]
    i += 1
    if t <= 0x7f:
        return t, i
    if t >= 0xe0:
        return t - 0x100, i
    if 0x80 <= t <= 0x8f:
        return _map(b, i, t & 0x0f)
    if 0x90 <= t <= 0x9f:
        return _array(b, i, t & 0x0f)
    if 0xa0 <= t <= 0xbf:
        n = t & 0x1f
        return b[i:i + n].decode("utf-8"), i + n
    fixed = {0xc0: None, 0xc2: False, 0xc3: True}
    if t in fixed:
        return fixed[t], i
    ints = {0xcc: ">B", 0xcd: ">H", 0xce: ">I", 0xcf: ">Q",
            0xd0: ">b", 0xd1: ">h", 0xd2: ">i", 0xd3: ">q", 0xca: ">f", 0xcb: ">d"}
    if t in ints:
        s = struct.Struct(ints[t])
        return s.unpack_from(b, i)[0], i + s.size
    lens = {0xd9: (">B", "str"), 0xda: (">H", "str"), 0xdb: (">I", "str"),
            0xc4: (">B", "bin"), 0xc5: (">H", "bin"), 0xc6: (">I", "bin"),
            0xdc: (">H", "array"), 0xdd: (">I", "array"), 0xde: (">H", "map"),
            0xdf: (">I", "map")}
    if t in lens:
        fmt, what = lens[t]
        s = struct.Struct(fmt)
        n = s.unpack_from(b, i)[0]
        i += s.size
        if what == "str":
            return b[i:i + n].decode("utf-8"), i + n
        if what == "bin":
            return bytes(b[i:i + n]), i + n
        return (_array if what == "array" else _map)(b, i, n)
    raise ValueError("type byte 0x%02x at %d not expected here" % (t, i - 1))


def _array(b, i, n):
    out = []
    for _ in range(n):
        v, i = _unpack(b, i)
        out.append(v)
    return out, i


def _map(b, i, n):
    out = {}
    for _ in range(n):
        k, i = _unpack(b, i)
        v, i = _unpack(b, i)
        out[k] = v
    return out, i


def decode_msgpack(data):
    if msgpack is not None:
        return msgpack.unpackb(data, raw=False, strict_map_key=False)
    return unpack(data)


# ---- documents and requests ----

def records_json(target_size, seed):
    """A JSON array of records of about `target_size` bytes."""
    rng = random.Random(seed)
    cities = ["Lisboa", "Αθήνα", "東京", "Zürich", "Nairobi"]
    parts = []
    size = 2
    i = 0
    while size < target_size:
        rec = {"id": i, "big": 9007199254740993 + i, "score": rng.randint(-1000, 1000) / 8,
               "ratio": rng.random(), "active": i % 3 == 0, "name": "user-%06d" % i,
               "city": cities[i % len(cities)], "nested": {"x": i % 250, "label": "alpha"},
               "tags": ["t%d" % (i % 7)] * (i % 3), "note": None}
        s = json.dumps(rec, ensure_ascii=False, separators=(",", ":"))
        parts.append(s)
        size += len(s.encode("utf-8")) + 1
        i += 1
    return ("[" + ",".join(parts) + "]").encode("utf-8")


def status_kib(pid, field):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise AssertionError("no %s in /proc/%d/status" % (field, pid))


class Answer:
    def __init__(self, status, headers, body):
        self.status, self.headers, self.body = status, headers, body

    def json(self):
        return json.loads(self.body)

    def __repr__(self):
        return "<%d %r %r>" % (self.status, self.headers, self.body[:200])


def post(port, body, target="/transcode", content_type="application/json",
         accept="application/msgpack", headers=None, chunked=False, timeout=60):
    """POST with http.client, which sends the whole body before it reads the answer."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        h = {"Content-Type": content_type, "Accept": accept}
        h.update(headers or {})
        if chunked:
            step = 256 * 1024
            pieces = (body[i:i + step] for i in range(0, len(body), step))
            conn.request("POST", target, body=pieces, headers=h, encode_chunked=True)
        else:
            conn.request("POST", target, body=body, headers=h)
        r = conn.getresponse()
        return Answer(r.status, {k.lower(): v for k, v in r.getheaders()}, r.read())
    finally:
        conn.close()


def get(port, path, timeout=10):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path)
        r = conn.getresponse()
        return Answer(r.status, {k.lower(): v for k, v in r.getheaders()}, r.read())
    finally:
        conn.close()


def metric(port, name, labels=None):
    """The value of one series of /metrics (labels: a dict that must all match)."""
    text = get(port, "/metrics").body.decode()
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        m = re.match(r"^([a-z_]+)(\{[^}]*\})? (\S+)$", line)
        if not m or m.group(1) != name:
            continue
        have = dict(re.findall(r'(\w+)="([^"]*)"', m.group(2) or ""))
        if all(have.get(k) == v for k, v in (labels or {}).items()):
            return float(m.group(3))
    raise AssertionError("no series %s%r in /metrics" % (name, labels))


def wait_reserved_zero(test, port, timeout=10):
    deadline = time.monotonic() + timeout
    while True:
        v = metric(port, "polycodec_memory_reserved_bytes")
        if v == 0 or time.monotonic() > deadline:
            test.assertEqual(v, 0, "reserved bytes did not come back to 0")
            return
        time.sleep(0.05)


def raw_head(port, head, timeout=10):
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    s.sendall(head)
    return s


class HeldBudget:
    """A slow upload whose head reserved `length`'s reservation: holds the budget until closed."""

    def __init__(self, test, port, length):
        self.sock = raw_head(port, b"POST /transcode HTTP/1.1\r\nHost: t\r\n"
                                   b"Content-Type: application/json\r\n"
                                   b"Content-Length: %d\r\n\r\n[1," % length)
        deadline = time.monotonic() + 10
        while metric(port, "polycodec_memory_reserved_bytes") < reservation(length):
            test.assertLess(time.monotonic(), deadline, "the slow upload reserved nothing")
            time.sleep(0.02)

    def close(self):
        self.sock.close()


class BudgetTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = Server("--threads", "2", "--memory-budget", "64MiB", "--max-body", "16MiB",
                            "--body-timeout", "20s", "--log-level", "warn")
        cls.port = cls.server.http_port
        # 8 MB reserves 6 x 8 MB + 256 KiB: one such upload fits the 64 MiB budget at a time.
        cls.doc8 = records_json(8_000_000, 1)
        cls.expected8 = json.loads(cls.doc8)

    @classmethod
    def tearDownClass(cls):
        assert cls.server.stop() == 0

    def setUp(self):
        wait_reserved_zero(self, self.port)

    def rejected(self, reason, transport="http"):
        return metric(self.port, "polycodec_admission_rejected_total",
                      {"transport": transport, "reason": reason})

    def test_reader_agrees_with_known_encodings(self):
        # The independent reader, on bytes written by hand from the MessagePack spec.
        self.assertEqual(unpack(bytes([0x93, 0x01, 0xcd, 0x01, 0x00, 0xa1, 0x61])), [1, 256, "a"])
        self.assertEqual(unpack(b"\x82\xa1a\xc0\xa1b\xcb\x3f\xf8\x00\x00\x00\x00\x00\x00"),
                         {"a": None, "b": 1.5})
        self.assertEqual(unpack(b"\xdd\x00\x00\x00\x01\xd3\xff\xff\xff\xff\xff\xff\xff\xfe"), [-2])

    def test_gauges_at_rest(self):
        self.assertEqual(metric(self.port, "polycodec_memory_budget_bytes"), BUDGET)
        self.assertEqual(metric(self.port, "polycodec_memory_reserved_bytes"), 0)

    def test_storm_of_8mb_uploads(self):
        # One I/O thread: the JSON decoder's per-thread simdjson parser keeps the capacity of
        # the largest input it has seen (about 5 x, outside what requests reserve; being reduced
        # in the decoder), so with N threads the process would carry N such caches on top of
        # the budget. With one thread the cache is reused by every request and the bound below
        # is the budget's own. (Raise to 2 threads once the decoder gives its memory back.)
        with Server("--threads", "1", "--memory-budget", "64MiB", "--max-body", "16MiB",
                    "--log-level", "warn") as server:
            self.storm(server)

    def storm(self, server):
        port = server.http_port
        sanitized = "ASAN_OPTIONS" in os.environ
        # Warm up (the thread's buffers and caches), then take the idle RSS.
        for _ in range(2):
            self.assertEqual(post(port, b'[{"a":1}]').status, 200)
        pid = server.proc.pid
        idle_kib = status_kib(pid, "VmRSS")

        def rejected():
            return metric(port, "polycodec_admission_rejected_total",
                          {"transport": "http", "reason": "budget"})

        budget_503_before = rejected()
        n = 40
        attempts = 4
        answers = []
        errors = []
        storm_on = threading.Event()
        storm_on.set()

        def upload(i):
            # A client that honours Retry-After (shortened: the test is bounded in time),
            # up to `attempts` times, so that admissions follow each other on both threads.
            rng = random.Random(i)
            for _ in range(attempts):
                try:
                    a = post(port, self.doc8)
                except Exception as e:  # noqa: BLE001 - reported below
                    errors.append("upload %d: %r" % (i, e))
                    return
                answers.append(a)
                if a.status != 503:
                    return
                time.sleep(rng.uniform(0.05, 0.4))

        health = []

        def probe():
            while storm_on.is_set():
                t0 = time.monotonic()
                try:
                    r = get(port, "/healthz", timeout=5)
                    health.append((r.status, time.monotonic() - t0))
                except Exception as e:  # noqa: BLE001
                    health.append((repr(e), time.monotonic() - t0))
                time.sleep(0.05)

        prober = threading.Thread(target=probe)
        prober.start()
        threads = [threading.Thread(target=upload, args=(i,)) for i in range(n)]
        t0 = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        storm_s = time.monotonic() - t0
        storm_on.clear()
        prober.join(10)
        self.assertEqual(errors, [])
        ok = [a for a in answers if a.status == 200]
        busy = [a for a in answers if a.status == 503]
        self.assertEqual(len(ok) + len(busy), len(answers),
                         [a for a in answers if a.status not in (200, 503)])
        self.assertGreaterEqual(len(answers), n)
        self.assertGreaterEqual(len(ok), 2)
        for a in busy:
            self.assertEqual(a.headers.get("retry-after"), "1", a)
            self.assertEqual(a.headers.get("content-type"), "application/problem+json", a)
            p = a.json()
            self.assertEqual((p["status"], p["code"]), (503, "over_budget"), p)
            self.assertIn(str(reservation(len(self.doc8))), p["detail"])
        # Every 200: the same value as Python's json reads from the input, read back by a
        # MessagePack reader that is not ours; the top-level array header carries the count.
        for a in ok:
            self.assertEqual(a.headers.get("content-type"), "application/vnd.msgpack")
            count = len(self.expected8)
            self.assertTrue(16 <= count <= 0xffff, count)
            self.assertEqual(a.body[0], 0xdc)  # array 16
            self.assertEqual(struct.unpack(">H", a.body[1:3])[0], count)
            self.assertEqual(decode_msgpack(a.body), self.expected8)
        # /healthz answered all along, promptly.
        self.assertGreater(len(health), 0)
        self.assertTrue(all(s == 200 for s, _ in health), health)
        self.assertLess(max(d for _, d in health), 5)
        # The counter says exactly how many were refused for the budget.
        self.assertEqual(rejected() - budget_503_before, len(busy))
        wait_reserved_zero(self, port)
        hwm_kib = status_kib(pid, "VmHWM")
        print("storm: %d clients, %d uploads of %d bytes in %.1f s: %d x 200, %d x 503; RSS idle "
              "%d KiB, peak %d KiB (limit %d KiB)" % (n, len(answers), len(self.doc8), storm_s,
                                                       len(ok), len(busy),
                                               idle_kib, hwm_kib, idle_kib + BUDGET * 5 // 4096))
        if not sanitized:
            # ASan's quarantine keeps freed memory: the RSS bound is checked on plain builds.
            self.assertLessEqual(hwm_kib, idle_kib + BUDGET * 5 // 4 // 1024)

    def test_413_when_it_could_never_fit(self):
        before = self.rejected("too_large")
        n = 12_000_000  # under --max-body, but 6 x 12 MB > 64 MiB
        # Head only: refused from Content-Length, before the body.
        s = raw_head(self.port, b"POST /transcode HTTP/1.1\r\nHost: t\r\n"
                                b"Content-Type: application/json\r\nAccept: application/msgpack\r\n"
                                b"Content-Length: %d\r\n\r\n" % n)
        got = read_until_closed(s, timeout=5, must_close=False)
        s.close()
        self.assertTrue(got.startswith(b"HTTP/1.1 413"), got[:200])
        body = json.loads(got.split(b"\r\n\r\n", 1)[1])
        self.assertEqual(body["code"], "content_too_large")
        self.assertIn("stream=true", body["detail"])
        self.assertIn(str(BUDGET), body["detail"])
        # A client that sends the whole body before it reads still gets the answer.
        body12 = b'"' + b"x" * (n - 2) + b'"'
        r = post(self.port, body12)
        self.assertEqual(r.status, 413, r)
        self.assertIn("stream=true", r.json()["detail"])
        # TOML output has no record framing: no stream=true advice.
        r = post(self.port, body12, accept="application/toml")
        self.assertEqual(r.status, 413, r)
        self.assertNotIn("stream=true", r.json()["detail"])
        # A chunked body is refused as soon as it passes what the budget could ever hold.
        r = post(self.port, body12, chunked=True)
        self.assertEqual(r.status, 413, r)
        self.assertIn("stream=true", r.json()["detail"])
        self.assertEqual(self.rejected("too_large") - before, 4)
        self.assertEqual(get(self.port, "/healthz").status, 200)

    def expect_100_continue_answer(self, length, status):
        """The answer to a JSON POST head with Expect: 100-continue and Content-Length LENGTH:
        STATUS at once, without 100 Continue."""
        s = raw_head(self.port, b"POST /transcode HTTP/1.1\r\nHost: t\r\n"
                                b"Content-Type: application/json\r\nExpect: 100-continue\r\n"
                                b"Content-Length: %d\r\n\r\n" % length)
        got = read_until_closed(s, timeout=5, must_close=False)
        s.close()
        self.assertTrue(got.startswith(b"HTTP/1.1 %d" % status), got[:200])
        self.assertNotIn(b"100 Continue", got)
        return got

    def test_100_continue_refused_before_the_body(self):
        # Never fits: 413 at once, no 100 Continue.
        self.expect_100_continue_answer(12000000, 413)
        # Does not fit now (the budget is held): 503 with Retry-After, no 100 Continue.
        held = HeldBudget(self, self.port, 10_000_000)
        try:
            got = self.expect_100_continue_answer(2000000, 503)
            self.assertIn(b"\r\nRetry-After: 1\r\n", got)
        finally:
            held.close()
        # With room again, the same request gets its 100 Continue, then its answer.
        wait_reserved_zero(self, self.port)
        doc = b"[" + b",".join(b'{"k":%d}' % i for i in range(100000)) + b"]"
        s = raw_head(self.port, b"POST /transcode HTTP/1.1\r\nHost: t\r\n"
                                b"Content-Type: application/json\r\nExpect: 100-continue\r\n"
                                b"Connection: close\r\nContent-Length: %d\r\n\r\n" % len(doc))
        s.settimeout(5)
        self.assertEqual(read_exact(s, 25), b"HTTP/1.1 100 Continue\r\n\r\n")
        s.sendall(doc)
        got = read_until_closed(s, timeout=10)
        s.close()
        self.assertTrue(got.startswith(b"HTTP/1.1 200"), got[:200])
        self.assertEqual(json.loads(got.split(b"\r\n\r\n", 1)[1]), json.loads(doc))

    def test_held_budget_refuses_http_and_tcp_then_recovers(self):
        budget_http = self.rejected("budget")
        budget_tcp = self.rejected("budget", "tcp")
        big = records_json(2_000_000, 2)  # reserves 12.3 MB: over what the slow upload leaves
        small = b'{"small": [1, 2, 3]}'
        held = HeldBudget(self, self.port, 10_000_000)  # reserves 60.3 of 67.1 MB
        try:
            # HTTP: 503 + Retry-After, the body read and dropped (sent in full before reading).
            r = post(self.port, big)
            self.assertEqual(r.status, 503, r)
            self.assertEqual(r.headers.get("retry-after"), "1")
            # Chunked: the first reservation fits, a later growth does not: 503 too.
            r = post(self.port, big, chunked=True)
            self.assertEqual(r.status, 503, r)
            self.assertEqual(r.headers.get("retry-after"), "1")
            # Small requests still pass, and health checks.
            r = post(self.port, small, accept="application/json")
            self.assertEqual((r.status, r.body), (200, b'{"small":[1,2,3]}'))
            self.assertEqual(get(self.port, "/healthz").status, 200)
            # TCP: a busy frame, then a small one on the same connection, pipelined: answers
            # in order, the busy one status 5, the connection kept.
            with tcp_connect(self.server) as s:
                s.sendall(request_frame(1, JSON, MSGPACK, big) + request_frame(2, JSON, JSON, small))
                status, rid, fmt, payload = read_response(s)
                self.assertEqual((status, rid), (5, 1), payload)
                self.assertIn(b"memory budget", payload)
                status, rid, fmt, payload = read_response(s)
                self.assertEqual((status, rid, payload), (0, 2, b'{"small":[1,2,3]}'))
            self.assertEqual(self.rejected("budget") - budget_http, 2)
            self.assertEqual(self.rejected("budget", "tcp") - budget_tcp, 1)
        finally:
            held.close()
        wait_reserved_zero(self, self.port)
        # With the budget free, the same requests go through.
        r = post(self.port, big)
        self.assertEqual(r.status, 200, r)
        self.assertEqual(decode_msgpack(r.body), json.loads(big))
        r = post(self.port, big, chunked=True)
        self.assertEqual(r.status, 200, r)
        self.assertEqual(decode_msgpack(r.body), json.loads(big))
        with tcp_connect(self.server) as s:
            s.sendall(request_frame(3, JSON, MSGPACK, big))
            status, rid, fmt, payload = read_response(s)
            self.assertEqual((status, rid, fmt), (0, 3, MSGPACK))
            self.assertEqual(decode_msgpack(payload), json.loads(big))
        wait_reserved_zero(self, self.port)

    def test_tcp_large_frame_that_fits(self):
        # 5 MB reserves 30.3 MB: admitted; the frame arrives in pieces into room reserved once.
        doc = records_json(5_000_000, 3)
        frame = request_frame(11, JSON, MSGPACK, doc) + request_frame(12, JSON, JSON, b"[null]")
        with tcp_connect(self.server) as s:
            for i in range(0, len(frame), 1 << 20):
                s.sendall(frame[i:i + (1 << 20)])
                time.sleep(0.01)
            status, rid, fmt, payload = read_response(s)
            self.assertEqual((status, rid, fmt), (0, 11, MSGPACK), payload[:200])
            self.assertEqual(decode_msgpack(payload), json.loads(doc))
            status, rid, fmt, payload = read_response(s)
            self.assertEqual((status, rid, payload), (0, 12, b"[null]"))
        wait_reserved_zero(self, self.port)

    def test_tcp_frame_that_could_never_fit(self):
        before = self.rejected("too_large", "tcp")
        doc = b'"' + b"y" * 11_999_998 + b'"'  # under --max-body; 6 x 12 MB > 64 MiB
        with tcp_connect(self.server) as s:
            s.sendall(request_frame(7, JSON, JSON, doc) + request_frame(8, JSON, JSON, b"[true]"))
            status, rid, fmt, payload = read_response(s)
            self.assertEqual((status, rid), (4, 7), payload)
            self.assertIn(str(BUDGET).encode(), payload)
            # The payload was dropped, not taken for frames: the next frame is answered.
            status, rid, fmt, payload = read_response(s)
            self.assertEqual((status, rid, payload), (0, 8, b"[true]"))
        self.assertEqual(self.rejected("too_large", "tcp") - before, 1)


if __name__ == "__main__":
    unittest.main()
