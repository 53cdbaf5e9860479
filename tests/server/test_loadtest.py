"""`polycodec-loadtest http` and `tcp` against a real server on 127.0.0.1 (DESIGN section 8):
a row per implemented format, every answer checked, no errors, bounded in time; and the
client refuses targets outside the loopback range."""
import csv
import io
import json
import os
import re
import subprocess
import tempfile
import unittest
import urllib.request

from server_common import FIXTURES, Server, implemented_formats, loadtest_bin, schema_dir


def table(stdout):
    body = "\n".join(l for l in stdout.splitlines() if not l.startswith("#"))
    return list(csv.DictReader(io.StringIO(body)))


class LoadTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = Server("--threads", "2", "--schema-dir", schema_dir())
        cls.formats = implemented_formats(cls.server)

    @classmethod
    def tearDownClass(cls):
        assert cls.server.stop() == 0

    def run_load(self, mode, port, *extra):
        p = subprocess.run([loadtest_bin(), mode, "--target", "127.0.0.1:%d" % port,
                            "--concurrency", "4", "--duration", "4s", *extra],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        return p.stdout

    def check_rows(self, out):
        rows = table(out)
        self.assertEqual(list(rows[0].keys())[:6],
                         ["format", "size_bytes", "encode_ops", "encode_MBps", "decode_ops",
                          "decode_MBps"])
        self.assertIn("latency_p99_ms", rows[0])
        names = {r["format"] for r in rows}
        # records.json has nulls, floats and nested lists: formats that cannot carry it
        # without loss (TOML, bencode, urlform, INI, dotenv) are reported as skipped; every
        # other format gets a row (CSV with infer=true&unflatten=true, arrays as index columns).
        must_carry = {"json", "json5", "hjson", "yaml", "ron", "sexpr", "cbor", "msgpack",
                      "pickle", "bson", "postcard", "csv", "ndjson", "edn", "ubjson", "smile"}
        for fid, name, mt, caps in self.formats:
            if name in must_carry:
                self.assertIn(name, names)
            else:
                self.assertTrue(name in names or "# %s: skipped" % name in out, name)
        for r in rows:
            self.assertEqual(r["errors"], "0", r)
            self.assertGreater(float(r["encode_ops"]), 0, r)
            self.assertGreater(float(r["decode_ops"]), 0, r)

    def test_http_rows_for_every_format(self):
        self.check_rows(self.run_load("http", self.server.http_port))

    def test_tcp_rows_for_every_format(self):
        self.check_rows(self.run_load("tcp", self.server.tcp_port, "--pipeline", "4"))

    def test_request_count_bound(self):
        out = self.run_load("http", self.server.http_port, "--formats", "json",
                            "--requests", "20", "--duration", "30s")
        r = table(out)[0]
        self.assertEqual(r["format"], "json")

    def test_refuses_targets_outside_loopback(self):
        for target in ("10.1.2.3:8080", "192.168.0.1:80", "8.8.8.8:53"):
            p = subprocess.run([loadtest_bin(), "http", "--target", target, "--duration", "1s"],
                               capture_output=True, text=True, timeout=30)
            self.assertEqual(p.returncode, 2, target)
            self.assertIn("not a loopback address", p.stderr)


def stream_records_metric(server, src, dst):
    """polycodec_stream_records_total{from=src,to=dst} as the server counts it."""
    text = urllib.request.urlopen(server.base + "/metrics", timeout=30).read().decode()
    m = re.search(r'^polycodec_stream_records_total\{from="%s",to="%s"\} (\d+)$' % (src, dst),
                  text, re.M)
    return int(m.group(1)) if m else 0


class StreamLoadTest(unittest.TestCase):
    """`polycodec-loadtest stream` (DESIGN section 12): a few MiB of records, generated on the
    fly, through POST /transcode?stream=true; the figures it prints are checked against the
    server's own record counter and against the size asked for."""

    SIZE = 3 * 1024 * 1024

    @classmethod
    def setUpClass(cls):
        cls.server = Server("--threads", "2")
        with open(os.path.join(FIXTURES, "records.json"), "rb") as f:
            records = json.load(f)
        cls.longest = max(len(json.dumps(r, ensure_ascii=False).encode()) for r in records)
        cls.shortest = min(len(json.dumps(r, ensure_ascii=False, separators=(",", ":")).encode())
                           for r in records)

    @classmethod
    def tearDownClass(cls):
        assert cls.server.stop() == 0

    def run_stream(self, *args, ok=True):
        p = subprocess.run([loadtest_bin(), "stream", "--target",
                            "127.0.0.1:%d" % self.server.http_port, "--duration", "60s", *args],
                           capture_output=True, text=True, timeout=120)
        if ok:
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        return p

    def figures(self, src, dst, *extra):
        before = stream_records_metric(self.server, src, dst)
        p = self.run_stream("--format", src, "--to", dst, "--size", str(self.SIZE), *extra)
        rows = table(p.stdout)
        self.assertEqual(len(rows), 1, p.stdout)
        r = rows[0]
        self.assertEqual((r["from"], r["to"], r["complete"]), (src, dst, "yes"), p.stdout)
        self.assertIn("# ok", p.stdout)
        n = int(r["records_in"])
        # The body is the size asked for, cut at the end of a record (a JSON array adds its
        # brackets), and every record went through the server and came back.
        self.assertGreaterEqual(int(r["in_bytes"]), self.SIZE)
        self.assertLess(int(r["in_bytes"]), self.SIZE + self.longest + 2)
        self.assertGreater(n, self.SIZE // (self.longest + 2))
        self.assertLess(n, self.SIZE // self.shortest + 2)
        self.assertEqual(int(r["records_out"]), n)
        self.assertEqual(stream_records_metric(self.server, src, dst) - before, n)
        self.assertGreater(float(r["seconds"]), 0)
        for k in ("in_bytes", "out_bytes"):
            mbps = float(r[k.replace("bytes", "MBps")])
            self.assertAlmostEqual(mbps, int(r[k]) / float(r["seconds"]) / 1e6,
                                   delta=0.1 + mbps * 0.01)
        # Memory: the server was found by its port, sampled, and its high-water mark read.
        self.assertIn("# server pid: %d" % self.server.proc.pid, p.stdout)
        self.assertGreater(int(r["rss_samples"]), 0)
        self.assertGreater(int(r["server_rss_start_kib"]), 0)
        self.assertGreaterEqual(int(r["server_rss_peak_kib"]), int(r["server_rss_start_kib"]))
        # VmHWM only grows; VmRSS is read from approximate per-CPU counters (Linux 6.2+), so a
        # sample may overshoot the high-water mark a little.
        self.assertGreaterEqual(int(r["server_hwm_kib"]), int(r["server_rss_peak_kib"]) - 4096)
        self.assertGreater(int(r["server_hwm_kib"]), 0)
        return r

    def test_ndjson_to_ndjson_gives_the_same_bytes_back(self):
        r = self.figures("ndjson", "ndjson")
        self.assertEqual(r["out_bytes"], r["in_bytes"])

    def test_ndjson_to_csv(self):
        r = self.figures("ndjson", "csv")
        self.assertGreater(int(r["out_bytes"]), 0)

    def test_json_array_to_ndjson_in_small_chunks(self):
        r = self.figures("json", "ndjson", "--chunk", "1000")
        # The JSON array is the NDJSON lines joined with commas inside brackets.
        self.assertEqual(int(r["out_bytes"]), int(r["in_bytes"]) - 2 + 1)

    def test_ndjson_to_msgpack_counts_records_by_reading_them(self):
        r = self.figures("ndjson", "msgpack")
        self.assertIn("concatenated", self.run_stream("--to", "msgpack", "--size", "64KiB").stdout)
        self.assertLess(int(r["out_bytes"]), int(r["in_bytes"]))

    def test_a_cut_answer_fails(self):
        # 20000 one-column records, then one with a column the first lacks: the CSV answer
        # has sent its first chunks when the stream fails, so it ends without its last chunk.
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump([{"a": i} for i in range(20000)] + [{"b": 1}], f)
        try:
            p = self.run_stream("--to", "csv", "--size", "1MiB", "--data", f.name, ok=False)
        finally:
            os.unlink(f.name)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        r = table(p.stdout)[0]
        self.assertEqual(r["complete"], "no")
        self.assertIn("ended without its last chunk", p.stdout)
        self.assertLess(int(r["records_out"]), int(r["records_in"]))

    def test_refuses_targets_outside_loopback_and_bad_options(self):
        p = subprocess.run([loadtest_bin(), "stream", "--target", "10.1.2.3:8080"],
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 2)
        self.assertIn("not a loopback address", p.stderr)
        for bad in (["--to", "yaml"], ["--format", "csv"], ["--size", "lots"]):
            p = self.run_stream(*bad, ok=False)
            self.assertEqual(p.returncode, 2, bad)


if __name__ == "__main__":
    unittest.main()
