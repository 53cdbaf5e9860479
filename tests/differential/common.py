"""Shared helpers of the differential tests (Python unittest, run by ctest).

The tests run the real `polycodec` binary (POLYCODEC_BIN) and independent implementations:
Python's standard library and the npm packages of tests/differential/package.json.
"""
import json
import math
import os
import shutil
import subprocess
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.environ.get("POLYCODEC_SOURCE_DIR", os.path.dirname(os.path.dirname(HERE)))
FIXTURES = os.path.join(SOURCE_DIR, "fixtures")
CORPUS = os.environ.get("POLYCODEC_CORPUS_DIR",
                        os.path.join(SOURCE_DIR, "..", "shared", "corpus"))
NODE_MODULES = os.path.join(HERE, "node_modules")


def polycodec_bin():
    b = os.environ.get("POLYCODEC_BIN")
    if not b or not os.path.exists(b):
        raise unittest.SkipTest("POLYCODEC_BIN is not set (run through ctest)")
    return b


def convert(args, data, check=True):
    """Runs `polycodec convert ARGS` with `data` (bytes) on stdin.

    Returns (returncode, stdout bytes, stderr text). With check=True a non-zero exit fails
    with the message."""
    p = subprocess.run([polycodec_bin(), "convert", *args], input=data,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    err = p.stderr.decode("utf-8", "replace")
    if check and p.returncode != 0:
        raise AssertionError("polycodec convert %s failed (%d): %s" % (args, p.returncode, err))
    return p.returncode, p.stdout, err


def from_json(fmt, data, pretty=False):
    """`polycodec convert --from json --to FMT` (with --pretty when asked) of `data`."""
    return convert(["--from", "json", "--to", fmt] + (["--pretty"] if pretty else []), data)[1]


def assert_round_trips(test, fmt, data):
    """json -> FMT -> json with polycodec, compact and --pretty, gives the value of `data`."""
    for pretty in (False, True):
        _, back, _ = convert(["--from", fmt, "--to", "json"], from_json(fmt, data, pretty))
        same_value(test, json.loads(back), json.loads(data), "pretty=%s: " % pretty)


def node(script, args=(), data=b""):
    """Runs tests/differential/SCRIPT with node, `data` on stdin; returns stdout bytes."""
    if shutil.which("node") is None:
        raise unittest.SkipTest("node is not installed")
    if not os.path.isdir(NODE_MODULES):
        raise unittest.SkipTest("npm packages missing: run scripts/deps.sh")
    p = subprocess.run(["node", os.path.join(HERE, script), *args], input=data,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120, cwd=HERE)
    if p.returncode != 0:
        raise AssertionError("node %s %s failed: %s" % (script, args, p.stderr.decode()))
    return p.stdout


def convert_fails(test, args, data, code):
    """Runs `polycodec convert ARGS` on `data`, asserts the exit status CODE (2: malformed
    input, 3: not representable) and returns the message."""
    rc, _, err = convert(args, data, check=False)
    test.assertEqual(rc, code, err)
    return err


def assert_malformed_at(test, fmt, cases):
    """For each (text, line, column) of `cases`: `convert --from FMT --to json` of the text
    exits 2 naming "line LINE, column COLUMN"; one subtest each."""
    for text, line, column in cases:
        with test.subTest(text=text):
            err = convert_fails(test, ["--from", fmt, "--to", "json"], text.encode(), 2)
            test.assertIn("line %d, column %d" % (line, column), err)


def assert_malformed(test, fmt, cases):
    """For each (data, where) of `cases`: `convert --from FMT --to json` exits 2 with `where`
    (e.g. "byte 2") in its message and writes nothing; one subtest each."""
    for data, where in cases:
        with test.subTest(data.hex()):
            rc, out, err = convert(["--from", fmt, "--to", "json"], data, check=False)
            test.assertEqual(rc, 2, err)
            test.assertIn(where, err)
            test.assertEqual(out, b"")


def corpus(*parts):
    """Path of a corpus file or folder; skips the test when the corpus is absent."""
    path = os.path.join(CORPUS, *parts)
    if not os.path.exists(path):
        raise unittest.SkipTest("conformance corpus %s not found (set POLYCODEC_CORPUS_DIR)"
                                % os.path.join(*parts))
    return path


def table_names():
    """The format names of the table (codec/src/format.cpp), in id order, as scripts/fuzz and
    tests/fuzz/CMakeLists.txt read it."""
    import re
    with open(os.path.join(SOURCE_DIR, "codec", "src", "format.cpp")) as f:
        return re.findall(r'^ *\{format_id::[a-z0-9_]+, "([a-z0-9_]+)"', f.read(), re.M)


# The formats of the table in id order, then some added later (`polycodec formats`, GET /formats).
FIRST_FORMATS = ["json", "json5", "hjson", "yaml", "ron", "sexpr", "cbor", "msgpack", "pickle",
                 "toml", "bson", "bencode", "postcard", "csv", "ndjson", "urlform", "ini", "edn",
                 "ubjson", "smile", "dotenv"]
LATER_FORMATS = ["plist", "properties", "protojson", "xml", "avro", "protobuf"]


def assert_format_names(test, names):
    """`names`, as the CLI or the service lists them, are the table's, in id order."""
    test.assertEqual(names, table_names())
    test.assertEqual(names[:len(FIRST_FORMATS)], FIRST_FORMATS)
    for name in LATER_FORMATS:
        test.assertIn(name, names)


def fixture(name):
    with open(os.path.join(FIXTURES, name), "rb") as f:
        return f.read()


def load_json_fixture(name):
    return json.loads(fixture(name))


# The JSON fixtures and json-bench corpus files most suites run through a codec.
FIXTURE_NAMES = ["records.json", "bench.json"]
JSON_BENCH = ["twitter.json", "citm_catalog.json", "canada.json"]


def json_bench(name):
    """A file of the json-bench corpus (skips the test when the corpus is absent)."""
    with open(corpus("json-bench", name), "rb") as f:
        return f.read()


class TextCodec:
    """Mixin (FORMAT): encode(doc) is polycodec's FORMAT text of the JSON value `doc`;
    decode(text, infer) is the value polycodec reads from FORMAT text (bytes or str), with
    --infer when asked."""

    def encode(self, doc):
        return from_json(self.FORMAT, json.dumps(doc).encode())

    def decode(self, text, infer=False):
        args = ["--from", self.FORMAT, "--to", "json"] + (["--infer"] if infer else [])
        _, out, _ = convert(args, text if isinstance(text, bytes) else text.encode())
        return json.loads(out)


class FixtureChecks:
    """Mixin of a unittest.TestCase with check(data, name): test_fixtures runs it on each of
    FIXTURE_NAMES, one subtest each."""

    def test_fixtures(self):
        for name in FIXTURE_NAMES:
            with self.subTest(name):
                self.check(fixture(name), name)


class CorpusChecks(FixtureChecks):
    """FixtureChecks, and test_json_bench runs check(data, name) on each of JSON_BENCH."""

    def test_json_bench(self):
        for name in JSON_BENCH:
            with self.subTest(name):
                self.check(json_bench(name), name)


class RecordsBenchEdge:
    """Mixin of a unittest.TestCase with check(name, data, pretty) and EDGE (a value JSON
    can hold): test_records, test_bench and test_edge_cases check records.json, bench.json
    and EDGE, each with pretty False and True. PRETTY = None: check(name, data) once."""

    PRETTY = (False, True)

    def check_each(self, name, data):
        if self.PRETTY is None:
            self.check(name, data)
        for pretty in self.PRETTY or ():
            self.check(name, data, pretty)

    def test_records(self):
        self.check_each("records.json", fixture("records.json"))

    def test_bench(self):
        self.check_each("bench.json", fixture("bench.json"))

    def test_edge_cases(self):
        self.check_each("edge", json.dumps(self.EDGE).encode())


def rebuild(x, on_dict, on_scalar=lambda v: v):
    """x with its lists walked, each dict d replaced by on_dict(d, rec), where rec rebuilds a
    nested value the same way, and anything else by on_scalar(v)."""
    def rec(v):
        if isinstance(v, dict):
            return on_dict(v, rec)
        if isinstance(v, list):
            return [rec(e) for e in v]
        return on_scalar(v)
    return rec(x)


def scalar_text(v):
    """The text polycodec's text formats write for a JSON scalar: true, false and numbers as
    JSON writes them; strings (and anything else) as they are."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return json.dumps(v)
    return v


# Tagged JSON of ref_toml.mjs and ref_yaml.mjs: {"$int": "123"} integers, {"$float": NAME}
# for the floats JSON cannot hold, the format's own tags beside them.
TAGGED_FLOATS = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf, "-0": -0.0}


def tagged(v, other):
    """Python value -> tagged JSON: booleans and strings as they are, ints and floats tagged,
    lists walked; other(v, rec) for anything else (rec tags a nested value)."""
    def rec(x):
        if isinstance(x, bool) or isinstance(x, str):
            return x
        if isinstance(x, int):
            return {"$int": str(x)}
        if isinstance(x, float):
            if math.isnan(x):
                return {"$float": "nan"}
            if math.isinf(x):
                return {"$float": "inf" if x > 0 else "-inf"}
            if x == 0 and math.copysign(1, x) < 0:
                return {"$float": "-0"}
            return x
        if isinstance(x, list):
            return [rec(e) for e in x]
        return other(x, rec)
    return rec(v)


def untagged(v, other):
    """Tagged JSON -> Python value: $int and $float read, lists and dicts walked;
    other(d, rec) reads the format's own tags of a dict d (None: d is a plain mapping)."""
    def on_dict(d, rec):
        if "$int" in d:
            return int(d["$int"])
        if "$float" in d:
            return TAGGED_FLOATS[d["$float"]]
        t = other(d, rec)
        return {k: rec(x) for k, x in d.items()} if t is None else t
    return rebuild(v, on_dict)


def same_value(test, a, b, where=""):
    """Deep equality that tells int from float (json.loads keeps them apart) and names the
    first difference as a JSON Pointer."""
    def walk(x, y, path):
        if type(x) != type(y) and not (isinstance(x, (list, tuple)) and isinstance(y, (list, tuple))):
            test.fail("%s%s: %r (%s) != %r (%s)" % (where, path or "/", x, type(x).__name__,
                                                   y, type(y).__name__))
        if isinstance(x, dict):
            test.assertEqual(list(x.keys()), list(y.keys()), "%s%s: keys differ" % (where, path))
            for k in x:
                walk(x[k], y[k], "%s/%s" % (path, k))
        elif isinstance(x, (list, tuple)):
            test.assertEqual(len(x), len(y), "%s%s: lengths differ" % (where, path))
            for i, (u, v) in enumerate(zip(x, y)):
                walk(u, v, "%s/%d" % (path, i))
        elif isinstance(x, float) and x != x:
            test.assertTrue(y != y, "%s%s: NaN != %r" % (where, path, y))
        else:
            test.assertEqual(x, y, "%s%s" % (where, path))
    walk(a, b, "")
