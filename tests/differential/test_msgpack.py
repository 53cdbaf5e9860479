"""Differential tests of MessagePack: the polycodec binary against @msgpack/msgpack (node,
tests/differential/ref_msgpack.mjs), Python's msgpack module (Debian python3-msgpack, for the
float widths of canonical=true) and Python's json module, in both directions."""
import math
import os
import random
import struct
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import binary_values  # noqa: E402
import common  # noqa: E402
from binary_values import Ext, Pairs, Timestamp, normalize  # noqa: E402

# JSON-model edge values (ours -> node, compared strictly where JavaScript can tell).
EDGE_JSON = b"""{"pos":[0,127,128,255,256,65535,65536,4294967295,4294967296,9007199254740993,
9223372036854775807,9223372036854775808,18446744073709551615],
"neg":[-1,-32,-33,-128,-129,-32768,-32769,-2147483648,-2147483649,-9223372036854775808],
"floats":[0.1,-2.5,1e300,5e-324,-0.0,3.4028234663852886e38,0.5],
"nested":[[[{"a":[1,{"b":null}],"c":{}}]],[]],
"unicode":["h\\u00e9llo","\\u65e5\\u672c\\u8a9e","\\ud83d\\ude00","a\\u0000b","\\u0000"],
"empty":"","t":true,"f":false,"n":null}"""

# Values beyond JSON (node -> ours -> node).
EDGE_VALUES = Pairs([
    ("bytes", b"\x00\x01\xfe\xff"),
    ("empty_bytes", b""),
    ("bin16", bytes(range(256)) * 2),
    ("bin32", b"\xab" * 70000),
    ("str16", "\u00e9" * 200),
    ("str32", "x" * 70000),
    ("u64max", 2**64 - 1),
    ("i64min", -2**63),
    ("ints", [0, -1, 127, 128, -32, -33, 2**31, -2**31 - 1, 2**53 + 1, -2**53 - 1]),
    ("floats", [0.1, -2.5, 1e300, 5e-324, float("nan"), float("inf"), float("-inf")]),
    ("nested", [[[Pairs([("a", [1, Pairs([("b", None)])])])]]]),
    ("unicode", ["h\u00e9llo", "\u65e5\u672c\u8a9e", "\U0001f600", "a\x00b"]),
    ("timestamps", [Timestamp(0), Timestamp(1514862245, 678901234), Timestamp(2**32 - 1),
                    Timestamp(2**32), Timestamp(2**34, 1), Timestamp(-1, 999999999),
                    Timestamp(253402300799, 999999999), Timestamp(-2208988800)]),
    ("ext", [Ext(5, b"abc"), Ext(-128, b""), Ext(127, b"x" * 16), Ext(1, b"y" * 300)]),
    ("array16", list(range(20))),
    ("map16", Pairs([("k%02d" % i, i) for i in range(20)])),
    ("flags", [True, False, None]),
])


MSGPACK = binary_values.Codec("msgpack", "ref_msgpack.mjs")
to_msgpack, from_msgpack = MSGPACK.from_json, MSGPACK.to
node_decode, node_encode = MSGPACK.node_decode, MSGPACK.node_encode


class ConvertRoundTrip(binary_values.ConvertRoundTrip, unittest.TestCase):
    CODEC, EDGE_JSON = MSGPACK, EDGE_JSON


class NodeDecodesOurs(binary_values.NodeDecodesOurs, unittest.TestCase):
    CODEC, EDGE_JSON = MSGPACK, EDGE_JSON
    EDGE_TYPED = [("floats", 4, {"$float": "-0.0"}), ("pos", -1, {"$int": "18446744073709551615"})]


class WeDecodeNodes(binary_values.WeDecodeNodes, unittest.TestCase):
    CODEC = MSGPACK

    def test_edge_values_both_ways(self):
        # (NaN and ext have no JSON form: left out here, see test_malformed for exit 3.)
        as_json = self.edge_values_both_ways(EDGE_VALUES, ("floats", "ext"))
        self.assertEqual(as_json["u64max"], 2**64 - 1)

    def test_byte_exact_against_reference(self):
        # Where the reference writes the smallest forms too (no doubles that are integral),
        # our encoding of its output is the same bytes.
        value = Pairs([(k, v) for k, v in EDGE_VALUES if k not in ("floats",)])
        theirs = node_encode(value)
        self.assertEqual(from_msgpack(theirs, "msgpack").hex(), theirs.hex())


def float32_exact(x):
    """Whether IEEE binary32 holds the double x exactly, by Python's struct (the float the
    reference packer writes with use_single_float=True)."""
    try:
        packed = struct.pack(">f", x)
    except OverflowError:
        return False
    back = struct.unpack(">f", packed)[0]
    return struct.pack(">d", back) == struct.pack(">d", x)


def canonical_float_cases():
    """Seeded random doubles, random floats widened, the edges of binary32, both zeros, the
    infinities and quiet NaNs (a signalling NaN is in msgpack_test.cpp: CPython's struct
    quiets it, so it is no reference for one)."""
    rng = random.Random(1919)
    xs = [0.5, 0.1, 1.0, 0.0, -0.0, math.inf, -math.inf, math.nan, -math.nan,
          3.4028234663852886e38, 3.4028235677973366e38, 2.0**128, 2.0**-149, 2.0**-150,
          2.0**-126, 1.401298464324817e-45 * 3, 1e300, 5e-324, 16777216.0, 16777217.0,
          struct.unpack(">d", bytes.fromhex("7ffc000020000000"))[0],
          struct.unpack(">d", bytes.fromhex("7ff8000000000001"))[0]]
    for _ in range(2000):
        xs.append(struct.unpack(">f", struct.pack(">I", rng.getrandbits(32)))[0])
        xs.append(struct.unpack(">d", struct.pack(">Q", rng.getrandbits(64)))[0])
        xs.append(float(rng.randrange(-2**30, 2**30)) / 2**rng.randrange(0, 40))
    # Random bit patterns may be signalling NaNs; keep the quiet ones only (see above).
    return [x for x in xs if not (math.isnan(x) and not struct.pack(">d", x)[1] & 0x08)]


class CanonicalFloats(unittest.TestCase):
    """canonical=true writes a double as float 32 when that holds it exactly (0.5 -> ca 3f 00
    00 00), else float 64: byte for byte what msgpack.packb(x, use_single_float=exact) writes,
    and msgpack.unpackb reads back the same double, NaN bits included."""

    @classmethod
    def setUpClass(cls):
        try:
            import msgpack  # noqa: F401  (Debian python3-msgpack)
        except ImportError:
            raise unittest.SkipTest("python3-msgpack is not installed")
        cls.xs = canonical_float_cases()

    def ours(self, data, *args):
        return common.convert(["--from", "msgpack", "--to", "msgpack", *args], data)[1]

    def test_bytes_match_python_msgpack(self):
        import msgpack
        xs = self.xs
        source = msgpack.packb(xs, use_single_float=False)
        want = bytearray()
        packer = msgpack.Packer()
        want += packer.pack_array_header(len(xs))
        singles = 0
        for x in xs:
            single = float32_exact(x)
            singles += single
            want += msgpack.packb(x, use_single_float=single)
        self.assertGreater(singles, 2000)
        self.assertLess(singles, len(xs) - 2000)
        got = self.ours(source, "--canonical")
        if got != bytes(want):
            at = next(i for i in range(min(len(got), len(want))) if got[i] != want[i])
            self.fail("canonical bytes differ at %d: ours %s, msgpack %s" %
                      (at, got[at:at + 9].hex(" "), bytes(want)[at:at + 9].hex(" ")))
        # Read back by the reference: the same doubles, bit for bit.
        back = msgpack.unpackb(got)
        self.assertEqual([struct.pack(">d", x) for x in back],
                         [struct.pack(">d", x) for x in xs])
        # Without canonical every double stays float 64, as packb(use_single_float=False).
        self.assertEqual(self.ours(source), source)
        # And the canonical bytes are a fixed point.
        self.assertEqual(self.ours(got, "--canonical"), got)

    def test_float32_input_widens_exactly(self):
        import msgpack
        floats = [x for x in self.xs if float32_exact(x)]
        source = msgpack.packb(floats, use_single_float=True)
        self.assertEqual(self.ours(source), msgpack.packb(msgpack.unpackb(source),
                                                          use_single_float=False))
        self.assertEqual(self.ours(source, "--canonical"), source)

    def test_examples(self):
        for x, want in [(0.5, "ca 3f 00 00 00"), (0.1, "cb 3f b9 99 99 99 99 99 9a"),
                        (math.nan, "ca 7f c0 00 00"), (-math.inf, "ca ff 80 00 00"),
                        (-0.0, "ca 80 00 00 00"), (1e300, "cb 7e 37 e4 3c 88 00 75 9c")]:
            got = self.ours(b"\xcb" + struct.pack(">d", x), "--canonical")
            self.assertEqual(got.hex(" "), want, x)

class Malformed(unittest.TestCase):
    def test_exit_2_with_offset(self):
        cases = [
            (b"\x92\x01\xc1", "byte 2"),                   # reserved 0xc1
            (b"\xdd\xff\xff\xff\xff\x01\x02", "byte 0"),   # 2^32-1 elements in 7 bytes
            (b"\x81\xa1a\xcd\x01", "byte 5"),              # truncated uint 16
            (b"\xa2\xc3\x28", "byte 1"),                   # invalid UTF-8
        ]
        common.assert_malformed(self, "msgpack", cases)

    def test_bignum_exit_3_names_path(self):
        data = b'{"a":[1,123456789012345678901234567890]}'
        rc, _, err = common.convert(["--from", "json", "--to", "msgpack"], data, check=False)
        self.assertEqual(rc, 3, err)
        self.assertIn("/a/1", err)
        rc, out, err = common.convert(["--from", "json", "--to", "msgpack", "--lossy"], data,
                                      check=False)
        self.assertEqual(rc, 0, err)
        self.assertEqual(normalize(node_decode(out)),
                         normalize(Pairs([("a", [1, "123456789012345678901234567890"])])))


if __name__ == "__main__":
    unittest.main()
