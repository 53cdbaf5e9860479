"""Differential tests of the TOML codec against Python's tomllib and npm `smol-toml`.

Both directions: the references read what polycodec writes, polycodec reads what smol-toml
writes (tomllib has no writer); values are compared with types kept. TOML needs a table at
the root, so arrays are wrapped as {"records": [...]}, and it has no null, so fixtures with
nulls are written with --lossy (nulls dropped, reported on stderr) and compared with the nulls
removed. Maps are compared without their key order against the references (JavaScript
objects move integer-like keys first); our own round trips keep the order and are compared
with it.
"""
import datetime
import json
import math
import os
import re
import sys
import tomllib
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402


def drop_nulls(v):
    if isinstance(v, list):
        return [drop_nulls(x) for x in v if x is not None]
    if isinstance(v, dict):
        return {k: drop_nulls(x) for k, x in v.items() if x is not None}
    return v


def norm_time(text):
    """Date-time text compared at millisecond precision, 'T'/'Z' spellings unified."""
    t = text.replace(" ", "T").replace("t", "T").replace("z", "Z")
    t = re.sub(r"[+-]00:00$", "Z", t)
    m = re.match(r"^(.*?\d\d:\d\d:\d\d)(?:\.(\d+))?(.*)$", t)
    if m:
        t = "%s.%s%s" % (m.group(1), (m.group(2) or "").ljust(3, "0")[:3], m.group(3))
    return t


def canon(v):
    """Comparable form: dicts with sorted keys, date-times as ('time', kind, text)."""
    if isinstance(v, dict):
        return {k: canon(v[k]) for k in sorted(v)}
    if isinstance(v, list):
        return [canon(x) for x in v]
    if isinstance(v, datetime.datetime):
        kind = "offset" if v.tzinfo is not None else "local-datetime"
        return ("time", kind, norm_time(v.isoformat()))
    if isinstance(v, datetime.date):
        return ("time", "local-date", v.isoformat())
    if isinstance(v, datetime.time):
        return ("time", "local-time", norm_time(v.isoformat()))
    return v


def tag(v):
    """Python value -> tagged JSON value (date-times as $date)."""
    def other(x, rec):
        if isinstance(x, dict):
            return {k: rec(e) for k, e in x.items()}
        if isinstance(x, tuple) and x[0] == "time":
            return {"$date": x[1], "v": x[2]}
        raise TypeError(type(x))
    return common.tagged(v, other)


def untag(v):
    """Tagged JSON value (numbers already floats) -> Python value."""
    def other(d, rec):
        return ("time", d["$date"], norm_time(d["v"])) if "$date" in d else None
    return common.untagged(v, other)


def smol_parse(toml_bytes):
    return untag(json.loads(common.node("ref_toml.mjs", ["parse"], toml_bytes), parse_int=float))


def smol_stringify(value):
    return common.node("ref_toml.mjs", ["stringify"], json.dumps(tag(value)).encode())


def ours_to_toml(value, *flags):
    return common.convert(["--from", "json", "--to", "toml", *flags],
                          json.dumps(value).encode())[1]


def ours_toml_to_json(toml_bytes):
    return json.loads(common.convert(["--from", "toml", "--to", "json"], toml_bytes)[1])


def same(test, a, b, where=""):
    common.same_value(test, canon(a), canon(b), where)


EDGE = {
    "strings": ["", "plain", "quote\"s", "back\\slash", "tab\t", "nl\ncr\r", "nul\x00",
                "ctl\x01\x1f", "del\x7f", "é東京\U0001F600", "'single'", "a = b", "# not a comment",
                "[not.a.table]", "\u2028\u2029\x85"],
    "ints": [0, -1, 2**63 - 1, -2**63, 2**53 + 1],
    "floats": [0.0, -0.0, 1.0, -2.5, 1e300, 5e-324, 0.1, 1.7976931348623157e308, 100.0],
    "bools": [True, False],
    "keys": {"bare_key-1": 1, "": 2, "a.b": 3, "a b": 4, "é": 5, "\"q\"": 6, "1": 7,
             "true": 8, "x\ny": 9},
    "empty": {"list": [], "map": {}},
    "mixed": [1, "a", {"t": 1}, [2, {"u": [3]}], []],
    "nested_aot": [[{"a": 1}, {"b": 2}], [{"c": 3}]],
    "aot": [{"name": "x", "sub": {"deep": {"v": 1}}, "list": [{"k": 1}, {"k": 2}]},
            {"name": "y", "sub": {}, "list": []}],
    "deep": {"a": {"b": {"c": {"d": {"e": [1, 2]}}}}},
    "quoted path": {"with.dot": {"x y": {"k": "v"}}},
}


class TomlDifferential(unittest.TestCase):
    def test_tomllib_reads_our_records(self):
        records = common.load_json_fixture("records.json")
        rc, ours, err = common.convert(["--from", "json", "--to", "toml", "--lossy"],
                                       json.dumps({"records": records}).encode())
        self.assertIn("null_dropped", err)
        same(self, tomllib.loads(ours.decode()), {"records": drop_nulls(records)}, "records: ")

    def test_tomllib_reads_our_bench(self):
        bench = common.load_json_fixture("bench.json")
        wrapped = bench if isinstance(bench, dict) else {"records": bench}
        ours = common.convert(["--from", "json", "--to", "toml", "--lossy"],
                              json.dumps(wrapped).encode())[1]
        same(self, tomllib.loads(ours.decode()), drop_nulls(wrapped), "bench: ")

    def test_smol_toml_reads_our_records(self):
        records = common.load_json_fixture("records.json")
        ours = common.convert(["--from", "json", "--to", "toml", "--lossy"],
                              json.dumps({"records": records}).encode())[1]
        same(self, smol_parse(ours), {"records": drop_nulls(records)}, "records: ")

    def test_we_read_smol_toml_records(self):
        records = drop_nulls(common.load_json_fixture("records.json"))
        theirs = smol_stringify({"records": records})
        same(self, ours_toml_to_json(theirs), {"records": records}, "records: ")

    def test_references_read_our_edge_cases(self):
        ours = ours_to_toml(EDGE)
        same(self, tomllib.loads(ours.decode()), EDGE, "tomllib: ")
        same(self, smol_parse(ours), EDGE, "smol-toml: ")

    def test_we_read_smol_toml_edge_cases(self):
        theirs = smol_stringify(EDGE)
        same(self, ours_toml_to_json(theirs), EDGE, "edge: ")

    def test_special_floats_and_date_times(self):
        doc = (b"inf = inf\nninf = -inf\nnan = nan\nnz = -0.0\n"
               b"odt = 1979-05-27T00:32:00.999-07:00\nz = 1979-05-27 07:32:00Z\n"
               b"ldt = 1979-05-27T07:32:00\nld = 1979-05-27\nlt = 00:32:00.5\n")
        ours = common.convert(["--from", "toml", "--to", "toml"], doc)[1]
        self.assertEqual(ours, b"inf = inf\nninf = -inf\nnan = nan\nnz = -0.0\n"
                               b"odt = 1979-05-27T00:32:00.999-07:00\nz = 1979-05-27T07:32:00Z\n"
                               b"ldt = 1979-05-27T07:32:00\nld = 1979-05-27\nlt = 00:32:00.5\n")
        expected = tomllib.loads(doc.decode())
        got = tomllib.loads(ours.decode())
        self.assertTrue(math.isnan(got.pop("nan")) and math.isnan(expected.pop("nan")))
        same(self, got, expected, "tomllib: ")
        got = smol_parse(ours)
        self.assertTrue(math.isnan(got.pop("nan")))
        same(self, got, expected, "smol-toml: ")

    def test_toml_test_valid_cases_survive_our_encoder(self):
        base = common.corpus("toml", "tests")
        with open(os.path.join(base, "files-toml-1.0.0")) as f:
            files = [l.strip() for l in f if l.startswith("valid/") and l.strip().endswith(".toml")]
        self.assertEqual(len(files), 210)
        for rel in files:
            with open(os.path.join(base, rel), "rb") as f:
                src = f.read()
            ours = common.convert(["--from", "toml", "--to", "toml"], src)[1]
            # tomllib takes text and rejects a leading BOM (utf8-bom-*.toml): drop it for it.
            a = tomllib.loads(src.decode().removeprefix("\ufeff"))
            b = tomllib.loads(ours.decode())
            # NaN != NaN: compare through repr of the canonical form.
            self.assertEqual(repr(canon(b)), repr(canon(a)), rel)

    def test_records_round_trip_through_toml(self):
        records = common.load_json_fixture("records.json")
        toml_bytes = common.convert(["--from", "json", "--to", "toml", "--lossy"],
                                    json.dumps({"records": records}).encode())[1]
        back = ours_toml_to_json(toml_bytes)
        common.same_value(self, back, {"records": drop_nulls(records)}, "records: ")
        # Without nulls nothing is lost and nothing needs --lossy.
        clean = drop_nulls(records)
        toml_bytes = common.convert(["--from", "json", "--to", "toml"],
                                    json.dumps({"records": clean}).encode())[1]
        common.same_value(self, ours_toml_to_json(toml_bytes), {"records": clean}, "records: ")

    def test_unrepresentable_exit_3_with_path(self):
        cases = [
            ({"a": {"b": [1, None]}}, "/a/b/1"),
            ([1, 2], ""),
            ({"u": 2**64 - 1}, "/u"),
        ]
        for value, path in cases:
            rc, _, err = common.convert(["--from", "json", "--to", "toml"],
                                        json.dumps(value).encode(), check=False)
            self.assertEqual(rc, 3, err)
            self.assertIn("not representable" if path == "" else path, err)
        rc, out, err = common.convert(["--from", "json", "--to", "toml", "--lossy"], b"[1, 2]")
        self.assertEqual(out, b"root = [1, 2]\n")
        self.assertIn("root_wrapped", err)

    def test_malformed_gives_exit_2_with_line_and_column(self):
        cases = [
            (b"a = 1\nb = [1, 2\n", "line 3, column 1"),
            # A key defined twice is reported at the key (our own parser since issue 14).
            (b"a = 1\na = 2\n", "line 2, column 1 (byte 6), at /a"),
            (b"x = 1 y = 2\n", "line 1, column 7"),
            (b"[t]\nk = \"bad \\q\"\n", "line 2, column 11"),
        ]
        common.assert_malformed(self, "toml", cases)


if __name__ == "__main__":
    unittest.main()
