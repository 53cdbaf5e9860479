"""Network faults (issue #8): clients that disconnect mid-body and mid-response, half-open
connections, garbage on both ports and 10,000 pipelined TCP frames. After each fault the
server must still answer, and its gauges must come back: polycodec_open_connections to the
connections still open and polycodec_inflight_requests to 0 (nothing leaked, nothing stuck)."""
import json
import os
import random
import re
import socket
import struct
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_common import (Server, curl, is_closed, pipeline_frames_in_order, read_http_response,
                           read_response, read_until_closed, request_frame, tcp_connect)

OK, MALFORMED, UNSUPPORTED, UNREPRESENTABLE, TOO_LARGE, BUSY, BAD_FRAME = range(7)
JSON, YAML = 1, 4


def http_connect(server, timeout=30):
    s = socket.create_connection(("127.0.0.1", server.http_port), timeout=timeout)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def reset_close(sock):
    """Closes with a TCP RST (SO_LINGER 0), as a crashed client does."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def big_document(n=40000):
    """About 2.4 MB of JSON whose YAML form is larger still."""
    return json.dumps([{"id": i, "name": "record number %d" % i, "tags": ["a", "b"]}
                       for i in range(n)]).encode()


class FaultTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = Server("--threads", "2", "--max-body", "8MiB", "--header-timeout", "2s",
                            "--body-timeout", "3s", "--idle-timeout", "3s")
        cls.big = big_document()

    @classmethod
    def tearDownClass(cls):
        assert cls.server.stop() == 0

    def gauges(self):
        """(open connections, requests in flight), summed over both transports, from one
        scrape (which is itself one open HTTP connection and one request in flight)."""
        r = curl(self.server.base + "/metrics")
        self.assertEqual(r.status, 200)
        text = r.body.decode()
        out = []
        for name in ("polycodec_open_connections", "polycodec_inflight_requests"):
            values = re.findall(r"^%s\{[^}]*\} (\S+)$" % name, text, re.M)
            self.assertEqual(len(values), 2, name)  # transport="http" and "tcp"
            out.append(sum(float(v) for v in values))
        return tuple(out)

    def assert_recovered(self, timeout=10):
        """The server answers, and its gauges come back to rest: the scrape's own connection
        and request are the only ones left."""
        deadline = time.monotonic() + timeout
        while True:
            conns, inflight = self.gauges()
            if (conns, inflight) == (1, 1):
                break
            if time.monotonic() > deadline:
                self.fail("gauges stuck: open_connections=%s inflight=%s" % (conns, inflight))
            time.sleep(0.1)
        r = curl(self.server.base + "/transcode", data=b'{"ok": [1, 2.5]}',
                 headers=["Content-Type: application/json", "Accept: application/json"])
        self.assertEqual((r.status, r.body), (200, b'{"ok":[1,2.5]}'))
        with tcp_connect(self.server) as s:
            s.sendall(request_frame(1, JSON, JSON, b"[true]"))
            self.assertEqual(read_response(s), (OK, 1, JSON, b"[true]"))

    def test_http_client_gone_mid_body(self):
        for i in range(20):
            s = http_connect(self.server)
            s.sendall(b"POST /transcode HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                      b"Accept: application/cbor\r\nContent-Length: 100000\r\n\r\n" +
                      self.big[:1000 + i * 100])
            (reset_close if i % 2 else socket.socket.close)(s)
        self.assert_recovered()

    def test_http_client_gone_mid_response(self):
        for i in range(6):
            s = http_connect(self.server)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.sendall(b"POST /transcode?pretty=true HTTP/1.1\r\nHost: x\r\n"
                      b"Content-Type: application/json\r\nAccept: application/yaml\r\n"
                      b"Content-Length: %d\r\n\r\n" % len(self.big) + self.big)
            first = s.recv(100)
            self.assertTrue(first.startswith(b"HTTP/1.1 200"), first)
            (reset_close if i % 2 else socket.socket.close)(s)
        self.assert_recovered()

    def test_tcp_client_gone_mid_body_and_mid_response(self):
        for i in range(10):
            s = tcp_connect(self.server)
            frame = request_frame(i, JSON, YAML, self.big)
            s.sendall(frame[:16 + 500 * (i + 1)])  # the header and part of the payload
            (reset_close if i % 2 else socket.socket.close)(s)
        for i in range(6):
            s = tcp_connect(self.server)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.sendall(request_frame(i, JSON, YAML, self.big))
            self.assertGreater(len(s.recv(16)), 0)  # the answer has started
            (reset_close if i % 2 else socket.socket.close)(s)
        self.assert_recovered()

    def test_half_open_connections(self):
        # The client sends its request, then shuts its write side: the answer still arrives,
        # then the server closes.
        s = http_connect(self.server)
        s.sendall(b"POST /transcode HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  b"Accept: application/json\r\nContent-Length: 7\r\n\r\n[1,[2]]")
        s.shutdown(socket.SHUT_WR)
        status, _, body, _ = read_http_response(s)
        self.assertEqual((status, body), (200, b"[1,[2]]"))
        self.assertTrue(is_closed(s))
        s.close()
        s = tcp_connect(self.server)
        s.sendall(request_frame(9, JSON, JSON, b'{"a":null}'))
        s.shutdown(socket.SHUT_WR)
        self.assertEqual(read_response(s), (OK, 9, JSON, b'{"a":null}'))
        self.assertTrue(is_closed(s))
        s.close()
        # Connections that send nothing, or half a request, are closed by the server's
        # timeouts (header 2 s, idle 3 s, body 3 s here) instead of being held forever; the
        # half requests get their timeout answer first.
        idle_http, idle_tcp = http_connect(self.server), tcp_connect(self.server)
        partial = http_connect(self.server)
        partial.sendall(b"POST /transcode HTTP/1.1\r\nHost: x\r\n")
        partial_tcp = tcp_connect(self.server)
        partial_tcp.sendall(request_frame(3, JSON, JSON, b"[1]")[:10])
        start = time.monotonic()
        self.assertEqual(read_until_closed(idle_http, 10), b"")
        self.assertEqual(read_until_closed(idle_tcp, 10), b"")
        self.assertRegex(read_until_closed(partial, 10), rb"^HTTP/1\.1 408 ")
        answer = read_until_closed(partial_tcp, 10)
        self.assertEqual((answer[:2], answer[3]), (b"PC", BAD_FRAME), answer)
        self.assertLess(time.monotonic() - start, 10)
        for s in (idle_http, idle_tcp, partial, partial_tcp):
            s.close()
        self.assert_recovered()

    def test_garbage_on_both_ports(self):
        rng = random.Random(8)
        for i in range(40):
            garbage = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 4096)))
            s = tcp_connect(self.server)
            s.sendall(garbage)
            s.shutdown(socket.SHUT_WR)
            # Either a status-6 answer (bad magic or version) and a close, or a close when the
            # bytes end inside a frame; never a hang and never a crash.
            data = read_until_closed(s, 10)
            s.close()
            if data:
                self.assertEqual(data[:2], b"PC", garbage[:16])
                self.assertEqual(data[3], BAD_FRAME, garbage[:16])
        for i in range(40):
            garbage = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 4096)))
            s = http_connect(self.server)
            s.sendall(garbage + b"\r\n\r\n")
            data = read_until_closed(s, 10)
            s.close()
            if data:
                self.assertRegex(data[:12], rb"^HTTP/1\.1 4\d\d", garbage[:16])
        self.assert_recovered()

    def test_10000_pipelined_frames_in_order(self):
        pipeline_frames_in_order(self, self.server, 10000)
        self.assert_recovered()


if __name__ == "__main__":
    unittest.main()
