"""Every PromQL expression of the Grafana dashboard and of the alerting rules, evaluated by a
real Prometheus scraping a running polycodec under load from polycodec-loadtest (issue #7):
each panel query returns data for the formats used, each alert rule is loaded and evaluates
without error."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_common import SOURCE_DIR, Server, loadtest_bin, schema_dir  # noqa: E402
from test_prometheus import PROMETHEUS, free_port, start_prometheus  # noqa: E402

DEPLOY = os.path.join(SOURCE_DIR, "deploy")
LOADED_FORMATS = ["json", "cbor", "msgpack", "yaml"]


class DashboardLive(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.path.exists(PROMETHEUS):
            raise unittest.SkipTest("prometheus is not installed (apt-get install prometheus)")
        lt = loadtest_bin()
        cls.server = Server("--threads", "2", "--schema-dir", schema_dir())
        cls.tmp = tempfile.TemporaryDirectory()
        cls.port = free_port()
        shutil.copy(os.path.join(DEPLOY, "prometheus", "rules.yml"), cls.tmp.name)
        cls.prom, cls.log = start_prometheus(cls.tmp.name, cls.server.http_port, cls.port,
                                             ["rules.yml"])
        deadline = time.monotonic() + 30
        while not cls.ready():
            if cls.prom.poll() is not None or time.monotonic() > deadline:
                cls.tearDownClass()
                raise unittest.SkipTest("prometheus did not start")
            time.sleep(0.2)
        # Prometheus applies new targets after a few seconds: wait for its first scrape, so
        # that every counter's increase during the load is seen by rate().
        while not cls.scraped():
            if time.monotonic() > deadline + 30:
                cls.tearDownClass()
                raise unittest.SkipTest("prometheus never scraped the service")
            time.sleep(0.2)
        # Load over both transports at once, plus requests that take a lossy fallback and
        # requests that fail, for the error and lossy panels.
        formats = ",".join(LOADED_FORMATS)
        args = ["--concurrency", "4", "--duration", "12s", "--formats", formats]
        http = subprocess.Popen([lt, "http", "--target", "127.0.0.1:%d" % cls.server.http_port,
                                 *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        tcp = subprocess.Popen([lt, "tcp", "--target", "127.0.0.1:%d" % cls.server.tcp_port,
                                *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(6):
            cls.post("/transcode?lossy=allow", bytes.fromhex("82f97e0001"), "application/cbor",
                     "application/json")
            cls.post("/transcode", b"[1,", "application/json", "application/json")
            time.sleep(1)
        cls.load_rc = (http.wait(60), tcp.wait(60))
        time.sleep(3)  # a last scrape and rule evaluation

    @classmethod
    def tearDownClass(cls):
        if getattr(cls, "prom", None) and cls.prom.poll() is None:
            cls.prom.terminate()
            cls.prom.wait(10)
        if getattr(cls, "server", None):
            cls.server.stop()
        if getattr(cls, "log", None):
            cls.log.close()
        if getattr(cls, "tmp", None):
            cls.tmp.cleanup()

    @classmethod
    def ready(cls):
        try:
            with urllib.request.urlopen("http://127.0.0.1:%d/-/ready" % cls.port, timeout=2) as r:
                return r.status == 200
        except OSError:
            return False

    @classmethod
    def scraped(cls):
        url = "http://127.0.0.1:%d/api/v1/query?%s" % (
            cls.port, urllib.parse.urlencode({"query": 'up{job="polycodec"}'}))
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                result = json.load(r)["data"]["result"]
            return bool(result) and result[0]["value"][1] == "1"
        except OSError:
            return False

    @classmethod
    def post(cls, path, body, ctype, accept):
        req = urllib.request.Request("http://127.0.0.1:%d%s" % (cls.server.http_port, path),
                                     data=body, headers={"Content-Type": ctype, "Accept": accept})
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status
        except urllib.error.HTTPError as e:
            return e.code

    def api(self, path, **params):
        url = "http://127.0.0.1:%d%s?%s" % (self.port, path, urllib.parse.urlencode(params))
        with urllib.request.urlopen(url, timeout=10) as r:
            body = json.load(r)
        self.assertEqual(body["status"], "success", body)
        return body["data"]

    def test_load_ran_without_errors(self):
        self.assertEqual(self.load_rc, (0, 0))

    def test_every_panel_query_returns_data_for_the_formats_used(self):
        with open(os.path.join(DEPLOY, "grafana", "dashboards", "polycodec.json")) as f:
            dash = json.load(f)
        checked = 0
        for panel in dash["panels"]:
            for t in panel["targets"]:
                expr = t["expr"].replace("$__rate_interval", "1m").replace('"$format"', '".*"')
                with self.subTest(panel=panel["title"], expr=expr):
                    data = self.api("/api/v1/query", query=expr)
                    series = [r for r in data["result"] if r["value"][1] not in ("NaN",)]
                    self.assertTrue(series, "no data")
                    if "format" in expr and "by (le, format)" in expr or "by (format)" in expr:
                        got = {r["metric"].get("format") for r in series}
                        for f in LOADED_FORMATS:
                            self.assertIn(f, got)
                    checked += 1
        self.assertGreaterEqual(checked, 15)

    def test_every_alert_rule_is_loaded_and_evaluates(self):
        groups = self.api("/api/v1/rules")["groups"]
        rules = [r for g in groups for r in g["rules"]]
        self.assertEqual(len(rules), 5)
        for r in rules:
            with self.subTest(rule=r["name"]):
                self.assertEqual(r["health"], "ok", r)
                # The expression itself runs against the live data.
                self.api("/api/v1/query", query=r["query"])
        # The target is up, so the down alert is not firing; nothing is draining.
        firing = {r["name"] for r in rules if r["state"] == "firing"}
        self.assertNotIn("PolycodecTargetDown", firing)
        self.assertNotIn("PolycodecDrainStuck", firing)
        up = self.api("/api/v1/query", query='up{job="polycodec"}')["result"]
        self.assertEqual(up[0]["value"][1], "1")


if __name__ == "__main__":
    unittest.main()
