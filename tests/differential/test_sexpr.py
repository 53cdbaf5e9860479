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
    if isinstance(x, dict) and "$pairs" in x:
        out = {}
        for k, v in x["$pairs"]:
            if isinstance(k, bool) or k is None or isinstance(k, float):
                raise AssertionError("unexpected key kind %r" % (k,))
            out[str(k)] = from_ref(v)
        return out
    if isinstance(x, dict) and "$bytes" in x:
        return bytes(x["$bytes"])
    if isinstance(x, list):
        return [from_ref(v) for v in x]
    return x


def nulls_in_maps_as_empty_maps(x):
    """Guile's writer prints the pair (key . #nil) as (key), which reads back as (key . ()):
    the empty map. This is what Guile writes, so it is what we read."""
    if isinstance(x, dict):
        return {k: ({} if v is None else nulls_in_maps_as_empty_maps(v)) for k, v in x.items()}
    if isinstance(x, list):
        return [nulls_in_maps_as_empty_maps(v) for v in x]
    return x


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


class GuileReadsOurs(unittest.TestCase):
    def check(self, name, data, pretty):
        args = ["--from", "json", "--to", "sexpr"] + (["--pretty"] if pretty else [])
        _, out, _ = common.convert(args, data)
        got = from_ref(json.loads(guile("json", out)))
        common.same_value(self, got, json.loads(data), "%s pretty=%s: " % (name, pretty))

    def test_records(self):
        for pretty in (False, True):
            self.check("records.json", common.fixture("records.json"), pretty)

    def test_bench(self):
        for pretty in (False, True):
            self.check("bench.json", common.fixture("bench.json"), pretty)

    def test_edge_cases(self):
        for pretty in (False, True):
            self.check("edge", json.dumps(EDGE).encode(), pretty)

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


class WeReadGuile(unittest.TestCase):
    def check(self, name, data):
        _, ours, _ = common.convert(["--from", "json", "--to", "sexpr"], data)
        written = guile("write", ours)
        _, back, _ = common.convert(["--from", "sexpr", "--to", "json"], written)
        want = nulls_in_maps_as_empty_maps(json.loads(data))
        common.same_value(self, json.loads(back), want, name + ": ")

    def test_records(self):
        self.check("records.json", common.fixture("records.json"))

    def test_bench(self):
        self.check("bench.json", common.fixture("bench.json"))

    def test_edge_cases(self):
        self.check("edge", json.dumps(EDGE).encode())

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
        data = common.fixture("records.json")
        for pretty in ([], ["--pretty"]):
            _, sx, _ = common.convert(["--from", "json", "--to", "sexpr"] + pretty, data)
            _, back, _ = common.convert(["--from", "sexpr", "--to", "json"], sx)
            common.same_value(self, json.loads(back), json.loads(data))

    def test_malformed_exit_2_with_line_and_column(self):
        rc, _, err = common.convert(["--from", "sexpr", "--to", "json"],
                                    b"((a . 1)\n (b . 2 3))", check=False)
        self.assertEqual(rc, 2, err)
        self.assertIn("line 2, column 9", err)


if __name__ == "__main__":
    unittest.main()
