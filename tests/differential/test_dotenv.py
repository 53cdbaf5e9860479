"""Differential tests of the dotenv codec against npm dotenv's parse() (ref_dotenv.mjs).

dotenv has no writer, so: dotenv.parse reads what polycodec writes (records.json's shape-
compatible subset and edge values), and both read the same hand-written files of the grammar
they share; values are compared exactly (all strings).
"""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # common.py beside us

import common

# Values of one variable each; polycodec must write them so that dotenv reads them back.
EDGE_VALUES = ["plain", "two words", " leading", "trailing ", "", "a#b", "#start", "x # y",
               "it's", 'say "hi"', "multi\nline", "tab\there", "$HOME and ${X}", "back\\slash",
               "\u00e9\u4e2d\U0001F600", "=eq=", "'quoted'", '"dq"', "`tick`", "a\\nb"]

# Files in the grammar both implementations share; each must parse to the same map.
SHARED_FILES = [
    b"A=1\nB=two words\n",
    b"# comment\n\nexport A=1\n  B = spaced  \n",
    b"A=value # inline comment\nB=#only comment\n",
    b"A='single $X \\n'\nB=\"double\\nline\"\n",
    b"A=\"multi\nline\"\nB='also\nmulti'\n",
    b"A=1\r\nB=\"x\"\r\n",
    b"DOT.KEY-1=x\nlower_case=y\n",
    b"A=\nB=''\nC=\"\"\n",
    b"A=1\nA=2\n",
]


def flatten(m, prefix=""):
    """polycodec's documented flattening: nested keys joined with "__", scalars as text."""
    out = {}
    for k, v in m.items():
        name = prefix + "__" + k if prefix else k
        if isinstance(v, dict):
            out.update(flatten(v, name))
        elif isinstance(v, bool):
            out[name] = "true" if v else "false"
        elif isinstance(v, (int, float)):
            out[name] = json.dumps(v)
        else:
            out[name] = v
    return out


def records_subset():
    """records.json as one map of maps, without the arrays (tags) and nulls (note) that dotenv
    cannot hold: {"0": {"id": 0, ..., "nested": {...}}, "1": ...}."""
    rows = common.load_json_fixture("records.json")
    return {str(i): {k: v for k, v in r.items() if not isinstance(v, list) and v is not None}
            for i, r in enumerate(rows)}


class DotenvDifferential(unittest.TestCase):
    def ours(self, text):
        _, out, _ = common.convert(["--from", "dotenv", "--to", "json"], text)
        # Duplicates come out as duplicate JSON keys; json.loads keeps the last, as dotenv does.
        return json.loads(out)

    def dotenv_reads_ours(self, doc):
        _, out, _ = common.convert(["--from", "json", "--to", "dotenv"], json.dumps(doc).encode())
        theirs = json.loads(common.node("ref_dotenv.mjs", ["parse"], out))
        expected = flatten(doc)
        common.same_value(self, theirs, expected)
        common.same_value(self, self.ours(out), expected)
        return out

    def test_records_subset_both_read_ours(self):
        self.dotenv_reads_ours(records_subset())

    def test_records_convert_back_and_forth(self):
        doc = records_subset()
        _, env, _ = common.convert(["--from", "json", "--to", "dotenv"], json.dumps(doc).encode())
        back = self.ours(env)
        _, env2, _ = common.convert(["--from", "json", "--to", "dotenv"], json.dumps(back).encode())
        self.assertEqual(env, env2)  # decode -> encode is stable

    def test_every_record_round_trips_with_unflatten_and_infer(self):
        # The documented shape: one record (a map of scalars and maps of scalars; the `tags`
        # list and the null `note` have no dotenv form). --unflatten nests on "__" and --infer
        # types the values, so each record comes back identical, ints and floats apart.
        for i, rec in enumerate(common.load_json_fixture("records.json")):
            rec = {k: v for k, v in rec.items() if k not in ("tags", "note")}
            _, env, _ = common.convert(["--from", "json", "--to", "dotenv"],
                                       json.dumps(rec).encode())
            _, back, _ = common.convert(["--from", "dotenv", "--to", "json", "--unflatten",
                                         "--infer"], env)
            common.same_value(self, json.loads(back), rec, "record %d" % i)

    def test_edge_values(self):
        doc = {"V%d" % i: v for i, v in enumerate(EDGE_VALUES)}
        self.dotenv_reads_ours(doc)

    def test_shared_grammar(self):
        for text in SHARED_FILES:
            with self.subTest(text=text):
                theirs = json.loads(common.node("ref_dotenv.mjs", ["parse"], text))
                common.same_value(self, self.ours(text), theirs)

    def test_shapes_that_exit_3(self):
        for doc in ([1], {"a": [1]}, {"a": None}, {"a b": "1"}):
            with self.subTest(doc=doc):
                code, _, err = common.convert(["--from", "json", "--to", "dotenv"],
                                              json.dumps(doc).encode(), check=False)
                self.assertEqual(code, 3, err)

    def test_error_positions(self):
        code, _, err = common.convert(["--from", "dotenv", "--to", "json"], b"A=1\nB\n",
                                      check=False)
        self.assertEqual(code, 2)
        self.assertIn("line 2, column 2", err)


if __name__ == "__main__":
    unittest.main()
