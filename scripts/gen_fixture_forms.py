#!/usr/bin/env python3
"""Writes each JSON fixture in every format that carries it without loss:
fixtures/records.<ext> and fixtures/bench.<ext>, using the polycodec binary (argument or
build/dev/server/polycodec). TOML, BSON and XML carry {"records": [...]} (DESIGN section 8; XML inside <bench>);
postcard uses fixtures/schemas/<name>.json, avro (a container of the records)
fixtures/schemas/<name>.avsc. tests/codec/fixtures_test.cpp checks that the
committed forms still decode to the JSON fixture's values.

    python3 scripts/gen_fixture_forms.py [path/to/polycodec]
"""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIX = os.path.join(ROOT, "fixtures")

# Formats that carry each fixture losslessly (records.json has nulls: not TOML; floats and
# bools: not bencode; nested values: not CSV).
FORMS = {
    "records": ["json5", "hjson", "yaml", "ron", "sexpr", "cbor", "msgpack", "pickle", "bson",
                "postcard", "ndjson", "edn", "ubjson", "smile", "avro"],
    "bench": ["json5", "hjson", "yaml", "ron", "sexpr", "cbor", "msgpack", "pickle", "bson",
              "toml", "postcard", "ndjson", "edn", "ubjson", "smile", "xml", "avro"],
}
WRAPPED = {"bson", "toml", "xml"}


def main():
    exe = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "dev", "server",
                                                               "polycodec")
    listing = subprocess.run([exe, "formats"], capture_output=True, text=True, check=True).stdout
    ext = {}
    ready = set()
    for line in listing.splitlines()[1:]:
        cols = line.split()
        if " ready " in line:
            ready.add(cols[1])
        # the extensions are the last columns: the first one names the fixture file
        exts = [c for c in cols if c.startswith(".")]
        ext[cols[1]] = exts[0] if exts else None
    for name, formats in FORMS.items():
        with open(os.path.join(FIX, name + ".json"), "rb") as f:
            data = f.read()
        wrapped = json.dumps({"records": json.loads(data)}, ensure_ascii=False,
                             separators=(",", ":")).encode()
        for fmt in formats:
            if fmt not in ready:
                print("skip %s.%s: %s is not implemented yet" % (name, fmt, fmt))
                continue
            args = [exe, "convert", "--from", "json", "--to", fmt]
            if fmt == "postcard":
                args += ["--schema", os.path.join(FIX, "schemas", name + ".json")]
            if fmt == "xml":
                # {"records": [...]} in a root element named after the fixture; it reads back
                # with xml;root=NAME;infer=true (docs/formats/xml.md).
                args[-1] = "xml;root=%s;pretty=true" % name
            elif fmt == "avro":
                args += ["--schema", os.path.join(FIX, "schemas", name + ".avsc")]
            out = os.path.join(FIX, name + ext[fmt])
            p = subprocess.run(args, input=wrapped if fmt in WRAPPED else data,
                               capture_output=True)
            if p.returncode != 0:
                sys.exit("%s -> %s failed: %s" % (name, fmt, p.stderr.decode()))
            with open(out, "wb") as f:
                f.write(p.stdout)
            print("wrote %s (%d bytes)" % (os.path.relpath(out, ROOT), len(p.stdout)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
