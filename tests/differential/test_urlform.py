"""Differential tests of the urlform codec against Python's urllib.parse (flat forms) and npm
qs (ref_urlform.mjs; bracket nesting), both directions:
- parse_qsl and qs.parse read what polycodec writes; polycodec reads what urlencode and
  qs.stringify write; values compared exactly (strings, or typed with --infer).
"""
import json
import os
import sys
import unittest
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # common.py beside us

import common

FLAT = {"a": "1", "b": "x y", "c": "a=b&c+d", "d": "", "\u00e9t\u00e9": "\u20ac \U0001F600",
        "e": "-._~!*'()/?#[]@$,;:%", "k k": "tab\tnl\n"}

NESTED = [
    {"a": {"b": {"c": "1", "d": "2"}}, "e": "3"},
    {"list": ["x", "y z", "w"], "m": {"deep": [{"k": "v"}, {"k": "w", "j": ["1", "2"]}]}},
    {"a": {"0x": "index-like but not", "b": "c"}, "arr": [["1", "2"], ["3"]]},
    {"u": {"\u00e9 k": ["\u4e2d", "&="]}},
]

# Forms both qs and polycodec read the same way (the documented bracket forms).
SHARED_FORMS = [
    "a=1&b=x%20y+z", "a=1&a=2&a=3", "a[b][c]=1&a[b][d]=2", "a[]=1&a[]=2",
    "a[1]=y&a[0]=x", "a[0][b]=1&a[1][b]=2", "a%5Bb%5D=1", "a[0]=x&a[b]=y",
    "x=%E2%82%AC&y=%C3%A9", "a=&b", "a[b][]=1&a[b][]=2&c=3",
]


def stringify(v):
    """v with each scalar as the text polycodec writes for it."""
    return common.rebuild(v, lambda d, rec: {k: rec(x) for k, x in d.items()}, common.scalar_text)


def records_subset():
    """records.json under one key, without nulls and empty arrays (docs/formats/urlform.md)."""
    def clean(d, rec):
        return {k: rec(x) for k, x in d.items() if x is not None and x != [] and x != {}}
    return {"records": common.rebuild(common.load_json_fixture("records.json"), clean)}


class UrlformDifferential(common.TextCodec, unittest.TestCase):
    FORMAT = "urlform"

    def qs_parse(self, form):
        return json.loads(common.node("ref_urlform.mjs", ["parse"], form))

    def qs_stringify(self, doc):
        return common.node("ref_urlform.mjs", ["stringify"], json.dumps(doc).encode())

    def test_python_reads_our_flat_forms(self):
        out = self.encode(FLAT)
        pairs = urllib.parse.parse_qsl(out.decode("ascii"), keep_blank_values=True,
                                       strict_parsing=True)
        self.assertEqual(pairs, list(FLAT.items()))

    def test_we_read_python_flat_forms(self):
        for quote in (urllib.parse.quote_plus, urllib.parse.quote):
            with self.subTest(quote=quote.__name__):
                text = urllib.parse.urlencode(list(FLAT.items()), quote_via=quote)
                common.same_value(self, self.decode(text), FLAT)
        # Repeated keys: urlencode(doseq=True) writes a=1&a=2, which reads as an array.
        text = urllib.parse.urlencode({"a": ["1", "2"], "b": "3"}, doseq=True)
        common.same_value(self, self.decode(text), {"a": ["1", "2"], "b": "3"})

    def test_qs_reads_ours_and_we_read_qs(self):
        for doc in NESTED + [FLAT]:
            with self.subTest(doc=doc):
                ours = self.encode(doc)
                common.same_value(self, self.qs_parse(ours), doc)
                common.same_value(self, self.decode(self.qs_stringify(doc)), doc)
                # qs and polycodec write the same structure (qs leaves key names unencoded).
                self.assertEqual(urllib.parse.unquote(ours.decode()),
                                 urllib.parse.unquote(self.qs_stringify(doc).decode()))

    def test_shared_forms(self):
        for form in SHARED_FORMS:
            with self.subTest(form=form):
                common.same_value(self, self.decode(form), self.qs_parse(form.encode()))

    def test_records_subset_with_infer(self):
        doc = records_subset()
        ours = self.encode(doc)
        common.same_value(self, self.decode(ours, infer=True), doc)
        common.same_value(self, self.qs_parse(ours), stringify(doc))
        # Strings on the qs side: JavaScript numbers would round the large int64.
        common.same_value(self, self.decode(self.qs_stringify(stringify(doc))), stringify(doc))

    def test_errors_and_exit_codes(self):
        for form, offset in ((b"a=1&b=%zz", 6), (b"a=%C3%28", 2), (b"a=%4", 2)):
            with self.subTest(form=form):
                err = common.convert_fails(self, ["--from", "urlform", "--to", "json"], form, 2)
                self.assertIn("(byte %d)" % offset, err)
        for doc in ([1], {"a": None}, {"a": []}, {"a": {"0": "x"}}):
            with self.subTest(doc=doc):
                common.convert_fails(self, ["--from", "json", "--to", "urlform"],
                                     json.dumps(doc).encode(), 3)


if __name__ == "__main__":
    unittest.main()
