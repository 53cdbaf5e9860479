"""The TCP protocol of DESIGN section 5 with a client written here with struct (independent of
proto/): every implemented pair on records.json, 1,000 pipelined frames answered in order,
bad magic, bad version, oversized and truncated frames, errors that keep the connection."""
import json
import os
import socket
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_common import (Server, schema_dir, fixture, implemented_formats, is_closed, read_response,
                           request_frame, tcp_connect, pipeline_frames_in_order)
from test_http import strict_equal

OK, MALFORMED, UNSUPPORTED, UNREPRESENTABLE, TOO_LARGE, BUSY, BAD_FRAME = range(7)
JSON = 1


class TcpTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = Server("--threads", "2", "--max-body", "1MiB", "--schema-dir", schema_dir())
        cls.formats = implemented_formats(cls.server)
        cls.records_bytes = fixture("records.json")
        cls.records = json.loads(cls.records_bytes)

    @classmethod
    def tearDownClass(cls):
        assert cls.server.stop() == 0

    def roundtrip(self, sock, req_id, from_id, to_id, doc, options=b"", flags=0):
        sock.sendall(request_frame(req_id, from_id, to_id, doc, options, flags))
        status, rid, fmt, payload = read_response(sock)
        self.assertEqual(rid, req_id)
        return status, fmt, payload

    def test_every_implemented_pair_on_records(self):
        tabular = {fid for fid, name, mt, caps in self.formats if caps["tabular"]}
        with tcp_connect(self.server) as s:
            encoded = {}
            schema = {fid: b"schema=records" if caps["needs_schema"] else b""
                      for fid, name, mt, caps in self.formats}
            for fid, name, mt, caps in self.formats:
                status, fmt, payload = self.roundtrip(s, fid, JSON, fid, self.records_bytes,
                                                      schema[fid])
                if status == UNREPRESENTABLE:
                    continue
                if caps["needs_schema"] and status == UNSUPPORTED:
                    continue  # postcard without schema=NAME
                self.assertEqual(status, OK, (name, payload[:200]))
                self.assertEqual(fmt, fid)
                encoded[fid] = (name, payload)
            self.assertIn(JSON, encoded)
            pairs = 0
            for a, (name_a, doc_a) in encoded.items():
                for b, name_b, mt, caps in self.formats:
                    with self.subTest(pair=(name_a, name_b)):
                        opts = b"infer=true&unflatten=true" if a in tabular else b""
                        if schema[a] or schema[b]:
                            opts += (b"&" if opts else b"") + b"schema=records"
                        status, fmt, out = self.roundtrip(s, 1000 + b, a, b, doc_a, opts)
                        if status == UNREPRESENTABLE:
                            self.assertTrue(out.startswith(name_b.encode() + b": "), out)
                            continue
                        if caps["needs_schema"] and status == UNSUPPORTED:
                            continue
                        self.assertEqual(status, OK, (name_a, name_b, out[:200]))
                        opts = b"infer=true&unflatten=true" if b in tabular else b""
                        if schema[b]:
                            opts += (b"&" if opts else b"") + b"schema=records"
                        status, fmt, back = self.roundtrip(s, 2000 + b, b, JSON, out, opts)
                        self.assertEqual(status, OK, (name_b, back[:200]))
                        diff = strict_equal(self.records, json.loads(back))
                        self.assertIsNone(diff, "%s -> %s -> json: %s" % (name_a, name_b, diff))
                        pairs += 1
            self.assertGreaterEqual(pairs, 1)

    def test_plist_both_forms(self):
        # Format 25 on the wire; binary=true in the frame's options picks bplist00, and
        # plistlib (independent) reads both forms.
        import plistlib
        PLIST = 25
        doc = b'{"name":"App","n":[1,2.5,true],"big":18446744073709551615}'
        want = {"name": "App", "n": [1, 2.5, True], "big": 2**64 - 1}
        with tcp_connect(self.server) as s:
            status, fmt, xml = self.roundtrip(s, 1, JSON, PLIST, doc)
            self.assertEqual((status, fmt), (OK, PLIST), xml[:200])
            self.assertEqual(plistlib.loads(xml), want)
            status, fmt, binary = self.roundtrip(s, 2, JSON, PLIST, doc, b"binary=true")
            self.assertEqual(status, OK, binary[:200])
            self.assertEqual(binary[:8], b"bplist00")
            self.assertEqual(plistlib.loads(binary), want)
            status, fmt, back = self.roundtrip(s, 3, PLIST, JSON, binary)
            self.assertEqual((status, json.loads(back)), (OK, want))
            status, fmt, out = self.roundtrip(s, 4, JSON, PLIST, b'[null]')
            self.assertEqual(status, UNREPRESENTABLE, out)
            status, fmt, out = self.roundtrip(s, 5, PLIST, JSON, binary[:-3])
            self.assertEqual(status, MALFORMED, out)

    def test_1000_pipelined_frames_in_order(self):
        pipeline_frames_in_order(self, self.server, 1000)

    def test_options_and_flags(self):
        with tcp_connect(self.server) as s:
            status, fmt, out = self.roundtrip(s, 1, JSON, JSON, b'{"a":[1]}', flags=1)
            self.assertEqual((status, out), (OK, b'{\n  "a": [\n    1\n  ]\n}\n'))
            status, fmt, out = self.roundtrip(s, 2, JSON, JSON, b'{"a":[1]}', b"pretty=true")
            self.assertEqual((status, out), (OK, b'{\n  "a": [\n    1\n  ]\n}\n'))
            status, fmt, out = self.roundtrip(s, 3, JSON, JSON, b"1", b"bogus=1")
            self.assertEqual(status, MALFORMED, out)
            self.assertIn(b"bogus", out)

    def test_properties_frames(self):
        props = 26  # DESIGN section 15
        with tcp_connect(self.server) as s:
            status, fmt, out = self.roundtrip(s, 1, JSON, props, b'{"a":{"b":[1,true]}}')
            self.assertEqual((status, fmt, out), (OK, props, b"a.b.0=1\na.b.1=true\n"))
            status, fmt, out = self.roundtrip(s, 2, props, JSON, out, b"unflatten=true&infer=true")
            self.assertEqual((status, json.loads(out)), (OK, {"a": {"b": [1, True]}}))
            status, fmt, out = self.roundtrip(s, 3, props, JSON, b"k=\\uZZZZ")
            self.assertEqual(status, MALFORMED)
            self.assertIn(b"malformed \\uxxxx escape", out)
            status, fmt, out = self.roundtrip(s, 4, JSON, props, b"[1]")
            self.assertEqual(status, UNREPRESENTABLE)

    def test_errors_keep_the_connection(self):
        with tcp_connect(self.server) as s:
            status, fmt, out = self.roundtrip(s, 1, JSON, JSON, b"[1,")
            self.assertEqual(status, MALFORMED)
            self.assertEqual(fmt, 0)
            self.assertIn(b"byte 3", out)
            status, fmt, out = self.roundtrip(s, 2, 99, JSON, b"[1]")
            self.assertEqual(status, UNSUPPORTED)
            status, fmt, out = self.roundtrip(s, 3, JSON, 0, b"[1]")
            self.assertEqual(status, UNSUPPORTED)
            implemented = {f[0] for f in self.formats}
            for fid in range(1, 15):
                if fid not in implemented:
                    status, fmt, out = self.roundtrip(s, 4, fid, JSON, b"x")
                    self.assertEqual(status, UNSUPPORTED, fid)
                    self.assertIn(b"not implemented", out)
            status, fmt, out = self.roundtrip(s, 5, JSON, JSON, b"[" * 513 + b"]" * 513)
            self.assertEqual(status, MALFORMED)
            status, fmt, out = self.roundtrip(s, 6, JSON, JSON, b"[" * 512 + b"]" * 512)
            self.assertEqual(status, OK)
            # Still usable.
            self.assertEqual(self.roundtrip(s, 7, JSON, JSON, b"[1]")[0], OK)

    def bad_frame(self, frame, expect_id=7, expect=BAD_FRAME, shutdown=False):
        with tcp_connect(self.server) as s:
            s.sendall(frame)
            if shutdown:
                s.shutdown(socket.SHUT_WR)
            status, rid, fmt, payload = read_response(s)
            self.assertEqual(status, expect, payload)
            self.assertEqual(rid, expect_id)
            self.assertTrue(is_closed(s), "connection stays open after a bad frame")
            return payload

    def test_bad_magic(self):
        self.assertIn(b"magic", self.bad_frame(request_frame(7, JSON, JSON, b"[1]", magic=b"XX")))

    def test_bad_version(self):
        self.assertIn(b"version", self.bad_frame(request_frame(7, JSON, JSON, b"[1]", version=2)))

    def test_oversized_length(self):
        # Over the protocol's ceiling: a bad frame.
        self.bad_frame(request_frame(7, JSON, JSON, b"", payload_length=0xFFFFFFFF))
        # Over the server's --max-body (1 MiB): too large, refused before the payload arrives.
        p = self.bad_frame(request_frame(7, JSON, JSON, b"", payload_length=(1 << 20) + 1),
                           expect=TOO_LARGE)
        self.assertIn(b"over the limit", p)

    def test_options_longer_than_payload(self):
        frame = bytearray(request_frame(7, JSON, JSON, b"[1]"))
        frame[10:12] = (100).to_bytes(2, "big")
        self.bad_frame(bytes(frame))

    def test_truncated_frame(self):
        frame = request_frame(7, JSON, JSON, b"[1, 2, 3, 4, 5]")
        p = self.bad_frame(frame[:20], shutdown=True)
        self.assertIn(b"truncated", p)


if __name__ == "__main__":
    unittest.main()
