"""Stream mode over HTTP (DESIGN section 12): bodies of any size read incrementally, chunked
answers, problem+json before the first answer byte and a cut-short answer after it (logged and
counted with the record index and byte offset), --max-record, a client that stops reading or
disconnects, a body that never ends, and the gauges at rest afterwards. Values are checked with
Python's json and csv modules."""
import csv
import io
import json
import os
import re
import socket
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_common import Server, curl, read_until_closed

MAX_BODY = 64 * 1024


def records(n, start=0):
    return [{"id": i, "name": "user-%05d" % i, "score": i * 0.5, "tags": ["a", "b"][: i % 3],
             "ok": i % 2 == 0, "city": "Zürich" if i % 5 == 0 else "Lisboa"}
            for i in range(start, start + n)]


def ndjson(recs):
    return "".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n"
                   for r in recs).encode()


def chunked(body, piece=7000):
    out = bytearray()
    for i in range(0, len(body), piece):
        part = body[i:i + piece]
        out += b"%x\r\n" % len(part) + part + b"\r\n"
    return bytes(out + b"0\r\n\r\n")


def request(path, ctype, accept, body=None, chunks=True, extra=b"Connection: close\r\n"):
    head = (b"POST %s HTTP/1.1\r\nHost: t\r\nContent-Type: %s\r\nAccept: %s\r\n"
            % (path.encode(), ctype.encode(), accept.encode())) + extra
    if body is None:
        return head
    if chunks:
        return head + b"Transfer-Encoding: chunked\r\n\r\n" + chunked(body)
    return head + b"Content-Length: %d\r\n\r\n" % len(body) + body


def parse_answer(raw):
    """(status, headers, body, complete): `complete` is False when a chunked body lacks its
    last chunk (a stream cut short)."""
    head, _, rest = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        headers[k.strip().lower()] = v.strip()
    if headers.get("transfer-encoding") != "chunked":
        n = int(headers.get("content-length", "0"))
        return status, headers, rest[:n], len(rest) >= n
    body = bytearray()
    while True:
        line, sep, rest = rest.partition(b"\r\n")
        if not sep:
            return status, headers, bytes(body), False
        size = int(line.split(b";")[0], 16)
        if size == 0:
            trailers, _, _ = rest.partition(b"\r\n\r\n")
            for t in trailers.decode("latin-1").split("\r\n"):
                if ":" in t:
                    k, _, v = t.partition(":")
                    headers[k.strip().lower()] = v.strip()
            return status, headers, bytes(body), True
        if len(rest) < size + 2:
            return status, headers, bytes(body) + rest[:size], False
        body += rest[:size]
        rest = rest[size + 2:]


def metric(server, name, labels=""):
    text = curl(server.base + "/metrics").body.decode()
    total = 0.0
    for line in text.splitlines():
        if line.startswith(name) and labels in line and not line.startswith("#"):
            total += float(line.rsplit(" ", 1)[1])
    return total


class StreamTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = Server("--threads", "2", "--max-body", str(MAX_BODY), "--max-record",
                            "4096", "--body-timeout", "2s", "--header-timeout", "2s")

    @classmethod
    def tearDownClass(cls):
        assert cls.server.stop() == 0

    def exchange(self, data, timeout=30):
        s = socket.create_connection(("127.0.0.1", self.server.http_port), timeout=timeout)
        s.sendall(data)
        raw = read_until_closed(s, timeout=timeout, must_close=False)
        s.close()
        return parse_answer(raw)

    def assert_at_rest(self):
        """No request in flight but the scrape itself, and every stream window given back."""
        deadline = time.monotonic() + 10
        while (metric(self.server, "polycodec_inflight_requests", 'transport="http"') > 1 or
               metric(self.server, "polycodec_memory_reserved_bytes") != 0):
            self.assertLess(time.monotonic(), deadline, "inflight requests or reservations stay")
            time.sleep(0.1)

    def test_ndjson_to_csv_larger_than_max_body(self):
        recs = [{"id": i, "name": "n%d" % i, "v": i * 1.5} for i in range(20000)]
        body = ndjson(recs)
        self.assertGreater(len(body), 4 * MAX_BODY)
        status, h, out, complete = self.exchange(
            request("/transcode?stream=true", "application/x-ndjson", "text/csv", body)
            + b"")
        self.assertEqual(status, 200, out[:300])
        self.assertTrue(complete)
        self.assertEqual(h["transfer-encoding"], "chunked")
        self.assertTrue(h["content-type"].startswith("text/csv"))
        self.assertIn("decode;dur=", h["server-timing"])  # a trailer
        rows = list(csv.DictReader(io.StringIO(out.decode())))
        self.assertEqual(len(rows), len(recs))
        for got, want in zip(rows, recs):
            self.assertEqual(got, {"id": str(want["id"]), "name": want["name"],
                                   "v": repr(want["v"])})

    def test_json_array_to_ndjson_with_content_length_and_put(self):
        recs = records(3000)
        body = json.dumps(recs, ensure_ascii=False).encode()
        self.assertGreater(len(body), MAX_BODY)
        r = curl(self.server.base + "/transcode?stream=true", data=body, method="PUT",
                 headers=["Content-Type: application/json", "Accept: application/x-ndjson"])
        self.assertEqual(r.status, 200, r)
        got = [json.loads(line) for line in r.body.decode().splitlines()]
        self.assertEqual(got, recs)

    def test_stream_equals_whole_document(self):
        recs = records(200)
        body = json.dumps(recs).encode()
        whole = curl(self.server.base + "/transcode", data=body,
                     headers=["Content-Type: application/json", "Accept: application/yaml"])
        self.assertEqual(whole.status, 200, whole)
        status, _, out, complete = self.exchange(
            request("/transcode?stream=true", "application/json", "application/yaml", body))
        self.assertEqual(status, 200)
        self.assertTrue(complete)
        self.assertEqual(out, whole.body)

    def test_keep_alive_between_streams(self):
        body = ndjson(records(50))
        one = request("/transcode?stream=true", "application/x-ndjson", "application/json", body,
                      extra=b"")
        s = socket.create_connection(("127.0.0.1", self.server.http_port), timeout=20)
        s.sendall(one + one)
        raw = b""
        deadline = time.monotonic() + 20
        while raw.count(b"\r\n0\r\n") < 2 and time.monotonic() < deadline:
            raw += s.recv(65536)
        s.close()
        first = parse_answer(raw)
        self.assertEqual(first[0], 200)
        self.assertEqual(json.loads(first[2]), records(50))
        self.assertEqual(raw.count(b"HTTP/1.1 200 OK"), 2)

    def test_error_before_the_first_byte_is_problem_json(self):
        body = b'{"a":1}\n{"a":2}\n{"a":tru}\n'
        status, h, out, _ = self.exchange(
            request("/transcode?stream=true", "application/x-ndjson", "application/json", body))
        self.assertEqual(status, 400)
        self.assertEqual(h["content-type"], "application/problem+json")
        p = json.loads(out)
        self.assertEqual(p["path"], "/2/a")
        self.assertEqual(p["offset"], body.index(b"tru"))
        self.assertEqual(p["line"], 3)
        self.assertIn("record 2", p["detail"])

    def test_error_after_the_first_byte_cuts_the_answer(self):
        recs = records(10000)
        body = ndjson(recs) + b'{"bad": "\xff"}\n' + ndjson(records(10, 10000))
        before = metric(self.server, "polycodec_stream_errors_total")
        status, h, out, complete = self.exchange(
            request("/transcode?stream=true", "application/x-ndjson", "application/x-ndjson",
                    body))
        self.assertEqual(status, 200)
        self.assertFalse(complete, "the answer must end without its last chunk")
        lines = out.decode("utf-8").splitlines(keepends=True)
        # Every complete line sent is a record, in order.
        for i, line in enumerate(l for l in lines if l.endswith("\n")):
            self.assertEqual(json.loads(line), recs[i])
        line = self.server.wait_for(r"event=stream_failed.*record=10000")
        offset = int(re.search(r"offset=(\d+)", line).group(1))
        self.assertEqual(offset, len(ndjson(recs)) + body[len(ndjson(recs)):].index(b"\xff"))
        self.assertEqual(metric(self.server, "polycodec_stream_errors_total"), before + 1)
        self.assert_at_rest()

    def test_record_over_max_record_is_413(self):
        body = b'{"a":1}\n{"s":"' + b"x" * 6000 + b'"}\n'
        status, h, out, _ = self.exchange(
            request("/transcode?stream=true", "application/x-ndjson", "application/json", body))
        self.assertEqual(status, 413)
        p = json.loads(out)
        self.assertIn("record 1", p["detail"])
        self.assertIn("--max-record", p["detail"])
        self.assertEqual(p["offset"], 8)

    def test_truncated_last_record(self):
        body = b'[{"a":1},{"a":2},{"a":'
        status, _, out, _ = self.exchange(
            request("/transcode?stream=true", "application/json", "application/x-ndjson", body))
        self.assertEqual(status, 400)
        p = json.loads(out)
        self.assertEqual(p["path"], "/2/a")
        self.assertEqual(p["offset"], len(body))

    def test_not_streamable_is_422(self):
        r = curl(self.server.base + "/transcode?stream=true", data=b"[1]",
                 headers=["Content-Type: application/json", "Accept: application/toml"])
        self.assertEqual(r.status, 422, r)
        self.assertIn("not streamable", r.json()["detail"])
        r = curl(self.server.base + "/transcode", data=b"a = 1",
                 headers=["Content-Type: application/toml; stream=true",
                          "Accept: application/json"])
        self.assertEqual(r.status, 422, r)

    def test_validate_stream(self):
        r = curl(self.server.base + "/validate?stream=true", data=ndjson(records(100)),
                 headers=["Content-Type: application/x-ndjson"])
        self.assertEqual(r.status, 204, r)

    def test_client_that_stops_reading(self):
        # Output much larger than the socket buffers, and the client reads nothing.
        recs = [{"s": "y" * 2000, "i": i} for i in range(4000)]
        body = ndjson(recs)
        s = socket.create_connection(("127.0.0.1", self.server.http_port), timeout=30)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        try:
            s.sendall(request("/transcode?stream=true&pretty=true", "application/x-ndjson",
                              "application/json", body))
        except OSError:
            pass  # the server stopped reading too (backpressure), then closed
        self.server.wait_for(r"event=stream_aborted.*reason=client_not_reading", timeout=20)
        s.close()
        self.assert_at_rest()

    def test_client_disconnects_mid_stream(self):
        s = socket.create_connection(("127.0.0.1", self.server.http_port), timeout=10)
        s.sendall(request("/transcode?stream=true", "application/x-ndjson", "application/json")
                  + b"Transfer-Encoding: chunked\r\n\r\n" + chunked(ndjson(records(500)))[:-5])
        time.sleep(0.3)
        s.close()
        self.server.wait_for(r"event=stream_aborted.*reason=client_disconnected", timeout=10)
        self.assert_at_rest()

    def test_body_that_never_ends(self):
        # Nothing after the head: 408 once the body timeout passes.
        s = socket.create_connection(("127.0.0.1", self.server.http_port), timeout=10)
        s.sendall(request("/transcode?stream=true", "application/x-ndjson", "application/json")
                  + b"Transfer-Encoding: chunked\r\n\r\n")
        status, h, out, complete = parse_answer(read_until_closed(s, timeout=10))
        s.close()
        self.assertEqual(status, 408)
        self.assertEqual(json.loads(out)["status"], 408)
        # Enough records for a first chunk, then silence: the answer is cut after the timeout.
        body = ndjson(records(2000))
        s = socket.create_connection(("127.0.0.1", self.server.http_port), timeout=10)
        s.sendall(request("/transcode?stream=true", "application/x-ndjson", "application/json")
                  + b"Transfer-Encoding: chunked\r\n\r\n" + chunked(body)[:-5])
        status, h, out, complete = parse_answer(read_until_closed(s, timeout=10))
        s.close()
        self.assertEqual(status, 200)
        self.assertFalse(complete)
        self.assertTrue(out.startswith(b'[{"id":0,'), out[:100])
        self.server.wait_for(r"event=stream_aborted.*reason=request_timeout", timeout=10)
        self.assert_at_rest()


class StreamBudgetTest(unittest.TestCase):
    """A stream reserves its fixed window (8 x --max-record + 1.25 MiB) before its body is read
    (DESIGN section 13): 413 when the window is larger than the budget, 503 + Retry-After while
    other requests hold the budget, and the reservation is given back when the stream ends."""

    def test_window_admission(self):
        window = 8 * 65536 + (256 << 10) + (1 << 20)
        with Server("--threads", "1", "--max-record", "64KiB",
                    "--memory-budget", str(window + window // 2), "--body-timeout", "5s") as srv:
            head = request("/transcode?stream=true", "application/x-ndjson", "application/json",
                           extra=b"Connection: close\r\n")
            held = socket.create_connection(("127.0.0.1", srv.http_port), timeout=10)
            held.sendall(head + b"Transfer-Encoding: chunked\r\n\r\n" + b"8\r\n{\"a\":1}\n\r\n")
            deadline = time.monotonic() + 10
            while metric(srv, "polycodec_memory_reserved_bytes") < window:
                self.assertLess(time.monotonic(), deadline, "the stream reserved nothing")
                time.sleep(0.05)
            self.assertEqual(metric(srv, "polycodec_memory_reserved_bytes"), window)
            r = curl(srv.base + "/transcode?stream=true", data=ndjson(records(10)),
                     headers=["Content-Type: application/x-ndjson", "Accept: application/json"])
            self.assertEqual(r.status, 503, r)
            self.assertEqual(r.headers.get("retry-after"), "1")
            self.assertEqual(metric(srv, "polycodec_admission_rejected_total", 'reason="budget"'),
                             1)
            held.sendall(b"0\r\n\r\n")
            status, _, out, complete = parse_answer(read_until_closed(held, timeout=10,
                                                                      must_close=False))
            held.close()
            self.assertEqual((status, json.loads(out), complete), (200, [{"a": 1}], True))
            deadline = time.monotonic() + 10
            while metric(srv, "polycodec_memory_reserved_bytes") != 0:
                self.assertLess(time.monotonic(), deadline, "the window was not given back")
                time.sleep(0.05)
            r = curl(srv.base + "/transcode?stream=true", data=ndjson(records(10)),
                     headers=["Content-Type: application/x-ndjson", "Accept: application/json"])
            self.assertEqual(r.status, 200, r)
            self.assertEqual(json.loads(r.body), records(10))
        with Server("--max-record", "16MiB", "--memory-budget", "64MiB") as srv:
            r = curl(srv.base + "/transcode?stream=true", data=ndjson(records(10)),
                     headers=["Content-Type: application/x-ndjson", "Accept: application/json"])
            self.assertEqual(r.status, 413, r)
            self.assertIn("--max-record", r.json()["detail"])
            self.assertEqual(metric(srv, "polycodec_admission_rejected_total",
                                    'reason="too_large"'), 1)


if __name__ == "__main__":
    unittest.main()
