"""Differential tests of the pickle codec against CPython's pickle module.

- We read what pickle.dumps writes at protocols 0-5 for a corpus of values (compared through
  `polycodec convert --to json` with the conventions below).
- Python's pickle.loads reads what we write (protocol 5), values compared.
- Hostile pickles (os.system through REDUCE, GLOBAL, STACK_GLOBAL, INST, OBJ, NEWOBJ, BUILD,
  EXT, PERSID) are refused with the exact message, and a canary file proves nothing ran.

Conventions when comparing with JSON: bytes and bytearray are base64url text without padding
(DESIGN section 3), tuples, sets and frozensets are arrays (sets in their iteration order, which
is the order pickle wrote), integer dict keys are their decimal text.
"""
import base64
import json
import math
import os
import pickle
import tempfile
import time
import unittest

import common


def as_json(v):
    """The JSON value polycodec's pickle -> json conversion should produce for v."""
    if isinstance(v, (bytes, bytearray)):
        return base64.urlsafe_b64encode(bytes(v)).decode().rstrip("=")
    if isinstance(v, (list, tuple, set, frozenset)):
        return [as_json(x) for x in v]
    if isinstance(v, dict):
        return {(k if isinstance(k, str) else str(k)): as_json(x) for k, x in v.items()}
    return v


def as_loaded(v):
    """What pickle.loads gives back after a round trip through our data model."""
    if isinstance(v, bytearray):
        return bytes(v)
    if isinstance(v, (list, tuple, set, frozenset)):
        return [as_loaded(x) for x in v]
    if isinstance(v, dict):
        return {(tuple(as_loaded(list(k))) if isinstance(k, tuple) else k): as_loaded(x)
                for k, x in v.items()}
    return v


def corpus():
    shared = [1, 2, 3]
    return [
        None, True, False, 0, 1, -1, 255, 256, 65535, 65536, -65536, 2**31 - 1, -2**31, 2**31,
        2**63 - 1, -2**63, 2**63, 2**64 - 1, 2**64, -2**64, 2**100, -2**100, 10**40 + 7,
        -(10**300), 0.0, -0.0, 1.5, -2.25e-300, 1e300, 0.1,
        "", "a", "h\u00e9llo", "\u6771\u4eac", "\U0001f600", "back\\slash", "\\u0041",
        "line\nbreak\r\x00\x1a", "x" * 300, "\u20ac" * 70000,
        b"", b"\x00\xff", b"x" * 300, b"y" * 70000, bytearray(b""), bytearray(b"\x01\x80"),
        [], [1, [2, [3, []]]], (), (1,), (1, 2), (1, 2, 3), (1, 2, 3, 4), list(range(2500)),
        {}, {"a": 1, "b": [True, None]}, {1: "one", 2: "two"}, {str(i): i for i in range(1200)},
        set(), {1, 2, 3}, frozenset(), frozenset(["a"]), {"s": {5}},
        [shared, shared, (shared,)], {"k": shared, "j": shared},
        [b"ab", b"ab", bytearray(b"cd")],
    ]


class PickleReadsCPython(unittest.TestCase):
    def test_protocols_0_to_5_to_json(self):
        for v in corpus():
            for proto in range(6):
                with self.subTest(value=repr(v)[:40], protocol=proto):
                    data = pickle.dumps(v, protocol=proto)
                    _, out, _ = common.convert(["--from", "pickle", "--to", "json"], data)
                    common.same_value(self, json.loads(out), as_json(v))

    def test_protocols_0_to_5_back_to_pickle(self):
        values = corpus() + [float("inf"), float("-inf"), {(1, 2): "tuple key"}]
        for v in values:
            for proto in range(6):
                with self.subTest(value=repr(v)[:40], protocol=proto):
                    data = pickle.dumps(v, protocol=proto)
                    _, out, _ = common.convert(["--from", "pickle", "--to", "pickle"], data)
                    self.assertEqual(pickle.loads(out), as_loaded(v))

    def test_random_nested_values(self):
        import random
        rnd = random.Random(20261130)

        def gen(depth):
            k = rnd.randrange(12 if depth < 4 else 7)
            if k == 0:
                return None
            if k == 1:
                return rnd.random() < 0.5
            if k == 2:
                return rnd.randrange(-2**rnd.randrange(1, 200), 2**rnd.randrange(1, 200))
            if k == 3:
                return rnd.uniform(-1e10, 1e10)
            if k == 4:
                return "".join(chr(rnd.choice([rnd.randrange(32, 127), rnd.randrange(160, 0xD7FF),
                                               rnd.randrange(0x10000, 0x10FFFF), 10, 92]))
                               for _ in range(rnd.randrange(12)))
            if k == 5:
                return bytes(rnd.randrange(256) for _ in range(rnd.randrange(12)))
            if k == 6:
                return bytearray(rnd.randrange(256) for _ in range(rnd.randrange(4)))
            if k in (7, 8):
                return [gen(depth + 1) for _ in range(rnd.randrange(5))]
            if k == 9:
                return tuple(gen(depth + 1) for _ in range(rnd.randrange(5)))
            if k == 10:
                return {rnd.choice(["a", "b", "c", "d"]) + str(i): gen(depth + 1)
                        for i in range(rnd.randrange(4))}
            return {rnd.randrange(-50, 50) for _ in range(rnd.randrange(4))}

        values = [gen(0) for _ in range(400)]
        for proto in range(6):
            for fix_imports in (True, False):
                with self.subTest(protocol=proto, fix_imports=fix_imports):
                    data = pickle.dumps(values, protocol=proto, fix_imports=fix_imports)
                    _, out, _ = common.convert(["--from", "pickle", "--to", "json"], data)
                    common.same_value(self, json.loads(out), as_json(values))
                    _, back, _ = common.convert(["--from", "pickle", "--to", "pickle"], data)
                    self.assertEqual(pickle.loads(back), as_loaded(values))

    def test_nan(self):
        for proto in range(6):
            _, out, _ = common.convert(["--from", "pickle", "--to", "pickle"],
                                       pickle.dumps(float("nan"), protocol=proto))
            self.assertTrue(math.isnan(pickle.loads(out)))


class CPythonReadsOurs(unittest.TestCase):
    def test_fixtures(self):
        for name in ("records.json", "bench.json"):
            with self.subTest(fixture=name):
                _, out, _ = common.convert(["--from", "json", "--to", "pickle"],
                                           common.fixture(name))
                self.assertEqual(out[:2], b"\x80\x05")
                common.same_value(self, pickle.loads(out), common.load_json_fixture(name))
                # And back: pickle -> json gives the fixture's value.
                _, back, _ = common.convert(["--from", "pickle", "--to", "json"], out)
                common.same_value(self, json.loads(back), common.load_json_fixture(name))

    def test_edge_values(self):
        doc = {"big": 2**200, "neg": -2**64, "u": 2**64 - 1, "f": -0.0, "s": "\U0001f600" * 5,
               "long": "z" * 100000, "nested": [[[[]]]], "empty": {}}
        text = json.dumps(doc).encode()
        _, out, _ = common.convert(["--from", "json", "--to", "pickle"], text)
        common.same_value(self, pickle.loads(out), doc)

    def test_scalars_byte_identical_to_cpython(self):
        # CPython memoizes containers and strings but not numbers: for these our protocol 5
        # output, framing included, is exactly pickle.dumps(v, 5).
        for v in (None, True, False, 0, 255, 256, 65535, 65536, -1, 2**31, -2**31 - 1, 2**32,
                  -2**63, 2**63, 2**64 - 1, -2**64, 2**700, -2**2100, 1.5, -0.0, 1e300):
            with self.subTest(value=v):
                _, out, _ = common.convert(["--from", "json", "--to", "pickle"],
                                           json.dumps(v).encode())
                self.assertEqual(out.hex(), pickle.dumps(v, protocol=5).hex())

    def test_bytes_from_cbor_like_sources(self):
        # bytes survive pickle -> pickle: CPython reads our SHORT_BINBYTES/BINBYTES.
        v = [b"\x00" * 10, b"\xff" * 70000]
        _, out, _ = common.convert(["--from", "pickle", "--to", "pickle"], pickle.dumps(v, 2))
        self.assertEqual(pickle.loads(out), v)


class Evil:
    def __init__(self, func, *args):
        self.func, self.args = func, args

    def __reduce__(self):
        return (self.func, self.args)


class HostilePickles(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="polycodec-canary-")
        self.canary = os.path.join(self.dir, "canary")
        self.cmd = "touch " + self.canary

    def tearDown(self):
        if os.path.exists(self.canary):
            os.remove(self.canary)
        os.rmdir(self.dir)

    def refused(self, data, opcode):
        code, out, err = common.convert(["--from", "pickle", "--to", "json"], data, check=False)
        self.assertEqual(code, 2, err)
        self.assertEqual(out, b"")
        self.assertIn("pickle opcode %s refused: it would import or call code" % opcode, err)
        self.assertFalse(os.path.exists(self.canary), "the canary was touched: code ran")

    def test_reduce_os_system_every_protocol(self):
        # os.system pickles as GLOBAL 'posix system' (protocols 0-3) or STACK_GLOBAL (4-5).
        for proto in range(6):
            with self.subTest(protocol=proto):
                data = pickle.dumps(Evil(os.system, self.cmd), protocol=proto)
                self.refused(data, "GLOBAL" if proto < 4 else "STACK_GLOBAL")

    def test_other_callables(self):
        import subprocess
        for func in (eval, exec, subprocess.call, getattr):
            for proto in (0, 2, 4, 5):
                with self.subTest(func=func.__name__, protocol=proto):
                    data = pickle.dumps(Evil(func, "__import__('os').system(%r)" % self.cmd),
                                        protocol=proto)
                    self.refused(data, "GLOBAL" if proto < 4 else "STACK_GLOBAL")

    def test_recognised_global_with_another_reduce_shape(self):
        # builtins.set is recognised only for REDUCE with ([items],); anything else is refused.
        data = b"\x80\x03cbuiltins\nset\nX\x03\x00\x00\x00abc\x85R."
        self.refused(data, "REDUCE")
        # A recognised global reaching the result without REDUCE is still refused.
        self.refused(pickle.dumps(set, protocol=2), "GLOBAL")

    def test_hand_written_opcodes(self):
        c = self.cmd.encode()
        cases = [
            (b"(V" + c + b"\nios\nsystem\n.", "INST"),
            (b"(cos\nsystem\nV" + c + b"\no.", "GLOBAL"),
            (b"(N" + b"V" + c + b"\no.", "OBJ"),
            (b"\x80\x02N)\x81.", "NEWOBJ"),
            (b"\x80\x04N)}\x92.", "NEWOBJ_EX"),
            (b"\x80\x02]}b.", "BUILD"),
            (b"\x80\x02\x82\x01.", "EXT1"),
            (b"\x80\x02\x83\x01\x00.", "EXT2"),
            (b"\x80\x02\x84\x01\x00\x00\x00.", "EXT4"),
            (b"P" + c + b"\n.", "PERSID"),
            (b"\x80\x02V" + c + b"\nQ.", "BINPERSID"),
            (b"\x80\x02N)R.", "REDUCE"),
            (b"\x80\x04\x8c\x02os\x8c\x06system\x93V" + c + b"\n\x85R.", "STACK_GLOBAL"),
        ]
        for data, opcode in cases:
            with self.subTest(opcode=opcode):
                self.refused(data, opcode)

    def test_memo_bomb_is_bounded(self):
        # x0 = 1 MiB; x(i+1) = [x(i), x(i)] 60 times: 2^60 MiB if expanded.
        p = b"\x80\x05\x8e" + (1 << 20).to_bytes(8, "little") + b"x" * (1 << 20) + b"\x940"
        for i in range(60):
            p += b"(h" + bytes([i]) + b"h" + bytes([i]) + b"l\x940"
        p = p[:-1] + b"."
        start = time.monotonic()
        code, _, err = common.convert(["--from", "pickle", "--to", "json"], p, check=False)
        self.assertEqual(code, 2, err)
        self.assertIn("budget", err)
        self.assertLess(time.monotonic() - start, 10)

    def test_lengths_beyond_the_input(self):
        for data in (b"\x80\x05X\xff\xff\xff\x7f", b"\x80\x05\x8e\xff\xff\xff\xff\xff\xff\xff\x7f",
                     b"\x80\x05\x8b\xff\xff\xff\x7f"):
            code, _, err = common.convert(["--from", "pickle", "--to", "json"], data,
                                          check=False)
            self.assertEqual(code, 2, err)
            self.assertIn("beyond the input", err)


if __name__ == "__main__":
    unittest.main()
