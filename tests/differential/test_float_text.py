"""One float text across the text formats, against independent oracles.

Every text format writes a finite double with the shortest digits that read back to the same
double, laid out as JavaScript's Number.prototype.toString / JSON.stringify lays them out,
except that a positive exponent has no '+' (the project's choice, issue 19:
docs/formats/json.md "Float text"). Per-format syntax around that text:
- the JSON family and the rest (json, json5, hjson, ndjson, toml, ron, sexpr, edn, csv, ini,
  dotenv, urlform): ".0" on a value that would otherwise read as an integer, and -0 keeps its
  sign ("-0.0", where JSON.stringify writes "0");
- yaml: also ".0" before the exponent of a one-digit mantissa and JavaScript's '+' in a
  positive exponent, since YAML 1.1 (PyYAML) reads a float only with a '.' and a signed
  exponent (1.0e+21).
No text format here takes Python's layout (repr switches to exponents at 1e16 and writes
two exponent digits); Python is the oracle of the digits: repr's shortest digits must be
ours, and float() of every text we write gives back the exact bits.

Oracles: node's JSON.stringify (ref_float_text.mjs), Python's repr and float(), PyYAML
(python3-yaml) for the YAML text, and the npm readers of JSON5, Hjson, TOML, YAML and EDN
(ref_*.mjs), which must read every text back to the same double. The doubles go in as MessagePack float 64 built here with
struct, so no text parser of ours is involved on the way in.
"""
import math
import os
import random
import re
import struct
import sys
import unittest
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402


def bits_of(x):
    return struct.unpack(">Q", struct.pack(">d", x))[0]


def from_bits(b):
    return struct.unpack(">d", struct.pack(">Q", b))[0]


def doubles():
    """Seeded random bit patterns, powers of ten and their neighbours, subnormals, the
    boundaries of the layout (1e21, 1e-6, 2^53) and of the double range; both signs."""
    rng = random.Random(19)
    xs = [0.0, 1.0, 0.5, 0.1, 1.5, 2.5, 1e21, 1e-7, 1e-6, 1.7976931348623157e308,
          9.223372036854776e58, 123456789012345680000.0, 2.2250738585072014e-308,
          2.225073858507201e-308, 5e-324, 1e-323, 4.9406564584124654e-324 * 7,
          2.0**53, 2.0**53 + 2, 2.0**53 - 1, 2.0**63, 2.0**64, 2.0**64 + 4096,
          999999999999999999999.0, 1e21 * (1 - 2**-52), 1e20, 1e16, 1e15, 1e17,
          0.000001, 0.0000015, 0.00000123456789012345, 1.5e-7, 0.001, 0.3,
          1 / 3, 2 / 3, 100.125, 1e23, 8.98846567431158e307, 3.141592653589793]
    for e in range(-324, 309):
        try:
            p = float("1e%d" % e)
        except OverflowError:
            continue
        xs += [p, math.nextafter(p, 0.0), math.nextafter(p, math.inf)]
    for e in range(-1074, 1024, 13):
        xs += [math.ldexp(1.0, e), math.ldexp(3.0, e - 1)]
    for _ in range(3000):  # random bit patterns, finite only
        b = rng.getrandbits(64) & ~(1 << 63)
        if (b >> 52) == 0x7ff:
            continue
        xs.append(from_bits(b))
    for _ in range(500):  # random subnormals
        xs.append(from_bits(rng.getrandbits(52)))
    for _ in range(500):  # short decimals, the common case
        xs.append(float("%d.%de%d" % (rng.randrange(1, 10**4), rng.randrange(0, 10**3),
                                      rng.randrange(-30, 30))))
    xs += [-x for x in list(xs)] + [-0.0]
    seen, out = set(), []
    for x in xs:
        if math.isfinite(x) and bits_of(x) not in seen:
            seen.add(bits_of(x))
            out.append(x)
    return out


XS = doubles()


def msgpack_array(xs):
    return b"\xdd" + struct.pack(">I", len(xs)) + b"".join(b"\xcb" + struct.pack(">d", x)
                                                          for x in xs)


def key(i):
    """Letters only, so that no digit of a key looks like a number."""
    s = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        s = chr(ord("a") + r) + s
    return s


def msgpack_map(xs):
    body = b""
    for i, x in enumerate(xs):
        k = key(i).encode()
        body += bytes([0xa0 | len(k)]) + k + b"\xcb" + struct.pack(">d", x)
    return b"\xdf" + struct.pack(">I", len(xs)) + body


def js_texts(xs):
    data = "".join("%016x\n" % bits_of(x) for x in xs).encode()
    return common.node("ref_float_text.mjs", data=data).decode().split("\n")[:len(xs)]


def expected_text(js, x, fmt):
    """Our text for the double x whose JSON.stringify is js."""
    if x == 0:
        return "-0.0" if math.copysign(1, x) < 0 else "0.0"
    if fmt != "yaml":
        t = js.replace("e+", "e")
        return t if ("." in t or "e" in t) else t + ".0"
    mant, _, exp = js.partition("e")
    if "." not in mant:
        mant += ".0"
    return mant + ("e" + exp if exp else "")


def repr_digits(text):
    """(digits without leading or trailing zeros, decimal exponent of the first digit) of a
    decimal text such as '1.5e-07', '0.000015' or '123456789012345680000.0'."""
    t = text.lstrip("-")
    mant, _, exp = t.lower().partition("e")
    e = int(exp) if exp else 0
    ip, _, fp = mant.partition(".")
    digits = (ip + fp).lstrip("0")
    lead = len(ip + fp) - len(digits)  # zeros ahead of the first significant digit
    return digits.rstrip("0"), e + len(ip) - lead - 1


NUMBER = re.compile(r"(?<![A-Za-z0-9_.])-?[0-9][0-9.]*(?:e[-+]?[0-9]+)?")

# format -> (convert arguments, how the numbers are held): in an array, in a map (the formats
# without an array root) or in one CSV row.
FORMATS = {fmt: (["--to", fmt], "array")
           for fmt in ("json", "json5", "hjson", "ndjson", "yaml", "ron", "sexpr", "edn")}
FORMATS.update({fmt: (["--to", fmt], "map") for fmt in ("toml", "ini", "dotenv", "urlform")})
FORMATS["csv"] = (["--to", "csv;header=absent"], "row")


def write_ours(fmt, xs):
    """polycodec's text of the numbers XS in format FMT (from msgpack, held as FORMATS says)."""
    args, shape = FORMATS[fmt]
    if shape == "array":
        data = msgpack_array(xs)
    elif shape == "row":
        data = b"\x91" + msgpack_array(xs)
    else:
        data = msgpack_map(xs)
    _, out, _ = common.convert(["--from", "msgpack", *args], data)
    return out


def ours(fmt, xs):
    text = write_ours(fmt, xs).decode()
    if fmt == "urlform":
        text = urllib.parse.unquote_plus(text)
    return NUMBER.findall(text)


class FloatText(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.js = js_texts(XS)

    def test_the_oracles_agree_on_the_digits(self):
        # JSON.stringify and Python's repr pick the same shortest digits (both are correct
        # shortest round-trip conversions); the tests below lean on either.
        for x, js in zip(XS, self.js):
            if x != 0:
                self.assertEqual(repr_digits(js), repr_digits(repr(x)), (x, js))

    def check(self, fmt):
        got = ours(fmt, XS)
        self.assertEqual(len(got), len(XS), fmt)
        bad = []
        for x, js, t in zip(XS, self.js, got):
            want = expected_text(js, x, fmt)
            if t != want:
                bad.append("%r: ours %s, JSON.stringify %s, want %s" % (x, t, js, want))
                continue
            back = float(t)
            if bits_of(back) != bits_of(x):
                bad.append("%r: float(%s) = %r" % (x, t, back))
            if x != 0 and repr_digits(t) != repr_digits(repr(x)):
                bad.append("%r: digits of %s are not repr's %s" % (x, t, repr(x)))
        self.assertEqual(bad[:10], [], "%s: %d of %d differ" % (fmt, len(bad), len(XS)))

    def test_json(self):
        self.check("json")

    def test_json5(self):
        self.check("json5")

    def test_hjson(self):
        self.check("hjson")

    def test_ndjson(self):
        self.check("ndjson")

    def test_yaml(self):
        self.check("yaml")

    def test_toml(self):
        self.check("toml")

    def test_ron(self):
        self.check("ron")

    def test_sexpr(self):
        self.check("sexpr")

    def test_edn(self):
        self.check("edn")

    def test_csv(self):
        self.check("csv")

    def test_ini(self):
        self.check("ini")

    def test_dotenv(self):
        self.check("dotenv")

    def test_urlform(self):
        self.check("urlform")

    def test_examples_of_the_issue(self):
        cases = {1.7976931348623157e308: "1.7976931348623157e308",
                 9.223372036854776e58: "9.223372036854776e58", 1e21: "1e21", 1e-7: "1e-7",
                 123456789012345680000.0: "123456789012345680000.0", 0.5: "0.5",
                 1.0: "1.0", -0.0: "-0.0", 1e-6: "0.000001", 5e-324: "5e-324"}
        for fmt in ("json", "hjson", "toml", "edn"):
            self.assertEqual(ours(fmt, list(cases)), list(cases.values()), fmt)

    def test_reference_readers_read_the_same_doubles(self):
        # Each format's own reference implementation (the npm packages of the differential
        # tests) reads our text back to the same doubles; JavaScript loses only -0's sign
        # on the way out of some of them.
        import json
        for fmt, script in (("json5", "ref_json5.mjs"), ("hjson", "ref_hjson.mjs"),
                            ("toml", "ref_toml.mjs"), ("yaml", "ref_yaml.mjs"),
                            ("edn", "ref_edn.mjs")):
            with self.subTest(fmt=fmt):
                text = write_ours(fmt, XS)
                parsed = json.loads(common.node(script, ["parse"], text))
                got = []

                def walk(v):
                    if isinstance(v, dict) and "$float" in v:
                        got.append({"-0": -0.0}.get(v["$float"], math.nan))
                    elif isinstance(v, dict) and "$map" in v:
                        for _, x in v["$map"]:
                            walk(x)
                    elif isinstance(v, dict):
                        for x in v.values():
                            walk(x)
                    elif isinstance(v, list):
                        for x in v:
                            walk(x)
                    elif isinstance(v, (int, float)) and not isinstance(v, bool):
                        got.append(float(v))
                walk(parsed)
                self.assertEqual(len(got), len(XS))
                bad = [(x, y) for x, y in zip(XS, got)
                       if (bits_of(x) != bits_of(y)) and not (x == 0 and y == 0)]
                self.assertEqual(bad[:5], [], "%s: %d differ" % (fmt, len(bad)))

    def test_pyyaml_reads_our_yaml_floats_as_the_same_doubles(self):
        try:
            import yaml  # PyYAML (Debian python3-yaml): YAML 1.1, floats need '.' and e+/e-
        except ImportError:
            raise unittest.SkipTest("PyYAML (python3-yaml) is not installed")
        _, out, _ = common.convert(["--from", "msgpack", "--to", "yaml"], msgpack_array(XS))
        got = yaml.load(out.decode(), Loader=yaml.SafeLoader)
        self.assertEqual(len(got), len(XS))
        for x, y in zip(XS, got):
            self.assertIsInstance(y, float, x)
            self.assertEqual(bits_of(y), bits_of(x), x)


if __name__ == "__main__":
    unittest.main()
