"""Differential tests of UBJSON: the polycodec binary against nlohmann/json's to_ubjson and
from_ubjson (tests/differential/ubjson_ref.cpp, compiled here with g++ against the Debian
nlohmann-json3-dev header), in both directions, values compared."""
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

FIXTURES = ["records.json", "bench.json"]
HERE = os.path.dirname(os.path.abspath(__file__))
REF_SOURCE = os.path.join(HERE, "ubjson_ref.cpp")

EDGE_JSON = b"""{"pos":[0,127,128,255,256,32767,32768,2147483647,2147483648,
9223372036854775807,9223372036854775808,18446744073709551615],
"neg":[-1,-128,-129,-32768,-32769,-2147483648,-2147483649,-9223372036854775808],
"floats":[0.1,-2.5,1e300,5e-324,-0.0,1.0,3.4028234663852886e38],
"nested":[[[{"a":[1,{"b":null}],"c":{}}]],[],{}],
"unicode":["h\\u00e9llo","\\u65e5\\u672c\\u8a9e","\\ud83d\\ude00","a\\u0000b",""],
"long":"%s","t":true,"f":false,"n":null,"dup":{"k":1,"k":2}}""" % (b"x" * 70000)


def ref_binary():
    """Builds ubjson_ref once per source change, next to the polycodec binary (or in /tmp)."""
    if shutil.which("g++") is None or not os.path.exists("/usr/include/nlohmann/json.hpp"):
        raise unittest.SkipTest("g++ or nlohmann-json3-dev is not installed")
    out_dir = os.path.dirname(os.environ.get("POLYCODEC_BIN", "")) or tempfile.gettempdir()
    exe = os.path.join(out_dir, "ubjson_ref")
    if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(REF_SOURCE):
        tmp = exe + ".%d.tmp" % os.getpid()
        p = subprocess.run(["g++", "-std=c++17", "-O1", REF_SOURCE, "-o", tmp],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600)
        if p.returncode != 0:
            raise AssertionError("building ubjson_ref failed: " + p.stderr.decode())
        os.replace(tmp, exe)
    return exe


def ref(args, data):
    p = subprocess.run([ref_binary(), *args], input=data, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=120)
    if p.returncode != 0:
        raise AssertionError("ubjson_ref %s failed: %s" % (args, p.stderr.decode()))
    return p.stdout


def to_ubjson(data):
    return common.convert(["--from", "json", "--to", "ubjson"], data)[1]


def from_ubjson(data, to="json"):
    return common.convert(["--from", "ubjson", "--to", to], data)[1]


def uint8_arrays_as_ints(got, expected):
    """nlohmann's typed form writes an array of integers 0-255 (with one above 127) as
    [$U#n, which polycodec reads as bytes (docs/formats/ubjson.md) and JSON then shows as
    base64url text: turn those back into the integers where the expected value has them."""
    if isinstance(expected, list) and isinstance(got, str) and expected and \
            all(type(v) is int and 0 <= v <= 255 for v in expected):
        return list(base64.urlsafe_b64decode(got + "=" * (-len(got) % 4)))
    if isinstance(expected, list) and isinstance(got, list) and len(got) == len(expected):
        return [uint8_arrays_as_ints(g, e) for g, e in zip(got, expected)]
    if isinstance(expected, dict) and isinstance(got, dict):
        return {k: uint8_arrays_as_ints(v, expected.get(k)) for k, v in got.items()}
    return got


def last_wins(pairs):
    # nlohmann keeps the last of duplicate keys; polycodec keeps both.
    return dict(pairs)


class ConvertRoundTrip(common.FixtureChecks, unittest.TestCase):
    """json -> ubjson -> json with polycodec alone: identical values, ints and floats apart."""

    def check(self, data, name):
        back = from_ubjson(to_ubjson(data))
        common.same_value(self, json.loads(back), json.loads(data), name)
        self.assertEqual(json.loads(back, object_pairs_hook=list),
                         json.loads(data, object_pairs_hook=list), name)

    def test_edge(self):
        self.check(EDGE_JSON, "edge")

    def test_ubjson_to_ubjson_is_byte_identical(self):
        for name in FIXTURES:
            ours = to_ubjson(common.fixture(name))
            self.assertEqual(from_ubjson(ours, "ubjson"), ours, name)


class ReferenceDecodesOurs(common.FixtureChecks, unittest.TestCase):
    def check(self, data, name):
        got = json.loads(ref(["from-ubjson"], to_ubjson(data)), object_pairs_hook=last_wins)
        common.same_value(self, got, json.loads(data, object_pairs_hook=last_wins), name)

    def test_edge(self):
        self.check(EDGE_JSON, "edge")

    def test_bytes_read_as_uint8_array(self):
        # We write bytes as [$U#n; nlohmann reads that optimized array as its integers.
        ours = common.convert(["--from", "cbor", "--to", "ubjson"], bytes.fromhex("4300ff10"))[1]
        self.assertEqual(ours, b"[$U#i\x03\x00\xff\x10")
        self.assertEqual(json.loads(ref(["from-ubjson"], ours)), [0, 255, 16])


    def test_decimal_fraction_as_high_precision(self):
        # CBOR tag 4 [-2, 150] (1.50) is written as H "1.50"; nlohmann reads H as a number.
        ours = common.convert(["--from", "cbor", "--to", "ubjson"], bytes.fromhex("c482211896"))[1]
        self.assertEqual(ours, b"Hi\x041.50")
        self.assertEqual(json.loads(ref(["from-ubjson"], ours)), 1.5)


class WeDecodeReferences(common.FixtureChecks, unittest.TestCase):
    """nlohmann writes plain containers, counted ones (#) and typed ones ($ and #)."""

    def check(self, data, name):
        for form in ("plain", "count", "typed"):
            with self.subTest(name=name, form=form):
                theirs = ref(["to-ubjson", form], data)
                back = json.loads(from_ubjson(theirs), object_pairs_hook=last_wins)
                expected = json.loads(data, object_pairs_hook=last_wins)
                if form == "typed":
                    back = uint8_arrays_as_ints(back, expected)
                common.same_value(self, back, expected, name)
                # And they read our re-encoding of their bytes.
                again = ref(["from-ubjson"], from_ubjson(theirs, "ubjson"))
                common.same_value(self, json.loads(again, object_pairs_hook=last_wins),
                                  json.loads(data, object_pairs_hook=last_wins), name)

    def test_edge(self):
        self.check(EDGE_JSON, "edge")

    def test_typed_arrays(self):
        self.check(b'{"i8":[1,2,3],"u8":[200,201],"i16":[1000,-1000],"f":[0.5,1.5],'
                   b'"s":["a","b"],"b":[true,true],"z":[null,null],"aa":[[1],[2]],'
                   b'"oo":[{"a":1},{"a":2}],"mixed":[1,"a",null]}', "typed")

    def test_typed_uint8_array_is_bytes(self):
        theirs = ref(["to-ubjson", "typed"], b"[200,201,255]")
        self.assertEqual(theirs, b"[$U#i\x03\xc8\xc9\xff")
        self.assertEqual(from_ubjson(theirs), b'"yMn_"')

    def test_high_precision(self):
        # nlohmann writes integers above INT64_MAX as H; we read them as integers.
        theirs = ref(["to-ubjson", "plain"], b"[18446744073709551615]")
        self.assertIn(b"H", theirs)
        self.assertEqual(from_ubjson(theirs), b"[18446744073709551615]")


class CliErrors(unittest.TestCase):
    def test_truncated_input_names_the_offset(self):
        err = common.convert_fails(self, ["--from", "ubjson", "--to", "json"], b"[#i\x05Z", 2)
        self.assertIn("byte 0", err)

    def test_tag_is_unrepresentable(self):
        code, _, err = common.convert(["--from", "cbor", "--to", "ubjson"],
                                      bytes.fromhex("d82061 75".replace(" ", "")), check=False)
        self.assertEqual(code, 3, err)


if __name__ == "__main__":
    unittest.main()
