#!/usr/bin/env python3
"""Deterministic generator of the JSON fixtures (DESIGN section 11).

Writes fixtures/records.json (256 mixed records), fixtures/bench.json (the reference
benchmark's 128-record dataset, defined in shared/corpus/nextjson-bench/README.md) and
fixtures/ini_doc.json (the reference's small document for INI, also used for dotenv and
urlform, whose shapes cannot hold the record lists). The forms of the
fixtures in the other formats are written by scripts/gen-fixture-forms (our encoders).

Run again after a change: the output is the same byte for byte.
"""
import json
import os
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


def ini_doc():
    """The reference benchmark's small document for INI (flat strings and one section)."""
    return {"title": "NextJson benchmark", "retries": "3",
            "owner": {"name": "blueokanna", "id": "42"}}


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
    write("ini_doc.json", ini_doc())
    write_bench_descriptor()
    return 0


if __name__ == "__main__":
    sys.exit(main())
