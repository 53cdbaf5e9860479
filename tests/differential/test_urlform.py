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
    """The text polycodec writes for a scalar."""
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, (int, float)):
        return json.dumps(v)
    if isinstance(v, dict):
        return {k: stringify(x) for k, x in v.items()}
    if isinstance(v, list):
        return [stringify(x) for x in v]
    return v


def records_subset():
    """records.json under one key, without nulls and empty arrays (docs/formats/urlform.md)."""
    def clean(v):
        if isinstance(v, dict):
            return {k: clean(x) for k, x in v.items() if x is not None and x != [] and x != {}}
        if isinstance(v, list):
            return [clean(x) for x in v]
        return v
    return {"records": clean(common.load_json_fixture("records.json"))}


class UrlformDifferential(unittest.TestCase):
    def encode(self, doc):
        _, out, _ = common.convert(["--from", "json", "--to", "urlform"], json.dumps(doc).encode())
        return out

    def decode(self, form, infer=False):
        args = ["--from", "urlform", "--to", "json"] + (["--infer"] if infer else [])
        _, out, _ = common.convert(args, form if isinstance(form, bytes) else form.encode())
        return json.loads(out)

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
                code, _, err = common.convert(["--from", "urlform", "--to", "json"], form,
                                              check=False)
                self.assertEqual(code, 2, err)
                self.assertIn("(byte %d)" % offset, err)
        for doc in ([1], {"a": None}, {"a": []}, {"a": {"0": "x"}}):
            with self.subTest(doc=doc):
                code, _, err = common.convert(["--from", "json", "--to", "urlform"],
                                              json.dumps(doc).encode(), check=False)
                self.assertEqual(code, 3, err)


if __name__ == "__main__":
    unittest.main()
