"""Differential tests of the NDJSON codec against Python's json module, line by line.

Python reads each line polycodec writes with json.loads, and polycodec reads lines written by
json.dumps; values are compared exactly (ints stay ints, floats stay floats).
"""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # common.py beside us

import common

EDGE = [
    [],
    [1, -0.5, 1e300, "x\ny", "\u00e9\u2028\U0001F600", None, True, False],
    [{"a": {"b": [1, {"c": []}]}}, [], {}, ""],
    [18446744073709551615, -9223372036854775808, 123456789012345678901234567890],
]


def python_lines(data):
    """Python's reading of NDJSON: json.loads of every non-blank line."""
    return [json.loads(l) for l in data.decode("utf-8").split("\n") if l.strip(" \t\r")]


class NdjsonDifferential(unittest.TestCase):
    def python_reads_ours(self, values):
        _, out, _ = common.convert(["--from", "json", "--to", "ndjson"],
                                   json.dumps(values).encode())
        self.assertTrue(out == b"" or out.endswith(b"\n"))
        self.assertEqual(out.count(b"\n"), len(values))
        common.same_value(self, python_lines(out), values)

    def we_read_pythons(self, values, sep="\n"):
        text = sep.join(json.dumps(v, ensure_ascii=False) for v in values) + sep
        _, out, _ = common.convert(["--from", "ndjson", "--to", "json"], text.encode())
        common.same_value(self, json.loads(out), values)

    def test_fixtures_both_directions(self):
        for name in ("records.json", "bench.json"):
            with self.subTest(name):
                data = common.load_json_fixture(name)
                rows = data if isinstance(data, list) else [data]
                self.python_reads_ours(rows)
                self.we_read_pythons(rows)
                self.we_read_pythons(rows, sep="\r\n")

    def test_edge_cases(self):
        for values in EDGE:
            with self.subTest(values=values):
                self.python_reads_ours(values)
                self.we_read_pythons(values)

    def test_blank_lines_skipped_like_python(self):
        text = b'1\n\n  \r\n{"a": [1]}\r\n\t\n"x"'
        _, out, _ = common.convert(["--from", "ndjson", "--to", "json"], text)
        self.assertEqual(json.loads(out), python_lines(text))

    def test_errors_name_the_line(self):
        for text, line in ((b'1\n2\n{"a" 1}\n', 3), (b'1\n\n[1,\n2]\n', 3), (b'{}\n{}x\n', 2)):
            with self.subTest(text=text):
                with self.assertRaises(json.JSONDecodeError):
                    python_lines(text)
                code, _, err = common.convert(["--from", "ndjson", "--to", "json"], text,
                                              check=False)
                self.assertEqual(code, 2, err)
                self.assertIn("line %d" % line, err)

    def test_non_array_root_is_exit_3(self):
        code, _, err = common.convert(["--from", "json", "--to", "ndjson"], b'{"a": 1}',
                                      check=False)
        self.assertEqual(code, 3, err)
        _, out, _ = common.convert(["--from", "json", "--to", "ndjson", "--lossy"], b'{"a": 1}')
        self.assertEqual(python_lines(out), [{"a": 1}])


if __name__ == "__main__":
    unittest.main()
