#!/usr/bin/env python3
"""Deterministic generator of the JSON fixtures (DESIGN section 11).

Writes fixtures/records.json (256 mixed records), fixtures/bench.json (the reference
benchmark's 128-record dataset, defined in shared/corpus/nextjson-bench/README.md) and
fixtures/ini_doc.json (the reference's small document for INI, also used for dotenv and
urlform, whose shapes cannot hold the record lists), fixtures/bench.properties (bench.json
as {"records": [...]} flattened with dots, as Java properties; written here, independently of
our encoder, which tests/differential/test_properties.py compares with it) and
fixtures/bench_flat.json (the same flat map of strings as JSON: the data of the properties
bench rows, where json and properties hold the same values). Also bench.json as Apple property lists
written by Python's plistlib (an independent writer): fixtures/bench.plist (XML) and
fixtures/bench-binary.plist (bplist00); bench.json has no null, so a plist holds it as it is.
fixtures/bench_bencode.json is bench.json with its floats as strings and its booleans as 0/1, as
bencode's lossy encoding writes them (the bencode bench rows' data).
The forms of the fixtures in the other formats are written by scripts/gen-fixture-forms (our
encoders).

Run again after a change: the output is the same byte for byte.
"""
import json
import os
import plistlib
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "fixtures")

CITIES = ["Zürich", "São Paulo", "Kraków", "東京", "Москва", "Αθήνα", "القاهرة",
          "Reykjavík", "Montréal", "Lisboa"]
WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]


def lcg(seed):
    """A 64-bit linear congruential generator (Knuth MMIX constants)."""
    state = seed
    while True:
        state = (state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        yield state >> 11


def records():
    rnd = lcg(20261130)
    out = []
    for i in range(256):
        r = next(rnd)
        minute = i * 37
        out.append({
            "id": i,
            "big": 9007199254740993 + i * 1000000007,   # above 2^53: exact only as int64
            "score": round((r % 100000) / 128.0 - 250.0, 7),
            "ratio": (r % 997) / 997.0,
            "active": (r >> 7) % 2 == 0,
            "name": "user-%04d" % i,
            "city": CITIES[(r >> 13) % len(CITIES)],
            "nested": {"x": (r >> 17) % 1000 - 500, "y": ((r >> 3) % 1000) / 8.0,
                       "label": WORDS[i % len(WORDS)]},
            "tags": [WORDS[(r >> (5 * k)) % len(WORDS)] for k in range(i % 4)],
            "created": "2026-%02d-%02dT%02d:%02d:%02dZ" % (
                1 + i % 12, 1 + i % 28, (minute // 60) % 24, minute % 60, i % 60),
            "note": None,
        })
    return out


def bench():
    return [{
        "id": i,
        "active": i % 3 != 0,
        "score": i * 1.25 - 17.5,
        "name": "record-%04d" % i,
        "tags": ["json", "zero-copy", "group-%d" % (i % 8)],
        "samples": [i * 31 - k for k in range(16)],
    } for i in range(128)]


def bench_bencode():
    """bench.json in what bencode can hold, as the bencode encoder's lossy fallbacks write it
    (docs/formats/bencode.md): each float ("score") as the string of its shortest round-trip
    text ("-17.5", "-15.0": Python's repr, the same text for these values), each boolean
    ("active") as the integer 1 or 0; and each record's keys in bencode's order (sorted as raw
    bytes), so that a round trip through bencode gives the same document back. The data of the
    bencode bench rows (issue 15), timed against msgpack on the same file."""
    def conv(v):
        if isinstance(v, bool):
            return int(v)
        if isinstance(v, float):
            return repr(v)
        return v
    return [{k: conv(r[k]) for k in sorted(r)} for r in bench()]


def ini_doc():
    """The reference benchmark's small document for INI (flat strings and one section)."""
    return {"title": "NextJson benchmark", "retries": "3",
            "owner": {"name": "blueokanna", "id": "42"}}


def flatten(prefix, value, out):
    """Dotted keys and the text of each scalar, as docs/formats/properties.md flattens."""
    if isinstance(value, dict):
        for k, v in value.items():
            flatten(prefix + "." + k if prefix else k, v, out)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            flatten("%s.%d" % (prefix, i), v, out)
    elif isinstance(value, bool):
        out.append((prefix, "true" if value else "false"))
    elif isinstance(value, float):
        out.append((prefix, repr(value)))
    else:
        out.append((prefix, str(value)))


def properties_escape(s, key):
    """Properties.store(OutputStream)'s escaping (saveConvert with escapeUnicode)."""
    out = []
    for i, ch in enumerate(s):
        c = ord(ch)
        if ch == "\\":
            out.append("\\\\")
        elif ch == " ":
            out.append("\\ " if key or i == 0 else " ")
        elif ch in "\t\n\r\f":
            out.append({"\t": "\\t", "\n": "\\n", "\r": "\\r", "\f": "\\f"}[ch])
        elif ch in "=:#!":
            out.append("\\" + ch)
        elif c < 0x20 or c > 0x7e:
            units = ch.encode("utf-16-be")
            for j in range(0, len(units), 2):
                out.append("\\u%04X" % int.from_bytes(units[j:j + 2], "big"))
        else:
            out.append(ch)
    return "".join(out)


def write_properties(name, value):
    pairs = []
    flatten("", value, pairs)
    text = "".join("%s=%s\n" % (properties_escape(k, True), properties_escape(v, False))
                   for k, v in pairs)
    with open(os.path.join(OUT, name), "w", encoding="ascii", newline="\n") as f:
        f.write(text)


# Avro schemas of the record fixtures (fixtures/schemas/NAME.avsc, beside the postcard
# schemas NAME.json): the record of one element; a container's records are the array's.
RECORDS_AVSC = {
    "type": "record", "name": "Record", "namespace": "polycodec.fixtures",
    "fields": [
        {"name": "id", "type": "long"},
        {"name": "big", "type": "long"},
        {"name": "score", "type": "double"},
        {"name": "ratio", "type": "double"},
        {"name": "active", "type": "boolean"},
        {"name": "name", "type": "string"},
        {"name": "city", "type": "string"},
        {"name": "nested", "type": {"type": "record", "name": "Nested", "fields": [
            {"name": "x", "type": "long"}, {"name": "y", "type": "double"},
            {"name": "label", "type": "string"}]}},
        {"name": "tags", "type": {"type": "array", "items": "string"}},
        {"name": "created", "type": "string"},
        {"name": "note", "type": ["null", "string"]},
    ],
}
BENCH_AVSC = {
    "type": "record", "name": "BenchRecord", "namespace": "polycodec.fixtures",
    "fields": [
        {"name": "id", "type": "long"},
        {"name": "active", "type": "boolean"},
        {"name": "score", "type": "double"},
        {"name": "name", "type": "string"},
        {"name": "tags", "type": {"type": "array", "items": "string"}},
        {"name": "samples", "type": {"type": "array", "items": "long"}},
    ],
}


def write_schema(name, value):
    text = json.dumps(value, indent=2) + "\n"
    os.makedirs(os.path.join(OUT, "schemas"), exist_ok=True)
    with open(os.path.join(OUT, "schemas", name), "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


def write(name, value):
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    with open(os.path.join(OUT, name), "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


# The protobuf schema of bench.json's records, wrapped as {"records": [...]} (a message is
# a map; `optional`: fields with presence, so false and 0 come back): compiled with protoc into fixtures/schemas/bench.binpb (the bench rows' schema).
BENCH_PROTO = """syntax = "proto3";
package polycodec.bench;
message Bench {
  message Record {
    optional int64 id = 1;
    optional bool active = 2;
    optional double score = 3;
    optional string name = 4;
    repeated string tags = 5;
    repeated int64 samples = 6;
  }
  repeated Record records = 1;
}
"""


def write_bench_descriptor():
    import shutil
    import subprocess
    import tempfile
    if shutil.which("protoc") is None:
        print("gen_fixtures: protoc not found, schemas/bench.binpb not rewritten", file=sys.stderr)
        return
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "bench.proto"), "w") as f:
            f.write(BENCH_PROTO)
        subprocess.run(["protoc", "-I" + tmp, "--include_imports",
                        "--descriptor_set_out=" + os.path.join(OUT, "schemas", "bench.binpb"),
                        os.path.join(tmp, "bench.proto")], check=True)


def main():
    os.makedirs(OUT, exist_ok=True)
    write("records.json", records())
    write("bench.json", bench())
    write("bench_bencode.json", bench_bencode())
    write("ini_doc.json", ini_doc())
    write_properties("bench.properties", {"records": bench()})
    flat = []
    flatten("", {"records": bench()}, flat)
    write("bench_flat.json", dict(flat))
    for name, fmt in (("bench.plist", plistlib.FMT_XML), ("bench-binary.plist", plistlib.FMT_BINARY)):
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(plistlib.dumps(bench(), fmt=fmt, sort_keys=False))
    write_schema("records.avsc", RECORDS_AVSC)
    write_schema("bench.avsc", BENCH_AVSC)
    write_bench_descriptor()
    return 0


if __name__ == "__main__":
    sys.exit(main())
