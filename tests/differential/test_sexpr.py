"""Differential tests of the sexpr codec against GNU Guile (Debian package guile-3.0).

Guile's `read` takes our output and sexpr_ref.scm walks the datum into JSON; Guile's `write`
prints datums that we decode. Values are compared, ints and floats kept apart.
"""
import json
import math
import os
import shutil
import subprocess
import unittest

import common

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "sexpr_ref.scm")


def guile(mode, data):
    exe = shutil.which("guile") or shutil.which("guile-3.0")
    if exe is None:
        raise unittest.SkipTest("GNU Guile is not installed (apt-get install guile-3.0)")
    p = subprocess.run([exe, "--no-auto-compile", SCRIPT, mode], input=data,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
    if p.returncode != 0:
        raise AssertionError("guile %s failed: %s" % (mode, p.stderr.decode("utf-8", "replace")))
    return p.stdout


def from_ref(x):
    """sexpr_ref.scm's JSON -> plain Python values: maps become dicts with text keys (integer
    keys as decimal text, as our JSON encoder writes them), bytevectors bytes."""
    def special(d, rec):
        if "$pairs" in d:
            out = {}
            for k, v in d["$pairs"]:
                if isinstance(k, bool) or k is None or isinstance(k, float):
                    raise AssertionError("unexpected key kind %r" % (k,))
                out[str(k)] = rec(v)
            return out
        if "$bytes" in d:
            return bytes(d["$bytes"])
        return d
    return common.rebuild(x, special)


def nulls_in_maps_as_empty_maps(x):
    """Guile's writer prints the pair (key . #nil) as (key), which reads back as (key . ()):
    the empty map. This is what Guile writes, so it is what we read."""
    return common.rebuild(x, lambda d, rec: {k: ({} if v is None else rec(v))
                                             for k, v in d.items()})


EDGE = {
    "empty_map": {},
    "empty_array": [],
    "nested": [[], [[]], {"a": {"b": {}}}],
    "unicode": "Ελληνικά 日本語 \U0001F600 \u2028",
    "controls": "tab\there\nnew \"q\" back\\slash \u0001\u0007\u0008\r\u007f",
    "symbolish": {"a-b?": 1, "x:y": 2, "1x": 3, "": 4, "+": 5, "two words": 6, "é": 7},
    "numbers": [0, -1, 9223372036854775807, -9223372036854775808, 18446744073709551615,
                123456789012345678901234567890, -123456789012345678901234567890,
                0.5, -0.0, 1e300, 5e-324, 1.7976931348623157e308, 100.0, 1e21, 1.5e-7],
    "bools": [True, False, None],
}


class GuileReadsOurs(common.RecordsBenchEdge, unittest.TestCase):
    EDGE = EDGE

    def check(self, name, data, pretty):
        got = from_ref(json.loads(guile("json", common.from_json("sexpr", data, pretty))))
        common.same_value(self, got, json.loads(data), "%s pretty=%s: " % (name, pretty))

    def test_non_finite_floats_and_bytes(self):
        # Values JSON cannot carry, decoded from RON.
        ron = b'{"nan": NaN, "inf": inf, "ninf": -inf, "b": b"\\x00\\x01\\xff", 7: "seven"}'
        _, out, _ = common.convert(["--from", "ron", "--to", "sexpr"], ron)
        got = from_ref(json.loads(guile("json", out)))
        self.assertTrue(math.isnan(got["nan"]))
        self.assertEqual(got["inf"], math.inf)
        self.assertEqual(got["ninf"], -math.inf)
        self.assertEqual(got["b"], b"\x00\x01\xff")
        self.assertEqual(got["7"], "seven")


class WeReadGuile(common.RecordsBenchEdge, unittest.TestCase):
    EDGE, PRETTY = EDGE, None

    def check(self, name, data):
        _, ours, _ = common.convert(["--from", "json", "--to", "sexpr"], data)
        written = guile("write", ours)
        _, back, _ = common.convert(["--from", "sexpr", "--to", "json"], written)
        want = nulls_in_maps_as_empty_maps(json.loads(data))
        common.same_value(self, json.loads(back), want, name + ": ")

    def test_guile_specific_forms(self):
        # Guile's reader takes its own syntax (#{..}# symbols, \xHH and \uHHHH escapes),
        # its writer prints 1.0e300 floats, #u8 bytevectors and (key v ...) entries.
        source = (b'((#{two words}# . 1) (s . "\\x01\\x7f\\u2028") (f . 1e300) '
                  b'(bv . #u8(0 255)) (l . ((a . 1) (b . #(1 2)))) (n . #(#nil #t #f)))')
        written = guile("write", source)
        _, as_ron, _ = common.convert(["--from", "sexpr", "--to", "ron"], written)
        self.assertEqual(
            as_ron.decode(),
            '{"two words":1,"s":"\\x01\\x7f\u2028","f":1e300,"bv":b"\\x00\\xff",'
            '"l":{"a":1,"b":[1,2]},"n":[None,true,false]}')


class Cli(unittest.TestCase):
    def test_convert_round_trip(self):
        common.assert_round_trips(self, "sexpr", common.fixture("records.json"))

    def test_malformed_exit_2_with_line_and_column(self):
        common.assert_malformed(self, "sexpr", [(b"((a . 1)\n (b . 2 3))", "line 2, column 9")])


if __name__ == "__main__":
    unittest.main()
