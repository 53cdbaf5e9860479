"""Metrics (DESIGN section 6) read by a real Prometheus server: the test starts
/usr/bin/prometheus scraping the service every second, sends traffic over HTTP and TCP, then
asks Prometheus's query API for request rates, decode latency quantiles by format and the byte
counters, and checks them against what it sent. Skips when Prometheus cannot start."""
import http.client
import json
import math
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_common import Server, read_response, request_frame, tcp_connect

PROMETHEUS = shutil.which("prometheus") or "/usr/bin/prometheus"
JSON = 1


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_prometheus(tmpdir, target_port, port, rule_files=()):
    """Starts PROMETHEUS on 127.0.0.1:PORT scraping 127.0.0.1:TARGET_PORT every second, with
    `rule_files` (already in tmpdir) loaded, its config, data and log in tmpdir; returns the
    process and the open log file."""
    config = os.path.join(tmpdir, "prometheus.yml")
    with open(config, "w") as f:
        f.write("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                + ("rule_files: [%s]\n" % ", ".join(rule_files) if rule_files else "")
                + "scrape_configs:\n  - job_name: polycodec\n    static_configs:\n"
                "      - targets: ['127.0.0.1:%d']\n" % target_port)
    log = open(os.path.join(tmpdir, "prometheus.log"), "wb")
    proc = subprocess.Popen(
        [PROMETHEUS, "--config.file=" + config,
         "--storage.tsdb.path=" + os.path.join(tmpdir, "data"),
         "--web.listen-address=127.0.0.1:%d" % port],
        stdout=log, stderr=subprocess.STDOUT)
    return proc, log


class PrometheusTest(unittest.TestCase):
    def setUp(self):
        if not os.path.exists(PROMETHEUS):
            self.skipTest("prometheus is not installed (apt-get install prometheus)")
        self.server = Server("--threads", "2")
        self.tmp = tempfile.TemporaryDirectory()
        self.prom_port = free_port()
        self.prom, self.prom_log = start_prometheus(self.tmp.name, self.server.http_port,
                                                    self.prom_port)
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(self.prom_url("/-/ready"), timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if self.prom.poll() is not None or time.monotonic() > deadline:
                self.tearDown()
                self.skipTest("prometheus did not start")
            time.sleep(0.2)

    def tearDown(self):
        if getattr(self, "prom", None) and self.prom.poll() is None:
            self.prom.terminate()
            try:
                self.prom.wait(10)
            except subprocess.TimeoutExpired:
                self.prom.kill()
                self.prom.wait()
        if getattr(self, "prom_log", None):
            self.prom_log.close()
        if getattr(self, "server", None):
            self.assertEqual(self.server.stop(), 0)
            self.server = None
        if getattr(self, "tmp", None):
            self.tmp.cleanup()
            self.tmp = None

    def prom_url(self, path):
        return "http://127.0.0.1:%d%s" % (self.prom_port, path)

    def query(self, q):
        url = self.prom_url("/api/v1/query?" + urllib.parse.urlencode({"query": q}))
        with urllib.request.urlopen(url, timeout=10) as r:
            body = json.load(r)
        self.assertEqual(body["status"], "success", body)
        if body["data"]["resultType"] == "matrix":
            return [(s["metric"], s["values"]) for s in body["data"]["result"]]
        return [(s["metric"], float(s["value"][1])) for s in body["data"]["result"]]

    def scalar(self, q):
        res = self.query(q)
        return res[0][1] if res else None

    def wait_for_value(self, q, want, timeout=20):
        deadline = time.monotonic() + timeout
        while True:
            got = self.scalar(q)
            if got == want or time.monotonic() > deadline:
                return got
            time.sleep(0.5)

    def test_prometheus_sees_the_traffic(self):
        http_ok = http_bad = tcp_ok = 0
        decoded = encoded = 0
        conn = http.client.HTTPConnection("127.0.0.1", self.server.http_port, timeout=10)
        tcp = tcp_connect(self.server)
        # One request of each kind first, then wait until Prometheus has scraped them, so the
        # series exist before the rest of the traffic and rates see the increase.
        body = b'{"warm": true}'
        conn.request("POST", "/transcode", body, {"Content-Type": "application/json"})
        out = conn.getresponse().read()
        http_ok += 1
        decoded += len(body)
        encoded += len(out)
        tcp.sendall(request_frame(99, JSON, JSON, body))
        status, rid, fmt, payload = read_response(tcp)
        tcp_ok += 1
        decoded += len(body)
        encoded += len(payload)
        sel = 'polycodec_requests_total{transport="%s",from="json",to="json",code="%s"}'
        self.assertEqual(self.wait_for_value(sel % ("tcp", "ok"), 1, 30), 1,
                         "prometheus never scraped the service")
        # Spread over several scrapes so that rates are non-zero.
        for batch in range(4):
            for i in range(10):
                body = json.dumps({"batch": batch, "i": i, "v": [1.5, "x" * i]}).encode()
                conn.request("POST", "/transcode", body, {"Content-Type": "application/json"})
                r = conn.getresponse()
                out = r.read()
                self.assertEqual(r.status, 200)
                http_ok += 1
                decoded += len(body)
                encoded += len(out)
            conn.request("POST", "/transcode", b"[1,", {"Content-Type": "application/json"})
            r = conn.getresponse()
            r.read()
            self.assertEqual(r.status, 400)
            http_bad += 1
            for i in range(6):
                doc = b'{"tcp": %d, "b": %d}' % (i, batch)
                tcp.sendall(request_frame(i, JSON, JSON, doc))
                status, rid, fmt, payload = read_response(tcp)
                self.assertEqual(status, 0)
                tcp_ok += 1
                decoded += len(doc)
                encoded += len(payload)
            time.sleep(1.2)
        conn.close()
        tcp.close()

        self.assertEqual(self.wait_for_value(sel % ("http", "200"), http_ok), http_ok)
        self.assertEqual(self.wait_for_value(sel % ("http", "400"), http_bad), http_bad)
        self.assertEqual(self.wait_for_value(sel % ("tcp", "ok"), tcp_ok), tcp_ok)
        self.assertEqual(self.wait_for_value('polycodec_decode_bytes_total{format="json"}',
                                             decoded), decoded)
        self.assertEqual(self.wait_for_value('polycodec_encode_bytes_total{format="json"}',
                                             encoded), encoded)

        # rate() needs two samples after the first increase: wait for them.
        rate_q = 'rate(polycodec_requests_total{transport="http",from="json",to="json"}[1m])'
        deadline = time.monotonic() + 15
        while not [v for m, v in self.query(rate_q) if v > 0] and time.monotonic() < deadline:
            time.sleep(0.5)
        rates = self.query("rate(polycodec_requests_total[1m])")
        by_labels = {(m["transport"], m["from"], m["to"], m["code"]): v for m, v in rates}
        self.assertGreater(by_labels.get(("http", "json", "json", "200"), 0), 0,
                           (rates, self.query(sel % ("http", "200") + "[1m]")))
        self.assertGreater(by_labels.get(("tcp", "json", "json", "ok"), 0), 0, rates)

        p99 = self.query("histogram_quantile(0.99, sum by (le, format) "
                         "(rate(polycodec_decode_duration_seconds_bucket[1m])))")
        values = {m["format"]: v for m, v in p99}
        self.assertIn("json", values, p99)
        self.assertTrue(0 < values["json"] <= 10, values)
        self.assertFalse(math.isnan(values["json"]))
        for fmt, v in values.items():
            if fmt != "json":
                self.assertTrue(math.isnan(v), (fmt, v))  # formats not used have no data

        info = self.query("polycodec_build_info")
        self.assertEqual(len(info), 1)
        self.assertEqual(info[0][1], 1)
        self.assertIn("version", info[0][0])
        self.assertIn("commit", info[0][0])
        self.assertEqual(self.wait_for_value('polycodec_open_connections{transport="tcp"}', 0), 0)


if __name__ == "__main__":
    unittest.main()
