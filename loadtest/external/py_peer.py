#!/usr/bin/python3
"""CPython's C pickle, json and csv on the runner's data forms (loadtest/external/run).

  py_peer.py DATADIR MS      prints format,op,library,ops_per_s lines

Each measurement is 5 windows of MS milliseconds, the median ops/s (as measure.hpp does).
Decoders read the bytes our encoder wrote (DATADIR/bench.pickle, bench.json, bench.csv);
encoders write the value built from them once, outside the timed loop. Every decoded value is
checked against the JSON data before timing, so a peer that reads something else fails loudly.
"""
import csv
import io
import json
import pickle
import platform
import sys
import time


def measure(fn, ms):
    rates = []
    for _ in range(5):
        n = 0
        start = time.perf_counter()
        end = start + ms / 1000.0
        now = start
        while now < end:
            fn()
            n += 1
            now = time.perf_counter()
        rates.append(n / (now - start))
    rates.sort()
    return rates[2]


def main():
    data, ms = sys.argv[1], int(sys.argv[2])
    lib = "CPython %s" % platform.python_version()
    # The C accelerators, not the pure-Python fallbacks.
    import _pickle, _json, _csv  # noqa: F401  (ImportError if missing)
    assert pickle.loads is _pickle.loads and json.decoder.c_scanstring is not None
    with open(data + "/bench.json", "rb") as f:
        json_bytes = f.read()
    value = json.loads(json_bytes)
    rows = []

    def emit(fmt, op, library, fn):
        rows.append((fmt, op, library, measure(fn, ms)))
        print("%s,%s,%s,%.1f" % rows[-1], flush=True)

    # pickle: our bytes (protocol 5, as our encoder writes) and the same value.
    with open(data + "/bench.pickle", "rb") as f:
        pk = f.read()
    if pickle.loads(pk) != value:
        sys.exit("py_peer: pickle.loads of our bytes differs from the JSON data")
    emit("pickle", "encode", lib + " pickle", lambda: pickle.dumps(value, protocol=5))
    emit("pickle", "decode", lib + " pickle", lambda: pickle.loads(pk))

    # json: compact output, as ours writes it.
    if json.loads(json_bytes) != value:
        sys.exit("py_peer: json")
    emit("json", "encode", lib + " json",
         lambda: json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())
    emit("json", "decode", lib + " json", lambda: json.loads(json_bytes))

    # csv: our CSV bytes; decode includes the UTF-8 decode, encode the UTF-8 encode.
    with open(data + "/bench.csv", "rb") as f:
        csv_bytes = f.read()
    table = list(csv.reader(io.StringIO(csv_bytes.decode("utf-8"), newline="")))
    if len(table) != len(value) + 1:
        sys.exit("py_peer: csv has %d rows for %d records" % (len(table), len(value)))

    def csv_encode():
        out = io.StringIO(newline="")
        csv.writer(out, lineterminator="\n").writerows(table)
        return out.getvalue().encode()

    emit("csv", "encode", lib + " csv", csv_encode)
    emit("csv", "decode", lib + " csv",
         lambda: list(csv.reader(io.StringIO(csv_bytes.decode("utf-8"), newline=""))))


if __name__ == "__main__":
    main()
