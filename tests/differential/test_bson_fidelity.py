"""BSON type fidelity (issue 19): int32 vs int64, canonical Extended JSON v2, degenerate array
names, decimal128 NaNs. References: js-bson (npm "bson" 7, ref_bson.mjs: BSON.serialize,
BSON.deserialize, EJSON.parse / EJSON.stringify with {relaxed: false}) and BSON bytes built
here with struct from bsonspec.org's grammar.

Generated documents (seeded random, every element type js-bson writes, both integer widths,
nested) are serialized by js-bson; then
  - our bson -> bson gives the same bytes;
  - our bson -> json (extjson=canonical) is the same text as js-bson's EJSON.stringify;
  - our json -> bson of that text gives the same bytes, and so does js-bson's serialize of
    EJSON.parse of it;
  - the same through ndjson, json5, hjson and yaml, and CBOR / MessagePack with int_width=keep.
"""
import base64
import json
import random
import struct
import unittest

import common

SEED = 19
COUNT = 150


def ours(args, data, check=True):
    return common.convert(args, data, check)


# ---- generated documents (canonical Extended JSON, as js-bson reads it) ----

def gen_string(r):
    alphabet = ["a", "z", "0", " ", "\"", "\\", "/", "\u0000", "\u0001", "\u001f", "\n", "\t",
                "\u007f", "\u00e9", "\u20ac", "\u2028", "\U0001F600", "\ufffd"]
    return "".join(r.choice(alphabet) for _ in range(r.randrange(0, 12)))


def gen_double(r):
    pick = r.randrange(10)
    if pick == 0:
        return r.choice(["NaN", "Infinity", "-Infinity", "-0.0", "0.0", "1.0", "-1.0"])
    if pick == 1:
        return repr(float(r.randrange(-2 ** 60, 2 ** 60)))
    if pick == 2:
        return r.choice(["5e-324", "1.7976931348623157e+308", "1e+21", "1e21", "1e-7",
                         "123456789012345680000", "0.000001", "2.5e-5", "1.5"])
    while True:
        bits = r.getrandbits(64)
        x = struct.unpack("<d", struct.pack("<Q", bits))[0]
        if x == x and x not in (float("inf"), float("-inf")):
            return repr(x)


def gen_decimal(r):
    pick = r.randrange(4)
    if pick == 0:
        return r.choice(["NaN", "Infinity", "-Infinity", "0", "-0", "1.0", "0E-6176",
                         "9.999999999999999999999999999999999E+6144", "1E-6176"])
    coef = r.randrange(0, 10 ** r.randrange(1, 35))
    return "%s%dE%d" % (r.choice(["", "-"]), coef, r.randrange(-40, 40))


def gen_scalar(r):
    kind = r.randrange(22)
    if kind == 0:
        return {"$numberInt": str(r.choice([0, 1, -1, 2 ** 31 - 1, -2 ** 31,
                                            r.randrange(-2 ** 31, 2 ** 31)]))}
    if kind == 1:
        # int64, small values included: they must stay int64.
        return {"$numberLong": str(r.choice([0, 1, -1, 2 ** 31, 2 ** 63 - 1, -2 ** 63,
                                             r.randrange(-2 ** 63, 2 ** 63),
                                             r.randrange(-100, 100)]))}
    if kind == 2:
        return {"$numberDouble": gen_double(r)}
    if kind == 3:
        return gen_string(r)
    if kind == 4:
        st = r.choice([0, 1, 2, 3, 4, 5, 6, 7, 8, 0x80, 0xff])
        data = bytes(r.getrandbits(8) for _ in range(16 if st in (3, 4) else r.randrange(0, 9)))
        return {"$binary": {"base64": base64.b64encode(data).decode(), "subType": "%02x" % st}}
    if kind == 5:
        return {"$oid": "%024x" % r.getrandbits(96)}
    if kind == 6:
        return r.choice([True, False])
    if kind == 7:
        return None
    if kind == 8:
        return {"$date": {"$numberLong": str(r.choice(
            [0, -1, 1700000000123, 253402300800000, -62167219200001,
             r.randrange(-8640000000000000, 8640000000000001)]))}}
    if kind == 9:
        opts = "".join(sorted(r.sample("ilmsux", r.randrange(0, 4))))
        return {"$regularExpression": {"pattern": gen_string(r).replace("\u0000", ""),
                                       "options": opts}}
    if kind == 10:
        return {"$code": gen_string(r)}
    if kind == 11:
        return {"$symbol": gen_string(r)}
    if kind == 12:
        return {"$code": gen_string(r), "$scope": gen_doc(r, 2)}
    if kind == 13:
        return {"$timestamp": {"t": r.getrandbits(32), "i": r.getrandbits(32)}}
    if kind == 14:
        return {"$numberDecimal": gen_decimal(r)}
    if kind == 15:
        return {"$minKey": 1}
    if kind == 16:
        return {"$maxKey": 1}
    return {"$numberInt": str(r.randrange(-1000, 1000))}


def gen_value(r, depth):
    pick = r.randrange(10)
    if depth > 0 and pick == 0:
        return gen_doc(r, depth - 1)
    if depth > 0 and pick == 1:
        return [gen_value(r, depth - 1) for _ in range(r.randrange(0, 5))]
    return gen_scalar(r)


def gen_doc(r, depth):
    doc = {}
    for i in range(r.randrange(0, 7)):
        name = r.choice(["k", "\u00e9", "x y", "n\u20ac", "_"]) + str(i)
        doc[name] = gen_value(r, depth)
    return doc


def generated():
    r = random.Random(SEED)
    docs = [gen_doc(r, 3) for _ in range(COUNT)]
    # The issue's example: int64 holding 1, and every scalar kind at least once at the root.
    docs.append({"a": {"$numberLong": "1"}})
    docs.append({"k%d" % i: gen_scalar(random.Random(i)) for i in range(40)})
    return docs


def lines(data):
    """Lines of ndjson bytes (split at \n only: U+2028 inside a JSON string is not a break)."""
    return [l for l in data.decode().split("\n") if l]


def js_encode_lines(texts):
    out = common.node("ref_bson.mjs", ["encode-lines"], "\n".join(texts).encode())
    return [base64.b64decode(l) for l in lines(out)]


def js_decode_lines(blobs):
    data = "\n".join(base64.b64encode(b).decode() for b in blobs).encode()
    return lines(common.node("ref_bson.mjs", ["decode-lines"], data))


class GeneratedDocuments(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.docs = generated()
        cls.blobs = js_encode_lines([json.dumps(d) for d in cls.docs])
        cls.js_text = js_decode_lines(cls.blobs)
        cls.stream = b"".join(cls.blobs)

    def test_every_element_type_generated(self):
        types = set()
        for b in self.blobs:
            walk_types(b, 4, len(b) - 1, types)
        want = {0x01, 0x02, 0x03, 0x04, 0x05, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0D, 0x0E, 0x0F,
                0x10, 0x11, 0x12, 0x13, 0x7F, 0xFF}
        self.assertEqual(want - types, set())

    def test_bson_to_bson_byte_identical(self):
        for b in self.blobs[:40]:
            self.assertEqual(ours(["--from", "bson", "--to", "bson"], b)[1].hex(), b.hex())
        _, out, _ = ours(["--from", "bson", "--to", "bson", "--stream"], self.stream)
        self.assertEqual(out, self.stream)

    def test_canonical_json_text_equals_js_bson(self):
        # Exact text: EJSON.stringify(doc, {relaxed: false}) with no spacing.
        for i, b in enumerate(self.blobs[:60]):
            _, out, _ = ours(["--from", "bson", "--to", "json", "--extjson", "canonical"], b)
            self.assertEqual(out.decode(), self.js_text[i], "document %d" % i)
        _, out, _ = ours(["--from", "bson", "--to", "ndjson", "--extjson", "canonical",
                          "--stream"], self.stream)
        self.assertEqual(lines(out), self.js_text)

    def test_canonical_json_back_to_bson_byte_identical(self):
        text = "\n".join(self.js_text).encode() + b"\n"
        for extra in ([], ["--extjson", "canonical"]):
            _, out, _ = ours(["--from", "ndjson", "--to", "bson", "--stream", *extra], text)
            self.assertEqual(out, self.stream, extra)
        for i, t in enumerate(self.js_text[:30]):
            _, out, _ = ours(["--from", "json", "--to", "bson"], t.encode())
            self.assertEqual(out.hex(), self.blobs[i].hex(), "document %d" % i)

    def test_js_bson_serializes_our_text_to_our_bytes(self):
        _, out, _ = ours(["--from", "bson", "--to", "ndjson", "--extjson", "canonical",
                          "--stream"], self.stream)
        self.assertEqual(js_encode_lines(lines(out)), self.blobs)

    def test_through_other_text_formats(self):
        for fmt in ("json5", "hjson", "yaml"):
            for i, b in enumerate(self.blobs[:25]):
                _, text, _ = ours(["--from", "bson", "--to", fmt, "--extjson", "canonical"], b)
                # Read back canonically (Extended JSON -> values), and as plain maps.
                _, back, _ = ours(["--from", fmt, "--to", "bson", "--extjson", "canonical"], text)
                self.assertEqual(back.hex(), b.hex(), "%s document %d" % (fmt, i))
                _, back, _ = ours(["--from", fmt, "--to", "bson"], text)
                self.assertEqual(back.hex(), b.hex(), "%s document %d (maps)" % (fmt, i))

    def test_widths_through_cbor_and_msgpack(self):
        # Documents of numbers, strings and containers only: CBOR and MessagePack carry no
        # BSON type, but with int_width=keep they carry int32 vs int64.
        r = random.Random(7)
        for n in range(30):
            doc = {"i%d" % k: (r.choice([{"$numberInt": str(r.randrange(-99, 99))},
                                         {"$numberLong": str(r.randrange(-99, 99))},
                                         {"$numberLong": str(r.randrange(-2 ** 63, 2 ** 63))},
                                         {"$numberDouble": gen_double(r)}, gen_string(r),
                                         [{"$numberLong": "5"}, {"$numberInt": "5"}]]))
                   for k in range(6)}
            (b,) = js_encode_lines([json.dumps(doc)])
            for fmt in ("cbor", "msgpack"):
                _, mid, _ = ours(["--from", "bson", "--to", fmt, "--int-width", "keep"], b)
                _, back, _ = ours(["--from", fmt, "--to", "bson", "--int-width", "keep"], mid)
                self.assertEqual(back.hex(), b.hex(), "%s document %d" % (fmt, n))


def walk_types(b, pos, end, types):
    """Element types of a BSON document (bsonspec.org grammar), into `types`."""
    while pos < end:
        t = b[pos]
        types.add(t)
        pos = b.index(b"\x00", pos + 1) + 1
        if t in (0x01, 0x09, 0x11, 0x12):
            pos += 8
        elif t in (0x02, 0x0D, 0x0E):
            pos += 4 + struct.unpack_from("<i", b, pos)[0]
        elif t in (0x03, 0x04):
            n = struct.unpack_from("<i", b, pos)[0]
            walk_types(b, pos + 4, pos + n - 1, types)
            pos += n
        elif t == 0x05:
            pos += 5 + struct.unpack_from("<i", b, pos)[0]
        elif t == 0x07:
            pos += 12
        elif t == 0x08:
            pos += 1
        elif t == 0x0B:
            pos = b.index(b"\x00", b.index(b"\x00", pos) + 1) + 1
        elif t == 0x0F:
            pos += struct.unpack_from("<i", b, pos)[0]
        elif t == 0x10:
            pos += 4
        elif t == 0x13:
            pos += 16


# ---- BSON built here from the grammar ----

def cstring(s):
    return s.encode() + b"\x00"


def document(elements):
    """elements: (type byte, name, payload bytes)."""
    body = b"".join(bytes([t]) + cstring(n) + p for t, n, p in elements)
    return struct.pack("<i", len(body) + 5) + body + b"\x00"


def int32(v):
    return struct.pack("<i", v)


def int64(v):
    return struct.pack("<q", v)


class HandBuilt(unittest.TestCase):
    def test_issue_example_int64_stays_int64(self):
        b = bytes.fromhex("10000000126100010000000000000000")
        self.assertEqual(ours(["--from", "bson", "--to", "bson"], b)[1].hex(), b.hex())
        _, text, _ = ours(["--from", "bson", "--to", "json", "--extjson", "canonical"], b)
        self.assertEqual(json.loads(text), {"a": {"$numberLong": "1"}})
        self.assertEqual(ours(["--from", "json", "--to", "bson"], text)[1].hex(), b.hex())
        # Relaxed (the default) is unchanged: a plain number, which BSON writes as int32.
        _, text, _ = ours(["--from", "bson", "--to", "json"], b)
        self.assertEqual(text, b'{"a":1}')

    def test_undefined_and_db_pointer_survive_canonical_json(self):
        oid = bytes(range(12))
        b = document([(0x06, "u", b""),
                      (0x0C, "p", struct.pack("<i", 5) + b"db.c\x00" + oid),
                      (0x12, "l", int64(-3)), (0x10, "i", int32(-3))])
        _, text, _ = ours(["--from", "bson", "--to", "json", "--extjson", "canonical"], b)
        self.assertEqual(json.loads(text), {
            "u": {"$undefined": True},
            "p": {"$dbPointer": {"$ref": "db.c", "$id": {"$oid": oid.hex()}}},
            "l": {"$numberLong": "-3"}, "i": {"$numberInt": "-3"}})
        self.assertEqual(ours(["--from", "json", "--to", "bson"], text)[1].hex(), b.hex())

    def test_doubles_nan_infinities_negative_zero(self):
        vals = [float("nan"), float("inf"), float("-inf"), -0.0, 1.0, 1e21, 0.1, 5e-324]
        b = document([(0x01, str(i), struct.pack("<d", v)) for i, v in enumerate(vals)])
        _, text, _ = ours(["--from", "bson", "--to", "json", "--extjson", "canonical"], b)
        want = ["NaN", "Infinity", "-Infinity", "-0.0", "1.0", "1e+21", "0.1", "5e-324"]
        self.assertEqual(text.decode(), "{%s}" % ",".join(
            '"%d":{"$numberDouble":"%s"}' % (i, t) for i, t in enumerate(want)))
        self.assertEqual(ours(["--from", "json", "--to", "bson"], text)[1].hex(), b.hex())
        # Relaxed mode still refuses NaN in JSON (nothing spells it there).
        code, _, err = ours(["--from", "bson", "--to", "json"], b, check=False)
        self.assertEqual(code, 3, err)

    def test_degenerate_array_names_read_by_position(self):
        arr = document([(0x10, "x", int32(7)), (0x02, "9", int32(2) + b"s\x00"),
                        (0x08, "", b"\x01")])
        b = document([(0x04, "a", arr)])
        canon = document([(0x04, "a", document([(0x10, "0", int32(7)),
                                                 (0x02, "1", int32(2) + b"s\x00"),
                                                 (0x08, "2", b"\x01")]))])
        self.assertEqual(ours(["--from", "bson", "--to", "bson"], b)[1].hex(), canon.hex())
        self.assertEqual(json.loads(ours(["--from", "bson", "--to", "json"], b)[1]),
                         {"a": [7, "s", True]})
        # js-bson reads the canonical bytes to the same values.
        self.assertEqual(json.loads(js_decode_lines([canon])[0]),
                         {"a": [{"$numberInt": "7"}, "s", True]})

    def test_decimal128_nans_kept(self):
        nans = {
            "neg": (0, 0xFC00000000000000),
            "payload": (12345, 0x7C00000000000000),
            "snan": (0, 0x7E00000000000000),
            "neg_snan_payload": (1, 0xFE00000000000001),
        }
        for name, (lo, hi) in nans.items():
            b = document([(0x13, "d", struct.pack("<QQ", lo, hi))])
            self.assertEqual(ours(["--from", "bson", "--to", "bson"], b)[1].hex(), b.hex(), name)
            # No Extended JSON text holds the payload: refused unless lossy.
            code, _, err = ours(["--from", "bson", "--to", "json"], b, check=False)
            self.assertEqual(code, 3, name + err)
            # js-bson reads it as a NaN too.
            self.assertEqual(json.loads(js_decode_lines([b])[0]),
                             {"d": {"$numberDecimal": "NaN"}}, name)


if __name__ == "__main__":
    unittest.main()
