"""Differential tests of JSON: the polycodec binary against Python's json module, both
directions. Python reads what we write; we read what Python writes; values are compared with
int and float kept apart (common.same_value)."""
import json
import math
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402


def nested(depth, leaf):
    v = leaf
    for i in range(depth):
        v = [v] if i % 2 == 0 else {"k": v}
    return v


# Values Python writes that are easy to get wrong: escapes, non-BMP characters, integers
# beyond 64 bits, floats at the edges of the double range, nesting, empty containers.
TRICKY = [
    ("unicode", ["h\u00e9llo", "\u65e5\u672c\u8a9e", "\u20ac", "\u2028\u2029", "\ufeff",
                 "\u007f", "\U0001f600", "\U0010ffff", "a\x00b", "\x01\x1f", "\"\\/",
                 "\b\f\n\r\t", "", " "]),
    ("ints", [0, -0, 1, -1, 2**31, -2**31, 2**53 + 1, 2**63 - 1, -2**63, 2**63, 2**64 - 1,
              2**64, -2**63 - 1, -2**64, 2**100, -3**90, 10**40]),
    ("floats", [0.0, -0.0, 1.0, -1.5, 0.1, 1e-7, 1.5e300, -1.5e300, 5e-324, 2.2250738585072014e-308,
                1.7976931348623157e308, 1e16, 1e21, 123456789.125, 3.141592653589793]),
    ("nested", nested(200, {"deep": [1, 2.5, "x"]})),
    ("empties", [[], {}, [[]], [{}], {"": {}}, {"a": []}, ""]),
    ("keys", {"": 1, "a b": 2, "\u00e9": 3, "\U0001f600": 4, "a/b~c": 5, "\n": 6}),
    ("literals", [None, True, False]),
]


def polycodec_json(data, *extra):
    return common.convert(["--from", "json", "--to", "json", *extra], data)[1]


class PythonReadsOurs(common.CorpusChecks, unittest.TestCase):
    """We decode and re-encode; json.loads of our output equals json.loads of the input."""

    def check(self, data, name):
        want = json.loads(data)
        for extra in ([], ["--pretty"]):
            out = polycodec_json(data, *extra)
            common.same_value(self, json.loads(out), want, "%s %s: " % (name, extra))

    def test_compact_output_has_no_whitespace_between_tokens(self):
        out = polycodec_json(b'{ "a" : [ 1 , 2 ] ,\n "b" : { } }')
        self.assertEqual(out, b'{"a":[1,2],"b":{}}')

    def test_pretty_output_matches_python_indent(self):
        # Our --pretty is two spaces, ": " after keys, "," at line ends: Python's indent=2.
        data = common.fixture("records.json")
        out = polycodec_json(data, "--pretty")
        want = json.dumps(json.loads(data), indent=2, ensure_ascii=False) + "\n"
        self.assertEqual(out.decode("utf-8"), want)


class WeReadPythons(unittest.TestCase):
    """json.dumps writes a value; we read it and write it back; Python reads that back equal."""

    def roundtrip(self, value, name, **dumps_args):
        data = json.dumps(value, **dumps_args).encode("utf-8")
        out = polycodec_json(data)
        common.same_value(self, json.loads(out), value, name + ": ")
        return out

    def test_tricky_values(self):
        for ensure_ascii in (True, False):
            for indent in (None, 2):
                for name, value in TRICKY:
                    with self.subTest(name=name, ensure_ascii=ensure_ascii, indent=indent):
                        self.roundtrip(value, name, ensure_ascii=ensure_ascii, indent=indent)

    def test_non_ascii_is_written_as_utf8(self):
        out = self.roundtrip(["\u00e9\U0001f600\u2028"], "utf8", ensure_ascii=True)
        self.assertEqual(out, '["\u00e9\U0001f600\u2028"]'.encode("utf-8"))

    def test_control_characters_are_escaped(self):
        out = self.roundtrip(["\x00\x1f\x7f\"\\\n"], "ctl")
        self.assertEqual(out, b'["\\u0000\\u001f\x7f\\"\\\\\\n"]')

    def test_numbers_keep_their_kind_and_digits(self):
        value = [2**64, -2**64 - 1, 2**200, 1.0, -0.0, 1e-7, 1.5e300, 5e-324, 0.1]
        out = self.roundtrip(value, "numbers")
        self.assertTrue(out.startswith(b"[%d,%d,%d," % (2**64, -2**64 - 1, 2**200)), out)
        back = json.loads(out)
        self.assertEqual(math.copysign(1.0, back[4]), -1.0)
        self.assertEqual(back, value)
        for v in value[3:]:
            self.assertEqual(float(json.loads(polycodec_json(repr(v).encode()))), v)

    def test_duplicate_keys_in_order(self):
        data = b'{"a":1,"b":2,"a":3}'
        out = polycodec_json(data)
        self.assertEqual(out, data)
        self.assertEqual(json.loads(out, object_pairs_hook=list), [("a", 1), ("b", 2), ("a", 3)])

    def test_depth_limit(self):
        ok = json.dumps(nested(512, 0)).encode()
        common.same_value(self, json.loads(polycodec_json(ok)), nested(512, 0))
        deep = json.dumps(nested(513, 0)).encode()
        rc, out, err = common.convert(["--from", "json", "--to", "json"], deep, check=False)
        self.assertEqual(rc, 2, err)
        self.assertIn("nesting deeper than 512", err)

    def test_lone_surrogate_is_rejected(self):
        # Python writes a lone surrogate as "\ud800" (json.dumps accepts it); a JSON string
        # must decode to Unicode scalar values, so we refuse it (JSONTestSuite i_ territory).
        data = json.dumps(["\ud800"]).encode()
        rc, _, err = common.convert(["--from", "json", "--to", "json"], data, check=False)
        self.assertEqual(rc, 2, err)
        self.assertIn("surrogate", err)


class Malformed(unittest.TestCase):
    """Exit 2 with the position: line, column and byte offset."""

    CASES = [
        # input, line, column, byte offset, words of the message
        (b"[1, 2", 1, 6, 5, "expected ',' or ']', saw end of input"),
        (b'{"a": 1,\n "b" 2}', 2, 6, 14, "expected ':' after object key, saw '2'"),
        (b"[\n  1,\n  2,,\n]", 3, 5, 11, "expected a value, saw ','"),
        (b"[01]", 1, 3, 2, "leading zeros"),
        (b'["\xff"]', 1, 3, 2, "invalid UTF-8"),
        (b'["\\x"]', 1, 3, 2, "invalid escape"),
        (b"[1] x", 1, 5, 4, "expected end of input"),
        (b"[nan]", 1, 2, 1, "expected a value"),
        (b"\xef\xbb\xbf{}", 1, 1, 0, "byte order mark"),
    ]

    def test_exit_2_with_position(self):
        for data, line, column, offset, words in self.CASES:
            with self.subTest(data=data):
                if not data.startswith(b"\xef\xbb\xbf"):  # Python skips a BOM in bytes
                    with self.assertRaises(ValueError):
                        json.loads(data)
                rc, out, err = common.convert(["--from", "json", "--to", "json"], data,
                                              check=False)
                self.assertEqual(rc, 2, err)
                self.assertEqual(out, b"")
                self.assertIn("line %d, column %d (byte %d)" % (line, column, offset), err)
                self.assertIn(words, err)
                self.assertRegex(err, r"\bline\b")
                self.assertRegex(err, r"\bcolumn\b")


class NotRepresentable(unittest.TestCase):
    """NaN from a CBOR input cannot be JSON: exit 3 with the path, or null under --lossy."""

    # {"a": [1, NaN], "b": [NaN]} and [1, {"x": -Infinity}] in CBOR (float16 f9 7e00 / fc00).
    MAP = bytes.fromhex("a2 6161 82 01 f97e00 6162 81 f97e00".replace(" ", ""))
    ARRAY = bytes.fromhex("82 01 a1 6178 f9fc00".replace(" ", ""))

    def test_nan_fails_with_path(self):
        for data, path, what in ((self.MAP, "/a/1", "NaN"), (self.ARRAY, "/1/x", "-Infinity")):
            with self.subTest(path=path):
                rc, out, err = common.convert(["--from", "cbor", "--to", "json"], data,
                                              check=False)
                self.assertEqual(rc, 3, err)
                self.assertEqual(out, b"")
                self.assertIn("%s: %s is not representable in json" % (path, what), err)

    def test_lossy_writes_null_and_reports(self):
        rc, out, err = common.convert(["--from", "cbor", "--to", "json", "--lossy"], self.MAP)
        self.assertEqual(rc, 0)
        self.assertEqual(json.loads(out), {"a": [1, None], "b": [None]})
        lines = [l for l in err.splitlines() if "lossy:" in l]
        self.assertEqual(len(lines), 2, err)
        self.assertRegex(lines[0], r"lossy: /a/1: nonfinite_to_null")
        self.assertRegex(lines[1], r"lossy: /b/0: nonfinite_to_null")

    def test_bytes_are_base64url_without_flag(self):
        rc, out, err = common.convert(["--from", "cbor", "--to", "json"],
                                      bytes.fromhex("8143fbff00"))
        self.assertEqual(json.loads(out), ["-_8A"])
        self.assertNotIn("lossy", err)


if __name__ == "__main__":
    unittest.main()
