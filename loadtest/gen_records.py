#!/usr/bin/env python3
"""Writes a large record stream for stream-mode measurements (scripts/stream-bench): the
NDJSON lines of LINES (e.g. `polycodec convert --from json --to ndjson fixtures/records.json`)
repeated until SIZE bytes, as NDJSON or as one JSON array (the lines joined with commas), cut
at the end of a record. Never holds more than one block of the lines in memory.

  gen_records.py LINES OUT --size 1GiB [--format ndjson|json] [--widest-first]

--widest-first rotates the lines so that the record with the most leaf values comes first:
CSV stream mode takes its header from the first record and refuses later columns it lacks.
Prints the number of records and bytes written."""
import argparse
import json
import sys


def parse_size(s):
    units = {"": 1, "b": 1, "k": 1024, "kib": 1024, "m": 1 << 20, "mib": 1 << 20, "g": 1 << 30,
             "gib": 1 << 30, "kb": 1000, "mb": 1000 ** 2, "gb": 1000 ** 3}
    num = s.rstrip("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    return int(float(num) * units[s[len(num):].lower()])


def leaves(v):
    if isinstance(v, dict):
        return sum(leaves(x) for x in v.values()) or 1
    if isinstance(v, list):
        return sum(leaves(x) for x in v) or 1
    return 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("lines")
    ap.add_argument("out")
    ap.add_argument("--size", required=True, type=parse_size)
    ap.add_argument("--format", choices=("ndjson", "json"), default="ndjson")
    ap.add_argument("--widest-first", action="store_true")
    a = ap.parse_args()
    with open(a.lines, "rb") as f:
        lines = [l.rstrip(b"\n") for l in f if l.strip()]
    if not lines:
        sys.exit("gen_records.py: %s has no records" % a.lines)
    if a.widest_first:
        widths = [leaves(json.loads(l)) for l in lines]
        w = widths.index(max(widths))
        lines = lines[w:] + lines[:w]
    json_array = a.format == "json"
    sep = b"," if json_array else b"\n"
    block = sep.join(lines) + (b"" if json_array else b"\n")
    written = 0
    records = 0
    with open(a.out, "wb") as out:
        if json_array:
            out.write(b"[")
            written += 1
        # Whole blocks while they fit, then record by record up to the size.
        first = True
        while written + len(block) + 1 < a.size:
            if json_array and not first:
                out.write(b",")
                written += 1
            out.write(block)
            written += len(block)
            records += len(lines)
            first = False
        i = 0
        while written < a.size:
            piece = lines[i % len(lines)]
            if json_array:
                piece = (b"" if first else b",") + piece
            else:
                piece += b"\n"
            out.write(piece)
            written += len(piece)
            records += 1
            first = False
            i += 1
        if json_array:
            out.write(b"]")
            written += 1
    print("%d records, %d bytes" % (records, written))


if __name__ == "__main__":
    main()
