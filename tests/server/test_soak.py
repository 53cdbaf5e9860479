"""Soak (issue #8): mixed-format load from polycodec-loadtest over HTTP and TCP for a fixed
time. After a warm-up the server's RSS stays flat, no answer is an error, and the server's
polycodec_requests_total equals the answers the clients counted: nothing lost, nothing counted
twice. POLYCODEC_SOAK_SECONDS sets the duration (default 8 s here; scripts/soak runs longer)."""
import os
import re
import subprocess
import threading
import unittest
import urllib.request

from server_common import Server, loadtest_bin, schema_dir

FORMATS = "json,json5,yaml,cbor,msgpack,pickle,bson,postcard"


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


def answered_transcodes(base):
    """Sum of polycodec_requests_total over transcode requests (from/to are formats)."""
    with urllib.request.urlopen(base + "/metrics", timeout=10) as r:
        text = r.read().decode()
    total = 0
    for m in re.finditer(r'^polycodec_requests_total\{([^}]*)\} (\S+)$', text, re.M):
        labels = dict(re.findall(r'(\w+)="([^"]*)"', m.group(1)))
        if labels.get("from") != "none" and labels.get("to") != "none":
            total += int(float(m.group(2)))
    return total


class Soak(unittest.TestCase):
    def run_load(self, server, seconds, results, key):
        common = ["--concurrency", "8", "--duration", "%ds" % seconds, "--formats", FORMATS]
        procs = {
            "http": subprocess.Popen([loadtest_bin(), "http", "--target",
                                      "127.0.0.1:%d" % server.http_port, *common],
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True),
            "tcp": subprocess.Popen([loadtest_bin(), "tcp", "--target",
                                     "127.0.0.1:%d" % server.tcp_port, *common],
                                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True),
        }
        for name, p in procs.items():
            out, _ = p.communicate(timeout=seconds * 4 + 120)
            results[key + name] = (p.returncode, out)

    def answers(self, out):
        m = re.search(r"# totals: answers=(\d+) ok=(\d+) errors=(\d+)", out)
        self.assertIsNotNone(m, out)
        return int(m.group(1)), int(m.group(2)), int(m.group(3))

    def test_rss_flat_no_errors_counts_match(self):
        seconds = int(os.environ.get("POLYCODEC_SOAK_SECONDS", "8"))
        # Under AddressSanitizer freed memory sits in a quarantine, so RSS measures ASan, not
        # the server: the RSS check runs on the plain build (the counts are checked in both).
        sanitized = "ASAN_OPTIONS" in os.environ
        server = Server("--threads", "2", "--schema-dir", schema_dir(), "--log-level", "warn")
        try:
            results = {}
            self.run_load(server, 3, results, "warm-")
            rss_start = rss_kib(server.proc.pid)
            self.run_load(server, seconds, results, "soak-")
            rss_end = rss_kib(server.proc.pid)
            sent = 0
            for key, (rc, out) in results.items():
                answers, ok, errors = self.answers(out)
                self.assertEqual((rc, errors), (0, 0), "%s:\n%s" % (key, out))
                self.assertGreater(ok, 0, key)
                sent += answers
            # Every answer the clients counted was counted once by the server.
            self.assertEqual(answered_transcodes(server.base), sent)
            growth = rss_end - rss_start
            print("soak: %d s, %d answers, RSS %d KiB -> %d KiB" % (seconds, sent, rss_start,
                                                                  rss_end))
            if not sanitized:
                self.assertLess(growth, max(8 * 1024, rss_start // 5),
                                "RSS grew from %d KiB to %d KiB" % (rss_start, rss_end))
        finally:
            self.assertEqual(server.stop(), 0)


if __name__ == "__main__":
    unittest.main()
