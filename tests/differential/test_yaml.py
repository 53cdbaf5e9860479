"""Differential tests of the YAML codec against npm `yaml` (YAML 1.2) and PyYAML (YAML 1.1).

Both directions: the references read what polycodec writes, polycodec reads what the
references write; values are compared with types (int vs float) kept. The bridge to node is
tagged JSON (see ref_yaml.mjs): {"$int": "..."} integers, {"$float": "nan"} special floats,
{"$bytes": base64}.
"""
import base64
import json
import math
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402


def tag(v):
    """Python value -> tagged JSON value (None, bytes as $bytes, dicts as $map)."""
    def other(x, rec):
        if x is None:
            return None
        if isinstance(x, bytes):
            return {"$bytes": base64.b64encode(x).decode()}
        if isinstance(x, dict):
            return {"$map": [[rec(k), rec(e)] for k, e in x.items()]}
        raise TypeError(type(x))
    return common.tagged(v, other)


def untag(v):
    """Tagged JSON value (numbers already floats) -> Python value."""
    def other(d, rec):
        if "$bytes" in d:
            return base64.b64decode(d["$bytes"])
        if "$map" in d:
            return {rec(k): rec(x) for k, x in d["$map"]}
        return None
    return common.untagged(v, other)


def ref_parse(yaml_bytes, multi=False):
    out = common.node("ref_yaml.mjs", ["parse"] + (["--multi"] if multi else []), yaml_bytes)
    # Every plain number from the reference is a float: integers arrive as {"$int": ...}.
    return untag(json.loads(out, parse_int=float))


def ref_stringify(value):
    return common.node("ref_yaml.mjs", ["stringify"], json.dumps(tag(value)).encode())


def ours_to_yaml(value_json_bytes, *flags):
    return common.convert(["--from", "json", "--to", "yaml", *flags], value_json_bytes)[1]


def ours_yaml_to_json(yaml_bytes, *flags):
    return json.loads(common.convert(["--from", "yaml", "--to", "json", *flags], yaml_bytes)[1])


# Strings that must survive as strings: everything a YAML 1.1 or 1.2 reader could type.
TRICKY_STRINGS = [
    "true", "False", "TRUE", "yes", "No", "ON", "off", "y", "N", "null", "Null", "~", "",
    "0", "-1", "+1", "1.5", "-.5", ".5", "1.", "1e3", "1E-3", "0x1F", "0o17", "0b101", "017",
    "1_000", "1:20", "190:20:30", ".inf", "-.INF", ".NaN", "2001-12-14", "2001-12-14t21:59:43.10-05:00",
    "2001-12-14 21:59:43.10 -5", "<<", "=", "- item", "? key", ": value", "a: b", "a #b", "#c",
    "[x]", "{x}", "x]", ",", "&anchor", "*alias", "!tag", "|", ">", "'", '"', "%", "@", "`",
    " lead", "trail ", "  ", "tab\there", "line\nbreak", "cr\rlf", "nul\x00", "bell\x07",
    "esc\x1b", "del\x7f", "nel\x85", "nbsp\xa0", "ls\u2028ps\u2029", "bom\ufeff", "\ufffe",
    "emoji \U0001F600", "Ελληνικά", "東京", "it's", 'say "hi"', "back\\slash", "a:b", "a#b",
    "---", "...", "--- x", "... x", "x:", "k: ", "plain text", "-", "?", ":", "._5", ".", "._",
]

EDGE = {
    "strings": TRICKY_STRINGS,
    "ints": [0, 1, -1, 2**53 + 1, 2**63 - 1, -2**63, 2**64 - 1, 10**30, -10**30],
    "floats": [0.0, -0.0, 1.0, -2.5, 1e300, 5e-324, 0.1, 1.7976931348623157e308, 123456.789],
    "bools": [True, False],
    "null": None,
    "empty": {"list": [], "map": {}},
    "nested": [[[]], [{}], [[1, [2, [3]]]], {"a": {"b": {"c": [{"d": None}]}}}],
    "keys": {"true": 1, "null": 2, "1": 3, "": 4, "a: b": 5, "- x": 6, "x y": 7, "é": 8},
    "long": "x" * 5000,
}

SPECIAL_FLOATS = [math.nan, math.inf, -math.inf]


class YamlDifferential(unittest.TestCase):
    def test_reference_reads_our_records(self):
        data = common.fixture("records.json")
        ours = ours_to_yaml(data)
        common.same_value(self, ref_parse(ours), json.loads(data), "records: ")

    def test_reference_reads_our_bench(self):
        data = common.fixture("bench.json")
        ours = ours_to_yaml(data)
        common.same_value(self, ref_parse(ours), json.loads(data), "bench: ")

    def test_we_read_reference_records(self):
        value = common.load_json_fixture("records.json")
        theirs = ref_stringify(value)
        common.same_value(self, ours_yaml_to_json(theirs), value, "records: ")

    def test_reference_reads_our_edge_cases(self):
        ours = ours_to_yaml(json.dumps(EDGE).encode())
        common.same_value(self, ref_parse(ours), EDGE, "edge: ")

    def test_reference_reads_our_special_floats_and_bytes(self):
        # JSON cannot carry these: build the document from YAML the reference wrote.
        value = {"f": SPECIAL_FLOATS, "b": b"\x00\x01\xfehello", "e": b""}
        theirs = ref_stringify(value)
        ours = common.convert(["--from", "yaml", "--to", "yaml"], theirs)[1]
        self.assertIn(b".nan", ours)
        self.assertIn(b"-.inf", ours)
        self.assertIn(b"!!binary", ours)
        got = ref_parse(ours)
        common.same_value(self, got, value, "special: ")

    def test_we_read_reference_edge_cases(self):
        # Left out here: npm yaml 2.9.1 writes DEL (U+007F) and U+FFFE raw, which YAML 1.2
        # forbids (not c-printable) and our parser rejects. The raw U+FEFF, NEL and LS it
        # writes inside scalars are content for YAML 1.2 and for us. Our writer escapes all
        # of these.
        bad = ("\x7f", "\ufffe")
        edge = dict(EDGE, strings=[s for s in TRICKY_STRINGS if not any(b in s for b in bad)])
        theirs = ref_stringify(edge)
        common.same_value(self, ours_yaml_to_json(theirs), edge, "edge: ")

    def test_pyyaml_yaml11_reads_our_strings_as_strings(self):
        try:
            import yaml  # PyYAML (Debian python3-yaml): a YAML 1.1 reader
        except ImportError:
            raise unittest.SkipTest("PyYAML (python3-yaml) is not installed")
        ours = ours_to_yaml(json.dumps({"s": TRICKY_STRINGS, "keys": EDGE["keys"]}).encode())
        got = yaml.load(ours.decode(), Loader=yaml.SafeLoader)
        common.same_value(self, got, {"s": TRICKY_STRINGS, "keys": EDGE["keys"]}, "pyyaml: ")
        # Numbers keep their type under YAML 1.1 too (1.1 floats need a '.').
        nums = {"i": [0, -7, 2**63 - 1], "f": [1.0, -2.5, 1e300, 5e-324, 0.1]}
        got = yaml.load(ours_to_yaml(json.dumps(nums).encode()).decode(), Loader=yaml.SafeLoader)
        common.same_value(self, got, nums, "pyyaml numbers: ")

    def test_multi_document_streams(self):
        stream = b"a: 1\n---\n- x\n--- 3\n...\n"
        common.same_value(self, ours_yaml_to_json(stream, "--multi"), [{"a": 1}, ["x"], 3])
        common.same_value(self, ref_parse(stream, multi=True), [{"a": 1}, ["x"], 3])
        rc, _, err = common.convert(["--from", "yaml", "--to", "json"], stream, check=False)
        self.assertEqual(rc, 2, err)
        self.assertIn("line 2, column 1", err)

    def test_anchors_and_aliases_match_reference(self):
        doc = b"base: &b {x: 1, y: [1, 2]}\ncopy: *b\nlist: [&s str, *s, *b]\n"
        common.same_value(self, ours_yaml_to_json(doc), ref_parse(doc), "aliases: ")

    def test_core_schema_matches_reference(self):
        doc = ("[null, Null, ~, true, False, 0, -12, +7, 0o17, 0x1F, 1.5, .5, 1e3, -.inf, .NaN,"
               " yes, no, on, off, 1_000, 0b11, 2001-12-14, '1', \"true\", 12:30, .inf]\n").encode()
        ours = ours_yaml_to_json(doc, "--lossy")
        ref = ref_parse(doc)
        # JSON has no NaN/Infinity: our lossy JSON writes null for them.
        ref = [None if isinstance(x, float) and (math.isnan(x) or math.isinf(x)) else x
               for x in ref]
        common.same_value(self, ours, ref, "core: ")

    def test_records_round_trip_through_yaml(self):
        data = common.fixture("records.json")
        back = json.loads(common.convert(["--from", "yaml", "--to", "json"],
                                         ours_to_yaml(data))[1])
        common.same_value(self, back, json.loads(data), "records: ")

    def test_billion_laughs_fails_fast(self):
        doc = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
        for c in "bcdefghi":
            prev = chr(ord(c) - 1)
            doc += "%s: &%s [%s]\n" % (c, c, ", ".join(["*" + prev] * 9))
        rc, _, err = common.convert(["--from", "yaml", "--to", "json"], doc.encode(),
                                    check=False)
        self.assertEqual(rc, 2, err)
        self.assertIn("budget", err)

    def test_malformed_gives_exit_2_with_line_and_column(self):
        cases = [
            (b"a: [1, 2\nb: 3\n", "line 2, column 1"),  # the less indented line inside the flow sequence
            (b"key: \"unterminated\n", "line 2, column 1"),
            (b"a: 1\n b: 2\n", "line 2, column 3"),
            (b"a: *missing\n", "line 1, column 4"),
        ]
        common.assert_malformed(self, "yaml", cases)


if __name__ == "__main__":
    unittest.main()
