"""Differential tests of the protojson codec against libprotobuf's json_format (Debian's
python3-protobuf).

The conformance suite's TestAllTypesProto2/Proto3 (../shared/corpus/protobuf-conformance) are
compiled with protoc at test time; test_protobuf.py's seeded generator fills 10,000 random
messages of each (every field kind, the well-known types, NaN and infinities), which travel in
one batch message per conversion (`repeated TestAllTypesProto3 items = 1`):

- ours -> json_format: protobuf -> protojson by us, then json_format.Parse; every item equals
  libprotobuf's parse of the original bytes (on the first 1,000 also with preserve_proto_field_names,
  enums_as_ints and always_print_primitive_fields, whose key sets are checked too).
- json_format -> ours: json_format.MessageToJson of the batch, then protojson -> protobuf by
  us; every item equals the original.
- The ProtoJSON specification's edge cases written out by hand (field name forms, int64 as
  strings and numbers, 1e2, base64 variants, enum aliases, null, duplicate keys,
  Timestamp/Duration forms and range limits), each checked against the bytes libprotobuf
  itself serializes for the expected message; where libprotobuf 3.21 parses differently from
  the specification the case says so (docs/formats/protojson.md).
- Hostile input: 400s with offset, line, column and JSON Pointer path.
"""
import json
import math
import os
import subprocess
import unittest

import common
import protoc_common
import test_protobuf as tp

HAVE_PB = tp.HAVE_PB
if HAVE_PB:
    from google.protobuf import json_format

P3, P2 = tp.P3, tp.P2
COUNT = tp.COUNT
# json_format is pure Python and slow: the option variants run on the first SUBSET messages,
# the plain directions on all COUNT.
SUBSET = min(COUNT, 1000)
B3, B2 = "polycodec.test.Batch3", "polycodec.test.Batch2"


class generator(tp.generator if HAVE_PB else object):
    """test_protobuf's generator, except that google.protobuf.NullValue is always NULL_VALUE:
    its JSON form is null whatever the number (json_format prints an undefined number as
    null too), so an undefined number cannot survive ProtoJSON in either implementation."""

    def scalar(self, fd):
        if fd.enum_type is not None and fd.enum_type.full_name == "google.protobuf.NullValue":
            return 0
        return super().scalar(fd)


@unittest.skipUnless(HAVE_PB, "python3-protobuf is not installed (apt-get install python3-protobuf)")
class protojson_test(protoc_common.ProtocSchema, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.path.isdir(tp.CONFORMANCE):
            raise unittest.SkipTest("the conformance corpus is absent: " + tp.CONFORMANCE)
        cls.compile("polycodec-protojson-", "batch.proto", tp.BATCH_PROTO, tp.CONFORMANCE)
        cls.cls = {n: cls.factory.GetPrototype(cls.pool.FindMessageTypeByName(n))
                   for n in (P3, P2, B3, B2)}
        cls.items = {}
        for name, seed in ((P3, 33), (P2, 22)):
            g = generator(seed, cls.factory, cls.pool)
            klass = cls.cls[name]
            items = []
            for _ in range(COUNT):
                m = g.fill(klass())
                g.with_nonfinite(m)
                items.append(m)
            cls.items[name] = items

    def convert(self, frm, to, data, typ, extra=(), check=True):
        return common.convert(["--from", frm, "--to", to, "--schema", self.desc, "--type", typ,
                               *extra], data, check)

    def batch(self, name, n=None):
        b = self.cls[B3 if name == P3 else B2]()
        b.items.extend(self.items[name][:n])
        return b

    def same(self, name, want, got, what):
        """Equal wire bytes (deterministic serialization), or, where an Any's packed bytes
        differ only in map order, equal json_format.MessageToDict views (which unpack Any)."""
        self.assertEqual(len(want), len(got))
        for i, (w, g) in enumerate(zip(want, got)):
            ws = w.SerializeToString(deterministic=True)
            gs = g.SerializeToString(deterministic=True)
            if ws != gs and (json_format.MessageToDict(w, descriptor_pool=self.pool) !=
                             json_format.MessageToDict(g, descriptor_pool=self.pool)):
                self.fail("%s %s item %d differs:\nwant %s\nhave %s" % (what, name, i, w, g))

    # ---- ours -> json_format.Parse ----

    def check_ours_parse(self, name, option=None, n=None):
        b = self.batch(name, n)
        to = "protojson" if option is None else "protojson;" + option
        _, text, _ = self.convert("protobuf", to, b.SerializeToString(), B3 if name == P3 else B2)
        back = self.cls[B3 if name == P3 else B2]()
        json_format.Parse(text.decode(), back, descriptor_pool=self.pool)
        self.same(name, b.items, back.items, "protobuf -> protojson (ours) -> json_format.Parse")
        return json.loads(text)

    def test_ours_parse_in_json_format(self):
        for name in (P3, P2):
            with self.subTest(name=name):
                doc = self.check_ours_parse(name)
                # lowerCamelCase keys, 64-bit integers as strings.
                keys = set(k for item in doc["items"] for k in item)
                self.assertIn("optionalInt32", keys)
                self.assertNotIn("optional_int32", keys)
                for item in doc["items"]:
                    if "optionalInt64" in item:
                        self.assertIsInstance(item["optionalInt64"], str)

    def test_options_parse_in_json_format(self):
        for name in (P3, P2):
            with self.subTest(name=name):
                doc = self.check_ours_parse(name, "preserve_proto_field_names=true", SUBSET)
                keys = set(k for item in doc["items"] for k in item)
                self.assertIn("optional_int32", keys)
                self.assertNotIn("optionalInt32", keys)
                doc = self.check_ours_parse(name, "enums_as_ints=true", SUBSET)
                for item in doc["items"]:
                    if "optionalNestedEnum" in item:
                        self.assertIsInstance(item["optionalNestedEnum"], int)
        # always_print_primitive_fields: the key set json_format prints with
        # including_default_value_fields (proto3: every field without presence).
        b = self.batch(P3, SUBSET)
        doc = self.check_ours_parse(P3, "always_print_primitive_fields=true", SUBSET)
        for i, (m, item) in enumerate(zip(b.items[:500], doc["items"])):
            ref = json_format.MessageToDict(m, including_default_value_fields=True,
                                            descriptor_pool=self.pool)
            self.assertEqual(set(ref), set(item), "item %d" % i)

    # ---- json_format.MessageToJson -> ours ----

    def test_json_format_output_decodes_in_ours(self):
        for name in (P3, P2):
            with self.subTest(name=name):
                typ = B3 if name == P3 else B2
                for kwargs in ({}, {"preserving_proto_field_name": True},
                               {"use_integers_for_enums": True}):
                    b = self.batch(name, None if not kwargs else SUBSET)
                    text = json_format.MessageToJson(b, descriptor_pool=self.pool, **kwargs)
                    _, wire, _ = self.convert("protojson", "protobuf", text.encode(), typ)
                    back = self.cls[typ].FromString(wire)
                    self.same(name, b.items, back.items,
                              "json_format.MessageToJson %s -> protojson (ours) -> protobuf" % kwargs)

    def test_protojson_and_protobuf_documents_agree(self):
        # protojson -> json and protobuf -> json give the same document.
        b = self.batch(P3)
        for m in b.items:
            m.ClearField("optional_double")
            m.ClearField("optional_float")
            del m.repeated_double[:]
            del m.repeated_float[:]
        del b.items[2000:]
        text = json_format.MessageToJson(b, descriptor_pool=self.pool)
        rc1, via_pj, e1 = self.convert("protojson", "json", text.encode(), B3, ["--lossy"])
        rc2, via_pb, e2 = self.convert("protobuf", "json", b.SerializeToString(), B3, ["--lossy"])
        self.assertEqual(json.loads(via_pj), json.loads(via_pb))

    # ---- the direct writer against the wire round trip (protojson.cpp) ----

    def convert_path(self, path, frm, to, data, typ, extra=()):
        """polycodec convert with POLYCODEC_PROTOJSON_PATH=path: "direct" (a document the
        direct writer does not take is an error), "round_trip" (the encoder's old path:
        protobuf bytes and back, then the printer), "" (the codec as shipped)."""
        env = dict(os.environ, POLYCODEC_PROTOJSON_PATH=path)
        p = subprocess.run([common.polycodec_bin(), "convert", "--from", frm, "--to", to,
                            "--schema", self.desc, "--type", typ, *extra], input=data,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, timeout=600)
        return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")

    def test_direct_writer_agrees_with_round_trip(self):
        # The generator's messages (every field kind, maps, oneofs, Any, NullValue, the other
        # well-known types, NaN and infinities), read from protobuf: the direct writer takes
        # every batch, and writes the bytes the round trip writes, with each print option.
        options = [(None, ()), ("preserve_proto_field_names=true", ()), ("enums_as_ints=true", ()),
                   ("always_print_primitive_fields=true", ()), (None, ("--pretty",)),
                   ("always_print_primitive_fields=true;enums_as_ints=true", ("--pretty",))]
        for name in (P3, P2):
            typ = B3 if name == P3 else B2
            for i, (option, extra) in enumerate(options):
                with self.subTest(name=name, option=option, extra=extra):
                    wire = self.batch(name, None if i == 0 else SUBSET).SerializeToString()
                    to = "protojson" if option is None else "protojson;" + option
                    rc, direct, err = self.convert_path("direct", "protobuf", to, wire, typ, extra)
                    self.assertEqual(rc, 0, err)
                    rc, trip, err = self.convert_path("round_trip", "protobuf", to, wire, typ, extra)
                    self.assertEqual(rc, 0, err)
                    self.assertEqual(direct, trip)
                    self.assertGreater(len(direct), 1000)

    def test_direct_writer_and_round_trip_on_other_documents(self):
        # Documents from JSON (keys in any order, 64-bit integers as numbers, bytes as base64
        # text) and ones the encoder refuses: the codec as shipped answers as the round trip
        # (same bytes, or the same exit status and message).
        b = self.batch(P3, 200)
        _, as_json, _ = self.convert("protobuf", "json", b.SerializeToString(), B3, ["--lossy"])
        docs = [as_json, json.dumps(json.loads(as_json)["items"][0]).encode()]
        docs += [json.dumps({"items": [item]}).encode() for item in json.loads(as_json)["items"][:40]]
        p3 = [b'{"optionalInt32": 1, "optionalInt64": 2}', b'{"optionalInt64": 2, "optionalInt32": 1}',
              b'{"optional_int32": 1, "optionalInt32": 2}', b'{"optionalFloat": 0.1}',
              b'{"optionalFloat": 0.5, "optionalDouble": 1e300, "optionalUint32": -1}',
              b'{"optionalInt32": 2147483648}', b'{"nope": 1}', b'{"oneofUint32": 1, "oneofString": "x"}',
              b'{"optionalValue": NaN}', b'{"optionalValue": {"a": [1, 2.5, null, "x", true]}}',
              b'{"optionalAny": {"@type": "type.googleapis.com/no.Such"}}',
              b'{"optionalAny": {"@type": "polycodec.test.Nothing"}}',
              b'{"optionalAny": {"@type": "type.googleapis.com/google.protobuf.Duration", "value": "1.5s"}}',
              b'{"optionalAny": {"@type": "type.googleapis.com/google.protobuf.Duration"}}',
              b'{"optionalTimestamp": "1970-01-01T00:00:01.5+01:00", "optionalDuration": "-0.000001s"}',
              b'{"optionalTimestamp": "10000-01-01T00:00:00Z"}', b'{"optionalDuration": "1.5"}',
              b'{"optionalFieldMask": "a_b,c,", "optionalEmpty": {}}', b'{"optionalFieldMask": "aB"}',
              b'{"mapInt32Int32": {"1": 2, "-0": 3, "007": 4}, "mapBoolBool": {"true": true}}',
              b'{"mapStringString": {"a": "b", "a": "c"}}', b'{"mapUint32Uint32": {"-1": 1}}',
              b'{"optionalNullValue": null, "repeatedNullValue": [null, 0]}',
              b'{"optionalNestedEnum": "BAR", "repeatedNestedEnum": [0, 7777, "NEG"]}',
              b'{"optionalBytes": "-_8", "optionalStringWrapper": "x", "optionalInt64Wrapper": 0}',
              b'{"recursiveMessage": ' * 40 + b'{"optionalInt32": 1}' + b'}' * 40, b'[]', b'7']
        cases = [(d, B3) for d in docs] + [(d, P3) for d in p3]
        for extra in ((), ("--pretty",), ("--lossy",)):
            for data, typ in cases:
                with self.subTest(data=data[:80], extra=extra):
                    want = self.convert_path("round_trip", "json", "protojson", data, typ, extra)
                    have = self.convert_path("", "json", "protojson", data, typ, extra)
                    self.assertEqual(want, have)


    # ---- the specification's edge cases ----

    def parse(self, text, typ=P3, extra=()):
        """Our protojson -> protobuf; returns (rc, message or stderr). extra: options."""
        frm = ";".join(["protojson", *extra])
        rc, out, err = self.convert(frm, "protobuf", text.encode(), typ, check=False)
        if rc != 0:
            return rc, err
        return rc, self.cls[typ].FromString(out)

    def expect(self, text, fields, typ=P3, extra=()):
        rc, got = self.parse(text, typ, extra)
        self.assertEqual(rc, 0, "%s: %s" % (text, got))
        want = self.cls[typ]()
        json_format.ParseDict(fields, want, descriptor_pool=self.pool)
        self.assertEqual(got.SerializeToString(deterministic=True),
                         want.SerializeToString(deterministic=True), text)

    def refuse(self, text, typ=P3, extra=(), what=None):
        rc, err = self.parse(text, typ, extra)
        self.assertEqual(rc, 2, "%s was accepted" % text)
        if what is not None:
            self.assertIn(what, err, text)
        return err

    def test_field_names(self):
        self.expect('{"optionalInt32": 1}', {"optional_int32": 1})
        self.expect('{"optional_int32": 1}', {"optional_int32": 1})
        # json_name = "FieldName13" etc. in the conformance proto: both forms.
        self.expect('{"fieldname1": 1, "fieldName2": 2, "FieldName3": 3, "fieldName4": 4}',
                    {"fieldname1": 1, "field_name2": 2, "_field_name3": 3, "field__name4_": 4})
        self.refuse('{"optionalInt32": 1, "optional_int32": 2}', what="twice")
        self.refuse('{"noSuchField": 1}', what="no field")
        self.expect('{"noSuchField": 1, "optionalInt32": 3}', {"optional_int32": 3},
                    extra=["ignore_unknown_fields=true"])

    def test_integers(self):
        self.expect('{"optionalInt64": "-9223372036854775808"}', {"optional_int64": -2 ** 63})
        self.expect('{"optionalInt64": -9223372036854775808}', {"optional_int64": -2 ** 63})
        self.expect('{"optionalUint64": "18446744073709551615"}', {"optional_uint64": 2 ** 64 - 1})
        self.expect('{"optionalInt32": 1e2}', {"optional_int32": 100})
        self.expect('{"optionalInt32": "1e2"}', {"optional_int32": 100})  # spec; json_format refuses
        self.expect('{"optionalInt32": 1.0}', {"optional_int32": 1})
        self.expect('{"optionalInt32": "-5"}', {"optional_int32": -5})
        self.expect('{"optionalFixed64": "123"}', {"optional_fixed64": 123})
        self.refuse('{"optionalInt32": 2147483648}', what="out of range")
        self.refuse('{"optionalUint32": -1}', what="out of range")
        self.refuse('{"optionalInt32": 1.5}', what="integer")
        self.refuse('{"optionalInt64": "9223372036854775808"}', what="out of range")
        self.refuse('{"optionalInt32": " 1"}')
        self.refuse('{"optionalInt32": true}')

    def test_floats(self):
        self.expect('{"optionalDouble": "NaN", "optionalFloat": "-Infinity"}',
                    {"optional_double": "NaN", "optional_float": "-Infinity"})
        self.expect('{"optionalDouble": "1.5"}', {"optional_double": 1.5})
        self.expect('{"optionalFloat": 0.1}', {"optional_float": 0.1})
        self.expect('{"optionalDouble": 1e308}', {"optional_double": 1e308})
        self.refuse('{"optionalFloat": 3.5e38}', what="out of range")
        self.refuse('{"optionalDouble": "nan"}')
        self.refuse('{"optionalDouble": true}')

    def test_bytes_and_strings(self):
        raw = bytes([0xFB, 0xFF, 0xBF, 0x01])
        for text in ("+/+/AQ==", "+/+/AQ", "-_-_AQ==", "-_-_AQ"):
            self.expect('{"optionalBytes": "%s"}' % text, {"optional_bytes": "+/+/AQ=="})
        rc, m = self.parse('{"optionalBytes": "-_-_AQ"}')
        self.assertEqual(m.optional_bytes, raw)
        self.refuse('{"optionalBytes": "!!"}', what="base64")
        self.refuse('{"optionalString": 1}')
        self.refuse('{"optionalString": "\\ud800"}')

    def test_enums(self):
        self.expect('{"optionalNestedEnum": "BAZ"}', {"optional_nested_enum": "BAZ"})
        self.expect('{"optionalNestedEnum": 2}', {"optional_nested_enum": 2})
        self.expect('{"optionalNestedEnum": 12345}', {"optional_nested_enum": 12345})  # open enum
        # TestAllTypesProto3.AliasedEnum: ALIAS_BAZ = 2, MOO = 2, moo = 2, bAz = 2.
        for alias in ("ALIAS_BAZ", "MOO", "moo", "bAz"):
            self.expect('{"optionalAliasedEnum": "%s"}' % alias, {"optional_aliased_enum": 2})
        self.refuse('{"optionalNestedEnum": "NOPE"}', what="not a value")
        self.expect('{"optionalNestedEnum": "NOPE", "optionalInt32": 1}', {"optional_int32": 1},
                    extra=["ignore_unknown_fields=true"])
        self.refuse('{"optionalNestedEnum": 12345}', typ=P2, what="not a value")  # closed enum

    def test_null(self):
        self.expect('{"optionalInt32": null, "optionalNestedMessage": null, "repeatedInt32": null,'
                    ' "mapStringString": null, "optionalTimestamp": null}', {})
        self.expect('{"optionalValue": null}', {"optional_value": None})
        self.refuse('{"repeatedInt32": [1, null]}', what="null")
        self.refuse('{"mapStringString": {"a": null}}', what="null")
        self.expect('{"repeatedValue": [null, 1]}', {"repeated_value": [None, 1]})

    def test_duplicates_and_oneof(self):
        self.refuse('{"optionalInt32": 1, "optionalInt32": 2}', what="twice")
        self.refuse('{"mapStringString": {"a": "1", "a": "2"}}', what="twice")
        self.refuse('{"oneofUint32": 1, "oneofString": "x"}', what="oneof")
        self.expect('{"oneofUint32": 1, "oneofString": null}', {"oneof_uint32": 1})

    def test_maps(self):
        self.expect('{"mapInt32Int32": {"-1": 2}, "mapBoolBool": {"true": false},'
                    ' "mapInt64Int64": {"-9223372036854775808": "1"}}',
                    {"map_int32_int32": {"-1": 2}, "map_bool_bool": {"true": False},
                     "map_int64_int64": {"-9223372036854775808": 1}})
        self.refuse('{"mapInt32Int32": {"x": 1}}', what="integer")
        self.refuse('{"mapBoolBool": {"1": true}}')

    def test_timestamps(self):
        for text, secs, nanos in (
                ("1970-01-01T00:00:00Z", 0, 0),
                ("1970-01-01T00:00:00.5Z", 0, 500000000),
                ("1970-01-01T01:00:00+01:00", 0, 0),
                ("1969-12-31T23:00:00-01:00", 0, 0),
                ("0001-01-01T00:00:00Z", -62135596800, 0),
                ("9999-12-31T23:59:59.999999999Z", 253402300799, 999999999),
                ("2000-02-29T12:00:00.000001Z", 951825600, 1000)):
            rc, m = self.parse('{"optionalTimestamp": "%s"}' % text)
            self.assertEqual(rc, 0, "%s: %s" % (text, m))
            self.assertEqual((m.optional_timestamp.seconds, m.optional_timestamp.nanos),
                             (secs, nanos), text)
        for bad in ("0000-12-31T23:59:59Z", "10000-01-01T00:00:00Z", "1970-01-01t00:00:00Z",
                    "1970-01-01T00:00:00z", "1970-01-01T00:00:00", "1970-01-01T00:00:00.0000000001Z",
                    "1970-13-01T00:00:00Z", "1970-02-30T00:00:00Z", "0001-01-01T00:00:00+00:01"):
            self.refuse('{"optionalTimestamp": "%s"}' % bad)
        _, out, _ = self.convert("protobuf", "protojson", self.cls[P3](
            optional_timestamp={"seconds": 1, "nanos": 10000}).SerializeToString(), P3)
        self.assertEqual(json.loads(out), {"optionalTimestamp": "1970-01-01T00:00:01.000010Z"})

    def test_durations(self):
        for text, secs, nanos in (("1.5s", 1, 500000000), ("-1.5s", -1, -500000000), ("0s", 0, 0),
                                  ("315576000000s", 315576000000, 0),
                                  ("-315576000000.999999999s", -315576000000, -999999999),
                                  ("0.000000001s", 0, 1), ("-0.5s", 0, -500000000)):
            rc, m = self.parse('{"optionalDuration": "%s"}' % text)
            self.assertEqual(rc, 0, "%s: %s" % (text, m))
            self.assertEqual((m.optional_duration.seconds, m.optional_duration.nanos),
                             (secs, nanos), text)
        for bad in ("1", "1.5", "315576000001s", "1.0000000001s", "s", "+1s", "1.s", 1.5):
            self.refuse('{"optionalDuration": %s}' % json.dumps(bad))
        _, out, _ = self.convert("protobuf", "protojson", self.cls[P3](
            optional_duration={"seconds": -3, "nanos": -500000000}).SerializeToString(), P3)
        self.assertEqual(json.loads(out), {"optionalDuration": "-3.500s"})

    def test_well_known(self):
        self.expect('{"optionalFieldMask": "fooBar,baz.quxQuux"}',
                    {"optional_field_mask": "fooBar,baz.quxQuux"})
        rc, m = self.parse('{"optionalFieldMask": "fooBar,baz.quxQuux"}')
        self.assertEqual(list(m.optional_field_mask.paths), ["foo_bar", "baz.qux_quux"])
        self.refuse('{"optionalFieldMask": "foo_bar"}', what="FieldMask")
        self.expect('{"optionalInt64Wrapper": "5", "optionalBoolWrapper": false,'
                    ' "optionalBytesWrapper": "AQ", "optionalFloatWrapper": "NaN"}',
                    {"optional_int64_wrapper": 5, "optional_bool_wrapper": False,
                     "optional_bytes_wrapper": "AQ==", "optional_float_wrapper": "NaN"})
        self.expect('{"optionalStruct": {"a": [1, "x", null, {"b": true}]}, "optionalValue": 3}',
                    {"optional_struct": {"a": [1, "x", None, {"b": True}]}, "optional_value": 3})
        self.expect('{"optionalAny": {"@type": "type.googleapis.com/google.protobuf.Duration",'
                    ' "value": "1s"}}',
                    {"optional_any": {"@type": "type.googleapis.com/google.protobuf.Duration",
                                      "value": "1s"}})
        self.expect('{"optionalAny": {"optionalInt32": 5, "@type": "type.googleapis.com/'
                    'protobuf_test_messages.proto3.TestAllTypesProto3"}}',
                    {"optional_any": {"@type": "type.googleapis.com/protobuf_test_messages.proto3."
                                      "TestAllTypesProto3", "optional_int32": 5}})
        self.refuse('{"optionalAny": {"@type": "type.googleapis.com/no.Such"}}', what="no message")
        self.refuse('{"optionalAny": {"optionalInt32": 5}}', what="@type")
        self.expect('{"optionalEmpty": {}}', {"optional_empty": {}}, typ=P3) \
            if "optional_empty" in self.cls[P3].DESCRIPTOR.fields_by_name else None

    def test_output_forms(self):
        m = self.cls[P3](optional_int64=-1, optional_uint64=2 ** 64 - 1, optional_bytes=b"\xfb\xff",
                         optional_double=math.inf, optional_nested_enum=2, optional_float=0.1)
        m.optional_field_mask.paths.extend(["foo_bar", "x.y_z"])
        _, out, _ = self.convert("protobuf", "protojson", m.SerializeToString(), P3)
        self.assertEqual(json.loads(out), {
            "optionalInt64": "-1", "optionalUint64": "18446744073709551615",
            "optionalFloat": 0.1, "optionalDouble": "Infinity", "optionalBytes": "+/8=",
            "optionalNestedEnum": "BAZ", "optionalFieldMask": "fooBar,x.yZ"})
        m = self.cls[P3]()
        m.optional_field_mask.paths.append("fooBar")
        rc, _, err = self.convert("protobuf", "protojson", m.SerializeToString(), P3, check=False)
        self.assertEqual(rc, 3, err)
        self.assertIn("/optional_field_mask", err)

    def test_hostile_input(self):
        err = self.refuse('{\n  "optionalInt32": "x"\n}')
        self.assertIn("/optionalInt32", err)
        self.assertIn("line 2, column 20", err)
        err = self.refuse('{"optionalNestedMessage": {"a": 1')
        err = self.refuse('{"repeatedInt32": [1, 2, "z"]}')
        self.assertIn("/repeatedInt32/2", err)
        self.refuse('[1]', what="object")
        self.refuse('{"recursiveMessage": ' * 200 + '{}' + '}' * 200)
        self.refuse('')
        self.refuse('{"optionalInt32": 1} x')
        rc, _, err = self.convert("protojson", "protobuf", b'{"optionalString": "\xff"}', P3,
                                  check=False)
        self.assertEqual(rc, 2)
        self.assertIn("UTF-8", err)


if __name__ == "__main__":
    unittest.main()
