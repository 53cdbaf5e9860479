"""Differential tests of the CSV codec against Python's csv module.

Python's csv.reader reads what polycodec writes and polycodec reads what csv.writer writes, with
and without type inference; plus csv-spectrum and the records.json round trip of the issue.
"""
import csv
import io
import json
import math
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # common.py beside us

import common


def flatten(row, prefix=""):
    """records.json row -> {dotted column: value}, as polycodec's writer flattens maps."""
    out = {}
    for k, v in row.items():
        name = prefix + k
        if isinstance(v, dict) and v:
            out.update(flatten(v, name + "."))
        else:
            out[name] = v
    return out


def cell_text(v):
    """The field text polycodec writes for a scalar (before CSV quoting)."""
    if v is None:
        return ""
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, float):
        if math.isnan(v):
            return "NaN"
        if math.isinf(v):
            return "Infinity" if v > 0 else "-Infinity"
        return repr(v)
    if isinstance(v, (list, dict)):
        return json.dumps(v, ensure_ascii=False, separators=(",", ":"))
    return str(v)


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def read_python(data, **kw):
    return list(csv.reader(io.StringIO(data.decode("utf-8"), newline=""), **kw))


class CsvDifferential(unittest.TestCase):
    def check_python_reads(self, rows, csv_bytes, delimiter=","):
        table = read_python(csv_bytes, delimiter=delimiter)
        flat = [flatten(r) for r in rows]
        header = []
        for f in flat:
            for k in f:
                if k not in header:
                    header.append(k)
        self.assertEqual(table[0], header)
        self.assertEqual(len(table) - 1, len(flat))
        for i, (line, f) in enumerate(zip(table[1:], flat)):
            for col, text in zip(header, line):
                want = f[col]
                if isinstance(want, float):
                    self.assertEqual(float(text), want, "row %d %s" % (i, col))
                else:
                    self.assertEqual(text, cell_text(want), "row %d %s" % (i, col))

    def test_python_reads_our_records(self):
        data = common.fixture("records.json")
        rows = json.loads(data)
        code, out, err = common.convert(["--from", "json", "--to", "csv"], data, check=False)
        self.assertEqual(code, 3, "tags are arrays: not representable without --lossy")
        self.assertIn("/0/tags", err)
        _, out, err = common.convert(["--from", "json", "--to", "csv", "--lossy"], data)
        self.assertIn("nested_to_json_text", err)
        self.assertTrue(out.endswith(b"\r\n"))
        self.check_python_reads(rows, out)

    def test_python_reads_our_csv_rows(self):
        data = read_bytes(common.corpus("nextjson-bench", "csv_rows.json"))
        rows = json.loads(data)
        _, out, _ = common.convert(["--from", "json", "--to", "csv"], data)
        self.check_python_reads(rows, out)
        _, tsv, _ = common.convert(["--from", "json", "--to", "csv", "--delimiter", "tab"], data)
        self.check_python_reads(rows, tsv, delimiter="\t")
        _, semi, _ = common.convert(["--from", "json", "--to", "csv", "--delimiter", ";"], data)
        self.check_python_reads(rows, semi, delimiter=";")

    def test_we_read_python_writer_with_and_without_infer(self):
        rows = json.loads(read_bytes(common.corpus("nextjson-bench", "csv_rows.json")))
        # A few awkward strings beside the benchmark rows.
        rows = rows + [{"id": 9001, "active": True, "score": -0.25,
                        "name": 'quote " comma , and\r\nnew line'},
                       {"id": 9002, "active": False, "score": 1e-07, "name": "007"},
                       {"id": 9003, "active": True, "score": 12.0, "name": "  spaced  "}]
        buf = io.StringIO(newline="")
        w = csv.writer(buf)
        header = list(rows[0].keys())
        w.writerow(header)
        for r in rows:
            w.writerow([cell_text(r[k]) for k in header])
        data = buf.getvalue().encode("utf-8")
        _, out, _ = common.convert(["--from", "csv", "--to", "json"], data)
        self.assertEqual(json.loads(out),
                         [{k: cell_text(r[k]) for k in header} for r in rows])
        _, out, _ = common.convert(["--from", "csv", "--to", "json", "--infer"], data)
        common.same_value(self, json.loads(out), rows)

    def test_we_read_python_nonnumeric_quoting(self):
        # QUOTE_NONNUMERIC quotes every string; polycodec never infers a quoted field.
        rows = [["name", "n"], ["12", 12], ["true", 1.5], ["", -3]]
        buf = io.StringIO(newline="")
        csv.writer(buf, quoting=csv.QUOTE_NONNUMERIC).writerows(rows)
        _, out, _ = common.convert(["--from", "csv;header=absent", "--to", "json", "--infer"],
                                   buf.getvalue().encode())
        common.same_value(self, json.loads(out), rows)

    def test_records_round_trip(self):
        data = common.fixture("records.json")
        rows = json.loads(data)
        _, csv_bytes, _ = common.convert(["--from", "json", "--to", "csv", "--lossy"], data)
        _, back, _ = common.convert(["--from", "csv", "--to", "json", "--infer", "--unflatten"],
                                    csv_bytes)
        # Everything comes back identical except the arrays, which --lossy wrote as JSON text.
        expected = [dict(r, tags=json.dumps(r["tags"], ensure_ascii=False,
                                            separators=(",", ":"))) for r in rows]
        common.same_value(self, json.loads(back), expected)
        # Without the arrays no flag is needed and the values are identical.
        no_tags = [{k: v for k, v in r.items() if k != "tags"} for r in rows]
        src = json.dumps(no_tags).encode()
        _, csv_bytes, _ = common.convert(["--from", "json", "--to", "csv"], src)
        _, back, _ = common.convert(["--from", "csv", "--to", "json", "--infer", "--unflatten"],
                                    csv_bytes)
        common.same_value(self, json.loads(back), no_tags)

    def test_strings_that_look_typed_survive_infer(self):
        rows = [{"s": v, "n": None} for v in ["12", "true", "", "NaN", "-0.5", "1e5", "007",
                                                "null", " 1"]]
        src = json.dumps(rows).encode()
        _, csv_bytes, _ = common.convert(["--from", "json", "--to", "csv"], src)
        _, back, _ = common.convert(["--from", "csv", "--to", "json", "--infer"], csv_bytes)
        self.assertEqual(json.loads(back), rows)
        # Python reads the same strings (quotes are only CSV syntax).
        self.assertEqual([r[0] for r in read_python(csv_bytes)[1:]], [r["s"] for r in rows])

    def test_arrays_of_arrays(self):
        rows = [[1, "a", None, 2.5], [2, "b,c", True, -1.0]]
        src = json.dumps(rows).encode()
        _, out, _ = common.convert(["--from", "json", "--to", "csv"], src)
        self.assertEqual(out, b'1,a,,2.5\r\n2,"b,c",true,-1.0\r\n')
        self.assertEqual(read_python(out), [["1", "a", "", "2.5"], ["2", "b,c", "true", "-1.0"]])
        _, back, _ = common.convert(["--from", "csv", "--to", "json", "--header", "absent",
                                     "--infer"], out)
        self.assertEqual(json.loads(back), rows)

    def test_csv_spectrum(self):
        root = common.corpus("csv", "csv-spectrum")
        names = sorted(f[:-4] for f in os.listdir(os.path.join(root, "csvs")))
        self.assertEqual(len(names), 11)
        for n in names:
            with self.subTest(n=n):
                data = read_bytes(os.path.join(root, "csvs", n + ".csv"))
                want = json.loads(read_bytes(os.path.join(root, "json", n + ".json")))
                _, out, _ = common.convert(["--from", "csv", "--to", "json"], data)
                self.assertEqual(json.loads(out), want)

    def test_line_ends_and_bom(self):
        for data in (b"a,b\r\n1,2\r\n", b"a,b\n1,2\n", b"a,b\r1,2\r", b"\xef\xbb\xbfa,b\n1,2",
                     b"a,b\n\n1,2\n\n"):
            with self.subTest(data=data):
                _, out, _ = common.convert(["--from", "csv", "--to", "json"], data)
                self.assertEqual(json.loads(out), [{"a": "1", "b": "2"}])

    def test_malformed_is_exit_2_with_line_and_column(self):
        cases = [
            (b"a,b\n1,\"x", "line 2, column 5"),      # unterminated quote: at the end
            (b"a,b\n1,2,3\n", "line 2, column 5"),    # ragged: the extra field
            (b"a,b,c\n1,2\n", "line 2, column 4"),    # ragged: where the line ends
            (b"a,b\n\"x\"y,2\n", "line 2, column 4"),  # text after a closing quote
            (b"a\n\xff\n", "line 2, column 1"),        # invalid UTF-8
        ]
        for data, where in cases:
            with self.subTest(data=data):
                code, _, err = common.convert(["--from", "csv", "--to", "json"], data,
                                              check=False)
                self.assertEqual(code, 2, err)
                self.assertIn(where, err)

    def test_non_tabular_is_exit_3_with_path(self):
        cases = [
            (b'{"a": 1}', "at the root"),
            (b"[1, 2]", "/0"),
            (b'[{"a": 1}, [1]]', "/1"),
            (b'[{"a": {"b": [1]}}]', "/0/a/b"),
            (b'[{"a": 1}, {"b": 2}]', "at /0: row has no value for column b"),
            (b'[{"a": {}}]', "/0/a"),
        ]
        for data, path in cases:
            with self.subTest(data=data):
                code, _, err = common.convert(["--from", "json", "--to", "csv"], data,
                                              check=False)
                self.assertEqual(code, 3, err)
                self.assertIn(path, err)


if __name__ == "__main__":
    unittest.main()
