"""TLS on both ports (--tls-cert, --tls-key, --tls-client-ca). Certificates are made at test time
by the openssl command-line tool: a CA, server certificates for 127.0.0.1/localhost (serials
0x1001 and 0x2002) and a client certificate. Clients are curl and Python's ssl module (the TCP
binary protocol written with struct, as in test_tcp.py); answers are checked with json, yaml
and a MessagePack reader written from the spec (test_budget.py), never with our encoder."""
import http.client
import json
import os
import re
import shutil
import signal
import socket
import ssl
import struct
import subprocess
import sys
import tempfile
import time
import unittest

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_common import (Server, curl, fixture, polycodec_bin, read_response, read_until_closed,
                           request_frame)
from test_budget import decode_msgpack

JSON, YAML_ID, MSGPACK = 1, 4, 8


def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.PIPE)


def make_pki(d):
    """CA, two server certificates of the same key type and a client certificate, in `d`."""
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out",
            "ca.pem", "-days", "2", "-subj", "/CN=polycodec test CA", cwd=d)
    with open(os.path.join(d, "server.ext"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n")
    with open(os.path.join(d, "client.ext"), "w") as f:
        f.write("extendedKeyUsage=clientAuth\n")
    for name, serial, ext in (("server1", "0x1001", "server.ext"), ("server2", "0x2002", "server.ext"),
                              ("client", "0x3003", "client.ext")):
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", name + ".key", "-out",
                name + ".csr", "-subj", "/CN=" + ("localhost" if name != "client" else "client1"),
                cwd=d)
        openssl("x509", "-req", "-in", name + ".csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                "-set_serial", serial, "-days", "2", "-out", name + ".pem", "-extfile", ext,
                cwd=d)
    # A CA the server does not trust, and a client certificate from it.
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "other-ca.key", "-out",
            "other-ca.pem", "-days", "2", "-subj", "/CN=other CA", cwd=d)
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "stranger.key", "-out",
            "stranger.csr", "-subj", "/CN=stranger", cwd=d)
    openssl("x509", "-req", "-in", "stranger.csr", "-CA", "other-ca.pem", "-CAkey",
            "other-ca.key", "-set_serial", "0x4004", "-days", "2", "-out", "stranger.pem",
            "-extfile", "client.ext", cwd=d)


class Pki:
    dir = None

    @classmethod
    def get(cls):
        if cls.dir is None:
            cls.dir = tempfile.mkdtemp(prefix="polycodec-tls-")
            make_pki(cls.dir)
        return cls.dir

    @classmethod
    def path(cls, name):
        return os.path.join(cls.get(), name)


def client_context(cert=None, minimum=ssl.TLSVersion.TLSv1_2, maximum=None):
    ctx = ssl.create_default_context(cafile=Pki.path("ca.pem"))
    ctx.minimum_version = minimum
    if maximum is not None:
        ctx.maximum_version = maximum
    if cert:
        ctx.load_cert_chain(Pki.path(cert + ".pem"), Pki.path(cert + ".key"))
    return ctx


def tls_connect(port, ctx, host="127.0.0.1", timeout=20):
    raw = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    return ctx.wrap_socket(raw, server_hostname=host)


def https(server, path, data=None, headers=(), extra=(), **kw):
    return curl("https://127.0.0.1:%d%s" % (server.http_port, path), data=data, headers=headers,
                extra=["--cacert", Pki.path("ca.pem"), *extra], **kw)


def serial_of(sock):
    return int(sock.getpeercert()["serialNumber"], 16)


def tls_server(*args, cert="server1", env=None):
    return Server("--tls-cert", Pki.path(cert + ".pem"), "--tls-key", Pki.path(cert + ".key"),
                  *args, env=env)


class TlsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if shutil.which("openssl") is None:
            raise unittest.SkipTest("the openssl command-line tool is missing")
        Pki.get()
        cls.server = tls_server("--threads", "2", "--header-timeout", "2s",
                                "--memory-budget", "4MiB", "--max-body", "16MiB",
                                "--max-record", "64KiB")

    @classmethod
    def tearDownClass(cls):
        assert cls.server.stop() == 0

    def test_started_line_says_tls(self):
        line = self.server.wait_for(r"event=started")
        self.assertIn("tls=TLSv1.2+", line)

    def test_curl_converts_over_https(self):
        doc = {"a": 1, "b": [True, None], "c": "x\u00e9"}
        r = https(self.server, "/transcode", data=json.dumps(doc).encode(),
                  headers=["Content-Type: application/json", "Accept: application/msgpack"])
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.headers["content-type"], "application/vnd.msgpack")
        # Hand-checked against the MessagePack spec: fixmap 2... the whole document.
        self.assertEqual(r.body[:4], bytes([0x83, 0xa1, 0x61, 0x01]))
        self.assertEqual(decode_msgpack(r.body), doc)
        records = fixture("records.json")
        r = https(self.server, "/transcode", data=records,
                  headers=["Content-Type: application/json", "Accept: application/yaml"])
        self.assertEqual(r.status, 200, r)
        self.assertEqual(yaml.safe_load(r.body), json.loads(records))

    def test_curl_keep_alive_reuses_one_connection(self):
        # Two URLs in one curl run: the second request goes on the same TLS connection.
        url = "https://127.0.0.1:%d/healthz" % self.server.http_port
        p = subprocess.run(["curl", "-sS", "-v", "--cacert", Pki.path("ca.pem"), url, url],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        err = p.stderr.decode()
        self.assertIn("Re-using existing connection", err)
        self.assertEqual(err.count("SSL connection using"), 1, err)

    def test_curl_rejects_unknown_ca(self):
        p = subprocess.run(["curl", "-sS", "https://127.0.0.1:%d/healthz" % self.server.http_port],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30)
        self.assertEqual(p.returncode, 60, p.stderr)  # the certificate did not verify

    def test_tcp_protocol_over_tls(self):
        records = fixture("records.json")
        with tls_connect(self.server.tcp_port, client_context()) as s:
            self.assertEqual(serial_of(s), 0x1001)
            s.sendall(request_frame(7, JSON, MSGPACK, records))
            status, rid, fmt, payload = read_response(s)
            self.assertEqual((status, rid, fmt), (0, 7, MSGPACK))
            self.assertEqual(decode_msgpack(payload), json.loads(records))
            # Pipelined frames on the same connection, answered in order.
            s.sendall(b"".join(request_frame(i, JSON, YAML_ID, b'{"i": %d}' % i)
                               for i in range(100)))
            for i in range(100):
                status, rid, fmt, payload = read_response(s)
                self.assertEqual((status, rid, fmt), (0, i, YAML_ID))
                self.assertEqual(yaml.safe_load(payload), {"i": i})

    def test_tls13_and_tls12_accepted(self):
        for version in (ssl.TLSVersion.TLSv1_2, ssl.TLSVersion.TLSv1_3):
            with tls_connect(self.server.http_port,
                             client_context(minimum=version, maximum=version)) as s:
                self.assertEqual(s.version(), version.name.replace("v1_", "v1."))
                s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                self.assertTrue(read_until_closed(s, 10).startswith(b"HTTP/1.1 200"))

    def test_pipelined_requests_in_separate_records(self):
        # Each request its own TLS record, sent back to back: the second may sit decrypted in
        # the TLS engine, not on the socket, when the first is answered.
        req = (b"POST /transcode HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
               b"Accept: application/yaml\r\nContent-Length: 7\r\n\r\n{\"n\":%d}")
        with tls_connect(self.server.http_port, client_context()) as s:
            started = time.monotonic()
            for i in range(5):
                s.sendall(req % i)
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            data = read_until_closed(s, 10)
            self.assertLess(time.monotonic() - started, 5)
        answers = data.split(b"HTTP/1.1 ")[1:]
        self.assertEqual(len(answers), 6, data)
        for i, a in enumerate(answers[:5]):
            self.assertTrue(a.startswith(b"200"), a)
            self.assertEqual(yaml.safe_load(a.split(b"\r\n\r\n", 1)[1]), {"n": i})

    def test_tls12_cipher_is_forward_secret_aead(self):
        with tls_connect(self.server.http_port,
                         client_context(maximum=ssl.TLSVersion.TLSv1_2)) as s:
            name, version, bits = s.cipher()
            self.assertTrue(name.startswith("ECDHE-") and ("GCM" in name or "CHACHA" in name),
                            name)

    def test_tls11_refused(self):
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        ctx.set_ciphers("DEFAULT@SECLEVEL=0")  # let this client offer TLS 1.1 at all
        ctx.minimum_version = ssl.TLSVersion.TLSv1_1
        ctx.maximum_version = ssl.TLSVersion.TLSv1_1
        for port, transport in ((self.server.http_port, "http"), (self.server.tcp_port, "tcp")):
            with self.assertRaises(ssl.SSLError) as cm:
                tls_connect(port, ctx).close()
            self.assertIn("VERSION", cm.exception.reason or str(cm.exception))
            self.server.wait_for(r"event=tls_handshake_failed transport=%s .*"
                                 r"error=\"unsupported protocol\"" % transport)

    def test_plain_http_on_tls_port_refused_cleanly(self):
        with socket.create_connection(("127.0.0.1", self.server.http_port), timeout=10) as s:
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            started = time.monotonic()
            self.assertEqual(read_until_closed(s, 5), b"")  # nothing answered, closed
            self.assertLess(time.monotonic() - started, 1.5)  # at once, not at the 2 s timeout
        self.server.wait_for(r'event=tls_handshake_failed transport=http .*error="http request"')
        # curl speaking plain HTTP to it fails the same way; the server carries on.
        p = subprocess.run(["curl", "-sS", "http://127.0.0.1:%d/healthz" % self.server.http_port],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30)
        self.assertNotEqual(p.returncode, 0)
        self.assertEqual(https(self.server, "/healthz").status, 200)

    def test_plain_frame_on_tls_tcp_port_refused_cleanly(self):
        with socket.create_connection(("127.0.0.1", self.server.tcp_port), timeout=10) as s:
            s.sendall(request_frame(1, JSON, JSON, b"{}"))
            self.assertEqual(read_until_closed(s, 5), b"")
        self.server.wait_for(r"event=tls_handshake_failed transport=tcp .*wrong version number")
        with tls_connect(self.server.tcp_port, client_context()) as s:
            s.sendall(request_frame(2, JSON, JSON, b"[1]"))
            self.assertEqual(read_response(s), (0, 2, JSON, b"[1]"))

    def test_stalled_handshake_hits_header_timeout(self):
        for port, transport in ((self.server.http_port, "http"), (self.server.tcp_port, "tcp")):
            with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
                # A TLS record header that promises a ClientHello which never comes.
                s.sendall(bytes([0x16, 0x03, 0x01, 0x02, 0x00]))
                started = time.monotonic()
                self.assertEqual(read_until_closed(s, 8), b"")
                waited = time.monotonic() - started
                self.assertGreater(waited, 1.7)
                self.assertLess(waited, 6)
            self.server.wait_for(r"event=tls_handshake_failed transport=%s .*"
                                 r"no handshake within 2000 ms" % transport)

    def gauges(self):
        """(open connections, requests in flight) over both transports, scraped over HTTPS
        (the scrape is itself one connection and one request)."""
        r = https(self.server, "/metrics")
        self.assertEqual(r.status, 200)
        out = []
        for name in ("polycodec_open_connections", "polycodec_inflight_requests"):
            values = re.findall(r"^%s\{[^}]*\} (\S+)$" % name, r.body.decode(), re.M)
            self.assertEqual(len(values), 2, name)
            out.append(sum(float(v) for v in values))
        return tuple(out)

    def test_gauges_back_to_rest_after_tls_faults(self):
        ports = (self.server.http_port, self.server.tcp_port)
        for port in ports:
            # Gone mid-handshake (FIN, then RST), garbage, gone mid-request after the handshake.
            with socket.create_connection(("127.0.0.1", port)) as s:
                s.sendall(bytes([0x16, 0x03, 0x01, 0x02, 0x00, 0x01]))
            with socket.create_connection(("127.0.0.1", port)) as s:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                s.sendall(bytes([0x16, 0x03, 0x01]))
            with socket.create_connection(("127.0.0.1", port)) as s:
                s.sendall(os.urandom(3000))
                read_until_closed(s, 5)
            s = tls_connect(port, client_context())
            if port == self.server.http_port:
                s.sendall(b"POST /transcode HTTP/1.1\r\nHost: x\r\nContent-Type: "
                          b"application/json\r\nContent-Length: 100000\r\n\r\n[1,")
            else:
                s.sendall(request_frame(1, JSON, JSON, b"[1,2]")[:20])
            s.close()
        deadline = time.monotonic() + 10
        while self.gauges() != (1, 1):
            self.assertLess(time.monotonic(), deadline, "gauges stuck: %r" % (self.gauges(),))
            time.sleep(0.1)

    def test_stream_mode_over_tls(self):
        lines = [{"n": i, "s": "r%d" % i, "t": [i, None]} for i in range(3000)]
        body = b"".join(json.dumps(x).encode() + b"\n" for x in lines)
        conn = http.client.HTTPSConnection("127.0.0.1", self.server.http_port,
                                           context=client_context(), timeout=30)
        pieces = (body[i:i + 7000] for i in range(0, len(body), 7000))
        conn.request("POST", "/transcode?stream=true", body=pieces, encode_chunked=True,
                     headers={"Content-Type": "application/x-ndjson",
                              "Accept": "application/json"})
        r = conn.getresponse()
        self.assertEqual(r.status, 200)
        self.assertEqual(r.getheader("Transfer-Encoding"), "chunked")
        self.assertEqual(json.loads(r.read()), lines)
        conn.close()

    def test_memory_budget_over_tls(self):
        # 3 MB of JSON needs more than the whole 4 MiB budget: 413 before the body is read,
        # and the refusal reaches the client over TLS although it is still sending.
        big = json.dumps([{"k": "v" * 100, "i": i} for i in range(26000)]).encode()
        self.assertGreater(len(big), 3_000_000)
        r = https(self.server, "/transcode", data=big,
                  headers=["Content-Type: application/json", "Accept: application/msgpack"])
        self.assertEqual(r.status, 413, r)
        self.assertIn("budget", r.json()["detail"])
        self.assertEqual(https(self.server, "/healthz").status, 200)

    def test_loadtest_speaks_tls(self):
        lt = os.environ.get("POLYCODEC_LOADTEST_BIN")
        if not lt or not os.path.exists(lt):
            self.skipTest("POLYCODEC_LOADTEST_BIN is not set")
        data = fixture("records.json")
        with tempfile.NamedTemporaryFile(suffix=".json") as f:
            f.write(json.dumps(json.loads(data)[:5]).encode())
            f.flush()
            for args in (["http", "--target", "127.0.0.1:%d" % self.server.http_port],
                         ["http", "--target", "localhost:%d" % self.server.http_port,
                          "--new-connections"],
                         ["tcp", "--target", "127.0.0.1:%d" % self.server.tcp_port]):
                p = subprocess.run([lt, *args, "--tls", "--cacert", Pki.path("ca.pem"),
                                    "--formats", "msgpack", "--concurrency", "4",
                                    "--requests", "200", "--duration", "2s", "--data", f.name],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
                out = p.stdout.decode()
                self.assertEqual(p.returncode, 0, out + p.stderr.decode())
                self.assertRegex(out, r"# totals: answers=(\d+) ok=\1 errors=0")
            # Without the CA, the load test refuses the server's certificate.
            p = subprocess.run([lt, "http", "--target", "127.0.0.1:%d" % self.server.http_port,
                                "--tls", "--formats", "msgpack", "--requests", "4",
                                "--concurrency", "1", "--duration", "2s", "--data", f.name],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
            self.assertEqual(p.returncode, 1)
            self.assertIn("certificate verify failed", p.stdout.decode())
            # --insecure skips the verification; --cacert without --tls is a usage error.
            p = subprocess.run([lt, "http", "--target", "127.0.0.1:%d" % self.server.http_port,
                                "--tls", "--insecure", "--formats", "msgpack", "--requests", "4",
                                "--concurrency", "1", "--duration", "2s", "--data", f.name],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
            self.assertEqual(p.returncode, 0, p.stdout.decode() + p.stderr.decode())
            self.assertRegex(p.stdout.decode(), r"# totals: answers=(\d+) ok=\1 errors=0")
            p = subprocess.run([lt, "http", "--target", "127.0.0.1:%d" % self.server.http_port,
                                "--cacert", Pki.path("ca.pem")],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
            self.assertEqual(p.returncode, 2)
            self.assertIn("--cacert and --insecure go with --tls", p.stderr.decode())


class MutualTlsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if shutil.which("openssl") is None:
            raise unittest.SkipTest("the openssl command-line tool is missing")
        cls.server = tls_server("--threads", "1", "--tls-client-ca", Pki.path("ca.pem"))

    @classmethod
    def tearDownClass(cls):
        assert cls.server.stop() == 0

    def test_started_line(self):
        self.assertIn('tls="TLSv1.2+, client certificate required"',
                      self.server.wait_for(r"event=started"))

    def test_curl_with_client_certificate_accepted(self):
        r = https(self.server, "/transcode", data=b'{"x":[1,2]}',
                  headers=["Content-Type: application/json", "Accept: application/yaml"],
                  extra=["--cert", Pki.path("client.pem"), "--key", Pki.path("client.key")])
        self.assertEqual(r.status, 200, r)
        self.assertEqual(yaml.safe_load(r.body), {"x": [1, 2]})

    def test_curl_without_certificate_refused(self):
        p = subprocess.run(["curl", "-sS", "--cacert", Pki.path("ca.pem"),
                            "https://127.0.0.1:%d/healthz" % self.server.http_port],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30)
        self.assertIn(p.returncode, (35, 56), p.stderr)  # handshake / receive failure
        self.assertEqual(p.stdout, b"")
        self.server.wait_for(r"event=tls_handshake_failed transport=http .*"
                             r"peer did not return a certificate")

    def test_certificate_from_another_ca_refused(self):
        p = subprocess.run(["curl", "-sS", "--cacert", Pki.path("ca.pem"),
                            "--cert", Pki.path("stranger.pem"), "--key", Pki.path("stranger.key"),
                            "https://127.0.0.1:%d/healthz" % self.server.http_port],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30)
        self.assertIn(p.returncode, (35, 56), p.stderr)
        self.server.wait_for(r"event=tls_handshake_failed transport=http .*"
                             r"certificate verify failed")

    def test_tcp_with_and_without_certificate(self):
        with tls_connect(self.server.tcp_port, client_context(cert="client")) as s:
            s.sendall(request_frame(3, JSON, MSGPACK, b'{"ok":true}'))
            status, rid, fmt, payload = read_response(s)
            self.assertEqual((status, rid, fmt), (0, 3, MSGPACK))
            self.assertEqual(payload, bytes([0x81, 0xa2]) + b"ok" + bytes([0xc3]))  # spec bytes
        # Under TLS 1.3 the client finishes its side first; the refusal is the next read.
        with self.assertRaises((ssl.SSLError, ConnectionResetError, EOFError)):
            with tls_connect(self.server.tcp_port, client_context()) as s:
                s.sendall(request_frame(4, JSON, JSON, b"{}"))
                read_response(s)
        self.server.wait_for(r"event=tls_handshake_failed transport=tcp .*"
                             r"peer did not return a certificate")


class ReloadTest(unittest.TestCase):
    def setUp(self):
        if shutil.which("openssl") is None:
            raise unittest.SkipTest("the openssl command-line tool is missing")
        self.dir = tempfile.mkdtemp(prefix="polycodec-tls-live-")
        self.cert = os.path.join(self.dir, "tls.crt")
        self.key = os.path.join(self.dir, "tls.key")
        self.install("server1")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def install(self, name):
        shutil.copy(Pki.path(name + ".pem"), self.cert)
        shutil.copy(Pki.path(name + ".key"), self.key)

    def test_sighup_reloads_for_new_connections_only(self):
        # Through the environment variables this time.
        with Server("--threads", "2", env={"POLYCODEC_TLS_CERT": self.cert,
                                           "POLYCODEC_TLS_KEY": self.key}) as server:
            old = http.client.HTTPSConnection("127.0.0.1", server.http_port,
                                              context=client_context(), timeout=20)
            old.request("POST", "/transcode", body=b'{"v":1}',
                        headers={"Content-Type": "application/json", "Accept": "application/yaml"})
            r = old.getresponse()
            self.assertEqual((r.status, yaml.safe_load(r.read())), (200, {"v": 1}))
            self.assertEqual(serial_of(old.sock), 0x1001)
            old_tcp = tls_connect(server.tcp_port, client_context())
            self.assertEqual(serial_of(old_tcp), 0x1001)

            self.install("server2")
            server.proc.send_signal(signal.SIGHUP)
            server.wait_for(r"event=tls_reloaded")
            for port in (server.http_port, server.tcp_port):
                with tls_connect(port, client_context()) as s:
                    self.assertEqual(serial_of(s), 0x2002)
            # The connections opened before the reload keep working, on the old certificate.
            for i in range(3):
                old.request("POST", "/transcode", body=b'{"v":%d}' % i,
                            headers={"Content-Type": "application/json",
                                     "Accept": "application/yaml"})
                r = old.getresponse()
                self.assertEqual((r.status, yaml.safe_load(r.read())), (200, {"v": i}))
            self.assertEqual(serial_of(old.sock), 0x1001)
            old_tcp.sendall(request_frame(9, JSON, JSON, b'{"a": 1}'))
            self.assertEqual(read_response(old_tcp), (0, 9, JSON, b'{"a":1}'))
            old_tcp.close()
            old.close()

            # A reload whose files no longer load is logged and keeps the current context.
            with open(self.key, "w") as f:
                f.write("not a key\n")
            server.proc.send_signal(signal.SIGHUP)
            line = server.wait_for(r"event=tls_reload_failed")
            self.assertIn(self.key, line)
            with tls_connect(server.http_port, client_context()) as s:
                self.assertEqual(serial_of(s), 0x2002)
            # The drain closes an idle TLS connection and the process exits 0.
            idle = tls_connect(server.http_port, client_context())
            idle.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            self.assertTrue(idle.recv(4096).startswith(b"HTTP/1.1 200"))
            self.assertEqual(server.stop(), 0)
            self.assertEqual(read_until_closed(idle, 5), b"")
            idle.close()


class StartupErrorTest(unittest.TestCase):
    def run_serve(self, *args):
        p = subprocess.run([polycodec_bin(), "serve", "--host", "127.0.0.1", "--http-port", "0",
                            "--tcp-port", "0", *args],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30)
        return p.returncode, p.stderr.decode()

    def setUp(self):
        if shutil.which("openssl") is None:
            raise unittest.SkipTest("the openssl command-line tool is missing")
        Pki.get()

    def test_bad_files_name_the_file(self):
        with tempfile.TemporaryDirectory() as d:
            junk = os.path.join(d, "junk.pem")
            with open(junk, "w") as f:
                f.write("-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n")
            missing = os.path.join(d, "missing.pem")
            cases = [
                (["--tls-cert", junk, "--tls-key", Pki.path("server1.key")],
                 "--tls-cert " + junk),
                (["--tls-cert", missing, "--tls-key", Pki.path("server1.key")],
                 "--tls-cert " + missing + ": No such file or directory"),
                (["--tls-cert", Pki.path("server1.pem"), "--tls-key", junk],
                 "--tls-key " + junk),
                (["--tls-cert", Pki.path("server1.pem"), "--tls-key", Pki.path("server2.key")],
                 "does not match the certificate"),
                (["--tls-cert", Pki.path("server1.pem"), "--tls-key", Pki.path("server1.key"),
                  "--tls-client-ca", junk], "--tls-client-ca " + junk),
            ]
            for args, expect in cases:
                rc, err = self.run_serve(*args)
                self.assertEqual(rc, 2, err)
                self.assertIn(expect, err)

    def test_half_configured(self):
        rc, err = self.run_serve("--tls-cert", Pki.path("server1.pem"))
        self.assertEqual(rc, 2)
        self.assertIn("--tls-cert needs --tls-key", err)
        rc, err = self.run_serve("--tls-client-ca", Pki.path("ca.pem"))
        self.assertEqual(rc, 2)
        self.assertIn("--tls-client-ca needs --tls-cert", err)


def tearDownModule():
    if Pki.dir:
        shutil.rmtree(Pki.dir, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
