"""protobuf framing=confluent (Confluent Schema Registry's wire format) against hand-checked
vectors and libprotobuf (Debian's python3-protobuf).

A frame is the magic byte 0, the schema id (4 bytes big-endian), the message indexes and the
message. The indexes are the path of the message type in the schema's file (top-level message,
then nested ones, in declaration order), written as Kafka's zig-zag varints: the count, then each
index; the path [0] is the single byte 0 (Confluent's MessageIndexes.toByteArray in
schema-registry/protobuf-provider, worked out by hand below: zig-zag(1) = 2, zig-zag(2) = 4).
The messages inside are serialized by libprotobuf; what we decode is compared with the values
set, and what we write is parsed back by libprotobuf.
"""
import json
import struct
import unittest

import common
import protoc_common

HAVE_PB = protoc_common.HAVE_PB

PROTO = """syntax = "proto3";
package polycodec.framing;
message First { int64 id = 1; string name = 2; }
message Second {
  message Inner { bool flag = 1; }
  message Other {
    message Deep { int32 n = 1; }
    int32 x = 1;
  }
  int32 v = 1;
}
"""

# (type, message indexes as Confluent writes them, field values)
CASES = [
    ("polycodec.framing.First", b"\x00", {"id": 1234567, "name": "caf\u00e9"}),          # [0]
    ("polycodec.framing.Second", b"\x02\x02", {"v": -5}),                               # [1]
    ("polycodec.framing.Second.Inner", b"\x04\x02\x00", {"flag": True}),                # [1, 0]
    ("polycodec.framing.Second.Other", b"\x04\x02\x02", {"x": 300}),                    # [1, 1]
    ("polycodec.framing.Second.Other.Deep", b"\x06\x02\x02\x00", {"n": 2 ** 31 - 1}),   # [1, 1, 0]
]


@unittest.skipUnless(HAVE_PB, "python3-protobuf is not installed (apt-get install python3-protobuf)")
class confluent_test(protoc_common.ProtocSchema, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.compile("polycodec-pbframing-", "framing.proto", PROTO)

    def message(self, name, values):
        m = self.factory.GetPrototype(self.pool.FindMessageTypeByName(name))()
        for k, v in values.items():
            setattr(m, k, v)
        return m

    def frame(self, schema_id, indexes, payload):
        return b"\x00" + struct.pack(">I", schema_id) + indexes + payload

    def test_vectors_both_ways(self):
        for name, indexes, values in CASES:
            with self.subTest(name=name):
                payload = self.message(name, values).SerializeToString()
                msg = self.frame(4242, indexes, payload)
                # The indexes name the type: no --type needed.
                _, out, _ = common.convert(["--from", "protobuf", "--framing", "confluent",
                                            "--schema", self.desc, "--to", "json"], msg)
                self.assertEqual(json.loads(out), values)
                _, back, _ = common.convert(["--from", "json", "--to", "protobuf", "--framing",
                                             "confluent", "--schema_id", "4242", "--schema",
                                             self.desc, "--type", name], out)
                self.assertEqual(back[:5 + len(indexes)], msg[:5 + len(indexes)])
                parsed = self.factory.GetPrototype(self.pool.FindMessageTypeByName(name))()
                parsed.ParseFromString(back[5 + len(indexes):])
                self.assertEqual(parsed, self.message(name, values))
                self.assertEqual(back, msg)

    def test_long_form_of_zero_path(self):
        # [0] written out in full (count 1, index 0: 02 00) is the same path as the single 0.
        payload = self.message("polycodec.framing.First", {"id": 7}).SerializeToString()
        _, out, _ = common.convert(["--from", "protobuf", "--framing", "confluent", "--schema",
                                    self.desc, "--to", "json"], self.frame(1, b"\x02\x00", payload))
        self.assertEqual(json.loads(out), {"id": 7})

    def test_type_must_agree_with_indexes(self):
        payload = self.message("polycodec.framing.Second", {"v": 1}).SerializeToString()
        msg = self.frame(1, b"\x02\x02", payload)
        _, out, _ = common.convert(["--from", "protobuf", "--framing", "confluent", "--schema", self.desc,
                                    "--type", "polycodec.framing.Second", "--to", "json"], msg)
        self.assertEqual(json.loads(out), {"v": 1})
        rc, _, err = common.convert(["--from", "protobuf", "--framing", "confluent", "--schema", self.desc,
                                     "--type", "polycodec.framing.First", "--to", "json"], msg, check=False)
        self.assertEqual(rc, 2, err)
        self.assertIn("polycodec.framing.Second", err)
        self.assertIn("byte 5", err)

    def test_hostile_headers(self):
        payload = self.message("polycodec.framing.First", {"id": 7}).SerializeToString()
        cases = [
            (b"\x01" + b"\x00\x00\x00\x01\x00" + payload, "magic byte 0", "byte 0"),   # bad magic
            (b"\x00\x00\x00", "magic byte 0", "byte 0"),                                   # truncated id
            (self.frame(1, b"", b""), "message indexes", "byte 5"),                      # no indexes
            (self.frame(1, b"\x02\x0a", payload), "[5]", "byte 5"),                      # no 6th message
            (self.frame(1, b"\x04\x02\x08", payload), "[1,4]", "byte 5"),                # no such nested
            (self.frame(1, b"\x01\x00", payload), "count -1", "byte 5"),                 # negative count
            (self.frame(1, b"\x02\x01", payload), "negative", "byte 6"),                 # index -1
            (self.frame(1, b"\x02\xff\xff\xff\xff\x7f", payload), "32 bits", "byte 6"),  # too long
            (self.frame(1, b"\x00", b"\x08"), "", "byte 6"),                             # message truncated
        ]
        for msg, what, where in cases:
            with self.subTest(msg=msg.hex()):
                rc, _, err = common.convert(["--from", "protobuf", "--framing", "confluent", "--schema",
                                             self.desc, "--to", "json"], msg, check=False)
                self.assertEqual(rc, 2, err)
                self.assertIn(what, err)
                self.assertIn(where, err)

    def test_schema_id(self):
        payload = self.message("polycodec.framing.First", {"id": 7}).SerializeToString()
        msg = self.frame(4242, b"\x00", payload)
        rc, _, err = common.convert(["--from", "protobuf", "--framing", "confluent", "--schema_id", "7",
                                     "--schema", self.desc, "--to", "json"], msg, check=False)
        self.assertEqual(rc, 2, err)
        self.assertIn("schema id 4242", err)

    def test_single_object_is_avros(self):
        rc, _, err = common.convert(["--from", "json", "--to", "protobuf", "--framing", "single_object",
                                     "--schema", self.desc, "--type", "polycodec.framing.First"],
                                    b'{"id": 1}', check=False)
        self.assertNotEqual(rc, 0)
        self.assertIn("avro", err)


if __name__ == "__main__":
    unittest.main()
