#!/usr/bin/env python3
"""Writes a large input made of fixtures/records.json's records, for memory and stream tests.

    scripts/gen_big_json.py SIZE SHAPE OUT
    scripts/gen_big_json.py 200M array /tmp/big.json
    scripts/gen_big_json.py 1GiB ndjson /tmp/big.ndjson

SIZE is a byte count with an optional suffix: k/K/KB = 1000, KiB = 1024, M/MB = 10^6, MiB = 2^20,
G/GB = 10^9, GiB = 2^30. The output is the smallest whole number of records that reaches SIZE
(so it is at most one record, ~300 bytes, longer).

SHAPE:
  array        one top-level JSON array of records, compact: [{...},{...}]
  ndjson       one record per line, LF after every line
  flat         a JSON array of flat records (CSV-friendly: scalars only): "nested" becomes the
               columns "nested.x", "nested.y", "nested.label" (what csv's unflatten=true nests
               again), "tags" becomes one string of the tags joined by ";"
  flat-ndjson  the flat records, one per line
  csv          the flat records as CSV (RFC 4180, CRLF line ends, header first; null is an
               empty field)

The records are records.json's 256 records in order, repeated, each with "id" replaced by its
index in the output (0, 1, 2 ...), so every record is distinct and the output is deterministic:
the same SIZE and SHAPE always give the same bytes. The other values are records.json's
(they exercise UTF-8, floats, integers above 2^53, nulls, empty and non-empty arrays).
Writes through a buffer of ~4 MiB, so memory stays small whatever SIZE (1 GiB takes a few
seconds). OUT '-' writes to standard output.
"""

import argparse
import csv
import io
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RECORDS = os.path.join(HERE, "..", "fixtures", "records.json")

SUFFIXES = {
    "": 1, "b": 1,
    "k": 10**3, "kb": 10**3, "kib": 2**10,
    "m": 10**6, "mb": 10**6, "mib": 2**20,
    "g": 10**9, "gb": 10**9, "gib": 2**30,
}


def parse_size(text):
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*", text)
    if not m or m.group(2).lower() not in SUFFIXES:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (e.g. 200M, 1GiB, 65536)")
    return int(float(m.group(1)) * SUFFIXES[m.group(2).lower()])


def dumps(value):
    # The form of records.json itself: compact, UTF-8 kept.
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def flatten(record):
    flat = {}
    for k, v in record.items():
        if isinstance(v, dict):
            for k2, v2 in v.items():
                flat[f"{k}.{k2}"] = v2
        elif isinstance(v, list):
            flat[k] = ";".join(str(x) for x in v)
        else:
            flat[k] = v
    return flat


def templates(records, flat):
    """Per record, the encoded text after its id: '{"id":' + str(i) + tail is the record."""
    out = []
    for r in records:
        r = flatten(r) if flat else dict(r)
        if next(iter(r)) != "id":
            raise SystemExit("records.json: every record must start with \"id\"")
        del r["id"]
        rest = dumps(r)
        out.append(("," + rest[1:]) if rest != "{}" else "}")
    return out


def csv_templates(records):
    """The CSV header, and per record the row after its id field."""
    rows = [flatten(r) for r in records]
    columns = list(rows[0].keys())
    if columns[0] != "id" or any(list(r.keys()) != columns for r in rows):
        raise SystemExit("records.json: the flat records must share one column list, id first")

    def field(v):
        if v is None:
            return ""
        if isinstance(v, bool):
            return "true" if v else "false"
        return v if isinstance(v, str) else dumps(v)

    def line(values):
        s = io.StringIO()
        csv.writer(s, lineterminator="\r\n").writerow(values)
        return s.getvalue()

    header = line(columns)
    tails = []
    for r in rows:
        text = line([""] + [field(r[c]) for c in columns[1:]])
        tails.append(text)  # starts with the empty first field: the id goes before it
    return header, tails


def generate(size, shape, out):
    with open(RECORDS, encoding="utf-8") as f:
        records = json.load(f)
    flat = shape in ("flat", "flat-ndjson", "csv")
    if shape == "csv":
        head, tails = csv_templates(records)
        first, sep, last = head, "", ""
    else:
        tails = [('{"id":', t) for t in templates(records, flat)]
        if shape in ("array", "flat"):
            first, sep, last = "[", ",", "]"
        else:
            first, sep, last = "", "", ""
    line_end = "\n" if shape in ("ndjson", "flat-ndjson") else ""
    written = 0
    chunk = []
    chunk_len = 0

    def flush():
        nonlocal chunk, chunk_len, written
        data = "".join(chunk).encode("utf-8")
        out.write(data)
        written += len(data)
        chunk = []
        chunk_len = 0

    chunk.append(first)
    total = len(first.encode("utf-8"))
    i = 0
    n = len(records)
    # Byte lengths of the pieces, so the size check needs no encoding per record.
    if shape == "csv":
        tail_bytes = [len(t.encode("utf-8")) for t in tails]
    else:
        tail_bytes = [len((a + b).encode("utf-8")) for a, b in tails]
    sep_bytes = len(sep) + len(line_end)
    while True:
        k = i % n
        ident = str(i)
        if shape == "csv":
            piece = ident + tails[k]
        else:
            piece = (sep if i > 0 else "") + tails[k][0] + ident + tails[k][1] + line_end
        chunk.append(piece)
        size_now = len(ident) + tail_bytes[k] + (sep_bytes if i > 0 or line_end else 0)
        total += size_now
        chunk_len += size_now
        i += 1
        if total + len(last) >= size:
            break
        if chunk_len >= 4 << 20:
            flush()
    chunk.append(last)
    flush()
    return i, written


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("size", type=parse_size, help="at least this many bytes (200M, 1GiB ...)")
    ap.add_argument("shape", choices=["array", "ndjson", "flat", "flat-ndjson", "csv"])
    ap.add_argument("out", help="output file, '-' for standard output")
    args = ap.parse_args()
    if args.out == "-":
        count, written = generate(args.size, args.shape, sys.stdout.buffer)
        sys.stdout.buffer.flush()
    else:
        with open(args.out, "wb") as f:
            count, written = generate(args.size, args.shape, f)
    print(f"{args.out}: {count} records, {written} bytes ({args.shape})", file=sys.stderr)


if __name__ == "__main__":
    main()
