"""Differential tests of the protobuf codec against libprotobuf (Debian's python3-protobuf).

The conformance suite's own test messages (TestAllTypesProto2/3 in
../shared/corpus/protobuf-conformance) are compiled with protoc at test time into a temporary
FileDescriptorSet; python3-protobuf builds classes from the same set (a DescriptorPool), fills
10,000 seeded random messages of each and serializes them. The messages travel in one batch
message (`repeated TestAllTypesProto3 items = 1`), so each conversion is one process: every
item's original bytes are in the batch verbatim, and every item of what we write back is
parsed by libprotobuf and compared with the parse of the original (deterministic
serialization, so NaN and unknown fields compare too).

- protobuf -> protobuf and protobuf -> yaml -> protobuf: with non-finite floats and unknown
  fields; protobuf -> cbor -> protobuf: with non-finite floats; protobuf -> json -> protobuf:
  neither (JSON has no NaN and refuses unknown fields, tested apart).
- protobuf -> json: each item equals the value computed from libprotobuf's parsed message
  (ListFields, the well-known types' own ToJsonString/MessageToDict), an independent decode.
- The same schema as a .proto file (parsed by our server with libprotoc) and as a descriptor
  set gives byte-identical conversions.
- Hostile input: truncated, lying lengths, bad wire types, invalid UTF-8: clear errors.
"""
import base64
import json
import math
import os
import random
import struct
import unittest

import common
import protoc_common

try:
    from google.protobuf import json_format
    from google.protobuf.descriptor import FieldDescriptor as FD
    HAVE_PB = True
except ImportError:  # pragma: no cover
    HAVE_PB = False

CONFORMANCE = os.path.join(common.CORPUS, "protobuf-conformance", "src")
P3 = "protobuf_test_messages.proto3.TestAllTypesProto3"
P2 = "protobuf_test_messages.proto2.TestAllTypesProto2"
COUNT = int(os.environ.get("POLYCODEC_PROTOBUF_COUNT", "10000"))

BATCH_PROTO = """syntax = "proto3";
package polycodec.test;
import "google/protobuf/test_messages_proto3.proto";
import "google/protobuf/test_messages_proto2.proto";
message Batch3 { repeated protobuf_test_messages.proto3.TestAllTypesProto3 items = 1; }
message Batch2 { repeated protobuf_test_messages.proto2.TestAllTypesProto2 items = 1; }
"""

INT_RANGES = {
    FD.TYPE_INT32: (-2 ** 31, 2 ** 31 - 1), FD.TYPE_SINT32: (-2 ** 31, 2 ** 31 - 1),
    FD.TYPE_SFIXED32: (-2 ** 31, 2 ** 31 - 1), FD.TYPE_UINT32: (0, 2 ** 32 - 1),
    FD.TYPE_FIXED32: (0, 2 ** 32 - 1), FD.TYPE_INT64: (-2 ** 63, 2 ** 63 - 1),
    FD.TYPE_SINT64: (-2 ** 63, 2 ** 63 - 1), FD.TYPE_SFIXED64: (-2 ** 63, 2 ** 63 - 1),
    FD.TYPE_UINT64: (0, 2 ** 64 - 1), FD.TYPE_FIXED64: (0, 2 ** 64 - 1),
} if HAVE_PB else {}


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


class generator:
    """Seeded random messages of any descriptor, every field kind."""

    def __init__(self, seed, factory, pool):
        self.r = random.Random(seed)
        self.factory = factory
        self.pool = pool

    def cls(self, desc):
        return self.factory.GetPrototype(desc)

    def integer(self, t):
        lo, hi = INT_RANGES[t]
        c = self.r.random()
        if c < 0.15:
            return self.r.choice([lo, hi, 0, 1, -1 if lo < 0 else 2])
        if c < 0.5:
            return self.r.randint(max(lo, -300), min(hi, 300))
        return self.r.randint(lo, hi)

    def floating(self, t):
        c = self.r.random()
        if c < 0.2:
            v = self.r.choice([0.0, -0.0, 1.0, -1.5, 5e-324, 1.7976931348623157e308, 2.2250738585072014e-308,
                               3.4028234663852886e38, 1.401298464324817e-45])
        elif c < 0.6:
            v = self.r.uniform(-1000, 1000)
        else:
            v = struct.unpack("<d", struct.pack("<Q", self.r.getrandbits(64)))[0]
            if not math.isfinite(v):
                v = 0.5
        if t == FD.TYPE_FLOAT:
            if abs(v) > 3.4028234663852886e38:
                v = 1.25
            v = f32(v)
        return v

    def text(self):
        alphabet = ["a", "b", "z", "_", " ", "\"", "\\", "\n", "\u00e9", "\u4e2d", "\U0001f600", "\u0000", "\u2028"]
        return "".join(self.r.choice(alphabet) for _ in range(self.r.randint(0, 12)))

    def scalar(self, fd):
        t = fd.type
        if t in INT_RANGES:
            return self.integer(t)
        if t in (FD.TYPE_FLOAT, FD.TYPE_DOUBLE):
            return self.floating(t)
        if t == FD.TYPE_BOOL:
            return self.r.random() < 0.5
        if t == FD.TYPE_STRING:
            return self.text()
        if t == FD.TYPE_BYTES:
            return bytes(self.r.getrandbits(8) for _ in range(self.r.randint(0, 10)))
        if t == FD.TYPE_ENUM:
            values = [v.number for v in fd.enum_type.values]
            if fd.enum_type.file.syntax == "proto3" and self.r.random() < 0.1:
                return self.r.choice([7777, -5, 2 ** 31 - 1])  # an open enum's unknown number
            return self.r.choice(values)
        raise AssertionError(t)

    def json_value(self, depth):
        c = self.r.random()
        if depth > 2 or c < 0.6:
            return self.r.choice([None, True, False, self.r.uniform(-1e6, 1e6), float(self.r.randint(-99, 99)),
                                  self.text()])
        if c < 0.8:
            return [self.json_value(depth + 1) for _ in range(self.r.randint(0, 3))]
        return {self.text(): self.json_value(depth + 1) for _ in range(self.r.randint(0, 3))}

    def wkt(self, m, depth):
        name = m.DESCRIPTOR.full_name
        if name == "google.protobuf.Timestamp":
            m.seconds = self.r.choice([self.r.randint(-62135596800, 253402300799), 0, -1, 253402300799, -62135596800])
            m.nanos = self.r.choice([0, 0, 5000000, 123456000, 999999999, self.r.randint(0, 999999999)])
        elif name == "google.protobuf.Duration":
            s = self.r.choice([self.r.randint(-315576000000, 315576000000), 0, 1, -1, 315576000000])
            n = self.r.choice([0, 500000000, 1000, 1, 999999999])
            if s < 0 or (s == 0 and self.r.random() < 0.5):
                n = -n
            m.seconds, m.nanos = s, n
        elif name == "google.protobuf.Struct":
            m.update({self.text(): self.json_value(1) for _ in range(self.r.randint(0, 4))})
        elif name == "google.protobuf.ListValue":
            m.extend([self.json_value(1) for _ in range(self.r.randint(0, 4))])
        elif name == "google.protobuf.Value":
            v = self.json_value(0)
            json_format.ParseDict(v, m)
        elif name == "google.protobuf.FieldMask":
            m.paths.extend(self.r.choice(["foo", "foo_bar", "a.b_c", "x2"]) for _ in range(self.r.randint(0, 3)))
        elif name == "google.protobuf.Any":
            inner_desc = self.pool.FindMessageTypeByName(self.r.choice([P3, "google.protobuf.Timestamp",
                                                                        "google.protobuf.Int32Value"]))
            inner = self.cls(inner_desc)()
            self.fill(inner, depth + 1)
            m.Pack(inner)
        elif name == "google.protobuf.Empty":
            pass
        elif name.startswith("google.protobuf.") and name.endswith("Value"):
            m.value = self.scalar(m.DESCRIPTOR.fields_by_name["value"])
        else:
            return False
        return True

    def fill(self, m, depth=0):
        if m.DESCRIPTOR.full_name.startswith("google.protobuf.") and self.wkt(m, depth):
            return m
        p = 0.35 if depth == 0 else 0.15
        for fd in m.DESCRIPTOR.fields:
            if self.r.random() > p:
                continue
            msg_type = fd.message_type
            if fd.label == FD.LABEL_REPEATED:
                n = self.r.randint(0, 4)
                if msg_type is not None and msg_type.GetOptions().map_entry:
                    kf, vf = msg_type.fields_by_name["key"], msg_type.fields_by_name["value"]
                    target = getattr(m, fd.name)
                    for _ in range(n):
                        k = self.scalar(kf)
                        if vf.message_type is not None:
                            if depth < 3:
                                self.fill(target[k], depth + 1)
                        else:
                            target[k] = self.scalar(vf)
                elif msg_type is not None:
                    if depth < 3:
                        for _ in range(n):
                            self.fill(getattr(m, fd.name).add(), depth + 1)
                else:
                    getattr(m, fd.name).extend(self.scalar(fd) for _ in range(n))
            elif msg_type is not None:
                if depth < 3:
                    sub = getattr(m, fd.name)
                    sub.SetInParent()
                    self.fill(sub, depth + 1)
            else:
                setattr(m, fd.name, self.scalar(fd))
        return m

    def with_nonfinite(self, m):
        """Sets a few float fields to NaN or +-Inf."""
        for name in ("optional_double", "optional_float"):
            if self.r.random() < 0.3:
                setattr(m, name, self.r.choice([math.nan, math.inf, -math.inf]))
        if self.r.random() < 0.3:
            m.repeated_double.append(self.r.choice([math.nan, -math.inf]))
        return m

    def unknown_fields(self):
        """Raw fields whose numbers the schema does not define (20000-29999), every wire type."""
        out = b""
        for _ in range(self.r.randint(1, 3)):
            number = self.r.randint(20000, 29999)
            wt = self.r.choice([0, 1, 2, 5, 3])
            tag = varint(number << 3 | wt)
            if wt == 0:
                out += tag + varint(self.r.getrandbits(64))
            elif wt == 1:
                out += tag + bytes(self.r.getrandbits(8) for _ in range(8))
            elif wt == 5:
                out += tag + bytes(self.r.getrandbits(8) for _ in range(4))
            elif wt == 2:
                data = bytes(self.r.getrandbits(8) for _ in range(self.r.randint(0, 6)))
                out += tag + varint(len(data)) + data
            else:
                out += tag + varint(1 << 3 | 0) + varint(5) + varint(number << 3 | 4)
        return out


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def batch_bytes(items):
    return b"".join(b"\x0a" + varint(len(x)) + x for x in items)


def b64(data):
    return base64.b64encode(data).decode()


@unittest.skipUnless(HAVE_PB, "python3-protobuf is not installed (apt-get install python3-protobuf)")
class protobuf_test(protoc_common.ProtocSchema, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.path.isdir(CONFORMANCE):
            raise unittest.SkipTest("the conformance corpus is absent: " + CONFORMANCE)
        cls.proto = cls.compile("polycodec-protobuf-", "batch.proto", BATCH_PROTO, CONFORMANCE)
        cls.sets = {}
        for name, seed in ((P3, 3), (P2, 2)):
            desc = cls.pool.FindMessageTypeByName(name)
            klass = cls.factory.GetPrototype(desc)
            g = generator(seed, cls.factory, cls.pool)
            plain, nonfinite, unknown = [], [], []
            for _ in range(COUNT):
                m = g.fill(klass())
                plain.append(m.SerializeToString())
                g.with_nonfinite(m)
                nonfinite.append(m.SerializeToString())
                unknown.append(nonfinite[-1] + g.unknown_fields())
            cls.sets[name] = (klass, plain, nonfinite, unknown)

    def args(self, name, schema=None):
        batch = "polycodec.test.Batch3" if name == P3 else "polycodec.test.Batch2"
        return ["--schema", schema or self.desc, "--type", batch]

    def convert(self, frm, to, data, name, extra=(), check=True, schema=None):
        return common.convert(["--from", frm, "--to", to, *self.args(name, schema), *extra], data, check)

    def check_round_trip(self, name, items, via):
        klass = self.sets[name][0]
        data = batch_bytes(items)
        if via == "protobuf":
            _, back, _ = self.convert("protobuf", "protobuf", data, name)
        else:
            _, mid, _ = self.convert("protobuf", via, data, name)
            _, back, _ = self.convert(via, "protobuf", mid, name)
        batch_cls = self.factory.GetPrototype(self.pool.FindMessageTypeByName(
            "polycodec.test.Batch3" if name == P3 else "polycodec.test.Batch2"))
        got = batch_cls.FromString(back).items
        self.assertEqual(len(got), len(items))
        for i, (orig, ours) in enumerate(zip(items, got)):
            want = klass.FromString(orig).SerializeToString(deterministic=True)
            have = ours.SerializeToString(deterministic=True)
            if want != have:
                self.fail("%s item %d differs after protobuf -> %s -> protobuf:\nwant %s\nhave %s" % (
                    name, i, via, klass.FromString(orig), ours))

    # protobuf -> VIA -> protobuf on the messages sets[name][WHICH] (1: plain,
    # 2: with non-finite floats, 3: with unknown fields too).
    ROUND_TRIPS = [("protobuf", 3), ("yaml", 2), ("cbor", 2), ("json", 1)]

    def test_round_trips(self):
        for via, which in self.ROUND_TRIPS:
            for name in (P3, P2):
                with self.subTest(via=via, name=name):
                    self.check_round_trip(name, self.sets[name][which], via)

    # --- decode values against libprotobuf's parse ----------------------------------------

    def expect(self, m):
        """The value our decoder should give for libprotobuf's parsed message `m`, as JSON."""
        name = m.DESCRIPTOR.full_name
        if name in ("google.protobuf.Timestamp", "google.protobuf.Duration"):
            return m.ToJsonString()
        if name in ("google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue"):
            return json_format.MessageToDict(m)
        if name == "google.protobuf.FieldMask":
            return list(m.paths)
        if name == "google.protobuf.Any":
            if not m.type_url:
                return {}
            inner = self.factory.GetPrototype(self.pool.FindMessageTypeByName(m.TypeName()))()
            m.Unpack(inner)
            v = self.expect(inner)
            if inner.DESCRIPTOR.full_name.startswith("google.protobuf."):
                return {"@type": m.type_url, "value": v}
            return {"@type": m.type_url, **v}
        if name.startswith("google.protobuf.") and name.endswith("Value"):
            return self.scalar(m.DESCRIPTOR.fields_by_name["value"], m.value)
        out = {}
        for fd, v in m.ListFields():
            if fd.is_extension:
                continue
            if fd.message_type is not None and fd.message_type.GetOptions().map_entry:
                vf = fd.message_type.fields_by_name["value"]
                out[fd.name] = {self.key(k): self.value(vf, x) for k, x in v.items()}
            elif fd.label == FD.LABEL_REPEATED:
                out[fd.name] = [self.value(fd, x) for x in v]
            else:
                out[fd.name] = self.value(fd, v)
        return out

    def key(self, k):
        if isinstance(k, bool):
            return "true" if k else "false"
        return str(k)

    def value(self, fd, v):
        if fd.message_type is not None:
            return self.expect(v)
        return self.scalar(fd, v)

    def scalar(self, fd, v):
        if fd.type == FD.TYPE_BYTES:
            return ("bytes", v)
        if fd.type == FD.TYPE_ENUM:
            if fd.enum_type.full_name == "google.protobuf.NullValue" and v == 0:
                return None
            ev = fd.enum_type.values_by_number.get(v)
            return ev.name if ev is not None else v
        return v

    def normalize_ours(self, expected, got):
        """Our JSON writes bytes as unpadded base64url text: decode where bytes are expected."""
        if isinstance(expected, tuple) and expected[0] == "bytes":
            s = got + "=" * (-len(got) % 4)
            return ("bytes", base64.urlsafe_b64decode(s))
        if isinstance(expected, dict) and isinstance(got, dict):
            return {k: self.normalize_ours(expected.get(k), x) for k, x in got.items()}
        if isinstance(expected, list) and isinstance(got, list) and len(expected) == len(got):
            return [self.normalize_ours(e, x) for e, x in zip(expected, got)]
        return got

    def test_decode_values(self):
        for name in (P3, P2):
            klass, plain, _, _ = self.sets[name]
            _, out, _ = self.convert("protobuf", "json", batch_bytes(plain), name)
            items = json.loads(out)["items"]
            self.assertEqual(len(items), len(plain))
            for i, (orig, got) in enumerate(zip(plain, items)):
                want = self.expect(klass.FromString(orig))
                got = self.normalize_ours(want, got)
                if want != got:
                    self.fail("%s item %d: want %r\nhave %r" % (name, i, want, got))

    def test_proto_file_and_descriptor_set_agree(self):
        for name in (P3, P2):
            data = batch_bytes(self.sets[name][3][:2000])
            for to in ("yaml", "protobuf"):
                _, a, _ = self.convert("protobuf", to, data, name)
                _, b, _ = self.convert("protobuf", to, data, name, schema=self.proto)
                self.assertEqual(a, b, "%s to %s: .proto and descriptor set differ" % (name, to))

    # --- hand-checked cases ------------------------------------------------------------------

    def one(self, wire, to="json", check=True, extra=()):
        return common.convert(["--from", "protobuf", "--to", to, "--schema", self.desc, "--type", P3, *extra],
                              wire, check)

    def test_hand_vectors(self):
        # optional_int32 = -1: ten-byte varint; optional_sint32 = -2 (zigzag 3); packed and
        # unpacked repeated_int32 both read; optional_nested_enum = 1 ("BAR"), 99 (unknown).
        wire = (b"\x08" + b"\xff" * 9 + b"\x01" + b"\x28\x03" + b"\xfa\x01\x02\x01\x02" + b"\xf8\x01\x03"
                + b"\xa8\x01\x01")
        _, out, _ = self.one(wire)
        self.assertEqual(json.loads(out), {"optional_int32": -1, "optional_sint32": -2,
                                           "optional_nested_enum": "BAR", "repeated_int32": [1, 2, 3]})
        _, out, _ = self.one(b"\xa8\x01\x63")
        self.assertEqual(json.loads(out), {"optional_nested_enum": 99})
        # Last one wins for a singular field given twice; a zero proto3 scalar is unset.
        _, out, _ = self.one(b"\x08\x01\x08\x02\x10\x00")
        self.assertEqual(json.loads(out), {"optional_int32": 2})
        # A message field given twice merges (as libprotobuf parses it).
        klass = self.sets[P3][0]
        m = klass.FromString(b"\x92\x01\x02\x08\x01\x92\x01\x04\x12\x02\x08\x05")
        _, out, _ = self.one(b"\x92\x01\x02\x08\x01\x92\x01\x04\x12\x02\x08\x05")
        self.assertEqual(json.loads(out), {"optional_nested_message": {"a": 1, "corecursive": {"optional_int32": 5}}})
        self.assertEqual(m.optional_nested_message.a, 1)

    def test_unknown_fields(self):
        wire = b"\x08\x05" + b"\xa0\x9c\x01\x07"  # optional_int32 = 5, unknown field 2500 = 7
        _, back, _ = self.one(wire, to="protobuf")
        self.assertEqual(back, wire)
        code, _, err = self.one(wire, to="json", check=False)
        self.assertEqual(code, 3, err)
        self.assertIn("/2500", err)
        code, out, err = self.one(wire, to="json", check=False, extra=["--lossy"])
        self.assertEqual(code, 0, err)
        self.assertEqual(json.loads(out)["optional_int32"], 5)

    def test_hostile_input(self):
        cases = [
            (b"\x08", "byte 0", "input ends inside the varint of field 1"),
            (b"\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", "byte 0", "longer than 10 bytes"),
            (b"\x72\x05ab", "byte 1", "length 5 beyond the 2 bytes left"),
            (b"\x72\xff\xff\xff\xff\x0f", "byte 1", "length 4294967295 beyond the 0 bytes left"),
            (b"\x08\x01\x0e\x00", "byte 2", "bad wire type 6 of field 1"),
            (b"\x0c", "byte 0", "end-group tag of field 1 outside any group"),
            (b"\x72\x02\xc3\x28", "byte 2", "invalid UTF-8 in string field optional_string"),
            (b"\x00\x00", "byte 0", "field number 0"),
            (b"\x0b\x08\x01", "byte", "not closed"),  # a group without its end tag
        ]
        for wire, where, what in cases:
            with self.subTest(wire=wire):
                rc, _, err = self.one(wire, check=False)
                self.assertEqual(rc, 2, err)  # a syntax error: exit 2, HTTP 400
                self.assertIn(where, err)
                self.assertIn(what, err)
        # Deep nesting: recursive_message 200 levels deep is refused, not a crash.
        wire = b""
        for _ in range(200):
            wire = b"\xda\x01" + varint(len(wire)) + wire
        rc, _, err = self.one(wire, check=False)
        self.assertEqual(rc, 2, err)
        self.assertIn("nested deeper than", err)

    def test_json_to_protobuf_forms(self):
        """Values other formats give (text keys, base64 bytes, enum numbers) encode as expected."""
        doc = {"optional_int64": "-9223372036854775808", "optional_bytes": "AP8", "optional_nested_enum": 2,
               "map_bool_bool": {"true": False}, "map_int64_int64": {"-5": 6},
               "optional_timestamp": "1970-01-01T00:00:01.5Z", "optional_duration": "-1.000000001s",
               "optional_field_mask": "a,b_c", "optionalInt32": 7}
        _, wire, _ = common.convert(["--from", "json", "--to", "protobuf", "--schema", self.desc, "--type", P3],
                                    json.dumps(doc).encode())
        m = self.sets[P3][0].FromString(wire)
        self.assertEqual(m.optional_int64, -2 ** 63)
        self.assertEqual(m.optional_bytes, b"\x00\xff")
        self.assertEqual(m.optional_nested_enum, 2)
        self.assertEqual(dict(m.map_bool_bool), {True: False})
        self.assertEqual(dict(m.map_int64_int64), {-5: 6})
        self.assertEqual((m.optional_timestamp.seconds, m.optional_timestamp.nanos), (1, 500000000))
        self.assertEqual((m.optional_duration.seconds, m.optional_duration.nanos), (-1, -1))
        self.assertEqual(list(m.optional_field_mask.paths), ["a", "b_c"])
        self.assertEqual(m.optional_int32, 7)
        code, _, err = common.convert(["--from", "json", "--to", "protobuf", "--schema", self.desc, "--type", P3],
                                      b'{"no_such_field": 1}', check=False)
        self.assertEqual(code, 3, err)
        self.assertIn("no_such_field", err)


if __name__ == "__main__":
    unittest.main()
