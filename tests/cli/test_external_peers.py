"""loadtest/external/run --smoke: the external-peers harnesses compile and run on 5 records
of fixtures/bench.json and the table has the columns and rows of `polycodec-loadtest peers`.
No speed threshold (2 ms windows). CPython always; Jackson when its jars are installed
(`scripts/deps.sh --external`); the Rust crates only with POLYCODEC_EXTERNAL_RUST=1 (the
first cargo build of the Debian crates takes minutes). Each peer checks the value it decodes
from our bytes against the JSON data before timing and the run fails if one differs."""
import csv
import io
import os
import subprocess
import unittest

JARS = ["jackson-core", "jackson-databind", "jackson-annotations",
        "jackson-dataformat-smile", "jackson-dataformat-cbor"]


class ExternalPeersSmoke(unittest.TestCase):
    def test_smoke_table(self):
        lt = os.environ.get("POLYCODEC_LOADTEST_BIN")
        pc = os.environ.get("POLYCODEC_BIN")
        src = os.environ.get("POLYCODEC_SOURCE_DIR")
        out = os.environ.get("POLYCODEC_EXTERNAL_OUT")
        if not lt or not pc or not src or not out:
            raise unittest.SkipTest("run through ctest")
        groups = ["python"]
        want = {("pickle", "CPython"), ("json", "CPython"), ("csv", "CPython")}
        if all(os.path.exists("/usr/share/java/%s.jar" % j) for j in JARS):
            groups.append("java")
            want |= {("smile", "jackson-dataformat-smile"), ("cbor", "jackson-dataformat-cbor"),
                     ("json", "jackson-databind")}
        if os.environ.get("POLYCODEC_EXTERNAL_RUST") == "1":
            groups.append("rust")
            want |= {(f, c) for f, c in [("json", "serde_json"), ("msgpack", "rmp-serde"),
                                         ("cbor", "serde_cbor"), ("csv", "csv"),
                                         ("toml", "toml"), ("yaml", "serde_yaml"),
                                         ("ron", "ron")]}
        p = subprocess.run(["/usr/bin/python3", os.path.join(src, "loadtest/external/run"),
                            "--smoke", "--only", ",".join(groups), "--loadtest", lt,
                            "--cli", pc, "--out", out],
                           capture_output=True, text=True, timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr)
        body = "\n".join(l for l in p.stdout.splitlines() if not l.startswith("#"))
        rows = list(csv.DictReader(io.StringIO(body)))
        self.assertEqual(list(rows[0].keys()),
                         ["format", "op", "library", "MBps", "polycodec_MBps", "ratio"])
        seen = set()
        for r in rows:
            theirs, ours, ratio = float(r["MBps"]), float(r["polycodec_MBps"]), float(r["ratio"])
            self.assertGreater(theirs, 0, r)
            self.assertGreater(ours, 0, r)
            # the ratio is ours / theirs, within the rounding of the printed MB/s (one
            # decimal: a slow peer on a loaded machine prints 0.1 for anything in 0.05-0.15)
            lo = max(ours - 0.05, 0.0) / (theirs + 0.05)
            hi = (ours + 0.05) / (theirs - 0.05) if theirs > 0.05 else float("inf")
            self.assertGreaterEqual(ratio, lo * 0.98 - 0.06, msg=r)
            self.assertLessEqual(ratio, hi * 1.02 + 0.06, msg=r)
            self.assertIn(r["op"], ("encode", "decode"))
            for fmt, lib in want:
                if r["format"] == fmt and r["library"].startswith(lib):
                    seen.add((fmt, lib, r["op"]))
        self.assertEqual(seen, {(f, l, op) for f, l in want for op in ("encode", "decode")})
        # xmltodict_peer.py (decode only) when python3-xmltodict is installed
        try:
            import xmltodict  # noqa: F401
        except ImportError:
            return
        self.assertTrue([r for r in rows if r["format"] == "xml" and r["op"] == "decode"
                         and r["library"].startswith("xmltodict.parse")], p.stdout)


if __name__ == "__main__":
    unittest.main()
