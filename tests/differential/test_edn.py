"""Differential tests of the EDN codec against edn-data (npm, ref_edn.mjs).

Both directions, values compared: edn-data parses what we write (fixtures and edge values,
compared with Python's json of the source), and we read what edn-data writes with
toEDNStringFromSimpleObject and toEDNString (keywords, sets, lists, characters, symbols,
tags, #inst, bigints). edn-data reads integers with parseInt, so numbers on its side compare
as doubles; integers beyond 2^53 travel as BigInt (N suffix) where exactness matters.
"""
import datetime
import json
import math
import re
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # common.py beside us

import common

FIXTURES = ("records.json", "bench.json")


def node_edn(mode, data, *args):
    return common.node("ref_edn.mjs", [mode, *args], data)


def inst_ms(text):
    """Milliseconds since the epoch of RFC 3339 text (what edn-data's Date keeps)."""
    t = text.replace("z", "Z").replace("Z", "+00:00")
    frac = 0.0
    m = re.match(r"^(.*?)\.(\d+)(.*)$", t)
    if m:
        frac = float("0." + m.group(2))
        t = m.group(1) + m.group(3)
    dt = datetime.datetime.fromisoformat(t)
    return int(dt.timestamp()) * 1000 + int(round(frac * 1000))


def js_side(v):
    """The value of the reference's tagged JSON in Python terms."""
    if isinstance(v, list):
        return [js_side(x) for x in v]
    if isinstance(v, dict):
        if list(v.keys()) == ["$bigint"]:
            return int(v["$bigint"])
        if list(v.keys()) == ["$float"]:
            return float(v["$float"])
        return {k: js_side(x) for k, x in v.items()}
    if isinstance(v, int) and not isinstance(v, bool) and abs(v) >= 2 ** 53:
        return float(v)  # parseInt rounded it to a double
    return v


def to_tagged(v):
    """Python value -> the reference's tagged JSON: integers beyond 2^53 as BigInt."""
    if isinstance(v, bool):
        return v
    if isinstance(v, int) and abs(v) > 2 ** 53:
        return {"$bigint": str(v)}
    if isinstance(v, float) and not math.isfinite(v):
        return {"$float": repr(v).replace("inf", "Infinity").replace("nan", "NaN")}
    if isinstance(v, list):
        return [to_tagged(x) for x in v]
    if isinstance(v, dict):
        return {k: to_tagged(x) for k, x in v.items()}
    return v


def same_js_value(test, a, b, path=""):
    """a from Python, b from the other side: integers beyond 2^53 exact when both are ints,
    other numbers as doubles (JavaScript prints 1.0 as 1)."""
    num = (int, float)
    where = path or "/"
    if isinstance(a, bool) or isinstance(b, bool):
        test.assertIs(type(a), type(b), "%s: %r != %r" % (where, a, b))
        test.assertEqual(a, b, where)
    elif isinstance(a, num) and isinstance(b, num):
        if isinstance(a, int) and isinstance(b, int):
            test.assertEqual(a, b, where)
        elif isinstance(a, float) and a != a:
            test.assertTrue(b != b, "%s: NaN != %r" % (where, b))
        else:
            test.assertEqual(float(a), float(b), "%s: %r != %r" % (where, a, b))
    elif isinstance(a, dict):
        test.assertIsInstance(b, dict, where)
        test.assertEqual(list(a.keys()), list(b.keys()), "%s: keys differ" % where)
        for k in a:
            same_js_value(test, a[k], b[k], "%s/%s" % (path, k))
    elif isinstance(a, list):
        test.assertIsInstance(b, list, where)
        test.assertEqual(len(a), len(b), "%s: lengths differ" % where)
        for i, (x, y) in enumerate(zip(a, b)):
            same_js_value(test, x, y, "%s/%d" % (path, i))
    else:
        test.assertEqual(a, b, where)


# JSON values whose EDN form edn-data must read back as the same value.
EDGE_VALUES = [
    {"plain": "text", "esc": "q\"b\\s\nn\rr\tt", "ctl": "\x01\x1f\x7f", "uni": "\u00e9\u65e5\U0001f600",
     "empty": "", "semi": "a;b", "hash": "#{x}", "colon": ":k", "comma": "a,b"},
    {"x y": 1, "": 2, "1a": 3, "a/b": 4, "a/": 5, "/": 6, ":k": 7, "#t": 8, "nil": 9,
     "true": 10, "\u00e9t\u00e9": 11, "a.b-c_d?!*": 12, "-x": 13, "+": 14},
    [0, -1, 1, 2 ** 53, -(2 ** 53), 2 ** 63 - 1, -(2 ** 63), 2 ** 64 - 1, 2 ** 64, -(2 ** 64) - 7,
     10 ** 30],
    [0.0, -0.0, 1.5, -2.25, 1e300, 5e-324, 1e-7, 123456.789, 1.0, 2.0 ** 60],
    [[], {}, [[]], {"a": {}}, [None, True, False]],
    {"nested": {"deep": [{"k": [1, {"z": None}]}]}},
    "just a string",
    42,
    None,
]

# EDN texts both readers must read as the same value (edn-data shapes, see ref_edn.mjs).
EDGE_EDN = [
    "{:a 1, :b 2,, :c 3}",
    "[1 2 ; a comment\n 3]",
    "[1 #_ 2 3]",
    "[1 #_ [2 3] 4]",
    "[#_ 1 2]",
    "(1 (2 (3)))",
    "#{1 2 3}",
    "[\\a \\b \\newline \\tab \\return \\u00e9 \\\\]",
    '["\\t\\r\\n\\\\\\"" "\\u00e9\\u65e5"]',
    "[nil true false]",
    "[:kw :ns/kw sym ns/sym - + ... <=> a.b]",
    "[-5 +5 0 -0 1.5 -1.5e3 1E-2 +1.0]",
    "[12345678901234567890123N 5N -7N]",
    "{\"str key\" 1 :kw 2 \"\" 3}",
    "#my/tag {:a [1 2]}",
    "#uuid \"f81d4fae-7dec-11d0-a765-00a0c91e6bf6\"",
    "[#x 1 #y.z/w \"s\"]",
    "{:a {:b {:c {:d []}}}}",
    "\"multi\nline\"",
    "  42  ",
    "{:1 a :2d b}",
]

# Malformed EDN: (text, line, column). polycodec exits 2 and names the position.
MALFORMED = [
    ("[1 2", 1, 5),
    ("{:a 1 :b}", 1, 9),
    ("(1 2]", 1, 5),
    ("[1 2]]", 1, 6),
    ("\"abc", 1, 5),
    ("[01]", 1, 3),
    ("[1.]", 1, 4),
    ("[\"\\q\"]", 1, 3),
    ("{:a\n  #inst \"2020-01-01\"}", 2, 9),
    ("[\\foo]", 1, 2),
    ("[#1 2]", 1, 2),
    ("[1 2 3 \n 4 ::x]", 2, 4),
    ("#_", 1, 3),
    ("[1abc]", 1, 3),
    ("{:a 1}\n{:b 2}", 2, 1),
    ("", 1, 1),
    ("[##Foo]", 1, 2),
]

# edn-data throws on these too.
INVALID_BOTH = ['"\\q"', '"\\uZZZZ"']

# EDN -> EDN keeps these exactly (decimals, bigints, tags, instants, non-finite floats).
LOSSLESS_EDN = [
    "[1.50M 1M -0.001M 1E-7M 12345678901234567890123456789012.34M]",
    "[123456789012345678901234567890N -123456789012345678901234567890N 18446744073709551615N]",
    "[##NaN ##Inf ##-Inf -0.0 1e300 1e-7 1.5e-300]",
    "#inst \"1985-04-12T23:20:50.52Z\"",
    "[#inst \"2026-01-01T00:00:00+05:30\" #uuid \"f81d4fae-7dec-11d0-a765-00a0c91e6bf6\"]",
    "#my/tag {:a #other/t [1 2]}",
    "{1 \"one\" 2.5 \"two\" nil 3 true 4 #inst \"2026-01-01T00:00:00Z\" 5 7 6}",
    "#cbor/tag37 \"x\"",
]


class EdnDifferential(unittest.TestCase):
    def test_reference_reads_our_fixtures(self):
        for name in FIXTURES:
            for pretty in ([], ["--pretty"]):
                data = common.fixture(name)
                _, out, _ = common.convert(["--from", "json", "--to", "edn", *pretty], data)
                same_js_value(self, json.loads(data), js_side(json.loads(node_edn("parse", out))))

    def test_we_read_reference_fixtures(self):
        for name in FIXTURES:
            source = json.loads(common.fixture(name))
            text = node_edn("simple", json.dumps(to_tagged(source)).encode())
            _, out, _ = common.convert(["--from", "edn", "--to", "json"], text)
            same_js_value(self, source, json.loads(out))
            # the large integers came as BigInt (N): exact
            if name == "records.json":
                self.assertEqual([r["big"] for r in source], [r["big"] for r in json.loads(out)])

    def test_fixtures_round_trip_exactly(self):
        for name in FIXTURES:
            data = common.fixture(name)
            _, canon, _ = common.convert(["--from", "json", "--to", "json"], data)
            for pretty in ([], ["--pretty"]):
                _, edn, _ = common.convert(["--from", "json", "--to", "edn", *pretty], data)
                _, back, _ = common.convert(["--from", "edn", "--to", "json"], edn)
                self.assertEqual(canon, back, name)
                self.assertEqual(json.loads(data), json.loads(back), name)
            # keys are keywords, values strings
            self.assertTrue(edn.startswith(b"[\n  {\n    :id 0\n"), edn[:40])

    def test_reference_reads_our_edge_values(self):
        for v in EDGE_VALUES:
            with self.subTest(v=v):
                data = json.dumps(v).encode()
                _, edn, _ = common.convert(["--from", "json", "--to", "edn"], data)
                ref = js_side(json.loads(node_edn("parse", edn)))
                same_js_value(self, v, ref)
                _, back, _ = common.convert(["--from", "edn", "--to", "json"], edn)
                self.assertEqual(json.loads(back), v)

    def test_we_read_reference_edge_values(self):
        for v in EDGE_VALUES:
            with self.subTest(v=v):
                text = node_edn("simple", json.dumps(to_tagged(v)).encode(), "string")
                _, out, _ = common.convert(["--from", "edn", "--to", "json"], text)
                same_js_value(self, v, json.loads(out))

    def test_we_read_rich_reference_output(self):
        cases = [
            ({"$key": "a"}, "a"),
            ({"$key": "ns/a"}, "ns/a"),
            ({"$sym": "my-sym"}, "my-sym"),
            ({"$char": "x"}, "x"),
            ({"$char": "\u00e9"}, "\u00e9"),
            ({"$set": [1, 2, "x"]}, [1, 2, "x"]),
            ({"$list": [1, {"$list": []}, {"$key": "k"}]}, [1, [], "k"]),
            ({"$map": [[1, 2], [{"$key": "k"}, {"$sym": "s"}], ["str", None]]},
             {"1": 2, "k": "s", "str": None}),
            ({"$tag": "my/t", "$val": {"a": [1, True]}}, {"#my/t": {"a": [1, True]}}),
            ({"$tag": "uuid", "$val": "f81d4fae-7dec-11d0-a765-00a0c91e6bf6"},
             {"#uuid": "f81d4fae-7dec-11d0-a765-00a0c91e6bf6"}),
            ({"$inst": "2026-03-04T05:06:07.089Z"}, "2026-03-04T05:06:07.089Z"),
            ({"$bigint": "123456789012345678901234567890"}, 123456789012345678901234567890),
            ({"$bigint": "-5"}, -5),
            ([{"$key": "a"}, "q\"\\\n\t\u0001", 1.5, -0.0, None, False], ["a", "q\"\\\n\t\u0001", 1.5, -0.0, None, False]),
        ]
        for tagged, expected in cases:
            with self.subTest(tagged=tagged):
                text = node_edn("rich", json.dumps(tagged).encode())
                _, out, err = common.convert(["--from", "edn", "--to", "json"], text)
                self.assertEqual(json.loads(out), expected, text)

    def test_edge_edn_read_like_edn_data(self):
        refs = json.loads(node_edn("parse-each", json.dumps(EDGE_EDN).encode()))
        for text, ref in zip(EDGE_EDN, refs):
            with self.subTest(text=text):
                self.assertNotIn("$error", ref if isinstance(ref, dict) else {})
                _, out, _ = common.convert(["--from", "edn", "--to", "json"], text.encode())
                same_js_value(self, js_side(ref), json.loads(out))
                # and what we write from it, edn-data reads as the same value
                _, edn, _ = common.convert(["--from", "edn", "--to", "edn"], text.encode())
                same_js_value(self, js_side(ref), js_side(json.loads(node_edn("parse", edn))))

    def test_inst_is_the_same_instant(self):
        for text in ["2026-01-01T00:00:00Z", "1985-04-12T23:20:50.52Z",
                     "2026-01-01T00:00:00+05:30", "1999-12-31T23:59:59.999-08:00"]:
            with self.subTest(text=text):
                edn = ('[#inst "%s"]' % text).encode()
                ref = json.loads(node_edn("parse", edn))
                self.assertEqual(ref, [{"$inst": inst_ms(text)}])
                _, out, _ = common.convert(["--from", "edn", "--to", "cbor"], edn)
                _, back, _ = common.convert(["--from", "cbor", "--to", "edn"], out)
                self.assertEqual(json.loads(node_edn("parse", back)), ref)

    def test_invalid_rejected_by_both(self):
        refs = json.loads(node_edn("parse-each", json.dumps(INVALID_BOTH).encode()))
        for text, ref in zip(INVALID_BOTH, refs):
            with self.subTest(text=text):
                self.assertIn("$error", ref)
                err = common.convert_fails(self, ["--from", "edn", "--to", "json"], text.encode(), 2)
                self.assertRegex(err, r"line \d+, column \d+")

    def test_malformed_is_exit_2_with_line_and_column(self):
        common.assert_malformed_at(self, "edn", MALFORMED)

    def test_edn_to_edn_is_lossless(self):
        for text in LOSSLESS_EDN:
            with self.subTest(text=text):
                _, out, _ = common.convert(["--from", "edn", "--to", "edn"], text.encode())
                self.assertEqual(out.decode(), text)
                if "M" in text:
                    continue  # decimal128 is a BSON type: CBOR has no form for it
                # and through CBOR, which holds every other kind of the Document
                _, cbor, _ = common.convert(["--from", "edn", "--to", "cbor"], text.encode())
                _, again, _ = common.convert(["--from", "cbor", "--to", "edn"], cbor)
                self.assertEqual(again.decode(), text)

    def test_edn_to_json_and_back(self):
        # Keywords come back as keywords (map keys), tags through {"#tag": value}.
        text = b'{:id 1 :tags #{"a" "b"} :when #inst "2026-01-01T00:00:00Z" :p #point [1 2]}'
        _, js, _ = common.convert(["--from", "edn", "--to", "json"], text)
        self.assertEqual(json.loads(js), {"id": 1, "tags": ["a", "b"],
                                          "when": "2026-01-01T00:00:00Z",
                                          "p": {"#point": [1, 2]}})
        _, back, _ = common.convert(["--from", "json", "--to", "edn"], js)
        self.assertEqual(back, b'{:id 1 :tags ["a" "b"] :when "2026-01-01T00:00:00Z" '
                               b':p #point [1 2]}')

    def test_decimal_goes_to_bson_decimal128(self):
        _, js, _ = common.convert(["--from", "edn", "--to", "json"], b"{:price 1.50M}")
        self.assertEqual(json.loads(js), {"price": {"$numberDecimal": "1.50"}})
        _, bson, _ = common.convert(["--from", "edn", "--to", "bson"], b"{:price 1.50M}")
        _, back, _ = common.convert(["--from", "bson", "--to", "edn"], bson)
        self.assertEqual(back, b"{:price 1.50M}")
        code, _, err = common.convert(["--from", "edn", "--to", "json"],
                                      b"[1.2345678901234567890123456789012345M]", check=False)
        self.assertEqual(code, 2, err)
        self.assertIn("34 significant digits", err)

    def test_non_finite_floats_need_lossy_only_for_json(self):
        _, out, _ = common.convert(["--from", "json5", "--to", "edn"], b"{a: [NaN, Infinity]}")
        self.assertEqual(out, b"{:a [##NaN ##Inf]}")
        code, _, err = common.convert(["--from", "edn", "--to", "json"], out, check=False)
        self.assertEqual(code, 3, err)
        self.assertIn("/a/0", err)

    def test_bytes_are_base64url_text(self):
        # CBOR h'000102ff' -> "AAEC_w"
        _, out, _ = common.convert(["--from", "cbor", "--to", "edn"], bytes.fromhex("a1616144000102ff"))
        self.assertEqual(out, b'{:a "AAEC_w"}')
        self.assertEqual(json.loads(node_edn("parse", out)), {"a": "AAEC_w"})


if __name__ == "__main__":
    unittest.main()
