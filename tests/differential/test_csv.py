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
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # common.py beside us

import common


ABSENT = object()  # a cell of an index column past the end of this row's array


def flatten(row, prefix="", in_array=False):
    """records.json row -> {dotted column: (value, in_array)}, the documented flattening:
    nested maps add ".key", arrays add ".0", ".1", ...; an empty array still owns "key.0"."""
    out = {}
    items = row.items() if isinstance(row, dict) else ((str(i), v) for i, v in enumerate(row))
    for k, v in items:
        name = prefix + k
        if isinstance(v, dict) and v:
            out.update(flatten(v, name + ".", in_array))
        elif isinstance(v, list):
            if v:
                out.update(flatten(v, name + ".", True))
            else:
                out[name + ".0"] = (ABSENT, True)
        else:
            out[name] = (v, in_array)
    return out


def union_header(flat):
    """The columns of flattened rows in first-seen order; the "key.0" of an always-empty array
    goes when other rows have "key.0.<something>" columns."""
    header = []
    for f in flat:
        header += [k for k in f if k not in header]
    placeholder = {k for k in header if all(f.get(k, (ABSENT,))[0] is ABSENT for f in flat)}
    return [k for k in header
            if not (k in placeholder and any(o.startswith(k + ".") for o in header))]


def cell_text(v, in_array=False):
    """The field text polycodec writes for a scalar (before CSV quoting)."""
    if v is ABSENT:
        return ""
    if v is None:
        return "null" if in_array else ""
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


class Raw(str):
    """Text that csv.writer(quoting=QUOTE_NONNUMERIC) leaves unquoted (it counts as a number)."""
    def __float__(self):
        return 0.0


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def read_python(data, **kw):
    return list(csv.reader(io.StringIO(data.decode("utf-8"), newline=""), **kw))


class CsvDifferential(unittest.TestCase):
    def check_python_reads(self, rows, csv_bytes, delimiter=","):
        table = read_python(csv_bytes, delimiter=delimiter)
        flat = [flatten(r) for r in rows]
        header = union_header(flat)
        self.assertEqual(table[0], header)
        self.assertEqual(len(table) - 1, len(flat))
        for i, (line, f) in enumerate(zip(table[1:], flat)):
            self.assertEqual(len(line), len(header))
            for col, text in zip(header, line):
                want, in_array = f.get(col, (ABSENT, True))
                if isinstance(want, float):
                    self.assertEqual(float(text), want, "row %d %s" % (i, col))
                else:
                    self.assertEqual(text, cell_text(want, in_array), "row %d %s" % (i, col))

    def test_python_reads_our_records(self):
        data = common.fixture("records.json")
        rows = json.loads(data)
        # tags (arrays of 0-3 strings) become the index columns tags.0, tags.1, tags.2.
        self.assertEqual({len(r["tags"]) for r in rows}, {0, 1, 2, 3})
        _, out, err = common.convert(["--from", "json", "--to", "csv"], data)
        self.assertEqual(err, "")
        self.assertTrue(out.endswith(b"\r\n"))
        self.assertTrue(out.startswith(b"id,big,score,ratio,active,name,city,nested.x,nested.y,"
                                       b"nested.label,tags.0,created,note,tags.1,tags.2\r\n"))
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
        # The commands: files by extension, no --lossy.
        with tempfile.TemporaryDirectory() as tmp:
            src = os.path.join(tmp, "records.json")
            out_csv = os.path.join(tmp, "out.csv")
            back_json = os.path.join(tmp, "back.json")
            with open(src, "wb") as f:
                f.write(data)
            common.convert([src, out_csv], b"")
            common.convert(["--infer", "--unflatten", out_csv, back_json], b"")
            with open(back_json, "rb") as f:
                back = f.read()
        # Identical values, ints kept apart from floats (same_value compares types).
        common.same_value(self, json.loads(back), rows)
        self.assertEqual(json.loads(back), rows)
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

    def test_arrays_edge_cases_round_trip(self):
        rows = [{"id": 1, "t": ["a", None, ""], "m": [{"x": 1}, {"x": None, "y": "null"}]},
                {"id": 2, "t": [], "m": [{"y": "12"}]},
                {"id": None, "t": [None], "m": []},
                {"id": 4, "t": ["null", 7, 2.0, True], "m": [{"x": -0.5}]}]
        src = json.dumps(rows).encode()
        _, out, _ = common.convert(["--from", "json", "--to", "csv"], src)
        self.check_python_reads(rows, out)
        _, back, _ = common.convert(["--from", "csv", "--to", "json", "--infer", "--unflatten"],
                                    out)
        common.same_value(self, json.loads(back), rows)
        self.assertEqual(json.loads(back), rows)
        # What Python's csv.writer writes from the same flattening (strings quoted; typed
        # values, null and absent cells not) reads back equal too.
        flat = [flatten(r) for r in rows]
        header = union_header(flat)
        buf = io.StringIO(newline="")
        w = csv.writer(buf, quoting=csv.QUOTE_NONNUMERIC)
        w.writerow([Raw(h) for h in header])
        for f in flat:
            cells = []
            for col in header:
                v, in_array = f.get(col, (ABSENT, True))
                text = cell_text(v, in_array)
                typed = v is ABSENT or v is None or not isinstance(v, str)
                cells.append(Raw(text) if typed else text)
            w.writerow(cells)
        data = buf.getvalue().encode()
        _, back, _ = common.convert(["--from", "csv", "--to", "json", "--infer", "--unflatten"],
                                    data)
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
                err = common.convert_fails(self, ["--from", "csv", "--to", "json"], data, 2)
                self.assertIn(where, err)

    def test_non_tabular_is_exit_3_with_path(self):
        cases = [
            (b'{"a": 1}', "at the root"),
            (b"[1, 2]", "/0"),
            (b'[{"a": 1}, [1]]', "/1"),
            (b'[{"a": {"b": [1, []]}}]', "/0/a/b/1"),
            (b'[{"a": {"0": 1, "1": 2}}]', "/0/a"),
            (b'[{"a": [1]}, {"b": 2}]', "at /0: row has no value for column b"),
            (b'[{"a": 1}, {"b": 2}]', "at /0: row has no value for column b"),
            (b'[{"a": {}}]', "/0/a"),
        ]
        for data, path in cases:
            with self.subTest(data=data):
                err = common.convert_fails(self, ["--from", "json", "--to", "csv"], data, 3)
                self.assertIn(path, err)


def ours_rows(data, *extra):
    """polycodec's reading of headerless CSV: (exit code, rows or None, stderr)."""
    code, out, err = common.convert(["--from", "csv;header=absent", "--to", "json", *extra],
                                    data, check=False)
    return code, (json.loads(out) if code == 0 else None), err


class Rfc4180Strictness(unittest.TestCase):
    """RFC 4180 section 2: a field holding a quote is quoted (rule 5, 7), and a quoted field
    ends at its closing quote. By default both breaches are refused with line, column and
    byte offset; strict=false reads them as Python's csv.reader does by default."""

    # Quoted fields followed by text: csv.reader(strict=True) raises on each, and so do we.
    AFTER_CLOSING_QUOTE = [
        (b'"a"b\n', 1, 4, 3), (b'1,"a"b"c"\n', 1, 6, 5), (b'"a" ,x\n', 1, 4, 3),
        (b'x,y\n"a""b"c,2\n', 2, 7, 10), (b'"a"\tb,1\n', 1, 4, 3),
    ]
    # Quotes inside unquoted fields: RFC 4180 forbids them, Python's strict=True does not
    # check this case (it only checks after a closing quote), so the oracle here is the
    # RFC's grammar and the error position is hand-checked.
    INSIDE_UNQUOTED = [
        (b'1,x"y\n', 1, 4, 3), (b'x"\n', 1, 2, 1), (b'a,b\nc,d""e\n', 2, 4, 7),
        (b'ab"c"d,1\n', 1, 3, 2),
    ]

    def refused_at(self, data, line, column, offset):
        code, _, err = ours_rows(data)
        self.assertEqual(code, 2, (data, err))
        self.assertIn("line %d, column %d (byte %d)" % (line, column, offset), err)
        return err

    def test_text_after_a_closing_quote(self):
        for data, line, column, offset in self.AFTER_CLOSING_QUOTE:
            with self.subTest(data=data):
                with self.assertRaises(csv.Error):
                    read_python(data, strict=True)
                err = self.refused_at(data, line, column, offset)
                self.assertIn("after the closing quote", err)
                self.assertIn("strict=false", err)
                _, rows, err = ours_rows(data, "--strict=false")
                self.assertEqual(rows, read_python(data), err)

    def test_quote_inside_an_unquoted_field(self):
        for data, line, column, offset in self.INSIDE_UNQUOTED:
            with self.subTest(data=data):
                err = self.refused_at(data, line, column, offset)
                self.assertIn("a quote inside an unquoted field", err)
                _, rows, err = ours_rows(data, "--strict=false")
                self.assertEqual(rows, read_python(data), err)
                self.assertEqual(rows, read_python(data, strict=True), err)

    def test_strict_false_also_through_the_media_type_and_query_syntax(self):
        code, out, err = common.convert(["--from", "csv;header=absent;strict=false", "--to",
                                         "json"], b'1,x"y\n')
        self.assertEqual(json.loads(out), [["1", 'x"y']])
        code, _, err = common.convert(["--from", "csv;header=absent;strict=true", "--to",
                                       "json"], b'1,x"y\n', check=False)
        self.assertEqual(code, 2, err)

    def test_random_tables_agree_with_python(self):
        """Seeded random texts over a, quote, comma and LF: whatever Python's strict reader
        refuses we refuse; what we read with strict=false is what Python's default reader
        reads; and Python's writer output (always RFC 4180) reads the same under strict."""
        import random
        rng = random.Random(4180)
        refused_by_python = agreed = 0
        for _ in range(400):
            data = "".join(rng.choice('a",\n') for _ in range(rng.randrange(1, 14)))
            data = data.encode()
            try:
                read_python(data, strict=True)
                python_strict_ok = True
            except csv.Error:
                python_strict_ok = False
            code, rows, err = ours_rows(data)
            if not python_strict_ok:
                refused_by_python += 1
                self.assertEqual(code, 2, (data, rows))
            code, rows, err = ours_rows(data, "--strict=false")
            if code == 0:
                agreed += 1
                try:
                    theirs = read_python(data)
                except csv.Error:  # unterminated quote at the end: Python's own refusal
                    continue
                # A blank line is no row, except after the first row of a one-column
                # table, where it is one empty field (docs/formats/csv.md); Python gives []
                # for it either way.
                while theirs and not theirs[0]:
                    theirs.pop(0)
                if all(len(r) <= 1 for r in theirs):
                    theirs = [r or [""] for r in theirs]
                else:
                    theirs = [r for r in theirs if r]
                self.assertEqual(rows, theirs, data)
        self.assertGreater(refused_by_python, 20)
        self.assertGreater(agreed, 100)
        for _ in range(100):
            table = [["".join(rng.choice('a",\n ') for _ in range(rng.randrange(1, 6)))
                      for _ in range(3)] for _ in range(rng.randrange(1, 5))]
            buf = io.StringIO()
            csv.writer(buf).writerows(table)
            data = buf.getvalue().encode()
            _, rows, err = ours_rows(data)
            self.assertEqual(rows, table, (data, err))

    def test_rows_of_one_shape_quote_as_rfc4180(self):
        """Seeded random tables whose rows all have one shape (the writer's fast path writes
        every row after the first straight from the tape): the exact bytes, built here by the
        rules of docs/formats/csv.md, and Python's reader reads the strings back."""
        import random
        import re
        rng = random.Random(15)
        typed_words = {"null", "true", "false", "NaN", "Infinity", "-Infinity"}
        number = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?\Z")

        def text():
            if rng.random() < 0.15:
                return rng.choice(["", "12", "true", "nul", "null", "NaN", "-Infinity", "-0.5",
                                   "1e5", "1e999", "007", "-", "a" * 16, "a" * 15 + ","])
            return "".join(rng.choice('ab,;"\r\n\t1-') for _ in range(rng.randrange(0, 40)))

        def field(s, delim):
            typed = s in typed_words or (number.match(s) is not None and
                                         math.isfinite(float(s)))
            if s == "" or typed or any(c in s for c in (delim, '"', "\r", "\n")):
                return '"' + s.replace('"', '""') + '"'
            return s

        for delim, option in ((",", ","), (";", ";"), ("\t", "tab")):
            for _ in range(10):
                rows = [{"id": i, "s": text(), "t": [text(), text()], "m": {"x": text()}}
                        for i in range(rng.randrange(2, 30))]
                want = delim.join(["id", "s", "t.0", "t.1", "m.x"]) + "\r\n"
                for r in rows:
                    cells = [str(r["id"]), r["s"], r["t"][0], r["t"][1], r["m"]["x"]]
                    want += delim.join([cells[0]] + [field(c, delim) for c in cells[1:]])
                    want += "\r\n"
                _, out, err = common.convert(["--from", "json", "--to", "csv", "--delimiter",
                                              option], json.dumps(rows).encode())
                self.assertEqual(out.decode(), want, err)
                table = read_python(out, delimiter=delim)
                self.assertEqual(table[1:], [[str(r["id"]), r["s"], r["t"][0], r["t"][1],
                                              r["m"]["x"]] for r in rows])


if __name__ == "__main__":
    unittest.main()
