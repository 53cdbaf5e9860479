"""Differential tests of the postcard codec.

No Rust toolchain is assumed, so the independent reference is a small postcard encoder and
decoder written here in Python straight from the wire-format specification
(../shared/corpus/postcard/UPSTREAM_SPEC_wire-format.md), driven by the same OwnedNamedType
schema JSON. Bytes are compared exactly both ways, for the fixtures and for edge values, with
and without a schema (without one: what postcard::to_vec(&serde_json::Value) writes).
"""
import json
import os
import struct
import unittest

import common

SCHEMAS = os.path.join(common.FIXTURES, "schemas")


# ---- the reference, from the specification ----

def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def zigzag(n):
    return (n << 1) if n >= 0 else ((-n) << 1) - 1


UNSIGNED = {"U16", "U32", "U64", "U128", "Usize"}
SIGNED = {"I16", "I32", "I64", "I128", "Isize"}


def encode(nt, v):
    ty = nt["ty"]
    if isinstance(ty, str):
        if ty == "Bool":
            return b"\x01" if v else b"\x00"
        if ty == "U8":
            return bytes([v])
        if ty == "I8":
            return struct.pack("<b", v)
        if ty in UNSIGNED:
            return varint(v)
        if ty in SIGNED:
            return varint(zigzag(v))
        if ty == "F32":
            return struct.pack("<f", v)
        if ty == "F64":
            return struct.pack("<d", v)
        if ty in ("String", "Char"):
            b = v.encode("utf-8")
            return varint(len(b)) + b
        if ty == "ByteArray":
            return varint(len(v)) + v
        if ty in ("Unit", "UnitStruct"):
            return b""
        raise ValueError(ty)
    (tag, inner), = ty.items()
    if tag == "Option":
        return b"\x00" if v is None else b"\x01" + encode(inner, v)
    if tag == "NewtypeStruct":
        return encode(inner, v)
    if tag == "Seq":
        return varint(len(v)) + b"".join(encode(inner, x) for x in v)
    if tag in ("Tuple", "TupleStruct"):
        return b"".join(encode(t, x) for t, x in zip(inner, v))
    if tag == "Map":
        return varint(len(v)) + b"".join(encode(inner["key"], k) + encode(inner["val"], x)
                                         for k, x in v.items())
    if tag == "Struct":
        return b"".join(encode(f["ty"], v[f["name"]]) for f in inner)
    if tag == "Enum":
        name = v if isinstance(v, str) else next(iter(v))
        for i, var in enumerate(inner):
            if var["name"] == name:
                vt = var["ty"]
                if vt == "UnitVariant":
                    return varint(i)
                (vtag, vinner), = vt.items()
                data = v[name]
                if vtag == "NewtypeVariant":
                    return varint(i) + encode(vinner, data)
                if vtag == "TupleVariant":
                    return varint(i) + b"".join(encode(t, x) for t, x in zip(vinner, data))
                return varint(i) + b"".join(encode(f["ty"], data[f["name"]]) for f in vinner)
    raise ValueError(tag)


def encode_json_value(v):
    """postcard::to_vec(&serde_json::Value): unit, bool, u64/i64/f64, str, seq, map."""
    if v is None:
        return b""
    if v is True or v is False:
        return b"\x01" if v else b"\x00"
    if isinstance(v, int):
        return varint(v) if v >= 0 else varint(zigzag(v))
    if isinstance(v, float):
        return struct.pack("<d", v)
    if isinstance(v, str):
        b = v.encode("utf-8")
        return varint(len(b)) + b
    if isinstance(v, list):
        return varint(len(v)) + b"".join(encode_json_value(x) for x in v)
    return varint(len(v)) + b"".join(encode_json_value(k) + encode_json_value(x)
                                     for k, x in v.items())


class Reader:
    def __init__(self, data):
        self.data, self.pos = data, 0

    def take(self, n):
        if self.pos + n > len(self.data):
            raise ValueError("eof")
        b = self.data[self.pos:self.pos + n]
        self.pos += n
        return b

    def varint(self):
        n, shift = 0, 0
        while True:
            b = self.take(1)[0]
            n |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return n


def decode(nt, r):
    ty = nt["ty"]
    if isinstance(ty, str):
        if ty == "Bool":
            return r.take(1) == b"\x01"
        if ty == "U8":
            return r.take(1)[0]
        if ty == "I8":
            return struct.unpack("<b", r.take(1))[0]
        if ty in UNSIGNED:
            return r.varint()
        if ty in SIGNED:
            n = r.varint()
            return (n >> 1) ^ -(n & 1)
        if ty == "F32":
            return struct.unpack("<f", r.take(4))[0]
        if ty == "F64":
            return struct.unpack("<d", r.take(8))[0]
        if ty in ("String", "Char"):
            return r.take(r.varint()).decode("utf-8")
        if ty in ("Unit", "UnitStruct"):
            return None
        raise ValueError(ty)
    (tag, inner), = ty.items()
    if tag == "Option":
        return None if r.take(1) == b"\x00" else decode(inner, r)
    if tag == "Seq":
        return [decode(inner, r) for _ in range(r.varint())]
    if tag == "Struct":
        return {f["name"]: decode(f["ty"], r) for f in inner}
    if tag in ("Tuple", "TupleStruct"):
        return [decode(t, r) for t in inner]
    if tag == "NewtypeStruct":
        return decode(inner, r)
    raise ValueError(tag)


def schema(name):
    with open(os.path.join(SCHEMAS, name), encoding="utf-8") as f:
        return json.load(f)


class PostcardFixtures(unittest.TestCase):
    def test_fixtures_with_their_schemas(self):
        for name in ("records.json", "bench.json"):
            with self.subTest(fixture=name):
                s = schema(name)
                path = os.path.join(SCHEMAS, name)
                value = common.load_json_fixture(name)
                _, ours, _ = common.convert(["--from", "json", "--to", "postcard",
                                             "--schema", path], common.fixture(name))
                self.assertEqual(ours, encode(s, value), "bytes differ from the reference")
                # The reference decodes ours to the same value ...
                r = Reader(ours)
                common.same_value(self, decode(s, r), value)
                self.assertEqual(r.pos, len(ours))
                # ... and we decode the reference's bytes to the fixture, byte for byte as JSON.
                _, back, _ = common.convert(["--from", "postcard", "--to", "json",
                                             "--schema", path], encode(s, value))
                self.assertEqual(back, common.fixture(name))

    def test_fixtures_without_schema(self):
        for name in ("records.json", "bench.json"):
            with self.subTest(fixture=name):
                _, ours, _ = common.convert(["--from", "json", "--to", "postcard"],
                                            common.fixture(name))
                self.assertEqual(ours, encode_json_value(common.load_json_fixture(name)))

    def test_fixture_through_pickle_and_back(self):
        path = os.path.join(SCHEMAS, "bench.json")
        _, pc, _ = common.convert(["--from", "json", "--to", "postcard", "--schema", path],
                                  common.fixture("bench.json"))
        _, pk, _ = common.convert(["--from", "postcard", "--to", "pickle", "--schema", path], pc)
        _, pc2, _ = common.convert(["--from", "pickle", "--to", "postcard", "--schema", path], pk)
        self.assertEqual(pc, pc2)


EDGE_SCHEMA = {"name": "Edge", "ty": {"Struct": [
    {"name": "u8", "ty": {"name": "u8", "ty": "U8"}},
    {"name": "i8", "ty": {"name": "i8", "ty": "I8"}},
    {"name": "u16", "ty": {"name": "u16", "ty": "U16"}},
    {"name": "i32", "ty": {"name": "i32", "ty": "I32"}},
    {"name": "u64", "ty": {"name": "u64", "ty": "U64"}},
    {"name": "i64", "ty": {"name": "i64", "ty": "I64"}},
    {"name": "u128", "ty": {"name": "u128", "ty": "U128"}},
    {"name": "i128", "ty": {"name": "i128", "ty": "I128"}},
    {"name": "f32", "ty": {"name": "f32", "ty": "F32"}},
    {"name": "c", "ty": {"name": "char", "ty": "Char"}},
    {"name": "t", "ty": {"name": "(u8, String)", "ty": {"Tuple": [
        {"name": "u8", "ty": "U8"}, {"name": "String", "ty": "String"}]}}},
    {"name": "m", "ty": {"name": "Map", "ty": {"Map": {
        "key": {"name": "String", "ty": "String"}, "val": {"name": "i16", "ty": "I16"}}}}},
    {"name": "e", "ty": {"name": "Vec<E>", "ty": {"Seq": {"name": "E", "ty": {"Enum": [
        {"name": "A", "ty": "UnitVariant"},
        {"name": "B", "ty": {"NewtypeVariant": {"name": "u32", "ty": "U32"}}},
        {"name": "C", "ty": {"TupleVariant": [{"name": "bool", "ty": "Bool"}]}},
        {"name": "D", "ty": {"StructVariant": [
            {"name": "z", "ty": {"name": "i8", "ty": "I8"}}]}}]}}}}},
    {"name": "o", "ty": {"name": "Option<Option<u8>>", "ty": {"Option": {
        "name": "Option<u8>", "ty": {"Option": {"name": "u8", "ty": "U8"}}}}}},
]}}


class PostcardEdges(unittest.TestCase):
    def setUp(self):
        import tempfile
        fd, self.path = tempfile.mkstemp(suffix=".json")
        with os.fdopen(fd, "w") as f:
            json.dump(EDGE_SCHEMA, f)

    def tearDown(self):
        os.remove(self.path)

    def test_edge_values_both_ways(self):
        values = [
            {"u8": 255, "i8": -128, "u16": 65535, "i32": -2**31, "u64": 2**64 - 1,
             "i64": -2**63, "u128": 2**128 - 1, "i128": -2**127, "f32": 0.5, "c": "\u00e9",
             "t": [1, "x"], "m": {"a": -1, "b": 300}, "e": ["A", {"B": 7}, {"C": [True]},
                                                          {"D": {"z": -3}}], "o": 5},
            {"u8": 0, "i8": 127, "u16": 0, "i32": 2**31 - 1, "u64": 0, "i64": 2**63 - 1,
             "u128": 2**64, "i128": 2**127 - 1, "f32": -32.005859375, "c": "\U0001f600",
             "t": [0, ""], "m": {}, "e": [], "o": None},
        ]
        for v in values:
            with self.subTest(value=v):
                expected = encode(EDGE_SCHEMA, v)
                _, ours, _ = common.convert(["--from", "json", "--to", "postcard",
                                             "--schema", self.path], json.dumps(v).encode())
                self.assertEqual(ours.hex(), expected.hex())
                _, back, _ = common.convert(["--from", "postcard", "--to", "json",
                                             "--schema", self.path], expected)
                common.same_value(self, json.loads(back), v)


class PostcardHostile(unittest.TestCase):
    def run_bad(self, schema_json, data, needle):
        import tempfile
        fd, path = tempfile.mkstemp(suffix=".json")
        with os.fdopen(fd, "w") as f:
            json.dump(schema_json, f)
        try:
            code, _, err = common.convert(["--from", "postcard", "--to", "json",
                                           "--schema", path], data, check=False)
        finally:
            os.remove(path)
        self.assertEqual(code, 2, err)
        self.assertIn(needle, err)

    def test_no_schema(self):
        err = common.convert_fails(self, ["--from", "postcard", "--to", "json"], b"\x00", 2)
        self.assertIn("postcard needs a schema", err)

    def test_varint_longer_than_10_bytes(self):
        self.run_bad({"name": "u64", "ty": "U64"}, b"\x80" * 10 + b"\x00",
                     "varint longer than 10 bytes")
        self.run_bad({"name": "u64", "ty": "U64"}, b"\xff" * 10 + b"\x01",
                     "varint exceeds the range of u64")

    def test_length_beyond_the_input(self):
        seq = {"name": "Vec<u64>", "ty": {"Seq": {"name": "u64", "ty": "U64"}}}
        self.run_bad(seq, b"\xff\xff\xff\xff\x0f\x01", "beyond the input")
        self.run_bad({"name": "String", "ty": "String"}, b"\xff\xff\xff\xff\xff\xff\x7f",
                     "beyond the input")

    def test_depth(self):
        # A schema nested 200 deep is refused when loaded; the data never gets read.
        text = '{"name":"V","ty":{"Seq":' * 200 + '{"name":"u8","ty":"U8"}' + "}}" * 200
        import tempfile
        fd, path = tempfile.mkstemp(suffix=".json")
        with os.fdopen(fd, "w") as f:
            f.write(text)
        try:
            code, _, err = common.convert(["--from", "postcard", "--to", "json",
                                           "--schema", path], b"\x01" * 600, check=False)
        finally:
            os.remove(path)
        self.assertEqual(code, 2, err)
        self.assertIn("schema nested deeper than", err)


if __name__ == "__main__":
    unittest.main()
