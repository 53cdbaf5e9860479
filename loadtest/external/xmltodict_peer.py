#!/usr/bin/python3
"""External peer of the xml decoder: Python's xmltodict.parse (Debian's python3-xmltodict, on
expat through pyexpat) timed on the same bytes that `polycodec-loadtest bench` decodes for its
xml row, and our decoder timed on them in the same run (through `bench --formats xml`).

The bytes are {"records": <data>} inside a <bench> root element, written by
`polycodec convert --from json --to 'xml;root=bench'` exactly as bench writes them; both sides
parse the same bytes. Prints one CSV row per library and the ratio ours / xmltodict.

    /usr/bin/python3 loadtest/external/xmltodict_peer.py [--data fixtures/bench.json]
        [--polycodec build/release/server/polycodec]
        [--loadtest build/release/loadtest/polycodec-loadtest] [--ms 2000]
"""
import argparse
import csv
import io
import json
import os
import subprocess
import sys
import time

import xmltodict

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=os.path.join(ROOT, "fixtures", "bench.json"))
    ap.add_argument("--polycodec", default=os.path.join(ROOT, "build", "release", "server",
                                                        "polycodec"))
    ap.add_argument("--loadtest", default=os.path.join(ROOT, "build", "release", "loadtest",
                                                       "polycodec-loadtest"))
    ap.add_argument("--ms", type=int, default=2000)
    a = ap.parse_args()
    with open(a.data, "rb") as f:
        wrapped = json.dumps({"records": json.load(f)}, ensure_ascii=False,
                             separators=(",", ":")).encode()
    xml = subprocess.run([a.polycodec, "convert", "--from", "json", "--to", "xml;root=bench"],
                         input=wrapped, capture_output=True, check=True).stdout
    # xmltodict: warm up, then as many parses as fit in the window, best of 5 windows' medians.
    for _ in range(3):
        xmltodict.parse(xml)
    rates = []
    for _ in range(5):
        n, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < a.ms / 5000.0:
            xmltodict.parse(xml)
            n += 1
        rates.append(n / (time.perf_counter() - t0))
    peer = sorted(rates)[len(rates) // 2]
    # Ours in the same run, on the same bytes (bench checks that its xml row's bytes are these).
    p = subprocess.run([a.loadtest, "bench", "--data", a.data, "--formats", "xml", "--ms",
                        str(a.ms)], capture_output=True, text=True, check=True)
    body = "\n".join(l for l in p.stdout.splitlines() if not l.startswith("#"))
    rows = [r for r in csv.DictReader(io.StringIO(body)) if r["format"] == "xml"]
    if not rows:
        sys.exit("xmltodict_peer: bench printed no xml row:\n" + p.stdout + p.stderr)
    if int(rows[0]["size_bytes"]) != len(xml):
        sys.exit("xmltodict_peer: bench's xml bytes (%s) differ from ours (%d)"
                 % (rows[0]["size_bytes"], len(xml)))
    ours = float(rows[0]["decode_ops"])
    mb = len(xml) / 1e6
    print("# xml decode of %s in XML form (%d bytes), %d ms windows" % (a.data, len(xml), a.ms))
    print("library,decode_ops,decode_MBps,ratio_ours_over_peer")
    print("xmltodict.parse %s,%.1f,%.1f," % (xmltodict.__version__, peer, peer * mb))
    print("polycodec,%.1f,%.1f,%.2f" % (ours, ours * mb, ours / peer))
    return 0


if __name__ == "__main__":
    sys.exit(main())
