"""`polycodec-loadtest bench --ms 50` as a smoke test: one row per implemented format, the
CSV columns of DESIGN section 8, and no allocation in steady state. No speed threshold."""
import csv
import io
import os
import re
import subprocess
import unittest

# Decoders built on a library that allocates its own state per document: toml++ (a node tree
# per document). docs/BENCHMARKS.md explains; every other decoder (YAML's own parser
# included) and every encoder must not allocate in steady state.
LIBRARY_DECODERS = {"toml"}
ALLOCATING_DECODERS = LIBRARY_DECODERS
# Every encoder writes into a reused buffer without allocating (TOML's and urlform's key paths
# and key texts live in per-thread scratch since #6).
ALLOCATING_ENCODERS = set()
# Conversion rows (DESIGN sections 8 and 12): whole document and stream mode on the same input.
CONVERSIONS = ["ndjson>msgpack", "json>ndjson"]
# A stream conversion makes its record_reader and record_writer (a few allocations, once);
# per record in steady state it allocates nothing.
STREAM_SETUP_ALLOCS = 8


def bench_rows(test, data, formats):
    """Runs `polycodec-loadtest bench --ms 20 --stats` on fixtures/DATA for FORMATS (must
    succeed); returns its output and its CSV rows."""
    lt = os.environ.get("POLYCODEC_LOADTEST_BIN")
    if not lt:
        raise unittest.SkipTest("run through ctest")
    data = os.path.join(os.environ["POLYCODEC_SOURCE_DIR"], "fixtures", data)
    p = subprocess.run([lt, "bench", "--ms", "20", "--stats", "--data", data, "--formats",
                        formats], capture_output=True, text=True, timeout=300)
    test.assertEqual(p.returncode, 0, p.stderr)
    body = "\n".join(l for l in p.stdout.splitlines() if not l.startswith("#"))
    return p.stdout, list(csv.DictReader(io.StringIO(body)))


def assert_no_allocations(test, rows):
    """Every row decodes and encodes without allocating in steady state."""
    for r in rows:
        test.assertEqual(float(r["decode_allocs_per_op"]), 0.0, r["format"])
        test.assertEqual(float(r["encode_allocs_per_op"]), 0.0, r["format"])


class BenchSmoke(unittest.TestCase):
    def test_table_has_a_row_per_format_and_allocates_nothing(self):
        lt = os.environ.get("POLYCODEC_LOADTEST_BIN")
        pc = os.environ.get("POLYCODEC_BIN")
        if not lt or not pc:
            raise unittest.SkipTest("run through ctest")
        ready = [l.split()[1] for l in subprocess.run([pc, "formats"], capture_output=True,
                                                      text=True).stdout.splitlines()[1:]
                 if " ready " in l]
        p = subprocess.run([lt, "bench", "--ms", "50", "--stats"], capture_output=True,
                           text=True, timeout=500)
        self.assertEqual(p.returncode, 0, p.stderr)
        tables = [t for t in p.stdout.split("# data: ")[1:]]
        self.assertEqual(len(tables), 2)  # bench.json and records.json
        for t in tables:
            body = "\n".join(l for l in t.splitlines()[1:] if not l.startswith("#"))
            rows = list(csv.DictReader(io.StringIO(body)))
            self.assertEqual(list(rows[0].keys())[:6],
                             ["format", "size_bytes", "encode_ops", "encode_MBps", "decode_ops",
                              "decode_MBps"])
            names = [r["format"] for r in rows]
            skipped = [l for l in t.splitlines() if l.startswith("# ")]
            for name in ready:
                self.assertTrue(name in names or any(l.startswith("# %s:" % name)
                                                     for l in skipped), name)
            self.assertIn("json", names)
            by_name = {r["format"]: r for r in rows}
            for conv in CONVERSIONS:
                src = conv.split(">")[0]
                for mode in ("document", "stream"):
                    r = by_name["%s/%s" % (conv, mode)]
                    # The input is the data in the source format: the same bytes as that
                    # format's own row.
                    self.assertEqual(r["size_bytes"], by_name[src]["size_bytes"], conv)
                    self.assertGreater(float(r["encode_MBps"]), 0)
                    self.assertGreater(float(r["decode_MBps"]), 0)
                    if mode == "document":
                        self.assertEqual(float(r["encode_allocs_per_op"]), 0.0, conv)
                        self.assertEqual(float(r["decode_allocs_per_op"]), 0.0, conv)
                    else:
                        # The stream holds one record's Document, the whole document all of
                        # them.
                        self.assertLess(float(r["doc_bytes_per_byte"]) * 20,
                                        float(by_name[conv + "/document"]["doc_bytes_per_byte"]))
                        for k in ("encode_allocs_per_op", "decode_allocs_per_op"):
                            self.assertLessEqual(float(r[k]), STREAM_SETUP_ALLOCS, (conv, k))
                        m = re.search(r"^# %s/stream: (\d+) records; [\d.]+ allocations per "
                                      r"conversion \(reader and writer set-up\), (-?[\d.]+) per "
                                      r"record in steady state$" % re.escape(conv), t, re.M)
                        self.assertIsNotNone(m, t)
                        self.assertGreater(int(m.group(1)), 100)
                        self.assertLess(abs(float(m.group(2))), 0.01, conv)
            for r in rows:
                if "/" in r["format"]:
                    continue  # the conversion rows, checked above
                self.assertGreater(float(r["encode_ops"]), 0)
                self.assertGreater(float(r["decode_MBps"]), 0)
                if r["format"] not in ALLOCATING_DECODERS:
                    self.assertEqual(float(r["decode_allocs_per_op"]), 0.0, r["format"])
                if r["format"] not in ALLOCATING_ENCODERS:
                    self.assertEqual(float(r["encode_allocs_per_op"]), 0.0, r["format"])


    def test_small_document_gives_rows_for_ini_dotenv_and_urlform(self):
        out, rows = bench_rows(self, "ini_doc.json", "ini,dotenv,urlform,json")
        self.assertEqual(sorted(r["format"] for r in rows), ["dotenv", "ini", "json", "urlform"],
                         out)
        self.assertNotIn("/stream", out)  # --formats without "stream": no conversion rows
        # The default data has no rows for INI and dotenv: their allocations are checked here.
        assert_no_allocations(self, rows)

    def test_flat_bench_gives_json_and_properties_rows_of_the_same_data(self):
        out, rows = bench_rows(self, "bench_flat.json", "json,properties")
        rows = {r["format"]: r for r in rows}
        self.assertEqual(sorted(rows), ["json", "properties"], out)
        # The properties row is fixtures/bench.properties, byte for byte.
        fixtures = os.path.join(os.environ["POLYCODEC_SOURCE_DIR"], "fixtures")
        self.assertEqual(int(rows["properties"]["size_bytes"]),
                         os.path.getsize(os.path.join(fixtures, "bench.properties")))
        assert_no_allocations(self, rows.values())

    def test_plist_rows_for_both_forms(self):
        out, rows = bench_rows(self, "bench.json", "plist,msgpack")
        rows = {r["format"]: r for r in rows}
        self.assertEqual(sorted(rows), ["msgpack", "plist", "plist/binary"], out)
        # The binary form is the smaller; both round-trip bench.json and allocate nothing in
        # steady state.
        self.assertLess(int(rows["plist/binary"]["size_bytes"]), int(rows["plist"]["size_bytes"]))
        for name in ("plist", "plist/binary"):
            self.assertEqual(float(rows[name]["decode_allocs_per_op"]), 0.0, name)
            self.assertEqual(float(rows[name]["encode_allocs_per_op"]), 0.0, name)


if __name__ == "__main__":
    unittest.main()
