"""Differential tests of CBOR: the polycodec binary against cbor-x (node,
tests/differential/ref_cbor.mjs) and Python's json module, in both directions."""
import json
import os
import struct
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import binary_values  # noqa: E402
import common  # noqa: E402
from binary_values import Pairs, Tag, Timestamp, normalize  # noqa: E402

EDGE_JSON = b"""{"pos":[0,23,24,255,256,65535,65536,4294967295,4294967296,9007199254740993,
9223372036854775807,9223372036854775808,18446744073709551615],
"neg":[-1,-24,-25,-256,-257,-65536,-65537,-4294967296,-4294967297,-9223372036854775808,
-9223372036854775809,-18446744073709551616],
"bignums":[18446744073709551616,-18446744073709551617,123456789012345678901234567890,
-123456789012345678901234567890],
"floats":[0.1,-2.5,1.5,65504.0,100000.0,1e300,5e-324,-0.0,3.4028234663852886e38,5.960464477539063e-8],
"nested":[[[{"a":[1,{"b":null}],"c":{}}]],[]],
"unicode":["h\\u00e9llo","\\u65e5\\u672c\\u8a9e","\\ud83d\\ude00","a\\u0000b"],
"empty":"","t":true,"f":false,"n":null}"""

EDGE_VALUES = Pairs([
    ("bytes", b"\x00\x01\xfe\xff"),
    ("empty_bytes", b""),
    ("long_bytes", bytes(range(256)) * 300),
    ("long_text", "\u00e9" * 40000),
    ("u64max", 2**64 - 1),
    ("n64min", -2**64),
    ("bignums", [2**64, -2**64 - 1, 2**200, -3**90]),
    ("ints", [0, -1, 23, 24, -24, -25, 2**31, -2**31 - 1, 2**53 + 1, -2**53 - 1]),
    ("floats", [0.1, -2.5, 1e300, 5e-324, float("nan"), float("inf"), float("-inf")]),
    ("nested", [[[Pairs([("a", [1, Pairs([("b", None)])])])]]]),
    ("unicode", ["h\u00e9llo", "\u65e5\u672c\u8a9e", "\U0001f600", "a\x00b"]),
    ("timestamps", [Timestamp(0), Timestamp(1363896240), Timestamp(1514862245, 678901234),
                    Timestamp(-1, 999999999), Timestamp(253402300799, 999999999)]),
    ("tags", [Tag(32, "http://www.example.com"), Tag(24, b"\x64IETF"), Tag(1000000, [1, 2])]),
    (7, "integer key"),
    (-3, "negative key"),
    (b"\x01", "bytes key"),
    ("flags", [True, False, None]),
])


CBOR = binary_values.Codec("cbor", "ref_cbor.mjs", ts_as_text=True)
to_cbor, from_cbor = CBOR.from_json, CBOR.to
node_decode, node_encode = CBOR.node_decode, CBOR.node_encode


def cbor_head(major, n):
    """The head of a CBOR data item (RFC 8949 section 3), written independently of polycodec."""
    if n < 24:
        return bytes([major << 5 | n])
    for ai, fmt in ((24, ">B"), (25, ">H"), (26, ">I"), (27, ">Q")):
        if n < 1 << (8 * struct.calcsize(fmt)):
            return bytes([major << 5 | ai]) + struct.pack(fmt, n)
    raise ValueError(n)


def cbor_key(k):
    if isinstance(k, str):
        b = k.encode()
        return cbor_head(3, len(b)) + b
    return cbor_head(0, k) if k >= 0 else cbor_head(1, -1 - k)


class ConvertRoundTrip(binary_values.ConvertRoundTrip, unittest.TestCase):
    CODEC, EDGE_JSON = CBOR, EDGE_JSON


class NodeDecodesOurs(binary_values.NodeDecodesOurs, unittest.TestCase):
    CODEC, EDGE_JSON = CBOR, EDGE_JSON
    EDGE_TYPED = [
        ("floats", 7, {"$float": "-0.0"}),
        ("bignums", 2, {"$int": "123456789012345678901234567890"}),
        ("neg", -1, {"$int": "-18446744073709551616"}),
    ]

    def test_canonical_key_order(self):
        # RFC 8949 section 4.2.1: keys sorted by the bytes of their encodings, here computed
        # by a small encoder of this file.
        data = b'{"zz":1,"b":2,"aaa":3,"a":{"y":1,"x":2},"A":4,"\\u00e9":5,"10":6,"9":7}'
        got = node_decode(to_cbor(data, "--canonical"))
        keys = [k for k, _ in got["$map"]]
        self.assertEqual(keys, sorted(keys, key=cbor_key))
        self.assertEqual(keys, ["9", "A", "a", "b", "10", "zz", "\u00e9", "aaa"])
        inner = dict(got["$map"])["a"]
        self.assertEqual([k for k, _ in inner["$map"]], ["x", "y"])
        # Without --canonical the order of the source is kept.
        plain = node_decode(to_cbor(data))
        self.assertEqual([k for k, _ in plain["$map"]][:3], ["zz", "b", "aaa"])

    def test_preferred_floats(self):
        # Shortest float that keeps the value (RFC 8949 section 4.2.2).
        for text, head in [(b"1.5", "f93e00"), (b"100000.0", "fa47c35000"),
                           (b"0.1", "fb3fb999999999999a"), (b"-0.0", "f98000")]:
            out = to_cbor(text)
            self.assertEqual(out.hex(), head)
            self.assertEqual(normalize(node_decode(out)), normalize(json.loads(text)))


class WeDecodeNodes(binary_values.WeDecodeNodes, unittest.TestCase):
    CODEC = CBOR

    def test_edge_values_both_ways(self):
        as_json = self.edge_values_both_ways(EDGE_VALUES, ("floats", "tags", b"\x01"))
        self.assertEqual(as_json["bignums"], dict(EDGE_VALUES)["bignums"])
        self.assertEqual(as_json["n64min"], -2**64)
        self.assertEqual(as_json["7"], "integer key")

    def test_indefinite_lengths_from_reference_stream(self):
        # cbor-x writes definite lengths; an indefinite version of the same value, built by
        # hand (chunks split between characters, never inside one), decodes to the same thing.
        data = bytes.fromhex("bf 61 61 9f 01 02 ff 61 62 7f 61 68 62 c3 a9 ff"
                             " 61 63 5f 41 01 42 02 03 ff ff".replace(" ", ""))
        self.assertEqual(normalize(json.loads(from_cbor(data))),
                         normalize({"a": [1, 2], "b": "h\u00e9", "c": "AQID"}))


class Malformed(unittest.TestCase):
    def test_exit_2_with_offset(self):
        cases = [
            (bytes.fromhex("8201ff"), "byte 2"),                   # break in a definite array
            (bytes.fromhex("9b000000010000000000"), "byte 0"),     # 2^32 elements in 10 bytes
            (bytes.fromhex("a1616119"), "byte 4"),                 # truncated argument
            (bytes.fromhex("5f5f4100ffff"), "byte 1"),             # nested indefinite chunk
            (bytes.fromhex("1c"), "byte 0"),                       # reserved additional info
            (bytes.fromhex("62c328"), "byte 1"),                   # invalid UTF-8
        ]
        common.assert_malformed(self, "cbor", cases)


if __name__ == "__main__":
    unittest.main()
