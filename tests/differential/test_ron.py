"""Differential tests of the ron codec against the ron crate (ron-rs 0.7, Debian's
librust-ron-dev), built offline with cargo from Debian's packaged crates (ron_ref/).

The ron crate reads our output into ron::Value and ron_ref prints it as JSON; the ron crate
writes serde_json values (compact and PrettyConfig::default()) that we decode. Values are
compared, ints and floats kept apart. ron::Value keeps maps in a BTreeMap, so on that side key
order is not compared.
"""
import glob
import json
import math
import os
import shutil
import subprocess
import unittest

import common

HERE = os.path.dirname(os.path.abspath(__file__))
REF_DIR = os.path.join(HERE, "ron_ref")
_ref_bin = None


def ron_ref():
    """Builds ron_ref once per run (cached under the build tree) and returns its path."""
    global _ref_bin
    if _ref_bin:
        return _ref_bin
    cargo = shutil.which("cargo")
    if cargo is None:
        raise unittest.SkipTest("cargo is not installed (apt-get install cargo)")
    if not glob.glob("/usr/share/cargo/registry/ron-0.7*"):
        raise unittest.SkipTest("the ron crate is not installed (apt-get install librust-ron-dev)")
    target = os.path.join(os.path.dirname(os.path.abspath(common.polycodec_bin())), "..",
                          "ron_ref_target")
    env = dict(os.environ, CARGO_TARGET_DIR=os.path.abspath(target))
    # The working directory matters: ron_ref/.cargo/config.toml points cargo at Debian's
    # crates and keeps it offline.
    p = subprocess.run([cargo, "build", "--release", "--offline", "--quiet"], cwd=REF_DIR,
                       env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=900)
    if p.returncode != 0:
        raise AssertionError("building ron_ref failed: " + p.stderr.decode("utf-8", "replace"))
    _ref_bin = os.path.join(os.path.abspath(target), "release", "ron_ref")
    return _ref_bin


def run_ref(mode, data, *args):
    p = subprocess.run([ron_ref(), mode, *args], input=data, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=120)
    if p.returncode != 0:
        raise AssertionError("ron_ref %s failed: %s" % (mode, p.stderr.decode("utf-8", "replace")))
    return p.stdout


def from_ref(x):
    """ron_ref's JSON -> plain values, maps as dicts with text keys, sorted (BTreeMap order)."""
    def pairs(d, rec):
        if "$pairs" not in d:
            return d
        return {str(k): rec(v) for k, v in sorted(d["$pairs"], key=lambda kv: str(kv[0]))}
    return common.rebuild(x, pairs)


def sorted_keys(x):
    return common.rebuild(x, lambda d, rec: {k: rec(d[k]) for k in sorted(d)})


# Inside the ron crate's range: it keeps integers as i64.
EDGE = {
    "empty_map": {},
    "empty_array": [],
    "nested": [[], [[]], {"a": {"b": {}}}, [None, {"n": None}]],
    "unicode": "Ελληνικά 日本語 \U0001F600 \u2028 \u200b",
    "controls": "tab\there\nnew \"q\" back\\slash 'apos' \u0000\u0001\u001f\r\u007f",
    "keys": {"": 1, "with space": 2, "Some": 3, "None": 4, "r#x": 5, "1": 6},
    "numbers": [0, -1, 9223372036854775807, -9223372036854775808, 0.5, -0.0, 1e300, 5e-324,
                1.7976931348623157e308, 100.0, 1e21, 1.5e-7, 0.1],
    "bools": [True, False, None],
}


class RonCrateReadsOurs(common.RecordsBenchEdge, unittest.TestCase):
    EDGE = EDGE

    def check(self, name, data, pretty):
        got = from_ref(json.loads(run_ref("decode", common.from_json("ron", data, pretty))))
        common.same_value(self, got, sorted_keys(json.loads(data)),
                          "%s pretty=%s: " % (name, pretty))

    def test_non_finite_floats_and_integer_keys(self):
        _, out, _ = common.convert(["--from", "sexpr", "--to", "ron"],
                                   b"((nan . +nan.0) (inf . +inf.0) (ninf . -inf.0) (7 . #t))")
        pairs = json.loads(run_ref("decode", out).decode().replace("NaN", '"NaN"'))["$pairs"]
        self.assertEqual(pairs, [[7, True], ["inf", math.inf], ["nan", "NaN"],
                                 ["ninf", -math.inf]])


class WeReadRonCrate(common.RecordsBenchEdge, unittest.TestCase):
    EDGE = EDGE

    def check(self, name, data, pretty):
        written = run_ref("encode", data, *(["--pretty"] if pretty else []))
        _, back, _ = common.convert(["--from", "ron", "--to", "json"], written)
        common.same_value(self, json.loads(back), json.loads(data),
                          "%s pretty=%s: " % (name, pretty))



class SameTextAsRonCrate(unittest.TestCase):
    def test_pretty_output_is_byte_identical(self):
        # records.json holds no float whose shortest form needs an exponent, where Rust's
        # Display (no exponent ever) and our shortest round-trip form differ. The ron crate
        # writes a unit (serde_json's null) as "()", we write None (both read back as null).
        data = common.fixture("records.json")
        _, ours, _ = common.convert(["--from", "json", "--to", "ron", "--pretty"], data)
        theirs = run_ref("encode", data, "--pretty")
        self.assertEqual(ours.decode(), theirs.decode().replace("()", "None"))

    def test_compact_output_is_byte_identical(self):
        data = common.fixture("records.json")
        _, ours, _ = common.convert(["--from", "json", "--to", "ron"], data)
        theirs = run_ref("encode", data)
        self.assertEqual(ours.decode(), theirs.decode().replace("()", "None"))


class Cli(unittest.TestCase):
    def test_convert_round_trip(self):
        common.assert_round_trips(self, "ron", common.fixture("records.json"))

    def test_corpus_files_decode(self):
        for path in sorted(glob.glob(common.corpus("ron", "ron-rs") + "/*.ron")):
            with open(path, "rb") as f:
                common.convert(["--from", "ron", "--to", "json"], f.read())

    def test_malformed_exit_2_with_line_and_column(self):
        common.assert_malformed(self, "ron", [(b"(\n  name: \"x\",\n  count: ?\n)", "line 3, column 10")])


if __name__ == "__main__":
    unittest.main()
