"""Differential tests of Smile: the polycodec binary against Jackson's own Smile codec
(Debian libjackson2-dataformat-smile, driven by tests/differential/SmileRef.java, which the
test compiles with javac next to the polycodec binary), in both directions, values compared;
and byte-identical output for JSON data written with Jackson's default settings."""
import base64
import decimal
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

FIXTURES = ["records.json", "bench.json"]
HERE = os.path.dirname(os.path.abspath(__file__))
REF_SOURCE = os.path.join(HERE, "SmileRef.java")
JARS = ["/usr/share/java/jackson-core.jar", "/usr/share/java/jackson-dataformat-smile.jar"]


def edge_json():
    """Every string and name length boundary of the token table, more than 64 and more than
    1024 distinct keys (long back-references, table reset), numbers at every width."""
    v = {
        "ints": [0, -16, 15, -17, 16, 2**31 - 1, -2**31, 2**31, -2**31 - 1, 2**63 - 1, -2**63,
                 2**63, 2**64 - 1, 2**64, -2**63 - 1, 10**40, -10**40],
        "floats": [0.1, -2.5, 1e300, 5e-324, -0.0, 1.0, -1.5e-7],
        "ascii": ["a" * n for n in (1, 32, 33, 64, 65, 200)],
        "unicode": ["\u00e9" * n for n in (1, 16, 17, 32, 33, 100)] + ["\U0001f600", "a\u00e9"],
        "empty": "", "t": True, "f": False, "n": None,
        "nested": [[[{"a": [1, {"b": None}], "c": {}}]], [], {}],
    }
    names = {}
    for n in (1, 56, 57, 64, 65, 100):
        names["k" * n] = n
    for n in (28, 29):
        names["\u00e9" * n] = n  # 56 and 58 bytes
    names[""] = "empty key"
    v["names"] = names
    v["many"] = [{"key%04d" % i: i for i in range(j, j + 150)} for j in range(0, 1200, 150)]
    v["again"] = [{"key%04d" % i: i for i in range(0, 1200, 7)}]
    v["repeat"] = [{"name": "same", "kind": "x" * 10, "id": i} for i in range(100)]
    # Shared string values (Jackson's "values" setting): long references (index >= 31) and
    # the table reset after 1024 values.
    v["vals"] = ["v%d" % i for i in range(40)] * 2 + ["s%d" % i for i in range(1100)] * 2
    return json.dumps(v, ensure_ascii=False).encode()


EDGE_JSON = edge_json()

# Values beyond JSON, in SmileRef's typed JSON.
EDGE_TYPED = json.dumps({
    "bytes": [{"$bytes": base64.b64encode(bytes(range(n))).decode()} for n in range(0, 16)] +
             [{"$bytes": base64.b64encode(bytes(range(256)) * 5).decode()}],
    "bigint": [{"$bigint": s} for s in ("0", "1", "-1", "127", "128", "-128", "-129", "255",
                                        "9223372036854775808", "-9223372036854775809",
                                        "18446744073709551615", "18446744073709551616",
                                        "123456789012345678901234567890",
                                        "-123456789012345678901234567890")],
    "decimal": [{"$decimal": s} for s in ("1.50", "-1.50", "0.001", "1E+3", "-25E+3", "0",
                                          "3.1415926535897932384626433832795028",
                                          "-0.000000000000000000000000001", "1E-1000",
                                          "-7E+1000")],
    "float32": [{"$float32": x} for x in (0.5, -1.5, 3.4028234663852886e38, -0.0)],
}).encode()


def ref_classes():
    """Compiles SmileRef once per source change, next to the polycodec binary (or in /tmp)."""
    if shutil.which("javac") is None or shutil.which("java") is None or \
            not all(os.path.exists(j) for j in JARS):
        raise unittest.SkipTest("javac or libjackson2-dataformat-smile is not installed")
    out_dir = os.path.join(os.path.dirname(os.environ.get("POLYCODEC_BIN", "")) or
                           tempfile.gettempdir(), "smile_ref")
    cls = os.path.join(out_dir, "SmileRef.class")
    if not os.path.exists(cls) or os.path.getmtime(cls) < os.path.getmtime(REF_SOURCE):
        os.makedirs(out_dir, exist_ok=True)
        p = subprocess.run(["javac", "-cp", ":".join(JARS), "-d", out_dir, REF_SOURCE],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600)
        if p.returncode != 0:
            raise AssertionError("javac SmileRef failed: " + p.stderr.decode())
    return out_dir


def ref(args, data):
    cp = ":".join([ref_classes()] + JARS)
    p = subprocess.run(["java", "-cp", cp, "SmileRef", *args], input=data,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    if p.returncode != 0:
        raise AssertionError("SmileRef %s failed: %s" % (args, p.stderr.decode()))
    return p.stdout


def to_smile(data, frm="json"):
    return common.convert(["--from", frm, "--to", "smile"], data)[1]


def from_smile(data, to="json", *extra):
    return common.convert(["--from", "smile", "--to", to, *extra], data)[1]


def ours_view(typed):
    """SmileRef's typed JSON as polycodec's JSON shows the same Document with --lossy: bytes as
    base64url text, big integers as numbers, decimals as the [exponent, mantissa] array of
    the tag 4 they decode to (the tag dropped), float32 as its double."""
    if isinstance(typed, list):
        return [ours_view(v) for v in typed]
    if isinstance(typed, dict):
        if len(typed) == 1:
            (k, v), = typed.items()
            if k == "$bytes":
                return base64.urlsafe_b64encode(base64.b64decode(v)).decode().rstrip("=")
            if k == "$bigint":
                return int(v)
            if k == "$decimal":
                t = decimal.Decimal(v).as_tuple()
                m = int("".join(map(str, t.digits)))
                return [t.exponent, -m if t.sign else m]
            if k == "$float32":
                return float(v)
        return {k: ours_view(v) for k, v in typed.items()}
    return typed


def decimal_tuple(typed):
    """A BigDecimal's unscaled value and scale (Java's text "-25E+3" and "-2.5E+4" are the same
    unscaled -25 and scale -3)."""
    t = decimal.Decimal(typed["$decimal"]).as_tuple()
    return ["decimal", t.sign, list(t.digits), t.exponent]


def decimals_as_tuples(typed):
    if isinstance(typed, list):
        return [decimals_as_tuples(v) for v in typed]
    if isinstance(typed, dict):
        if list(typed) == ["$decimal"]:
            return decimal_tuple(typed)
        return {k: decimals_as_tuples(v) for k, v in typed.items()}
    return typed


def as_reencoded(typed):
    """What Jackson reads back after our re-encoding: float32 widened to a double (we write
    float64), a BigInteger within 64 bits as an int (the Document keeps no width)."""
    if isinstance(typed, list):
        return [as_reencoded(v) for v in typed]
    if isinstance(typed, dict):
        if list(typed) == ["$float32"]:
            return float(typed["$float32"])
        if list(typed) == ["$bigint"] and -2**63 <= int(typed["$bigint"]) < 2**63:
            return int(typed["$bigint"])
        if list(typed) == ["$decimal"]:
            return decimal_tuple(typed)
        return {k: as_reencoded(v) for k, v in typed.items()}
    return typed


def pairs(data):
    return json.loads(data, object_pairs_hook=list)


class ConvertRoundTrip(common.FixtureChecks, unittest.TestCase):
    """json -> smile -> json with polycodec alone: identical values, ints and floats apart."""

    def check(self, data, name):
        back = from_smile(to_smile(data))
        common.same_value(self, json.loads(back), json.loads(data), name)
        self.assertEqual(pairs(back), pairs(data), name)

    def test_edge(self):
        self.check(EDGE_JSON, "edge")

    def test_smile_to_smile_is_byte_identical(self):
        for name in FIXTURES + ["edge"]:
            ours = to_smile(EDGE_JSON if name == "edge" else common.fixture(name))
            self.assertEqual(from_smile(ours, "smile"), ours, name)


class JacksonDecodesOurs(unittest.TestCase):
    def test_fixtures_and_edge(self):
        for name in FIXTURES + ["edge"]:
            with self.subTest(name):
                data = EDGE_JSON if name == "edge" else common.fixture(name)
                got = json.loads(ref(["decode"], to_smile(data)))
                common.same_value(self, ours_view(got), json.loads(data), name)

    def test_typed_values_survive_our_reencoding(self):
        # Jackson writes bytes, BigInteger, BigDecimal and float32; we decode and re-encode
        # them; Jackson reads back the same values (float32 comes back as a double).
        theirs = ref(["encode", "names"], EDGE_TYPED)
        got = decimals_as_tuples(json.loads(ref(["decode"], from_smile(theirs, "smile"))))
        common.same_value(self, got, as_reencoded(json.loads(EDGE_TYPED)), "typed")


class WeDecodeJacksons(unittest.TestCase):
    SETTINGS = [["names"], ["names", "values"], [], ["values"], ["names", "raw"],
                ["names", "end"]]

    def test_fixtures_and_edge_in_every_setting(self):
        for name in FIXTURES + ["edge"]:
            data = EDGE_JSON if name == "edge" else common.fixture(name)
            for settings in self.SETTINGS:
                with self.subTest(name=name, settings=settings):
                    back = from_smile(ref(["encode", *settings], data))
                    common.same_value(self, json.loads(back), json.loads(data), name)
                    self.assertEqual(pairs(back), pairs(data), name)

    def test_typed_values_in_every_setting(self):
        for settings in self.SETTINGS:
            with self.subTest(settings=settings):
                back = from_smile(ref(["encode", *settings], EDGE_TYPED), "json", "--lossy")
                common.same_value(self, json.loads(back), ours_view(json.loads(EDGE_TYPED)),
                                  "typed")


class SameBytesAsJackson(unittest.TestCase):
    """For JSON data, our encoder makes Jackson's choices (shared names on, shared values and
    raw binary off, the smallest token of each value): the bytes are identical."""

    def test_fixtures_and_edge(self):
        for name in FIXTURES + ["edge"]:
            with self.subTest(name):
                data = EDGE_JSON if name == "edge" else common.fixture(name)
                self.assertEqual(to_smile(data), ref(["encode", "names"], data), name)

    def test_binary(self):
        data = bytes(range(30))
        ours = common.convert(["--from", "cbor", "--to", "smile"], b"\x58\x1e" + data)[1]
        theirs = ref(["encode", "names"],
                     json.dumps({"$bytes": base64.b64encode(data).decode()}).encode())
        self.assertEqual(ours, theirs)


class CliErrors(unittest.TestCase):
    def test_bad_back_reference_names_the_offset(self):
        code, _, err = common.convert(["--from", "smile", "--to", "json"],
                                      b":)\n\x01\xfa\x41\x21\xfb", check=False)
        self.assertEqual(code, 2)
        self.assertIn("byte 5", err)


if __name__ == "__main__":
    unittest.main()
