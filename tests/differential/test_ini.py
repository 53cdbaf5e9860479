"""Differential tests of the INI codec against Python's configparser, both directions.

configparser runs as RawConfigParser(strict=True, interpolation=None) with optionxform=str
(keys keep their case, as ours do). configparser reads what polycodec writes (documents
without top-level keys, which it cannot hold), and polycodec reads what configparser writes;
values are compared as strings after removing one pair of matching quotes, the documented
rule that configparser does not apply.
"""
import configparser
import io
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # common.py beside us

import common


def parser():
    p = configparser.RawConfigParser(strict=True, interpolation=None, default_section="\x00")
    p.optionxform = str
    return p


def unquote(v):
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "\"'":
        return v[1:-1]
    return v


def text(v):
    """The text polycodec writes for a scalar, unquoted."""
    return "" if v is None else common.scalar_text(v)


def sections(doc, prefix=""):
    """{dotted section name: {key: text}} of a document without top-level scalars."""
    out = {}
    for k, v in doc.items():
        if isinstance(v, dict):
            name = prefix + "." + k if prefix else k
            scalars = {kk: text(vv) for kk, vv in v.items() if not isinstance(vv, dict)}
            if scalars or not v:
                out[name] = scalars
            out.update(sections(v, name))
    return out


def nest(flat):
    """configparser's {section: {key: value}} as polycodec's nested map (dotted names nest)."""
    out = {}
    for name, items in flat.items():
        node = out
        for part in name.split("."):
            node = node.setdefault(part, {})
        node.update(items)
    return out


def records_subset():
    """records.json as {"r0": record, ...} without the `tags` arrays and with the `nested`
    map moved last (keys come before sections in INI)."""
    out = {}
    for i, r in enumerate(common.load_json_fixture("records.json")):
        rec = {k: v for k, v in r.items() if k not in ("tags", "nested")}
        rec["nested"] = r["nested"]
        out["r%d" % i] = rec
    return out


EDGE_DOCS = [
    {"s": {"a": "x", "b": "", "c": " padded ", "d": "12", "e": "true", "f": "'q'",
           "g": "a = b : c", "h": "; not a comment", "i": "\u00e9\u4e2d\U0001F600",
           "j": "%(interp)s", "Case": "kept"}},
    {"a": {"x": "1", "b": {"c": {"d": "deep"}}}, "e": {}},
    {"nums": {"i": -12, "f": 2.5, "big": 123456789012345678901234567890, "t": True,
              "n": None}},
]


class IniDifferential(common.TextCodec, unittest.TestCase):
    FORMAT = "ini"

    def configparser_reads(self, data):
        p = parser()
        p.read_string(data.decode("utf-8"))
        return {s: {k: unquote(v) for k, v in p.items(s)} for s in p.sections()}

    def test_configparser_reads_ours(self):
        for doc in EDGE_DOCS + [records_subset()]:
            with self.subTest(doc=str(doc)[:60]):
                common.same_value(self, self.configparser_reads(self.encode(doc)), sections(doc))

    def test_we_read_configparser(self):
        for doc in EDGE_DOCS + [records_subset()]:
            with self.subTest(doc=str(doc)[:60]):
                p = parser()
                for name, items in sections(doc).items():
                    p.add_section(name)
                    for k, v in items.items():
                        p.set(name, k, v)
                buf = io.StringIO()
                p.write(buf)
                data = buf.getvalue().encode()
                # configparser's own reading of what it wrote, quotes removed as we do.
                expected = nest(self.configparser_reads(data))
                common.same_value(self, self.decode(data), expected)

    def test_typed_round_trip_with_infer(self):
        for doc in EDGE_DOCS + [records_subset()]:
            with self.subTest(doc=str(doc)[:60]):
                common.same_value(self, self.decode(self.encode(doc), infer=True), doc)

    def test_ini_doc_of_the_corpus(self):
        doc = json.load(open(common.corpus("nextjson-bench", "ini_doc.json")))
        out = self.encode(doc)
        common.same_value(self, self.decode(out), doc)
        common.same_value(self, self.decode(out, infer=True), doc)
        # configparser needs a section header before keys: it reads the file behind one.
        p = parser()
        p.read_string("[top]\n" + out.decode())
        self.assertEqual({k: unquote(v) for k, v in p.items("top")},
                         {k: v for k, v in doc.items() if not isinstance(v, dict)})
        self.assertEqual({k: unquote(v) for k, v in p.items("owner")}, doc["owner"])

    def test_strict_errors_agree(self):
        for data in (b"[a]\nx=1\n[a]\n", b"[a]\nx=1\nx=2\n", b"[a]\njunk\n"):
            with self.subTest(data=data):
                with self.assertRaises(configparser.Error):
                    parser().read_string(data.decode())
                common.convert_fails(self, ["--from", "ini", "--to", "json"], data, 2)

    def test_shapes_that_exit_3(self):
        for doc in ([1], {"a": [1]}, {"s": {"m": {}, "k": 1}}):
            with self.subTest(doc=doc):
                common.convert_fails(self, ["--from", "json", "--to", "ini"],
                                     json.dumps(doc).encode(), 3)


if __name__ == "__main__":
    unittest.main()
