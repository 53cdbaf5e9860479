"""The fixtures (DESIGN section 11): reproducible, and bench.json is the reference dataset."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

import common


class Fixtures(unittest.TestCase):
    def test_bench_json_equals_the_reference_dataset(self):
        ref = common.corpus("nextjson-bench", "format_comparison_fixture.json")
        with open(ref, "rb") as f:
            expected = f.read()
        ours = common.fixture("bench.json")
        common.same_value(self, json.loads(ours), json.loads(expected))
        self.assertEqual(len(json.loads(ours)), 128)
        self.assertEqual(ours, expected)  # byte for byte, too

    def test_ini_doc_equals_the_reference_document(self):
        ref = common.corpus("nextjson-bench", "ini_doc.json")
        with open(ref, "rb") as f:
            self.assertEqual(common.fixture("ini_doc.json"), f.read())

    def test_generator_is_deterministic_and_matches_the_committed_files(self):
        gen = os.path.join(common.SOURCE_DIR, "scripts", "gen_fixtures.py")
        with tempfile.TemporaryDirectory() as d:
            src = open(gen).read().replace('OUT = os.path.join(ROOT, "fixtures")',
                                           "OUT = %r" % d)
            script = os.path.join(d, "gen.py")
            with open(script, "w") as f:
                f.write(src)
            subprocess.run([sys.executable, script], check=True)
            for name in ("records.json", "bench.json", "ini_doc.json",
                         "bench.properties", "bench_flat.json", "bench_bencode.json",
                         "bench.plist", "bench-binary.plist",
                         ):
                with open(os.path.join(d, name), "rb") as f:
                    self.assertEqual(f.read(), common.fixture(name), name)

    def test_bench_bencode_is_bench_as_bencode_holds_it(self):
        bench = common.load_json_fixture("bench.json")
        ours = common.load_json_fixture("bench_bencode.json")
        self.assertEqual(len(ours), len(bench))
        for b, r in zip(bench, ours):
            self.assertEqual(list(r), sorted(r))  # bencode's key order
            self.assertEqual(set(r), set(b))
            for k, v in b.items():
                if isinstance(v, bool):
                    self.assertEqual(r[k], 1 if v else 0)
                elif isinstance(v, float):
                    self.assertEqual(float(r[k]), v)  # its text, read back
                    self.assertIn(".", r[k])
                else:
                    self.assertEqual(r[k], v)

            def walk(v):
                self.assertNotIsInstance(v, (bool, float))
                for c in (v.values() if isinstance(v, dict) else v if isinstance(v, list) else ()):
                    walk(c)
            walk(r)

    def test_records_have_the_promised_mix(self):
        recs = common.load_json_fixture("records.json")
        self.assertEqual(len(recs), 256)
        r = recs[5]
        self.assertIsInstance(r["id"], int)
        self.assertGreater(r["big"], 2 ** 53)
        self.assertIsInstance(r["score"], float)
        self.assertIsInstance(r["active"], bool)
        self.assertIsNone(r["note"])
        self.assertIsInstance(r["nested"], dict)
        self.assertTrue(any(any(ord(c) > 127 for c in x["city"]) for x in recs))
        self.assertTrue(all(isinstance(t, str) for x in recs for t in x["tags"]))
        self.assertRegex(r["created"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


if __name__ == "__main__":
    unittest.main()
