"""Map keys of any kind (DESIGN section 2; issue 14 "Complex keys").

CBOR and MessagePack hold array and map keys both ways, checked against Python's cbor2
(Debian python3-cbor2) and msgpack (python3-msgpack) and hand-written vectors; pickle writes
an array key as a tuple and refuses a map key as Python does (unhashable); every format whose
keys must be strings or scalars refuses a container key naming its JSON Pointer path, and with
--lossy writes the key's compact JSON text (detail/map_key.hpp). The table covers every row of
the format table (codec/src/format.cpp), so a new format must say what it does."""
import json
import os
import pickle
import re
import sys
import tomllib
import unittest
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

try:
    import cbor2
except ImportError:  # scripts/deps.sh installs python3-cbor2
    cbor2 = None
import msgpack  # noqa: E402

# {"a": 1, [1, 2]: "x"} written by hand (RFC 8949: a2 = map of 2, 82 01 02 = [1, 2]).
ARRAY_KEY = bytes.fromhex("a2 61 61 01 82 01 02 61 78")
# [{"a": 1, [1, 2]: "x"}]: for the formats whose root is a list of records.
ARRAY_KEY_IN_LIST = bytes.fromhex("81") + ARRAY_KEY
# {{"b": 1}: "x"}
MAP_KEY = bytes.fromhex("a1 a1 61 62 01 61 78")


def formats():
    with open(os.path.join(common.SOURCE_DIR, "codec", "src", "format.cpp")) as f:
        src = f.read()
    found = re.findall(r'^\s*\{format_id::[a-z0-9_]+, "([a-z0-9_]+)"', src, re.M)
    assert len(found) >= 21, found
    return found


# Formats that write a container key as one (their own syntax holds any value as a key).
HOLDS = {"cbor", "msgpack", "pickle", "ron", "sexpr", "edn", "yaml"}
# Schema-driven formats: a map's keys come from the schema (message fields, avro map keys are
# strings); without a schema they cannot write at all, which is their own tests' matter.
NEEDS_SCHEMA = {"protobuf", "avro", "protojson"}
# XML: an element name cannot be "[1,2]" (nor its text), lossy or not; root=r names the root.
NAME_ONLY = {"xml"}
# Formats whose root must be a list of records.
LIST_ROOT = {"csv", "ndjson"}


def convert(fmt, data, *extra):
    return common.convert(["--from", "cbor", "--to", fmt, *extra], data, check=False)


class ContainerKeyTable(unittest.TestCase):
    def test_every_format(self):
        for fmt in formats():
            with self.subTest(fmt=fmt):
                data = ARRAY_KEY_IN_LIST if fmt in LIST_ROOT else ARRAY_KEY
                path = "/0/[1,2]" if fmt in LIST_ROOT else "/[1,2]"
                rc, out, err = convert(fmt, data)
                if fmt in HOLDS:
                    self.assertEqual(rc, 0, err)
                    continue
                if fmt in NEEDS_SCHEMA:
                    self.assertNotEqual(rc, 0)
                    self.assertIn("schema", err)
                    continue
                if fmt in NAME_ONLY:
                    for extra in ([], ["--lossy"]):
                        rc, out, err = convert(fmt, data, "--root", "r", *extra)
                        self.assertNotEqual(rc, 0, "%s wrote %r" % (fmt, out))
                        self.assertIn("at %s: this map key is not an XML name" % path, err)
                    continue
                self.assertNotEqual(rc, 0, "%s wrote %r" % (fmt, out))
                self.assertIn("at %s:" % path, err)
                # ndjson's lines are JSON text, written by the JSON writer
                name = "json" if fmt == "ndjson" else fmt
                self.assertIn("map key [1,2] is not representable in %s" % name, err)
                rc, out, err = convert(fmt, data, "--lossy")
                self.assertEqual(rc, 0, err)
                self.assertIn("%s: key_to_string" % path, err)
                self.check_lossy_output(fmt, out)

    def check_lossy_output(self, fmt, out):
        """The fallback key is the compact JSON text "[1,2]", read by an independent reader
        where there is one."""
        expect = {"a": 1, "[1,2]": "x"}
        if fmt == "json":
            self.assertEqual(json.loads(out), expect)
        elif fmt == "ndjson":
            self.assertEqual([json.loads(l) for l in out.splitlines()], [expect])
        elif fmt == "toml":
            self.assertEqual(tomllib.loads(out.decode()), expect)
        elif fmt == "yaml":
            import yaml
            self.assertEqual(yaml.safe_load(out), expect)
        elif fmt == "urlform":
            self.assertEqual(urllib.parse.parse_qs(out.decode()), {"a": ["1"], "[1,2]": ["x"]})
        elif fmt == "csv":
            self.assertEqual(out.decode().splitlines(), ["a,\"[1,2]\"", "1,x"])
        elif fmt == "bson":
            self.assertIn(b"\x02[1,2]\x00", out)  # a string element named "[1,2]"
        elif fmt == "bencode":
            self.assertEqual(out, b"d5:[1,2]1:x1:ai1ee")  # keys sorted as raw bytes
        elif fmt == "ini":
            # '[' and ']' cannot start or end an ini key: the writer's own key_changed fallback
            self.assertIn(b"_[1,2_ = x", out)
        elif fmt == "dotenv":
            self.assertIn(b"_1_2_=x", out)  # a dotenv name holds [A-Za-z0-9_] only
        else:  # json5, hjson, smile, ubjson, postcard: the text as the key's bytes
            self.assertIn(b"[1,2]", out)

    def test_map_key_fallback_is_compact_json(self):
        rc, out, err = convert("json", MAP_KEY)
        self.assertNotEqual(rc, 0)
        self.assertIn('at /{"b":1}: map key {"b":1} is not representable in json', err)
        rc, out, err = convert("json", MAP_KEY, "--lossy")
        self.assertEqual(rc, 0, err)
        self.assertEqual(json.loads(out), {'{"b":1}': "x"})


class Yaml(unittest.TestCase):
    def test_array_key_round_trips_as_an_explicit_key(self):
        rc, out, err = convert("yaml", ARRAY_KEY)
        self.assertEqual(rc, 0, err)
        self.assertEqual(out, b"a: 1\n? - 1\n  - 2\n: x\n")  # YAML 1.2 section 6.9.1's "? "
        rc, back, err = common.convert(["--from", "yaml", "--to", "cbor"], out, check=False)
        self.assertEqual(rc, 0, err)
        self.assertEqual(back, ARRAY_KEY)


class Pickle(unittest.TestCase):
    def test_array_key_is_a_tuple(self):
        rc, out, err = convert("pickle", ARRAY_KEY)
        self.assertEqual(rc, 0, err)
        self.assertEqual(pickle.loads(out), {"a": 1, (1, 2): "x"})

    def test_map_key_is_unhashable(self):
        with self.assertRaises(TypeError):  # what Python itself says of a dict key
            {{"b": 1}: "x"}
        rc, out, err = convert("pickle", MAP_KEY)
        self.assertNotEqual(rc, 0)
        self.assertIn("at /{\"b\":1}:", err)
        self.assertIn("unhashable", err)
        rc, out, err = convert("pickle", MAP_KEY, "--lossy")
        self.assertEqual(rc, 0, err)
        self.assertEqual(pickle.loads(out), {'{"b":1}': "x"})


@unittest.skipIf(cbor2 is None, "python3-cbor2 is not installed")
class Cbor2(unittest.TestCase):
    def test_cbor2_reads_ours(self):
        rc, out, err = convert("cbor", ARRAY_KEY)
        self.assertEqual(rc, 0, err)
        self.assertEqual(out, ARRAY_KEY)
        self.assertEqual(cbor2.loads(out), {"a": 1, (1, 2): "x"})
        rc, out, err = convert("cbor", MAP_KEY)
        self.assertEqual(rc, 0, err)
        (key, val), = cbor2.loads(out).items()
        self.assertEqual((dict(key), val), ({"b": 1}, "x"))

    def test_ours_read_cbor2(self):
        value = {(1, (2, "z")): [True], "k": {(): None}}
        data = cbor2.dumps(value)
        rc, out, err = common.convert(["--from", "cbor", "--to", "msgpack"], data, check=False)
        self.assertEqual(rc, 0, err)
        back = msgpack.unpackb(out, strict_map_key=False, use_list=False)
        self.assertEqual(back, {(1, (2, "z")): (True,), "k": {(): None}})
        rc, out, err = common.convert(["--from", "msgpack", "--to", "cbor"], out, check=False)
        self.assertEqual(rc, 0, err)
        self.assertEqual(cbor2.loads(out), {(1, (2, "z")): [True], "k": {(): None}})


class Msgpack(unittest.TestCase):
    def test_msgpack_python_reads_ours(self):
        rc, out, err = convert("msgpack", ARRAY_KEY)
        self.assertEqual(rc, 0, err)
        self.assertEqual(out, bytes.fromhex("82 a1 61 01 92 01 02 a1 78"))  # hand-checked
        self.assertEqual(msgpack.unpackb(out, strict_map_key=False, use_list=False),
                         {"a": 1, (1, 2): "x"})

    def test_ours_read_msgpack_python(self):
        data = msgpack.packb({(1, 2): {(3,): "y"}})
        rc, out, err = common.convert(["--from", "msgpack", "--to", "msgpack"], data, check=False)
        self.assertEqual(rc, 0, err)
        self.assertEqual(out, data)
        # The ordinary reader (int_width=keep skips the fast path) agrees.
        rc, out2, err = common.convert(["--from", "msgpack", "--to", "msgpack", "--int-width",
                                        "keep"], data, check=False)
        self.assertEqual(rc, 0, err)
        self.assertEqual(msgpack.unpackb(out2, strict_map_key=False, use_list=False),
                         {(1, 2): {(3,): "y"}})


if __name__ == "__main__":
    unittest.main()
