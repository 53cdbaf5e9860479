"""Graceful drain (DESIGN section 7): on SIGTERM readiness turns 503, new connections are
refused, requests in flight complete with correct answers, idle connections close, and the
process exits 0 within the grace period."""
import os
import re
import signal
import socket
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_common import (Server, curl, read_response, read_until_closed, request_frame,
                           tcp_connect)

JSON = 1


def refused(port):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=2)
    except (ConnectionRefusedError, ConnectionResetError):
        # Reset: the handshake completed in the backlog just as the listener closed.
        return True
    s.close()
    return False


def open_connections(server):
    """polycodec_open_connections per transport, from one scrape (its own connection is one
    of the HTTP ones)."""
    r = curl(server.base + "/metrics")
    found = re.findall(r'^polycodec_open_connections\{transport="(\w+)"\} (\S+)$',
                       r.body.decode(), re.M)
    return {t: int(float(v)) for t, v in found}


class DrainTest(unittest.TestCase):
    def drain(self, sig):
        self.server = None
        try:
            self.drain_steps(sig)
        except AssertionError as e:
            # Say what the server logged: a failure here is about timing, and the log has it.
            log = "\n".join(self.server.lines) if self.server else ""
            raise AssertionError("%s\nserver log:\n%s" % (e, log)) from e

    def drain_steps(self, sig):
        server = self.server = Server("--threads", "2", "--grace", "10s", "--header-timeout",
                                      "8s", "--body-timeout", "8s")
        with server:
            body = b'{"k": [1, 2, 3], "s": "in flight"}'
            # 1. An HTTP request whose body is half sent.
            busy = socket.create_connection(("127.0.0.1", server.http_port), timeout=10)
            busy.sendall(b"POST /transcode HTTP/1.1\r\nHost: t\r\n"
                         b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n"
                         % len(body) + body[:10])
            # 2. A readiness probe whose head is not finished.
            probe = socket.create_connection(("127.0.0.1", server.http_port), timeout=10)
            probe.sendall(b"GET /readyz HTTP/1.1\r\nHost: t\r\n")
            # 3. A TCP frame half sent.
            frame = request_frame(77, JSON, JSON, body)
            tcp = tcp_connect(server)
            tcp.sendall(frame[:20])
            # 4. An idle keep-alive connection.
            idle = socket.create_connection(("127.0.0.1", server.http_port), timeout=10)
            idle.sendall(b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
            self.assertIn(b"200 OK", idle.recv(4096))
            # 5. A TCP connection idle after an answered frame.
            tcp_idle = tcp_connect(server)
            tcp_idle.sendall(request_frame(5, JSON, JSON, b"[1]"))
            self.assertEqual(read_response(tcp_idle)[:2], (0, 5))
            # Wait until the server holds all five (and the scrape's own connection), so a
            # loaded machine cannot turn a slow accept into a refused one; then give the
            # sessions a moment to read what was sent.
            deadline = time.monotonic() + 10
            while open_connections(server) != {"http": 4, "tcp": 2}:
                self.assertLess(time.monotonic(), deadline, open_connections(server))
                time.sleep(0.05)
            time.sleep(0.3)

            server.proc.send_signal(sig)
            server.wait_for(r"event=draining")
            # "draining" is logged after both listeners are closed: new connections are
            # refused on both ports from that line on, with no waiting.
            self.assertTrue(refused(server.http_port), "HTTP listener still accepts")
            self.assertTrue(refused(server.tcp_port), "TCP listener still accepts")
            # The idle connections are closed.
            self.assertEqual(read_until_closed(idle, 5), b"")
            self.assertEqual(read_until_closed(tcp_idle, 5), b"")
            # Readiness answers 503 while draining.
            probe.sendall(b"\r\n")
            answer = read_until_closed(probe, 10)
            self.assertTrue(answer.startswith(b"HTTP/1.1 503"), answer)
            self.assertIn(b"draining", answer)
            # The in-flight requests complete with correct answers.
            busy.sendall(body[10:])
            answer = read_until_closed(busy, 10)
            self.assertTrue(answer.startswith(b"HTTP/1.1 200 OK"), answer)
            self.assertIn(b"Connection: close", answer)
            self.assertTrue(answer.endswith(b'{"k":[1,2,3],"s":"in flight"}'), answer)
            tcp.sendall(frame[20:])
            status, rid, fmt, payload = read_response(tcp)
            self.assertEqual((status, rid, payload), (0, 77, b'{"k":[1,2,3],"s":"in flight"}'))
            start = time.monotonic()
            code = server.proc.wait(15)
            self.assertEqual(code, 0)
            self.assertLess(time.monotonic() - start, 10)
            server.wait_for(r"event=stopped clean=true")
            for s in (busy, probe, tcp, idle, tcp_idle):
                s.close()

    def test_sigterm(self):
        self.drain(signal.SIGTERM)

    def test_sigint(self):
        self.drain(signal.SIGINT)

    def test_grace_period_bounds_the_drain(self):
        server = Server("--threads", "1", "--grace", "1s", "--header-timeout", "30s",
                        "--body-timeout", "30s")
        with server:
            stuck = socket.create_connection(("127.0.0.1", server.http_port), timeout=10)
            stuck.sendall(b"POST /transcode HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\n[")
            time.sleep(0.2)
            start = time.monotonic()
            server.proc.send_signal(signal.SIGTERM)
            self.assertEqual(server.proc.wait(10), 0)
            self.assertLess(time.monotonic() - start, 5)
            server.wait_for(r"event=grace_expired")
            stuck.close()


if __name__ == "__main__":
    unittest.main()
