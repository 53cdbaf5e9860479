"""Differential tests of the BSON codec against js-bson (npm "bson" 7, ref_bson.mjs).

Python's standard library has no BSON, so js-bson is the reference. The two sides talk in
canonical Extended JSON v2, which keeps every BSON type apart ({"$numberInt": "5"},
{"$numberLong": "5"}, {"$numberDouble": "1.5"} ...), so nothing passes through a JavaScript
number. Both directions: js-bson reads what we write and we read what it writes, values
compared, and for the same canonical Extended JSON both sides write the same bytes.
"""
import json
import random
import struct
import time
import unittest

import common


def to_canonical(v):
    """A JSON value -> canonical Extended JSON with the types our encoder picks: int32 when
    the integer fits, else int64; double for floats."""
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, int):
        if -2 ** 31 <= v < 2 ** 31:
            return {"$numberInt": str(v)}
        return {"$numberLong": str(v)}
    if isinstance(v, float):
        return {"$numberDouble": repr(v)}
    if isinstance(v, dict):
        return {k: to_canonical(x) for k, x in v.items()}
    return [to_canonical(x) for x in v]


def from_canonical(v):
    """Canonical Extended JSON -> plain values for the numeric types; other types kept."""
    if isinstance(v, dict):
        if len(v) == 1:
            (k, x), = v.items()
            if k in ("$numberInt", "$numberLong"):
                return int(x)
            if k == "$numberDouble":
                return float(x)
        return {k: from_canonical(x) for k, x in v.items()}
    if isinstance(v, list):
        return [from_canonical(x) for x in v]
    return v


def ref_encode(value):
    return common.node("ref_bson.mjs", ["encode"], json.dumps(value).encode())


def ref_decode(data):
    return json.loads(common.node("ref_bson.mjs", ["decode"], data))


def ours(args, data, check=True):
    return common.convert(args, data, check)


OID = "5f1d2c3b4a5968778695a4b3"

# Every type js-bson writes, in canonical Extended JSON. (js-bson writes undefined as null
# and a $dbPointer as a DBRef document, so those two are covered by the C++ byte tables.)
EDGE = {
    "oid": {"$oid": OID},
    "dec": [{"$numberDecimal": t} for t in [
        "1.0", "1.00", "-0", "0", "0E-6176", "0E+6111", "NaN", "Infinity", "-Infinity",
        "0.000001234", "1.234E-7", "1.2E+3", "-1.23E+6000", "12345678901234567890123456789012.34",
        "9.999999999999999999999999999999999E+6144", "1E-6176", "-100"]],
    "bin": [{"$binary": {"base64": b, "subType": s}} for b, s in [
        ("AAECAwQFBgcICQoLDA0ODw==", "04"), ("AQID", "02"), ("", "80"), ("AQ==", "01"),
        ("AAECAwQFBgcICQoLDA0ODw==", "03"), ("aGVsbG8=", "05"), ("/w==", "06"),
        ("AAECAwQFBgcICQoLDA0ODw==", "07"), ("AwAA", "09")]],
    "plain_bytes": {"$binary": {"base64": "3q2+7w==", "subType": "00"}},
    "int": [{"$numberInt": "-2147483648"}, {"$numberInt": "2147483647"},
            {"$numberLong": "2147483648"}, {"$numberLong": "-9223372036854775808"},
            {"$numberLong": "9223372036854775807"}],
    "double": [{"$numberDouble": x} for x in [
        "1.5", "-0.0", "5e-324", "1.7976931348623157e+308", "Infinity", "-Infinity", "NaN"]],
    "ts": [{"$timestamp": {"t": 4294967295, "i": 2}}, {"$timestamp": {"t": 0, "i": 0}},
           {"$timestamp": {"t": 1700000000, "i": 4294967295}}],
    "keys": [{"$minKey": 1}, {"$maxKey": 1}],
    "re": [{"$regularExpression": {"pattern": "^a+[b]$", "options": "imsx"}},
           {"$regularExpression": {"pattern": "", "options": ""}}],
    # JavaScript dates end at +-8.64e15 ms; the int64 extremes are in the C++ tables.
    "date": [{"$date": {"$numberLong": x}} for x in [
        "0", "-1000", "1700000000123", "253402300799999", "253402300800000",
        "-62167219200000", "-62167219200001", "-8640000000000000"]],
    "code": {"$code": "function () { return 1; }"},
    "cws": {"$code": "x + y", "$scope": {"x": {"$numberInt": "1"}, "y": {"$oid": OID}}},
    "sym": {"$symbol": "sym"},
    "str": ["", "h\u00e9llo \u20ac \U0001F600", "nul\u0000inside"],
    "nested": {"a": [[], {}, [{"b": None}]], "t": True, "f": False},
}


class BsonFixtures(unittest.TestCase):
    def check_fixture(self, name):
        data = {"records": common.load_json_fixture(name)}
        text = json.dumps(data).encode()
        _, mine, _ = ours(["--from", "json", "--to", "bson"], text)
        # js-bson reads ours.
        common.same_value(self, from_canonical(ref_decode(mine)), data, "js-bson of ours")
        # The same values through js-bson give the same bytes.
        theirs = ref_encode(to_canonical(data))
        self.assertEqual(mine, theirs)
        # We read theirs.
        _, back, _ = ours(["--from", "bson", "--to", "json"], theirs)
        common.same_value(self, json.loads(back), data, "ours of js-bson")
        # polycodec convert both ways keeps the bytes.
        _, again, _ = ours(["--from", "json", "--to", "bson"], back)
        self.assertEqual(again, mine)

    def test_records(self):
        self.check_fixture("records.json")

    def test_bench(self):
        self.check_fixture("bench.json")

    def test_array_root_needs_lossy(self):
        text = common.fixture("bench.json")
        rc, _, err = ours(["--from", "json", "--to", "bson"], text, check=False)
        self.assertEqual(rc, 3, err)
        self.assertIn("must be a map at the root", err)
        _, mine, err = ours(["--from", "json", "--to", "bson", "--lossy"], text)
        self.assertIn("root_wrapped", err)
        common.same_value(self, from_canonical(ref_decode(mine)),
                          {"root": json.loads(text)})


class BsonEdgeValues(unittest.TestCase):
    def test_same_bytes_as_js_bson(self):
        theirs = ref_encode(EDGE)
        # Our JSON reader + BSON writer recognise the Extended JSON maps.
        _, mine, _ = ours(["--from", "json", "--to", "bson"], json.dumps(EDGE).encode())
        self.assertEqual(mine.hex(), theirs.hex())

    def test_bson_round_trip_keeps_bytes(self):
        theirs = ref_encode(EDGE)
        _, mine, _ = ours(["--from", "bson", "--to", "bson"], theirs)
        self.assertEqual(mine.hex(), theirs.hex())

    def test_js_bson_reads_ours(self):
        _, mine, _ = ours(["--from", "json", "--to", "bson"], json.dumps(EDGE).encode())
        got = ref_decode(mine)
        want = json.loads(json.dumps(EDGE))
        # js-bson sorts regex options too; its Decimal128 text is the same algorithm.
        self.assertEqual(got, want)

    def test_random_decimal128_agree_with_js_bson(self):
        rng = random.Random(20261130)
        elements = b""
        texts = {}
        for n in range(400):
            coef = rng.choice([0, 1, rng.randrange(10 ** rng.randrange(1, 35))])
            exp = rng.choice([rng.randrange(-6176, 6112), rng.randrange(-40, 10)])
            sign = rng.randrange(2)
            hi = sign << 63 | (exp + 6176) << 49 | coef >> 64
            lo = coef & (2 ** 64 - 1)
            elements += b"\x13d%d\x00" % n + struct.pack("<QQ", lo, hi)
        data = struct.pack("<i", len(elements) + 5) + elements + b"\x00"
        _, mine, _ = ours(["--from", "bson", "--to", "bson"], data)
        # Our text of each value, read back by our encoder, gives the same bytes ...
        self.assertEqual(mine.hex(), data.hex())
        # ... and js-bson's text of them is the text our encoder reads as the same bytes.
        ref = ref_decode(data)
        theirs = ref_encode(ref)
        self.assertEqual(theirs.hex(), data.hex())
        _, from_text, _ = ours(["--from", "json", "--to", "bson"], json.dumps(ref).encode())
        self.assertEqual(from_text.hex(), data.hex())
        # Our own text (carried by bencode as Extended JSON, read by npm "bencode") is
        # js-bson's text.
        _, ben, _ = ours(["--from", "bson", "--to", "bencode"], data)
        view = json.loads(common.node("ref_bencode.mjs", ["decode"], ben))
        our_text = {k: v["$numberDecimal"]["$utf8"] for k, v in view.items()}
        self.assertEqual(our_text, {k: v["$numberDecimal"] for k, v in ref.items()})

    def test_we_read_js_bson_dates_and_decimals(self):
        theirs = ref_encode({"d": {"$date": {"$numberLong": "1700000000123"}},
                             "n": {"$numberLong": "9007199254740993"}})
        _, back, _ = ours(["--from", "bson", "--to", "json"], theirs)
        self.assertEqual(json.loads(back), {"d": "2023-11-14T22:13:20.123Z",
                                            "n": 9007199254740993})

    def test_uint64_and_bignum_need_lossy(self):
        for text, kind in [(b'{"u": 18446744073709551615}', "uint_to_decimal128"),
                           (b'{"u": 123456789012345678901234567890}', "bignum_to_decimal128")]:
            rc, _, err = ours(["--from", "json", "--to", "bson"], text, check=False)
            self.assertEqual(rc, 3, err)
            self.assertIn("/u", err)
            _, mine, err = ours(["--from", "json", "--to", "bson", "--lossy"], text)
            self.assertIn(kind, err)
            got = ref_decode(mine)
            self.assertEqual(got["u"]["$numberDecimal"], json.loads(text)["u"].__str__())


class BsonHostile(unittest.TestCase):
    def expect_malformed(self, data, message):
        t = time.monotonic()
        rc, _, err = ours(["--from", "bson", "--to", "json"], data, check=False)
        self.assertEqual(rc, 2, err)
        self.assertIn(message, err)
        self.assertLess(time.monotonic() - t, 5)

    def test_lengths_past_the_end(self):
        self.expect_malformed(b"\xff\xff\xff\x7f\x00", "exceeds the 5 bytes of input left")
        # A string claiming 2 GiB inside a small document.
        doc = b"\x02s\x00" + struct.pack("<i", 0x7fffffff) + b"ab\x00"
        data = struct.pack("<i", len(doc) + 5) + doc + b"\x00"
        self.expect_malformed(data, "string length 2147483647 exceeds")
        # A binary claiming 1 GiB.
        doc = b"\x05b\x00" + struct.pack("<i", 1 << 30) + b"\x00ab"
        data = struct.pack("<i", len(doc) + 5) + doc + b"\x00"
        self.expect_malformed(data, "binary length 1073741824 exceeds")

    def test_deep_nesting(self):
        # 2000 nested document headers whose lengths claim ~2 GiB: refused at the first.
        data = b"".join(struct.pack("<i", 0x7ffffff0) + b"\x03\x00" for _ in range(2000))
        self.expect_malformed(data, "exceeds")
        # Valid nesting beyond the depth limit.
        doc = b"\x05\x00\x00\x00\x00"
        for _ in range(600):
            body = b"\x03\x00" + doc
            doc = struct.pack("<i", len(body) + 5) + body + b"\x00"
        self.expect_malformed(doc, "nesting deeper than 512")

    def test_duplicate_keys_rejected(self):
        doc = b"\x10a\x00\x01\x00\x00\x00\x10a\x00\x02\x00\x00\x00"
        data = struct.pack("<i", len(doc) + 5) + doc + b"\x00"
        self.expect_malformed(data, "duplicate element name 'a'")


if __name__ == "__main__":
    unittest.main()
