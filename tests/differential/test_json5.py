"""Differential tests of the JSON5 codec against the npm json5 package (ref_json5.mjs).

Both directions: json5 parses what polycodec writes, polycodec parses what json5.stringify
writes; values are compared. JavaScript numbers are doubles, so where the reference is involved
numbers compare by value (an int 3 equals 3.0, and integers beyond 2^53 compare after rounding
to a double); everything else (types, key order, strings) compares exactly.
"""
import json
import math
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # common.py beside us

import common

FIXTURES = ("records.json", "bench.json")

# Edge cases, written in JSON5 by hand. Each must decode in both implementations to the same
# value, and polycodec's output of it must decode in json5 to that value again.
EDGE_JSON5 = [
    "{a: 1, 'b c': 2, \"d\": [1, 2,], }",
    "[NaN, Infinity, -Infinity, +1, -0.5, .5, 5., 0x1F, -0xff, 1e3, 1E-3]",
    "'single \"double\" quoted'",
    '"double \'single\' quoted"',
    "\"it's \\\"both\\\" 'kinds' \\\"\\\"\"",
    "'escapes: \\b\\f\\n\\r\\t\\v\\0 \\x41 \\u00e9 \\ud83d\\ude00 \\a \\/'",
    "'line \\\ncontinued'",
    "'separators \u2028 and \u2029 raw'",
    "{$dollar: 1, _under: 2, \u00e9t\u00e9: 3, \\u0061b: 4, a\u0301: 5, \u4e2d\u6587: 6}",
    "{'': 'empty key', 'with space': 1, '1digit': 2, 'a-b': 3, null: 4, true: 5}",
    "// comment\n/* block */ {a /* inside */ : // after\n 1}",
    "\ufeff\u00a0{\u2003a:\u3000[\u2028]\u2029}",
    "[[], {}, [[{}]], {a: {b: {c: []}}}]",
    "{controls: '\\u0001\\u001f\\u007f', tab: '\\t'}",
    "[1.7976931348623157e308, 5e-324, -0.0, 123456789012345678901234567890]",
]

MALFORMED = [
    # (text, line, column)
    ("{a: 1,,}", 1, 7),
    ("[1, 2", 1, 6),
    ("{\n  a: 'unterminated\n}", 2, 19),
    ("[01]", 1, 3),
    ("{a b: 1}", 1, 4),
    ("/* never closed", 1, 16),
]


def node_json5(mode, data, *args):
    return common.node("ref_json5.mjs", [mode, *args], data)


def untag(v):
    """Tagged JSON of the reference scripts -> Python values (NaN and infinities as floats)."""
    def on_dict(d, rec):
        if len(d) == 1 and "$float" in d:
            return float(d["$float"].replace("Infinity", "inf"))
        return {k: rec(x) for k, x in d.items()}
    return common.rebuild(v, on_dict)


def tag(v):
    """Python values -> tagged JSON of the reference scripts (NaN and infinities tagged)."""
    def on_scalar(x):
        if isinstance(x, float) and not math.isfinite(x):
            return {"$float": "NaN" if x != x else ("Infinity" if x > 0 else "-Infinity")}
        return x
    return common.rebuild(v, lambda d, rec: {k: rec(x) for k, x in d.items()}, on_scalar)


def same_number_value(test, a, b, path=""):
    """Deep equality where numbers compare as doubles (the reference is JavaScript)."""
    num = (int, float)
    if isinstance(a, bool) or isinstance(b, bool):
        test.assertIs(type(a), type(b), "%s: %r != %r" % (path or "/", a, b))
        test.assertEqual(a, b, path or "/")
    elif isinstance(a, num) and isinstance(b, num):
        fa, fb = float(a), float(b)
        if fa != fa:
            test.assertTrue(fb != fb, "%s: NaN != %r" % (path or "/", b))
        else:
            test.assertEqual(fa, fb, "%s: %r != %r" % (path or "/", a, b))
    elif isinstance(a, dict):
        test.assertIsInstance(b, dict, path or "/")
        test.assertEqual(list(a.keys()), list(b.keys()), "%s: keys differ" % (path or "/"))
        for k in a:
            same_number_value(test, a[k], b[k], "%s/%s" % (path, k))
    elif isinstance(a, list):
        test.assertIsInstance(b, list, path or "/")
        test.assertEqual(len(a), len(b), "%s: lengths differ" % (path or "/"))
        for i, (x, y) in enumerate(zip(a, b)):
            same_number_value(test, x, y, "%s/%d" % (path, i))
    else:
        test.assertEqual(a, b, path or "/")


class Json5Differential(unittest.TestCase):
    def test_reference_reads_our_fixtures(self):
        for name in FIXTURES:
            data = common.fixture(name)
            expected = json.loads(data)
            for pretty in ([], ["--pretty"]):
                _, out, _ = common.convert(["--from", "json", "--to", "json5", *pretty], data)
                got = untag(json.loads(node_json5("parse", out)))
                same_number_value(self, expected, got)

    def test_we_read_reference_fixtures(self):
        for name in FIXTURES:
            data = common.fixture(name)
            expected = json.loads(data)
            for space in ([], ["2"]):
                text = node_json5("stringify", data, *space)
                _, out, _ = common.convert(["--from", "json5", "--to", "json"], text)
                same_number_value(self, expected, json.loads(out))

    def test_fixtures_round_trip_exactly(self):
        for name in FIXTURES:
            data = common.fixture(name)
            _, canon, _ = common.convert(["--from", "json", "--to", "json"], data)
            for pretty in ([], ["--pretty"]):
                _, j5, _ = common.convert(["--from", "json", "--to", "json5", *pretty], data)
                _, back, _ = common.convert(["--from", "json5", "--to", "json"], j5)
                self.assertEqual(canon, back, name)

    def test_edge_cases_both_ways(self):
        for text in EDGE_JSON5:
            with self.subTest(text=text):
                data = text.encode("utf-8")
                ref = untag(json.loads(node_json5("parse", data)))
                # polycodec reads it: compare through our JSON5 output read by the reference.
                _, ours, _ = common.convert(["--from", "json5", "--to", "json5"], data)
                same_number_value(self, ref, untag(json.loads(node_json5("parse", ours))))
                # polycodec reads the reference's own writing of the value.
                again = node_json5("stringify", json.dumps(tag(ref)).encode())
                _, ours2, _ = common.convert(["--from", "json5", "--to", "json5"], again)
                same_number_value(self, ref, untag(json.loads(node_json5("parse", ours2))))

    def test_string_and_key_quoting_matches_json5_stringify(self):
        # Without floats (JavaScript prints 1.0 as 1) our writer's bytes equal json5's.
        doc = {
            "plain": "text", "sq": "it's", "dq": 'say "hi"', "both": "'\"\"",
            "ctl": "\x00\x01\x1f\b\f\n\r\t\v", "nul-digit": "\x001", "seps": "\u2028\u2029",
            "uni": "\u00e9\u4e2d\U0001f600", "": 1, "a b": 2, "\u00e9t\u00e9": 3, "$_": 4,
            "1a": 5, "nested": [True, False, None, -12, {"x": []}, {}],
        }
        data = json.dumps(doc).encode()
        for space, flag in (([], []), (["2"], ["--pretty"])):
            ref = node_json5("stringify", data, *space)
            _, ours, _ = common.convert(["--from", "json", "--to", "json5", *flag], data)
            self.assertEqual(ref.decode(), ours.decode().rstrip("\n"))

    def test_corpus_values_match_reference(self):
        root = common.corpus("json5")
        checked = 0
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if d != "todo"]
            for f in sorted(filenames):
                ext = f.rsplit(".", 1)[-1]
                if ext not in ("json", "json5", "js", "txt"):
                    continue
                path = os.path.join(dirpath, f)
                with open(path, "rb") as fh:
                    data = fh.read()
                code, out, err = common.convert(["--from", "json5", "--to", "json5"], data,
                                                check=False)
                if ext in ("js", "txt"):
                    self.assertEqual(code, 2, "%s must be rejected" % path)
                    self.assertRegex(err, r"line \d+, column \d+", path)
                    continue
                self.assertEqual(code, 0, "%s: %s" % (path, err))
                ref = untag(json.loads(node_json5("parse", data)))
                if "duplicate-keys" in f:
                    continue  # JavaScript keeps the last value; polycodec keeps both entries
                same_number_value(self, ref, untag(json.loads(node_json5("parse", out))), path)
                checked += 1
        self.assertGreater(checked, 70)

    def test_number_and_identifier_borders_agree_with_json5(self):
        signs = ["", "+", "-"]
        bodies = ["0", "00", "01", "1", "12", ".", ".5", "5.", "0x", "0x1F", "0X", "Infinity",
                  "NaN", "Inf", "1e", "1e5", "1e+5", "1.e5", ".e5", "0.0e-0", "0b1", "0o7"]
        tails = ["", " ", "x", "_", "0", ".", "/**/", "//c\n", ",", "e", "\u00e9"]
        docs = ["[" + s + b + t + "]" for s in signs for b in bodies for t in tails]
        keys = ["a", "$", "_", "1", "a1", "a-b", "\\u0061", "\\u0031", "\\x61", "\u00e9",
                "\u0301", "a\u0301", "\u2160", "\u00aa", "\u200c", "a\u200c", "\U0001d400",
                "null", "in", "\u00b2", "a\u00b7", "a\u0660", "\u0660"]
        docs += ["{%s: 1}" % k for k in keys]
        refs = json.loads(node_json5("parse-each", json.dumps(docs).encode()))
        accepted = []
        for doc, ref in zip(docs, refs):
            code, out, err = common.convert(["--from", "json5", "--to", "json5"],
                                            doc.encode(), check=False)
            if isinstance(ref, dict) and "$error" in ref:
                self.assertEqual(code, 2, "%r: json5 rejects it, polycodec gave %s" % (doc, out))
            else:
                self.assertEqual(code, 0, "%r: %s" % (doc, err))
                accepted.append((doc, ref, out.decode()))
        self.assertGreater(len(accepted), 100)
        # The values: json5 reads our re-encoding of each accepted document as it read the
        # original.
        again = json.loads(node_json5("parse-each", json.dumps([o for _, _, o in accepted])
                                      .encode()))
        for (doc, ref, _), got in zip(accepted, again):
            same_number_value(self, untag(ref), untag(got), repr(doc))

    def test_malformed_is_exit_2_with_line_and_column(self):
        common.assert_malformed_at(self, "json5", MALFORMED)

    def test_nan_and_infinity_are_not_lossy(self):
        _, out, _ = common.convert(["--from", "json5", "--to", "json5"],
                                   b"[NaN, -Infinity, Infinity]")
        self.assertEqual(out, b"[NaN,-Infinity,Infinity]")
        code, _, err = common.convert(["--from", "json5", "--to", "json"], b"[NaN]",
                                      check=False)
        self.assertEqual(code, 3, err)
        self.assertIn("/0", err)


if __name__ == "__main__":
    unittest.main()
