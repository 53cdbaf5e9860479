"""Differential tests of the xml codec against Python's xml.etree.ElementTree and Debian's
python3-xmltodict (run with /usr/bin/python3), both directions.

Decoding: polycodec's default mapping must equal xmltodict.parse of the same bytes (with the
same force_list / attr_prefix / cdata_key options); ordered=true must equal the JsonML form
built from ElementTree's tree (comments and PIs kept); namespaces=expand must equal the
mapping built from ElementTree's {uri}local names. Encoding: what polycodec writes must parse
(ElementTree, xmltodict) back to the data, and its canonical form (C14N 2.0, ElementTree's
canonicalize) must equal that of xmltodict.unparse of the same data. Inputs: the fixtures
(records.json and bench.json in XML form) and seeded generated documents.
"""
import json
import os
import random
import sys
import unittest
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import common

try:
    import xmltodict
except ImportError:  # pragma: no cover - scripts/deps.sh installs python3-xmltodict
    xmltodict = None

NAMES = ["a", "b", "item", "x-y", "n.1", "_u", "\u00e9l\u00e9ment", "\u4e2d"]
TEXTS = ["plain", "two words", "<&>", "quote \" and ' apostrophe", "]]>", "\u00e9\u4e2d\U0001F600",
         "tab\tin", "line\nbreak", "1", "-2.5", "true", "a & b < c"]


def gen_element(rng, depth):
    """A random element as XML text (no mixed content, so xmltodict's view is lossless)."""
    name = rng.choice(NAMES)
    attrs = ""
    for an in rng.sample(["id", "k", "lang", "v-1"], rng.randint(0, 2)):
        attrs += ' %s="%s"' % (an, esc(rng.choice(TEXTS), True))
    r = rng.random()
    if depth > 3 or r < 0.35:
        body = esc(rng.choice(TEXTS), False) if rng.random() < 0.8 else ""
    else:
        body = "".join(gen_element(rng, depth + 1) for _ in range(rng.randint(1, 4)))
        if rng.random() < 0.3:
            body = "\n  " + body + "\n"
    if not body and rng.random() < 0.5:
        return "<%s%s/>" % (name, attrs)
    return "<%s%s>%s</%s>" % (name, attrs, body, name)


def esc(s, attr):
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    if attr:
        s = s.replace('"', "&quot;").replace("\t", "&#9;").replace("\n", "&#10;")
    return s


def generated(n=120, seed=24):
    rng = random.Random(seed)
    return ["<?xml version='1.0'?>\n<root>%s</root>" % gen_element(rng, 0) for _ in range(n)]


def jsonml(el, prefix="@"):
    """ElementTree element -> polycodec's ordered=true form."""
    if el.tag is ET.Comment:
        return ["#comment", el.text or ""]
    if el.tag is ET.ProcessingInstruction:
        target, _, data = (el.text or "").partition(" ")
        return ["?" + target, data]
    out = [el.tag]
    if el.attrib:
        out.append({prefix + k: v for k, v in el.attrib.items()})
    if el.text:
        out.append(el.text)
    for c in el:
        out.append(jsonml(c, prefix))
        if c.tail:
            out.append(c.tail)
    return out


def etree_ordered(data):
    parser = ET.XMLParser(target=ET.TreeBuilder(insert_comments=True, insert_pis=True))
    return jsonml(ET.fromstring(data, parser=parser))


def etree_mapping(el):
    """ElementTree element -> the xmltodict convention, written independently of xmltodict."""
    kids = list(el)
    text = (el.text or "") + "".join(c.tail or "" for c in kids)
    text = text.strip()
    if not el.attrib and not kids:
        return text or None
    m = {"@" + k: v for k, v in el.attrib.items()}
    for c in kids:
        v = etree_mapping(c)
        if c.tag in m:
            if isinstance(m[c.tag], list):
                m[c.tag].append(v)
            else:
                m[c.tag] = [m[c.tag], v]
        else:
            m[c.tag] = v
    if text:
        m["#text"] = text
    return m


def stringify(v):
    """The data as XML text holds it: scalars as text (json's spelling of numbers and bools)."""
    if isinstance(v, dict):
        return {k: stringify(x) for k, x in v.items()} or None
    if isinstance(v, list):
        return [stringify(x) for x in v]
    if v is None:
        return None
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return json.dumps(v)
    return v or None


@unittest.skipIf(xmltodict is None, "python3-xmltodict is not installed")
class XmlDifferential(unittest.TestCase):
    def ours(self, data, spec="xml", to="json"):
        _, out, _ = common.convert(["--from", spec, "--to", to], data)
        return out

    def decode(self, data, spec="xml"):
        return json.loads(self.ours(data if isinstance(data, bytes) else data.encode(), spec))

    def encode(self, value, spec="xml"):
        _, out, _ = common.convert(["--from", "json", "--to", spec],
                                   json.dumps(value).encode())
        return out

    # ---- decoding ----

    def test_generated_documents_decode_as_xmltodict_parses(self):
        for i, doc in enumerate(generated()):
            common.same_value(self, self.decode(doc), json.loads(json.dumps(xmltodict.parse(doc))),
                              "doc %d: " % i)

    def test_generated_documents_decode_as_the_etree_mapping(self):
        for i, doc in enumerate(generated(40, seed=7)):
            common.same_value(self, self.decode(doc), {"root": etree_mapping(ET.fromstring(doc))},
                              "doc %d: " % i)

    def test_options_match_xmltodict_parameters(self):
        for i, doc in enumerate(generated(40, seed=11)):
            got = self.decode(doc, "xml;force_list=b,item;attr_prefix=_;text_key=value")
            want = xmltodict.parse(doc, force_list=("b", "item"), attr_prefix="_",
                                   cdata_key="value")
            common.same_value(self, got, json.loads(json.dumps(want)), "doc %d: " % i)

    def test_ordered_matches_etree_with_comments_and_pis(self):
        docs = generated(40, seed=3) + [
            "<a>x<b>y</b>z<!-- c --><?pi some data?>tail<c/></a>",
            "<a>  keep   <b/>\n spaces\t</a>",
            "<a><![CDATA[<not markup> & ]]>after</a>",
            "<!DOCTYPE a [<!ENTITY e 'expanded &#38;#38; text'>]><a k='&e;'>&e;</a>",
        ]
        for i, doc in enumerate(docs):
            common.same_value(self, self.decode(doc, "xml;ordered=true"), etree_ordered(doc),
                              "doc %d: " % i)

    def test_namespaces_expand_as_etree_names(self):
        doc = ('<r xmlns="urn:d" xmlns:p="urn:p"><p:a p:k="1" k="2">t</p:a><b/><b>x</b></r>')
        common.same_value(self, self.decode(doc, "xml;namespaces=expand"),
                          {"{urn:d}r": etree_mapping(ET.fromstring(doc))})
        # Written back, ElementTree reads the same {uri}local names.
        xml = self.encode(self.decode(doc, "xml;namespaces=expand"), "xml;namespaces=expand")
        common.same_value(self, {"{urn:d}r": etree_mapping(ET.fromstring(xml))},
                          {"{urn:d}r": etree_mapping(ET.fromstring(doc))})
        # Without expansion, prefixes and xmlns attributes stay as written (xmltodict's default).
        common.same_value(self, self.decode(doc), json.loads(json.dumps(xmltodict.parse(doc))))

    def test_fixtures_decode_as_xmltodict_parses(self):
        for name in ("bench.xml",):
            data = common.fixture(name)
            common.same_value(self, self.decode(data),
                              json.loads(json.dumps(xmltodict.parse(data))), name + ": ")

    def test_fixtures_read_back_to_their_json(self):
        # root=NAME unwraps the root element and infer=true types the text as json does.
        for stem, root in (("bench", "bench"),):
            got = self.decode(common.fixture(stem + ".xml"), "xml;root=%s;infer=true" % root)
            common.same_value(self, got, {"records": common.load_json_fixture(stem + ".json")},
                              stem + ": ")

    def test_lossy_input_refused_unless_allowed(self):
        for doc, what in (("<a>x<b/>y</a>", "mixed content"), ("<a><!--c--></a>", "comment"),
                          ("<a><?p d?></a>", "processing instruction")):
            rc, _, err = common.convert(["--from", "xml", "--to", "json"], doc.encode(),
                                        check=False)
            self.assertEqual(rc, 3, "%s: %s" % (what, err))
            self.assertIn("ordered=true", err)
            rc, out, err = common.convert(["--from", "xml", "--to", "json", "--lossy"],
                                          doc.encode(), check=False)
            self.assertEqual(rc, 0, err)
            common.same_value(self, json.loads(out), json.loads(json.dumps(xmltodict.parse(doc))))

    # ---- encoding ----
    # (records.json has empty and one-element tag arrays and so no lossless XML form; bench.json
    # is the XML fixture.)

    def generated_values(self, n=80, seed=5):
        rng = random.Random(seed)

        def val(depth):
            r = rng.random()
            if depth > 2 or r < 0.4:
                return rng.choice(TEXTS + [7, -3, 2.5, True, False, None])
            if r < 0.7:
                return [val(depth + 1) for _ in range(rng.randint(2, 3))]
            m = {}
            for an in rng.sample(["id", "k"], rng.randint(0, 2)):
                m["@" + an] = rng.choice(TEXTS)
            for _ in range(rng.randint(1, 3)):
                m[rng.choice(NAMES)] = val(depth + 1)
            return m
        out = []
        for _ in range(n):
            v = val(0)
            # Arrays inside arrays have no XML form: keep only what the mapping holds.
            out.append({"root": json.loads(json.dumps(v), object_hook=lambda d: d)})
        return [v for v in out if not isinstance(v["root"], list) and self.holds(v["root"])]

    @staticmethod
    def holds(v, in_array=False):
        if isinstance(v, list):
            return not in_array and len(v) >= 2 and all(XmlDifferential.holds(x, True) for x in v)
        if isinstance(v, dict):
            return all(XmlDifferential.holds(x) for k, x in v.items() if not k.startswith("@"))
        return True

    def test_encoded_documents_parse_back_with_xmltodict_and_etree(self):
        values = self.generated_values()
        self.assertGreater(len(values), 30)
        for i, v in enumerate(values):
            xml = self.encode(v)
            common.same_value(self, json.loads(json.dumps(xmltodict.parse(xml))), stringify(v),
                              "value %d: " % i)
            common.same_value(self, {"root": etree_mapping(ET.fromstring(xml))}, stringify(v),
                              "value %d (etree): " % i)

    def test_encoding_is_canonically_equal_to_xmltodict_unparse(self):
        for i, v in enumerate(self.generated_values(60, seed=9)):
            ours = ET.canonicalize(self.encode(v).decode())
            theirs = ET.canonicalize(xmltodict.unparse(stringify(v)))
            self.assertEqual(ours, theirs, "value %d: %r" % (i, v))

    def test_escaping_round_trips_through_etree(self):
        hard = ["<&>\"'", "]]>", "a\r\nb", "\ttab", " lead and trail ", "\u00e9\U0001F600",
                "&amp; literally", "\x7f del"]
        for s in hard:
            xml = self.encode({"e": {"@attr": s, "#text": s}})
            el = ET.fromstring(xml)
            self.assertEqual(el.get("attr"), s, repr(s))
            self.assertEqual(el.text, s, repr(s))

    def test_pretty_output_parses_to_the_same_data(self):
        for i, v in enumerate(self.generated_values(30, seed=13)):
            compact = xmltodict.parse(self.encode(v))
            pretty = xmltodict.parse(self.encode(v, "xml;pretty=true"))
            self.assertEqual(pretty, compact, "value %d" % i)

    def test_ordered_encoding_round_trips_through_etree(self):
        docs = ["<a>x<b k='1'>y</b>z<!-- c --><?pi some data?>tail<c/></a>",
                "<a>  keep   <b/>\n spaces\t</a>"]
        for doc in docs:
            tree = self.ours(doc.encode(), "xml;ordered=true")
            _, xml, _ = common.convert(["--from", "json", "--to", "xml;ordered=true"], tree)
            self.assertEqual(etree_ordered(xml), etree_ordered(doc))

    def test_unrepresentable_values_refused(self):
        cases = [({"r": {"a": [[1, 2], [3]]}}, "array inside an array"), ([1, 2], "one root element"),
                 ({"a": 1, "b": 2}, "one root element"), ({"1a": 1}, "not an XML name"),
                 ({"a": {"@b c": 1}}, "not an XML name"), ({"a": "\u0001"}, "control character"),
                 ({"a": {"b": []}}, "empty array"), ({"a": {"b": [1]}}, "force_list=b")]
        for v, msg in cases:
            rc, _, err = common.convert(["--from", "json", "--to", "xml"],
                                        json.dumps(v).encode(), check=False)
            self.assertEqual(rc, 3, "%r: %s" % (v, err))
            self.assertIn(msg, err)
        # root= wraps anything; force_list= lets a single item stay an array.
        self.assertEqual(xmltodict.parse(self.encode([1, 2], "xml;root=r")),
                         {"r": {"item": ["1", "2"]}})
        back = self.decode(self.encode({"a": {"b": [1]}}, "xml;force_list=b"), "xml;force_list=b")
        self.assertEqual(back, {"a": {"b": ["1"]}})


if __name__ == "__main__":
    unittest.main()
