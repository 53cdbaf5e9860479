"""Differential tests of the plist codec against Python's plistlib (/usr/bin/python3's stdlib).

Both directions and both forms: plistlib writes XML and binary plists that polycodec reads
(compared as JSON, the mapping of docs/formats/plist.md), polycodec writes XML and binary
plists that plistlib reads back equal, and plist -> plist conversions keep every plist type
(dates, data, UIDs, 128-bit integers). Hostile binary plists (cycles, lying counts, offsets
outside the table, shared-reference bombs) are refused with exit code 2 and a byte offset.
The files of ../shared/corpus/plist decode as plistlib reads them or are refused as plistlib
refuses them; KNOWN_DIFFERENCES lists the few cases where we differ on purpose, and the test
fails when a listed case stops differing.
"""
import base64
import datetime
import glob
import json
import math
import os
import plistlib
import random
import struct
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # common.py beside us

import common

# Corpus files where polycodec and plistlib differ on purpose, with the reason.
KNOWN_DIFFERENCES = {
    "libplist/recursion.bplist":
        "a dict that contains itself: plistlib builds a cyclic dict, we refuse the cycle",
    "rust-plist/binary_circular_array.plist":
        "arrays that contain themselves: plistlib builds cyclic lists, we refuse the cycle",
}
# Files of the corpus folders that are not property lists (licence texts, notes).
NOT_PLISTS = ("LICENCE", "COPYING.LESSER", "UPSTREAM_README.md", "LICENSE-NOTE.txt")


def to_json_model(v):
    """plistlib's value as polycodec's JSON output shows it (docs/formats/plist.md): data as
    base64url without padding, dates as RFC 3339 UTC text (microseconds, trailing zeros cut),
    UIDs as their integer under lossy=allow (the tag is dropped)."""
    if isinstance(v, dict):
        return {k: to_json_model(x) for k, x in v.items()}
    if isinstance(v, list):
        return [to_json_model(x) for x in v]
    if isinstance(v, bytes):
        return base64.urlsafe_b64encode(v).rstrip(b"=").decode()
    if isinstance(v, datetime.datetime):
        s = v.strftime("%Y-%m-%dT%H:%M:%S")
        if v.microsecond:
            s += (".%06d" % v.microsecond).rstrip("0")
        return s + "Z"
    if isinstance(v, plistlib.UID):
        return v.data
    return v


def ours_json(data, lossy=True):
    args = ["--from", "plist", "--to", "json"] + (["--lossy"] if lossy else [])
    _, out, _ = common.convert(args, data)
    return json.loads(out)


def plist_to_plist(value, fmt, to):
    """plistlib's FMT bytes of `value`, and polycodec's `convert --from plist --to TO...` of
    them."""
    src = plistlib.dumps(value, fmt=fmt, sort_keys=False)
    return src, common.convert(["--from", "plist", "--to", *to], src)[1]


def bplist(objects, top=0, ref_size=1, offset_size=1, table_at=None, count=None):
    """A binary plist from raw object encodings (references already inside them)."""
    body = b"bplist00"
    offsets = []
    for o in objects:
        offsets.append(len(body))
        body += o
    table = len(body)
    for off in offsets:
        body += off.to_bytes(offset_size, "big")
    n = len(objects) if count is None else count
    return body + struct.pack(">6xBBQQQ", offset_size, ref_size, n, top,
                              table if table_at is None else table_at)


def random_value(rnd, depth=0, binary=True):
    """A random plistlib value. XML dates have whole seconds; UIDs exist in binary only."""
    kinds = ["int", "float", "str", "bool", "bytes", "date"] + (["uid"] if binary else [])
    if depth < 4:
        kinds += ["list", "dict"] * 2
    k = rnd.choice(kinds)
    if k == "int":
        return rnd.choice([0, 1, -1, 255, 256, 65535, 65536, 2**31, 2**32 - 1, 2**32, 2**63 - 1,
                           -2**63, 2**63, 2**64 - 1, rnd.randrange(-2**63, 2**63)])
    if k == "float":
        return rnd.choice([0.0, -0.0, 1.5, 2.0, -1e300, 5e-324, 1e16, 1e-5, 0.1,
                           1.7976931348623157e308, rnd.uniform(-1e6, 1e6)])
    if k == "str":
        return "".join(rnd.choice(["a", "Z", " ", "<", "&", ">", "\t", "\n", "\u00e9", "\u4e2d",
                                   "\U0001F600", "'", '"', "]]>"])
                       for _ in range(rnd.randrange(0, 12)))
    if k == "bool":
        return rnd.random() < 0.5
    if k == "bytes":
        return bytes(rnd.randrange(256) for _ in range(rnd.choice([0, 1, 2, 3, 57, 58, 200])))
    if k == "date":
        d = datetime.datetime(2001, 1, 1) + datetime.timedelta(
            seconds=rnd.randrange(-3 * 10**9, 3 * 10**9))
        if binary and rnd.random() < 0.5:
            d = d.replace(microsecond=rnd.choice([500000, 250000, 125000, 1000]))
        return d
    if k == "uid":
        return plistlib.UID(rnd.choice([0, 7, 255, 256, 65536, 2**32, 2**64 - 1]))
    if k == "list":
        return [random_value(rnd, depth + 1, binary) for _ in range(rnd.randrange(0, 5))]
    return {"k%d%s" % (i, rnd.choice(["", "\u00e9", " x"])): random_value(rnd, depth + 1, binary)
            for i in range(rnd.randrange(0, 5))}


def json_only(v):
    """Whether v has only JSON's types (no bytes, dates, UIDs, non-finite floats)."""
    if isinstance(v, dict):
        return all(json_only(x) for x in v.values())
    if isinstance(v, list):
        return all(json_only(x) for x in v)
    if isinstance(v, float):
        return math.isfinite(v)
    return isinstance(v, (int, str, bool))


class PlistDifferential(unittest.TestCase):
    def test_reads_what_plistlib_writes(self):
        rnd = random.Random(2517)
        for i in range(150):
            for fmt in (plistlib.FMT_XML, plistlib.FMT_BINARY):
                binary = fmt == plistlib.FMT_BINARY
                v = random_value(rnd, binary=binary)
                data = plistlib.dumps(v, fmt=fmt, sort_keys=False)
                common.same_value(self, ours_json(data), to_json_model(v),
                                  "case %d %s: " % (i, "binary" if binary else "xml"))

    def test_plistlib_reads_what_we_write(self):
        rnd = random.Random(2518)
        for i in range(150):
            v = random_value(rnd, binary=False)
            if not json_only(v):
                continue
            text = json.dumps(v).encode()
            for args in (["--to", "plist"], ["--to", "plist", "--binary"],
                         ["--to", "application/x-bplist"]):
                _, out, _ = common.convert(["--from", "json"] + args, text)
                self.assertEqual(out[:8] == b"bplist00", args != ["--to", "plist"], args)
                common.same_value(self, plistlib.loads(out), v, "case %d %s: " % (i, args))

    def test_xml_is_byte_identical_to_plistlib(self):
        # plistlib.dumps(sort_keys=False) is Apple's layout: tabs, one element a line, base64
        # lines of 76 - 8 * depth characters, Python's repr() for reals.
        rnd = random.Random(2519)
        for i in range(150):
            data, out = plist_to_plist(random_value(rnd, binary=False), plistlib.FMT_XML, ["plist"])
            self.assertEqual(out.decode(), data.decode(), "case %d" % i)

    def test_plist_types_survive_plist_to_plist(self):
        rnd = random.Random(2520)
        for i in range(150):
            v = random_value(rnd, binary=True)
            _, out = plist_to_plist(v, plistlib.FMT_BINARY, ["plist;binary=true"])
            common.same_value(self, plistlib.loads(out), v, "case %d binary: " % i)
            x = random_value(rnd, binary=False)
            _, out = plist_to_plist(x, plistlib.FMT_XML, ["plist", "--binary"])
            common.same_value(self, plistlib.loads(out), x, "case %d xml->binary: " % i)
            _, out = plist_to_plist(x, plistlib.FMT_BINARY, ["plist"])
            common.same_value(self, plistlib.loads(out), x, "case %d binary->xml: " % i)

    def test_uid_in_xml_is_cf_uid_dict(self):
        src = plistlib.dumps({"$top": plistlib.UID(3)}, fmt=plistlib.FMT_BINARY)
        _, out, _ = common.convert(["--from", "plist", "--to", "plist"], src)
        self.assertEqual(plistlib.loads(out), {"$top": {"CF$UID": 3}})
        _, out, _ = common.convert(["--from", "plist", "--to", "yaml"], src)
        self.assertIn(b"!tag/21833 3", out)  # tagged(other, 0x5549): docs/formats/plist.md

    def test_128_bit_integers(self):
        for n in (2**63, 2**64 - 1, 2**64, -2**63 - 1, 2**100, -2**100, 2**127 - 1, -2**127):
            obj = b"\x14" + n.to_bytes(16, "big", signed=True)
            data = bplist([b"\xa1\x01", obj])
            self.assertEqual(plistlib.loads(data), [n])
            self.assertEqual(ours_json(data), [n])
            # ... and written back as plistlib reads them, in both forms.
            for to in ("plist", "plist;binary=true"):
                _, out, _ = common.convert(["--from", "json", "--to", to], json.dumps([n]).encode())
                self.assertEqual(plistlib.loads(out), [n], to)
        # Beyond 128 bits: the XML form writes the digits (plistlib reads them), binary refuses.
        big = json.dumps([2**130]).encode()
        _, out, _ = common.convert(["--from", "json", "--to", "plist"], big)
        self.assertEqual(plistlib.loads(out), [2**130])
        rc, _, err = common.convert(["--from", "json", "--to", "plist;binary=true"], big,
                                    check=False)
        self.assertEqual(rc, 3, err)
        self.assertIn("/0", err)
        _, out, err = common.convert(["--lossy", "--from", "json", "--to", "plist;binary=true"],
                                     big)
        self.assertEqual(plistlib.loads(out), [str(2**130)])
        self.assertIn("bignum_to_string", err)

    def test_null_is_refused_or_dropped(self):
        doc = b'{"a": 1, "b": null, "c": [null, 2]}'
        for to in ("plist", "plist;binary=true"):
            rc, _, err = common.convert(["--from", "json", "--to", to], doc, check=False)
            self.assertEqual(rc, 3, err)
            self.assertIn("/b", err)
            _, out, err = common.convert(["--lossy", "--from", "json", "--to", to], doc)
            self.assertEqual(plistlib.loads(out), {"a": 1, "c": [2]})
            self.assertIn("null_dropped", err)
        # plistlib reads the binary null marker 0x00 as None: so do we.
        self.assertEqual(plistlib.loads(bplist([b"\xa1\x01", b"\x00"])), [None])
        self.assertEqual(ours_json(bplist([b"\xa1\x01", b"\x00"])), [None])

    def test_dates(self):
        # Fractions of a second: binary keeps them (to the microsecond, as plistlib), the XML
        # form cannot hold them (422, or cut under lossy=allow).
        d = datetime.datetime(2024, 2, 29, 23, 59, 58, 750000)
        src = plistlib.dumps([d], fmt=plistlib.FMT_BINARY)
        self.assertEqual(ours_json(src), ["2024-02-29T23:59:58.75Z"])
        rc, _, err = common.convert(["--from", "plist", "--to", "plist"], src, check=False)
        self.assertEqual(rc, 3, err)
        _, out, _ = common.convert(["--lossy", "--from", "plist", "--to", "plist"], src)
        self.assertEqual(plistlib.loads(out), [d.replace(microsecond=0)])
        # An RFC 3339 offset is the same instant in UTC (not lossy).
        _, out, _ = common.convert(["--from", "toml", "--to", "plist;binary=true"],
                                   b"a = 2001-01-01T02:00:00+02:00\n")
        self.assertEqual(plistlib.loads(out), {"a": datetime.datetime(2001, 1, 1)})
        # plistlib's shortened XML dates (a date, with or without hours and minutes).
        for text in ("2010-11-12Z", "2010-11-12T13Z", "2010-11-12T13:14Z"):
            data = b"<plist><date>" + text.encode() + b"</date></plist>"
            self.assertEqual(ours_json(data), to_json_model(plistlib.loads(data)), text)

    def test_xml_text_forms(self):
        cases = [
            b"<plist><integer>0x1F</integer></plist>",
            b"<plist><integer> -42 </integer></plist>",
            b"<plist><integer>123456789012345678901234567890</integer></plist>",
            b"<plist><real>1e3</real></plist>",
            b"<plist><real>-inf</real></plist>",
            b"<plist><string>a&amp;b&#x263A;&#65;&lt;</string></plist>",
            b"<plist><string>line\r\nend\rx</string></plist>",
            b"<plist><string><![CDATA[<raw> & ]]>!</string></plist>",
            b"<?xml version='1.0' encoding='utf-8'?><!-- c --><plist version='1.0'><dict>"
            b"<key>a</key><!-- c --><data>AAEC\n  Aw==</data><key>b</key><array/></dict></plist>",
            b"\xef\xbb\xbf<plist><true/></plist>",
        ]
        for data in cases:
            expect = to_json_model(plistlib.loads(data))
            if isinstance(expect, float) and math.isinf(expect):
                _, out, _ = common.convert(["--from", "plist", "--to", "yaml"], data)
                self.assertEqual(out.strip(), b"-.inf")
                continue
            self.assertEqual(ours_json(data), expect, data)

    def test_xml_refusals(self):
        # Each is refused with exit code 2 and a line and column; plistlib refuses them too.
        cases = [
            b"<plist><integer>12x</integer></plist>",
            b"<plist><dict><key>a</key></dict></plist>",
            b"<plist><string>a&bogus;</string></plist>",
            b"<plist><string>unterminated</plist>",
            b"<!DOCTYPE plist [<!ENTITY e 'x'>]><plist><string>&e;</string></plist>",
            b"<plist><date>2010-13-01T00:00:00Z</date></plist>",
            b"<plist><string>\x01</string></plist>",
            b"<plist><true/></plist><plist/>",
            b"<plist><date>2010-11Z</date></plist>",
        ]
        for data in cases:
            with self.assertRaises(Exception, msg=data):
                plistlib.loads(data)
            rc, _, err = common.convert(["--from", "plist", "--to", "json"], data, check=False)
            self.assertEqual(rc, 2, (data, err))
            self.assertIn("line 1, column", err, data)

    def test_hostile_binary(self):
        dict_self = bplist([b"\xd1\x01\x00", b"\x51A"])  # {"A": <itself>}
        array_cycle = bplist([b"\xa1\x01", b"\xa1\x00"])  # [[<the outer array>]]
        cases = {
            "reference cycle": (dict_self, "contains itself"),
            "indirect cycle": (array_cycle, "contains itself"),
            "lying array count": (bplist([b"\xaf\x13" + (2**40).to_bytes(8, "big")]),
                                  "runs past the end"),
            "lying string length": (bplist([b"\x5f\x12" + (2**31).to_bytes(4, "big")]),
                                    "runs past the end"),
            "lying object count": (bplist([b"\x08"], count=2**60), "offset table"),
            "table past the end": (bplist([b"\x08"], table_at=10**9), "offset table"),
            "offset into the table": (bplist([b"\x08"])[:9] + b"\x09" + bplist([b"\x08"])[10:],
                                      "outside the objects"),
            "reference past the objects": (bplist([b"\xa1\x05"]), "past the"),
            "top past the objects": (bplist([b"\x08"], top=3), "top object"),
            "container key": (bplist([b"\xd1\x01\x02", b"\xa0", b"\x08"]), "must be a string"),
            "integer key": (bplist([b"\xd1\x01\x02", b"\x10\x01", b"\x08"]), "must be a string"),
            "wrong version": (b"bplist01" + bplist([b"\x08"])[8:], "version 00"),
        }
        for name, (data, words) in cases.items():
            rc, _, err = common.convert(["--from", "plist", "--to", "json"], data, check=False)
            self.assertEqual(rc, 2, (name, err))
            self.assertIn(words, err, name)
            self.assertIn("byte ", err, name)

    def test_shared_reference_bomb(self):
        # 40 arrays, each holding the next twice: 2^40 values from ~200 bytes; plistlib would
        # build it lazily by sharing, a tree of it does not fit in memory. Refused by budget.
        objs = [bytes([0xA2, i + 1, i + 1]) for i in range(40)] + [b"\x08"]
        rc, _, err = common.convert(["--from", "plist", "--to", "json"], bplist(objs),
                                    check=False)
        self.assertEqual(rc, 2, err)
        self.assertIn("expand to more than", err)
        # Shared scalars are ordinary (plistlib writes each distinct scalar once).
        v = ["same"] * 5000
        self.assertEqual(ours_json(plistlib.dumps(v, fmt=plistlib.FMT_BINARY)), v)

    def test_depth_limit(self):
        n = 600
        # 600 nested arrays: references and offsets of 2 bytes.
        body = b"bplist00"
        offsets = []
        for i in range(n):
            offsets.append(len(body))
            body += b"\xa1" + (i + 1).to_bytes(2, "big")
        offsets.append(len(body))
        body += b"\x08"
        table = len(body)
        for off in offsets:
            body += off.to_bytes(2, "big")
        data = body + struct.pack(">6xBBQQQ", 2, 2, n + 1, 0, table)
        rc, _, err = common.convert(["--from", "plist", "--to", "json"], data, check=False)
        self.assertEqual(rc, 2, err)
        self.assertIn("nesting deeper than", err)
        xml = b"<plist>" + b"<array>" * n + b"</array>" * n + b"</plist>"
        rc, _, err = common.convert(["--from", "plist", "--to", "json"], xml, check=False)
        self.assertEqual(rc, 2, err)
        self.assertIn("nesting deeper than", err)

    def test_corpus(self):
        root = common.corpus("plist")
        files = sorted(p for p in glob.glob(os.path.join(root, "*", "*"))
                       if os.path.basename(p) not in NOT_PLISTS)
        self.assertGreater(len(files), 50)
        seen_known = set()
        for path in files:
            name = os.path.relpath(path, root)
            with open(path, "rb") as f:
                data = f.read()
            try:
                sys.setrecursionlimit(10000)
                ref = plistlib.loads(data)
                ref_ok = ref is not None  # plistlib's None (an empty <plist>) is no value
            except Exception:
                ref_ok = False
            rc, out, err = common.convert(["--lossy", "--from", "plist", "--to", "json"], data,
                                          check=False)
            if ref_ok:
                try:
                    agree = rc == 0 and json.loads(out) == to_json_model(ref)
                except (RecursionError, ValueError):
                    agree = False
            else:
                agree = rc == 2
            if name in KNOWN_DIFFERENCES:
                seen_known.add(name)
                self.assertFalse(agree, "%s now agrees with plistlib: remove it from "
                                 "KNOWN_DIFFERENCES (%s)" % (name, KNOWN_DIFFERENCES[name]))
                self.assertEqual(rc, 2, "%s: refused with a clear error: %s" % (name, err))
                continue
            self.assertTrue(agree, "%s: plistlib %s, polycodec rc=%d %s" % (
                name, "reads it" if ref_ok else "refuses it", rc, err.strip()))
        self.assertEqual(seen_known, set(KNOWN_DIFFERENCES), "listed cases missing from the corpus")


if __name__ == "__main__":
    unittest.main()
