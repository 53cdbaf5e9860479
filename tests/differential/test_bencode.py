"""Differential tests of the bencode codec against npm "bencode" 4 (ref_bencode.mjs).

Both directions: the npm package decodes what we encode and we decode what it encodes, values
compared; the corpus files re-encode byte-identical. Byte strings that are valid UTF-8 are
strings on our side; other byte strings are bytes, which our JSON writer prints as unpadded
base64url text, so the npm side's {"$hex": ...} is turned into the same text to compare.
"""
import base64
import json
import os
import time
import unittest

import common

CORPUS_FILES = ["test.torrent", "bittorrent-v2-test.torrent",
                "bittorrent-v2-hybrid-test.torrent", "announce-compacted-peers.bin"]


def each_value(d, rec):
    return {k: rec(x) for k, x in d.items()}


def from_ref_view(v):
    """The npm side's view -> the value our bencode -> json conversion prints."""
    def on_dict(d, rec):
        if set(d) == {"$utf8"}:
            return d["$utf8"]
        if set(d) == {"$hex"}:
            return base64.urlsafe_b64encode(bytes.fromhex(d["$hex"])).decode().rstrip("=")
        return each_value(d, rec)
    return common.rebuild(v, on_dict)


def sorted_keys(v):
    """Bencode dictionaries come back sorted by raw bytes (UTF-8 of the keys)."""
    return common.rebuild(v, lambda d, rec: {k: rec(d[k]) for k in
                                             sorted(d, key=lambda s: s.encode("utf-8"))})


def lossy_scalar(v):
    if isinstance(v, bool):
        return int(v)
    if v is None:
        return ""
    if isinstance(v, float):
        return repr(v)
    return v


def lossy_expected(v):
    """What --lossy writes for a JSON value: bool -> 0/1, float -> its shortest text,
    null -> empty string; keys sorted."""
    return common.rebuild(v, each_value, lossy_scalar)


def js_numbers(v):
    """npm "bencode" reads integers as JavaScript numbers: beyond 2^53 they round."""
    def js_number(x):
        if isinstance(x, int) and not isinstance(x, bool) and abs(x) > 2 ** 53:
            return int(float(x))
        return x
    return common.rebuild(v, each_value, js_number)


def ours_to_json(data, args=()):
    _, out, _ = common.convert(["--from", "bencode", "--to", "json", *args], data)
    return json.loads(out)


class BencodeCorpus(unittest.TestCase):
    def test_corpus_files_reencode_byte_identical(self):
        for name in CORPUS_FILES:
            with self.subTest(name=name):
                with open(common.corpus("bencode", name), "rb") as f:
                    data = f.read()
                _, out, _ = common.convert(["--from", "bencode", "--to", "bencode"], data)
                self.assertEqual(out, data)
                # Canonical decoding accepts them: keys sorted, no duplicates.
                _, out, _ = common.convert(
                    ["--from", "bencode", "--to", "bencode", "--canonical"], data)
                self.assertEqual(out, data)

    def test_corpus_values_match_reference(self):
        for name in CORPUS_FILES:
            with self.subTest(name=name):
                with open(common.corpus("bencode", name), "rb") as f:
                    data = f.read()
                ref = from_ref_view(json.loads(common.node("ref_bencode.mjs", ["decode"], data)))
                ours = ours_to_json(data, ["--lossy"])
                # BEP 52 "piece layers" is keyed by raw hashes: not UTF-8, so JSON cannot
                # hold those keys (the npm package turns them into broken text).
                if "piece layers" in ours:
                    self.assertIn("piece layers", ref)
                    del ours["piece layers"], ref["piece layers"]
                common.same_value(self, ours, ref, name)

    def test_compacted_peers_exact_value(self):
        with open(common.corpus("bencode", "announce-compacted-peers.bin"), "rb") as f:
            data = f.read()
        v = ours_to_json(data)
        self.assertEqual(list(v), ["complete", "incomplete", "interval", "min interval", "peers"])
        self.assertEqual(v["complete"], 4)
        self.assertEqual(v["min interval"], 1800)
        peers = base64.urlsafe_b64decode(v["peers"] + "=" * (-len(v["peers"]) % 4))
        self.assertEqual(len(peers), 42)
        self.assertEqual(peers[:4].hex(), "2ebd1b64")


class BencodeFixtures(unittest.TestCase):
    def int_records(self):
        with open(common.corpus("nextjson-bench", "int_records.json"), "rb") as f:
            return f.read()

    def test_int_records_both_directions(self):
        text = self.int_records()
        original = json.loads(text)
        _, ours, _ = common.convert(["--from", "json", "--to", "bencode"], text)
        # They read ours.
        ref = from_ref_view(json.loads(common.node("ref_bencode.mjs", ["decode"], ours)))
        common.same_value(self, ref, sorted_keys(original), "npm decode of ours")
        # We read theirs, and both write the same bytes.
        theirs = common.node("ref_bencode.mjs", ["encode"], text)
        self.assertEqual(ours, theirs)
        common.same_value(self, ours_to_json(theirs), sorted_keys(original), "ours of npm")

    def test_fixtures_need_lossy(self):
        for name in ["records.json", "bench.json"]:
            with self.subTest(name=name):
                rc, _, err = common.convert(["--from", "json", "--to", "bencode"],
                                            common.fixture(name), check=False)
                self.assertEqual(rc, 3, err)
                self.assertIn("/0/", err)
                self.assertIn("not representable in bencode", err)

    def test_fixtures_lossy_both_directions(self):
        for name in ["records.json", "bench.json"]:
            with self.subTest(name=name):
                data = common.load_json_fixture(name)
                expected = sorted_keys(lossy_expected(data))
                _, ours, err = common.convert(["--from", "json", "--to", "bencode", "--lossy"],
                                              common.fixture(name))
                self.assertIn("lossy", err)
                ref = from_ref_view(json.loads(common.node("ref_bencode.mjs", ["decode"], ours)))
                common.same_value(self, ref, js_numbers(expected), "npm decode of ours")
                theirs = common.node("ref_bencode.mjs", ["encode"],
                                     json.dumps(lossy_expected(data)).encode())
                if js_numbers(expected) == expected:
                    self.assertEqual(ours, theirs)
                common.same_value(self, ours_to_json(theirs), js_numbers(expected), "ours of npm")
                # Our own round trip keeps the exact integers.
                common.same_value(self, ours_to_json(ours), expected, "ours of ours")

    def test_convert_round_trip_identical_values(self):
        text = self.int_records()
        _, b, _ = common.convert(["--from", "json", "--to", "bencode"], text)
        _, j, _ = common.convert(["--from", "bencode", "--to", "json"], b)
        common.same_value(self, json.loads(j), sorted_keys(json.loads(text)))

    def test_big_integers(self):
        data = b"li9223372036854775807ei18446744073709551615ei-123456789012345678901234567890ee"
        v = ours_to_json(data)
        self.assertEqual(v, [9223372036854775807, 18446744073709551615,
                             -123456789012345678901234567890])
        _, back, _ = common.convert(["--from", "json", "--to", "bencode"], json.dumps(v).encode())
        self.assertEqual(back, data)

    def test_edge_values_both_directions(self):
        value = {"": "", "a": [0, -1, 2147483648, -9007199254740991], "\u00e9": {"x": []},
                 "z": "\u65e5\u672c\u8a9e", "B": {}}
        text = json.dumps(value).encode()
        _, ours, _ = common.convert(["--from", "json", "--to", "bencode"], text)
        theirs = common.node("ref_bencode.mjs", ["encode"], text)
        self.assertEqual(ours, theirs)
        ref = from_ref_view(json.loads(common.node("ref_bencode.mjs", ["decode"], ours)))
        common.same_value(self, ref, sorted_keys(value))


class BencodeHostile(unittest.TestCase):
    def expect_malformed(self, data, message, args=()):
        t = time.monotonic()
        rc, _, err = common.convert(["--from", "bencode", "--to", "json", *args], data,
                                    check=False)
        self.assertEqual(rc, 2, err)
        self.assertIn(message, err)
        self.assertLess(time.monotonic() - t, 5)
        return err

    def test_million_nested_lists(self):
        self.expect_malformed(b"l" * 1000000, "nesting deeper than 512")

    def test_huge_string_length(self):
        self.expect_malformed(b"4294967295:abc", "exceeds the 3 bytes left")
        self.expect_malformed(b"99999999999999999999999:", "too many digits")

    def test_integer_rules(self):
        self.expect_malformed(b"i03e", "leading zeros")
        self.expect_malformed(b"i-0e", "negative zero")
        self.expect_malformed(b"ie", "expected a digit")
        self.expect_malformed(b"i-e", "expected a digit")
        self.expect_malformed(b"l-3:abce", "expected 'i', 'l', 'd' or a string length")

    def test_canonical_rejects_unsorted_and_duplicates(self):
        unsorted = b"d1:bi1e1:ai2ee"
        self.assertEqual(ours_to_json(unsorted), {"b": 1, "a": 2})
        self.expect_malformed(unsorted, "not sorted", ["--canonical"])
        self.expect_malformed(b"d1:ai1e1:ai2ee", "duplicate key", ["--canonical"])


if __name__ == "__main__":
    unittest.main()
