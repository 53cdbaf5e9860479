"""Value helpers and shared test classes of test_msgpack.py and test_cbor.py.

"Typed JSON" is how Python and the node reference scripts (ref_msgpack.mjs, ref_cbor.mjs)
exchange values JSON cannot hold: {"$int": "decimal"}, {"$float": x | "NaN" | "Infinity" |
"-Infinity" | "-0.0"}, {"$bytes": base64}, {"$map": [[k, v], ...]}, {"$ts": ...},
{"$tag": [n, v]}, {"$ext": [type, base64]}.

normalize() turns typed JSON, or a Python value, into one comparable form. JavaScript has one
number type, so values that went through node compare numbers by value: an integral float
equals the same int. Exact int-versus-float checks are made where no JavaScript is involved.
"""
import base64
import datetime
import json
import math

import common


class Pairs(list):
    """A JSON object as its list of (key, value) pairs: order and duplicates kept."""


def loads_pairs(data):
    return json.loads(data, object_pairs_hook=Pairs)


class Timestamp:
    """An instant: seconds since the epoch and nanoseconds."""

    def __init__(self, sec, nsec=0):
        self.sec, self.nsec = sec, nsec

    def text(self):
        """Canonical RFC 3339 text, computed with the datetime module."""
        dt = datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=self.sec)
        s = dt.strftime("%Y-%m-%dT%H:%M:%S")
        if self.nsec:
            s += ("." + "%09d" % self.nsec).rstrip("0")
        return s + "Z"


def instant_of_text(text):
    """(seconds, nanoseconds) of an RFC 3339 text, with the datetime module."""
    main, frac = text, ""
    if "." in text:
        main, rest = text.split(".", 1)
        digits = ""
        while rest and rest[0].isdigit():
            digits, rest = digits + rest[0], rest[1:]
        frac, main = digits, main + rest
    dt = datetime.datetime.fromisoformat(main.replace("Z", "+00:00"))
    epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
    delta = dt - epoch
    sec = delta.days * 86400 + delta.seconds
    return (sec, int((frac + "000000000")[:9]) if frac else 0)


class Ext:
    def __init__(self, type_, data):
        self.type, self.data = type_, data


class Tag:
    def __init__(self, tag, value):
        self.tag, self.value = tag, value


def to_typed(v, ts_as_text=False):
    """Typed JSON of a Python value (Pairs or dict for maps)."""
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        return {"$int": str(v)}
    if isinstance(v, float):
        if v != v:
            return {"$float": "NaN"}
        if math.isinf(v):
            return {"$float": "Infinity" if v > 0 else "-Infinity"}
        if v == 0 and math.copysign(1, v) < 0:
            return {"$float": "-0.0"}
        return {"$float": v}
    if isinstance(v, bytes):
        return {"$bytes": base64.b64encode(v).decode()}
    if isinstance(v, Timestamp):
        return {"$ts": v.text() if ts_as_text else [v.sec, v.nsec]}
    if isinstance(v, Ext):
        return {"$ext": [v.type, base64.b64encode(v.data).decode()]}
    if isinstance(v, Tag):
        return {"$tag": [v.tag, to_typed(v.value, ts_as_text)]}
    if isinstance(v, (list, tuple)) and not isinstance(v, Pairs):
        return [to_typed(x, ts_as_text) for x in v]
    items = v if isinstance(v, Pairs) else list(v.items())
    return {"$map": [[to_typed(k, ts_as_text), to_typed(x, ts_as_text)] for k, x in items]}


def _num(x):
    if isinstance(x, int):
        return x
    if x != x:
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0 and math.copysign(1, x) < 0:
        return "-0.0"
    if x == int(x):
        return int(x)
    return x


def normalize(t):
    """Comparable form of typed JSON or of a Python value."""
    if isinstance(t, Pairs):
        return ("map", tuple((normalize(k), normalize(v)) for k, v in t))
    if isinstance(t, dict):
        if "$int" in t:
            return int(t["$int"])
        if "$float" in t:
            f = t["$float"]
            return _num(float(f) if isinstance(f, str) else float(f))
        if "$bytes" in t:
            return base64.b64decode(t["$bytes"])
        if "$map" in t:
            return ("map", tuple((normalize(k), normalize(v)) for k, v in t["$map"]))
        if "$ts" in t:
            ts = t["$ts"]
            return ("ts", instant_of_text(ts) if isinstance(ts, str) else tuple(ts))
        if "$ext" in t:
            return ("ext", t["$ext"][0], base64.b64decode(t["$ext"][1]))
        if "$tag" in t:
            return ("tag", t["$tag"][0], normalize(t["$tag"][1]))
        return ("map", tuple((normalize(k), normalize(v)) for k, v in t.items()))
    if isinstance(t, bool) or t is None or isinstance(t, (str, bytes)):
        return t
    if isinstance(t, (int, float)):
        return _num(t)
    if isinstance(t, Timestamp):
        return ("ts", (t.sec, t.nsec))
    if isinstance(t, Ext):
        return ("ext", t.type, t.data)
    if isinstance(t, Tag):
        return ("tag", t.tag, normalize(t.value))
    if isinstance(t, (list, tuple)):
        return tuple(normalize(x) for x in t)
    raise TypeError(type(t))


def first_difference(a, b, path=""):
    """JSON Pointer of the first place where two normalized values differ, or None."""
    if type(a) != type(b):
        return path or "/"
    if isinstance(a, tuple):
        if len(a) != len(b):
            return (path or "/") + " (length %d != %d)" % (len(a), len(b))
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, "%s/%d" % (path, i))
            if d is not None:
                return d
        return None
    return None if a == b else (path or "/") + " (%r != %r)" % (a, b)


def assert_same(test, got, want, what=""):
    d = first_difference(got, want)
    if d is not None:
        test.fail("%s: values differ at %s" % (what, d))


class Codec:
    """A binary format through polycodec and through its node reference script, which reads
    and writes typed JSON (ts_as_text: timestamps as RFC 3339 text, as ref_cbor.mjs wants)."""

    def __init__(self, fmt, script, ts_as_text=False):
        self.fmt, self.script, self.ts_as_text = fmt, script, ts_as_text

    def from_json(self, data, *extra):
        return common.convert(["--from", "json", "--to", self.fmt, *extra], data)[1]

    def to(self, data, to="json", *extra):
        return common.convert(["--from", self.fmt, "--to", to, *extra], data)[1]

    def node_decode(self, data):
        return json.loads(common.node(self.script, ["decode"], data))

    def node_encode(self, value):
        typed = to_typed(value, ts_as_text=self.ts_as_text)
        return common.node(self.script, ["encode"], json.dumps(typed).encode())


class ConvertRoundTrip(common.CorpusChecks):
    """Mixin (CODEC, EDGE_JSON): json -> CODEC -> json with polycodec alone gives identical
    values, int and float apart."""

    def check(self, data, name):
        back = self.CODEC.to(self.CODEC.from_json(data))
        common.same_value(self, json.loads(back), json.loads(data), name)
        self.assertEqual(normalize(loads_pairs(back)), normalize(loads_pairs(data)), name)

    def test_edge_json(self):
        self.check(self.EDGE_JSON, "edge")


class NodeDecodesOurs:
    """Mixin (CODEC, EDGE_JSON, EDGE_TYPED): the node reference reads what we write from the
    fixtures and EDGE_JSON; EDGE_TYPED lists (key, index, typed JSON) that the reference must
    see at got[key][index] (what JavaScript keeps apart: floats stay floats, big integers
    are BigInt)."""

    def node_decodes(self, data, name):
        got = self.CODEC.node_decode(self.CODEC.from_json(data))
        assert_same(self, normalize(got), normalize(loads_pairs(data)), name)
        return got

    def test_fixtures(self):
        for name in common.FIXTURE_NAMES:
            with self.subTest(name):
                self.node_decodes(common.fixture(name), name)

    def test_edge_json(self):
        fields = dict(self.node_decodes(self.EDGE_JSON, "edge")["$map"])
        for key, index, typed in self.EDGE_TYPED:
            self.assertEqual(fields[key][index], typed, key)


class WeDecodeNodes:
    """Mixin (CODEC): we read what the node reference writes from the fixtures."""

    def edge_values_both_ways(self, edge, no_json):
        """The reference writes `edge`; we decode it and write it again; it decodes ours to
        the same values. Returns our JSON of `edge` without the keys `no_json` (values JSON
        cannot hold), after checking its bytes and timestamps keys (DESIGN section 3:
        base64url text and RFC 3339 text)."""
        theirs = self.CODEC.node_encode(edge)
        ours = self.CODEC.to(theirs, self.CODEC.fmt)
        assert_same(self, normalize(self.CODEC.node_decode(ours)), normalize(edge), "edge")
        plain = Pairs([(k, v) for k, v in edge if k not in no_json])
        as_json = json.loads(self.CODEC.to(self.CODEC.node_encode(plain)))
        self.assertEqual(as_json["bytes"], base64.urlsafe_b64encode(b"\x00\x01\xfe\xff")
                         .decode().rstrip("="))
        self.assertEqual(as_json["timestamps"], [t.text() for t in dict(edge)["timestamps"]])
        return as_json

    def test_fixtures(self):
        for name in common.FIXTURE_NAMES:
            with self.subTest(name):
                data = common.fixture(name)
                back = self.CODEC.to(self.CODEC.node_encode(loads_pairs(data)))
                assert_same(self, normalize(loads_pairs(back)), normalize(loads_pairs(data)), name)
