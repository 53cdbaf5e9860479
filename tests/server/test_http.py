"""HTTP API of DESIGN section 4 through the real curl: every implemented format pair on
fixtures/records.json, every error status with its body and headers, negotiation, keep-alive,
pipelining and Expect: 100-continue."""
import json
import os
import sys
import math
import socket
import struct
import subprocess
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(1, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "differential"))
import common as differential  # noqa: E402  (the format table's names)
from server_common import (Server, all_formats, curl, fixture, implemented_formats,
                           polycodec_bin, read_http_response, read_until_closed, schema_dir)


def strict_equal(a, b, path=""):
    """Deep equality that tells int from float and bool from int; returns the first difference."""
    if type(a) != type(b):
        return "%s: %r (%s) != %r (%s)" % (path or "/", a, type(a).__name__, b, type(b).__name__)
    if isinstance(a, dict):
        if list(a.keys()) != list(b.keys()):
            return "%s: keys %r != %r" % (path or "/", list(a.keys())[:5], list(b.keys())[:5])
        for k in a:
            d = strict_equal(a[k], b[k], path + "/" + k)
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return "%s: length %d != %d" % (path or "/", len(a), len(b))
        for i, (x, y) in enumerate(zip(a, b)):
            d = strict_equal(x, y, "%s/%d" % (path, i))
            if d:
                return d
        return None
    if isinstance(a, float) and math.isnan(a) and math.isnan(b):
        return None
    return None if a == b else "%s: %r != %r" % (path or "/", a, b)


def http_exchange(port, raw, expect_responses, timeout=10):
    """Sends raw bytes on one connection and reads `expect_responses` answers
    [(status, headers, body)] by Content-Length."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    s.sendall(raw)
    buf = b""
    out = []
    while len(out) < expect_responses:
        try:
            status, headers, body, buf = read_http_response(s, buf)
        except EOFError as e:
            raise AssertionError("closed early after %d answers: %s" % (len(out), e))
        out.append((status, headers, body))
    s.close()
    return out


class HttpTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = Server("--threads", "2", "--schema-dir", schema_dir())
        cls.formats = implemented_formats(cls.server)
        cls.records_bytes = fixture("records.json")
        cls.records = json.loads(cls.records_bytes)

    @classmethod
    def tearDownClass(cls):
        code = cls.server.stop()
        assert code == 0, code

    def post(self, path, data, content_type="application/json", accept=None, headers=()):
        h = list(headers)
        if content_type is not None:
            h.append("Content-Type: " + content_type)
        if accept is not None:
            h.append("Accept: " + accept)
        return curl(self.server.base + path, data=data, headers=h)

    def assertProblem(self, r, status, code=None):
        self.assertEqual(r.status, status, r)
        self.assertEqual(r.headers.get("content-type"), "application/problem+json", r)
        body = r.json()
        self.assertEqual(body["status"], status)
        self.assertTrue(body["type"].startswith("urn:polycodec:problem:"), body)
        self.assertTrue(body["title"], body)
        self.assertTrue(body["detail"], body)
        if code is not None:
            self.assertEqual(body["code"], code, body)
        self.assertIn("x-request-id", r.headers)
        self.assertRegex(r.headers.get("server-timing", ""),
                         r"^decode;dur=\d+\.\d+, encode;dur=\d+\.\d+$")
        return body

    # ---- every implemented pair ----

    def test_every_implemented_pair_on_records(self):
        encoded = {}
        tabular = {name for fid, name, mt, caps in self.formats if caps["tabular"]}
        schema = {name: "?schema=records" if caps["needs_schema"] else ""
                  for fid, name, mt, caps in self.formats}
        for fid, name, mt, caps in self.formats:
            r = self.post("/transcode" + schema[name], self.records_bytes, accept=mt)
            if r.status == 422:
                self.assertProblem(r, 422, "unrepresentable")
                continue
            if caps["needs_schema"] and r.status == 406:
                self.assertProblem(r, 406, "schema_required")  # no schema=NAME given
                continue
            self.assertEqual(r.status, 200, (name, r))
            self.assertTrue(r.headers["content-type"].startswith(mt), (name, r.headers))
            self.assertEqual(r.headers.get("vary"), "Accept, Accept-Encoding")  # DESIGN section 16
            encoded[name] = (mt, r.body)
        self.assertIn("json", encoded)
        pairs = 0
        for a, (mt_a, body_a) in encoded.items():
            for fid, b, mt_b, caps in self.formats:
                with self.subTest(pair=(a, b)):
                    q = "?infer=true&unflatten=true" if a in tabular else "?"
                    if schema[a] or schema[b]:
                        q += "&schema=records"
                    r = self.post("/transcode" + q, body_a, content_type=mt_a, accept=mt_b)
                    if r.status == 422:
                        self.assertProblem(r, 422, "unrepresentable")
                        continue
                    if caps["needs_schema"] and r.status == 406:
                        self.assertProblem(r, 406, "schema_required")
                        continue
                    self.assertEqual(r.status, 200, (a, b, r))
                    # Tables keep text only: read numbers and dotted columns back.
                    q = "&infer=true&unflatten=true" if b in tabular else ""
                    q += "&schema=records" if schema[b] else ""
                    back = self.post("/transcode?to=json" + q, r.body, content_type=mt_b)
                    self.assertEqual(back.status, 200, (a, b, back))
                    diff = strict_equal(self.records, json.loads(back.body))
                    self.assertIsNone(diff, "%s -> %s -> json: %s" % (a, b, diff))
                    pairs += 1
        self.assertGreaterEqual(pairs, 1)

    # ---- errors of section 4 ----

    def test_400_malformed_carries_position_and_path(self):
        r = self.post("/transcode", b'{"a": [1,\n  2 3]}')
        body = self.assertProblem(r, 400, "unexpected_char")
        self.assertEqual(body["format"], "json")
        self.assertEqual(body["offset"], 14)
        self.assertEqual(body["line"], 2)
        self.assertEqual(body["column"], 5)
        self.assertEqual(body["path"], "/a/2")
        self.assertEqual(r.headers.get("vary"), "Accept, Accept-Encoding")

    def test_400_bad_option(self):
        self.assertProblem(self.post("/transcode?lossy=perhaps", b"1"), 400, "invalid_option")
        self.assertProblem(self.post("/transcode?nosuch=1", b"1"), 400, "invalid_option")
        self.assertProblem(self.post("/transcode", b"1", content_type="application/json; x=y"),
                           400, "invalid_option")

    def test_404(self):
        self.assertProblem(curl(self.server.base + "/nothing"), 404, "not_found")

    def test_405_lists_allowed_method(self):
        r = curl(self.server.base + "/transcode")
        self.assertProblem(r, 405, "method_not_allowed")
        self.assertEqual(r.headers.get("allow"), "POST, PUT")
        r = curl(self.server.base + "/formats", data=b"x", headers=["Content-Type: a/b"])
        self.assertProblem(r, 405)
        self.assertEqual(r.headers.get("allow"), "GET")

    def test_406_lists_acceptable_types(self):
        r = self.post("/transcode", b"[1]", accept="image/png")
        body = self.assertProblem(r, 406, "not_acceptable")
        self.assertIn("application/json", body["acceptable"])
        for fid, name, mt, caps in self.formats:
            self.assertIn(mt, body["acceptable"])
        for fid, name, mt, impl in all_formats(self.server):
            if not impl:
                r = self.post("/transcode?to=" + name, b"[1]")
                self.assertProblem(r, 406)
                self.assertNotIn(mt, r.json()["acceptable"])
        self.assertProblem(self.post("/transcode?to=klingon", b"[1]"), 406)

    def test_415_unknown_or_missing_content_type(self):
        r = self.post("/transcode", b"[1]", content_type="application/x-klingon")
        self.assertProblem(r, 415, "unsupported_format")
        self.assertEqual(r.headers.get("vary"), "Accept, Accept-Encoding")
        # No Content-Type at all ("Content-Type:" makes curl send none).
        self.assertProblem(self.post("/transcode", b"[1]", content_type=None,
                                     headers=["Content-Type:"]), 415)
        # curl's default for --data-binary, application/x-www-form-urlencoded, is the urlform
        # format (id 16): a form body is read as a form.
        if any(name == "urlform" and impl for fid, name, mt, impl in all_formats(self.server)):
            r = self.post("/transcode", b"a=1&b=x%20y", content_type=None,
                          accept="application/json")
            self.assertEqual((r.status, r.body), (200, b'{"a":"1","b":"x y"}'), r)
        self.assertProblem(self.post("/transcode?from=klingon", b"[1]"), 415)
        for fid, name, mt, impl in all_formats(self.server):
            if not impl:
                self.assertProblem(self.post("/transcode", b"[1]", content_type=mt), 415,
                                   "not_implemented")

    def test_422_not_representable_and_lossy(self):
        # Documents with NaN in formats that can carry it, written by hand.
        nan_docs = {
            "cbor": bytes.fromhex("a16178f97e00"),
            "msgpack": bytes.fromhex("81a178cb7ff8000000000000"),
            "yaml": b"x: .nan\n",
            "toml": b"x = nan\n",
            "json5": b'{"x": NaN}',
            "hjson": b'{"x": NaN}',
            "pickle": b"\x80\x04}\x94\x8c\x01x\x94G\x7f\xf8\x00\x00\x00\x00\x00\x00s.",
        }
        tried = 0
        for fid, name, mt, caps in self.formats:
            if name not in nan_docs:
                continue
            r = self.post("/transcode?to=json", nan_docs[name], content_type=mt)
            if r.status == 400:
                continue  # that decoder does not read this spelling of NaN
            body = self.assertProblem(r, 422, "unrepresentable")
            self.assertEqual(body["path"], "/x")
            self.assertEqual(body["format"], "json")
            ok = self.post("/transcode?to=json&lossy=allow", nan_docs[name], content_type=mt)
            self.assertEqual(ok.status, 200, ok)
            self.assertIn('path="/x"', ok.headers.get("polycodec-lossy", ""))
            tried += 1
        # A root that must be a map (TOML, BSON) from a JSON array.
        for fid, name, mt, caps in self.formats:
            if caps["map_root_only"] and not caps["needs_schema"]:
                self.assertProblem(self.post("/transcode", b"[1]", accept=mt), 422,
                                   "unrepresentable")
                tried += 1
        if tried == 0:
            self.skipTest("no implemented format can produce a 422 yet")

    def test_422_container_map_key_and_lossy(self):
        # {"a": 1, [1, 2]: "x"} in CBOR, written by hand (RFC 8949 allows any key).
        body = bytes.fromhex("a2 61 61 01 82 01 02 61 78")
        r = self.post("/transcode?from=cbor&to=json", body, content_type=None)
        problem = self.assertProblem(r, 422, "unrepresentable")
        self.assertEqual(problem["path"], "/[1,2]")
        ok = self.post("/transcode?from=cbor&to=json&lossy=allow", body, content_type=None)
        self.assertEqual(ok.status, 200, ok)
        self.assertEqual(json.loads(ok.body), {"a": 1, "[1,2]": "x"})
        self.assertIn('path="/[1,2]"', ok.headers.get("polycodec-lossy", ""))
        # CBOR and MessagePack hold it as it is.
        r = self.post("/transcode?from=cbor&to=msgpack", body, content_type=None)
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.body, bytes.fromhex("82a16101920102a178"))

    # ---- headers, negotiation ----

    def test_protojson_from_protobuf_and_back(self):
        # protojson (docs/formats/protojson.md) with fixtures/schemas/bench.binpb: JSON ->
        # protobuf -> application/json;profile=protojson (lowerCamelCase keys, int64 as
        # strings) -> protobuf again, and its errors with line, column and path.
        q = "/transcode?schema=bench&type=polycodec.bench.Bench"
        doc = {"records": [{"id": 9007199254740993, "active": True, "score": 1.5,
                            "name": "x", "tags": ["a"], "samples": [-1, 2]}]}
        pb = self.post(q, json.dumps(doc).encode(), accept="application/x-protobuf")
        self.assertEqual(pb.status, 200, pb)
        r = self.post(q, pb.body, content_type="application/x-protobuf",
                      accept="application/json;profile=protojson")
        self.assertEqual(r.status, 200, r)
        self.assertTrue(r.headers["content-type"].startswith("application/x-protojson"), r.headers)
        self.assertEqual(json.loads(r.body), {"records": [
            {"id": "9007199254740993", "active": True, "score": 1.5, "name": "x",
             "tags": ["a"], "samples": ["-1", "2"]}]})
        back = self.post(q, r.body, content_type="application/json; profile=protojson",
                         accept="application/x-protobuf")
        self.assertEqual(back.status, 200, back)
        self.assertEqual(back.body, pb.body)
        bad = self.post(q, b'{"records": [\n {"id": "x"}]}', content_type="application/x-protojson")
        body = self.assertProblem(bad, 400)
        self.assertEqual((body["line"], body["column"], body["path"]), (2, 9, "/records/0/id"))
        dup = self.post(q, b'{"records": [{"id": 1, "id": 2}]}', content_type="application/x-protojson")
        self.assertIn("twice", self.assertProblem(dup, 400)["detail"])

    def test_properties_both_ways_with_options_and_errors(self):
        # Java properties (docs/formats/properties.md): nested JSON flattens with dots; the
        # escapes are Properties.store's; unflatten and infer read the nesting and types back.
        doc = {"db": {"host": "h", "port": 5432, "tags": ["a b", "c=d"]}, "name": "\u00e9"}
        r = self.post("/transcode", json.dumps(doc).encode(), accept="text/x-java-properties")
        self.assertEqual(r.status, 200, r)
        self.assertTrue(r.headers["content-type"].startswith("text/x-java-properties"))
        self.assertEqual(r.body, b"db.host=h\ndb.port=5432\ndb.tags.0=a b\ndb.tags.1=c\\=d\n"
                                 b"name=\\u00E9\n")
        flat = self.post("/transcode", r.body, content_type="text/x-java-properties",
                         accept="application/json")
        self.assertEqual(json.loads(flat.body), {"db.host": "h", "db.port": "5432",
                                                 "db.tags.0": "a b", "db.tags.1": "c=d",
                                                 "name": "\u00e9"})
        back = self.post("/transcode?to=json&unflatten=true&infer=true", r.body,
                         content_type="text/x-java-properties")
        self.assertEqual(json.loads(back.body), doc)
        # The same options as media-type parameters.
        back = self.post("/transcode?to=json", r.body,
                         content_type="text/x-java-properties; unflatten=true; infer=true")
        self.assertEqual(json.loads(back.body), doc)
        body = self.assertProblem(self.post("/transcode?to=json", b"a=1\nb=\\u12G4\n",
                                            content_type="text/x-java-properties"),
                                  400, "invalid_string")
        self.assertEqual((body["format"], body["offset"], body["line"], body["column"]),
                         ("properties", 6, 2, 3))
        self.assertIn("malformed \\uxxxx escape", body["detail"])
        body = self.assertProblem(self.post("/transcode?to=properties", b'{"a":{"b":null}}'),
                                  422, "unrepresentable")
        self.assertEqual(body["path"], "/a/b")
        r = self.post("/transcode?to=properties&lossy=allow", b'{"a":{"b":null}}')
        self.assertEqual((r.status, r.body), (200, b"a.b=\n"))
        self.assertIn("null_to_empty", r.headers.get("polycodec-lossy", ""))

    def test_request_id_echo_and_generate(self):
        r = self.post("/transcode", b"[1]", headers=["X-Request-Id: trace-42"])
        self.assertEqual(r.headers["x-request-id"], "trace-42")
        r2 = self.post("/transcode", b"[1]")
        self.assertRegex(r2.headers["x-request-id"], r"^[0-9a-f]{16}$")
        self.server.wait_for(r"request_id=trace-42")

    def test_server_timing_on_every_answer(self):
        for r in (self.post("/transcode", b"[1]"), curl(self.server.base + "/healthz"),
                  curl(self.server.base + "/nope")):
            self.assertRegex(r.headers.get("server-timing", ""),
                             r"^decode;dur=\d+\.\d+, encode;dur=\d+\.\d+$")

    def test_accept_q_values_and_wildcards(self):
        r = self.post("/transcode", b'{"a":1}', accept="*/*")
        self.assertEqual(r.status, 200)
        self.assertTrue(r.headers["content-type"].startswith("application/json"))
        r = self.post("/transcode", b'{"a":1}', accept="image/png, application/*;q=0.2")
        self.assertEqual(r.status, 200, r)
        for fid, name, mt, caps in self.formats:
            r = self.post("/transcode", b'{"a":1}',
                          accept="application/json;q=0.1, %s;q=0.8" % mt)
            if r.status == 200:
                self.assertTrue(r.headers["content-type"].startswith(mt), (name, r.headers))
            r = self.post("/transcode?to=" + name, b'{"a":1}', accept="image/png")
            self.assertIn(r.status, (200, 422) + ((406,) if caps["needs_schema"] else ()),
                          (name, r))

    def test_plist_forms_follow_the_media_type(self):
        # docs/formats/plist.md: Accept application/x-bplist (or binary=true) answers bplist00,
        # application/x-plist the XML form; plistlib (an independent reader) reads both.
        import plistlib
        body = b'{"CFBundleName":"App","Build":42,"Data":[1.5,true]}'
        want = {"CFBundleName": "App", "Build": 42, "Data": [1.5, True]}
        r = self.post("/transcode", body, accept="application/x-bplist")
        self.assertEqual(r.status, 200)
        self.assertEqual(r.headers["content-type"], "application/x-bplist")
        self.assertEqual(r.body[:8], b"bplist00")
        self.assertEqual(plistlib.loads(r.body), want)
        binary = r.body
        r = self.post("/transcode", body, accept="application/x-plist")
        self.assertEqual(r.headers["content-type"], "application/x-plist")
        self.assertTrue(r.body.startswith(b"<?xml"), r.body[:40])
        self.assertEqual(plistlib.loads(r.body), want)
        r = self.post("/transcode?binary=true", body, accept="application/x-plist")
        self.assertEqual(r.body[:8], b"bplist00")
        # Either form in, by its magic; the binary media type in, the XML form asked for out.
        r = self.post("/transcode", binary, content_type="application/x-bplist",
                      accept="application/json")
        self.assertEqual(json.loads(r.body), want)
        r = self.post("/transcode", binary, content_type="application/x-bplist",
                      accept="application/x-plist")
        self.assertTrue(r.body.startswith(b"<?xml"), r.body[:40])
        # A null has no plist form: 422 with its path, dropped under lossy=allow.
        r = self.post("/transcode", b'{"a":null,"b":1}', accept="application/x-plist")
        self.assertProblem(r, 422, "unrepresentable")
        r = self.post("/transcode?lossy=allow", b'{"a":null,"b":1}', accept="application/x-bplist")
        self.assertEqual(plistlib.loads(r.body), {"b": 1})
        self.assertIn("null_dropped", r.headers["polycodec-lossy"])
        # A reference cycle is a 400 with its byte offset.
        cyc = (b"bplist00\xd1\x01\x00\x51\x41\x08\x0b" + bytes(6) + b"\x01\x01" +
               (2).to_bytes(8, "big") + bytes(8) + (13).to_bytes(8, "big"))
        r = self.post("/transcode", cyc, content_type="application/x-bplist")
        self.assertProblem(r, 400, "malformed")
        self.assertIn("contains itself", r.body.decode())
        self.assertEqual(r.json()["offset"], 8)

    def test_pretty_query(self):
        r = self.post("/transcode?pretty=true", b'{"a":[1]}')
        self.assertEqual(r.body, b'{\n  "a": [\n    1\n  ]\n}\n')

    def test_validate(self):
        r = self.post("/validate", b"[1,2]")
        self.assertEqual(r.status, 204)
        self.assertEqual(r.body, b"")
        self.assertProblem(self.post("/validate", b"[1,2"), 400, "unexpected_eof")

    def test_schemas_lists_the_schema_dir(self):
        r = curl(self.server.base + "/schemas")
        self.assertEqual(r.status, 200, r)
        rows = {(x["name"], x["kind"]): x["types"] for x in r.json()}
        self.assertEqual(rows[("records", "avro")],
                         ["polycodec.fixtures.Record", "polycodec.fixtures.Nested"])
        self.assertEqual(rows[("records", "postcard")], [])
        self.assertIn(("bench", "avro"), rows)

    def test_avro_through_http(self):
        # The SERVICE.md example: JSON records -> an Object Container File -> YAML.
        ocf = self.post("/transcode?schema=records&codec=deflate", self.records_bytes,
                        accept="application/avro")
        self.assertEqual(ocf.status, 200, ocf)
        self.assertEqual(ocf.body[:4], b"Obj\x01")
        back = self.post("/transcode", ocf.body, content_type="application/avro",
                         accept="application/json")
        self.assertEqual(json.loads(back.body), self.records)
        one = self.post("/transcode?schema=records", json.dumps(self.records[0]).encode(),
                        accept="avro/binary")
        self.assertEqual(one.status, 200, one)
        bad = self.post("/transcode?schema=records", one.body[:-3], content_type="avro/binary")
        self.assertProblem(bad, 400, "size_exceeded")  # a string length beyond the input
        self.assertIn("offset", bad.json())
        self.assertProblem(self.post("/transcode", one.body, content_type="avro/binary"), 415)

    def test_bad_avro_schema_stops_startup_naming_file_and_line(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "bad.avsc"), "w") as f:
                f.write('{"type": "record", "name": "R",\n "fields": [\n'
                        '  {"name": "a", "type": "Nope"}]}')
            p = subprocess.run([polycodec_bin(), "serve", "--host", "127.0.0.1", "--http-port", "0",
                                "--tcp-port", "0", "--schema-dir", d],
                               capture_output=True, timeout=30)
            self.assertNotEqual(p.returncode, 0)
            err = p.stderr.decode()
            self.assertIn("bad.avsc:3", err)
            self.assertIn("unknown type", err)

    def test_formats_metrics_health(self):
        r = curl(self.server.base + "/formats")
        self.assertEqual(r.status, 200)
        self.assertEqual(r.headers["vary"], "Accept, Accept-Encoding")
        names = [f["name"] for f in r.json()]
        # The table's names in id order (codec/src/format.cpp).
        differential.assert_format_names(self, names)
        for fid, name, mt, caps in self.formats:
            r = curl(self.server.base + "/formats", headers=["Accept: " + mt])
            self.assertIn(r.status, (200, 422) + ((406,) if caps["needs_schema"] else ()),
                          (name, r))
        r = curl(self.server.base + "/metrics")
        self.assertEqual(r.status, 200)
        self.assertTrue(r.headers["content-type"].startswith("text/plain; version=0.0.4"))
        self.assertIn(b"polycodec_build_info{", r.body)
        self.assertEqual(curl(self.server.base + "/healthz").status, 200)
        self.assertEqual(curl(self.server.base + "/readyz").status, 200)

    def test_depth_limit_512_and_513(self):
        self.assertEqual(self.post("/transcode", b"[" * 512 + b"]" * 512).status, 200)
        body = self.assertProblem(self.post("/transcode", b"[" * 513 + b"]" * 513), 400,
                                  "depth_exceeded")
        self.assertEqual(body["format"], "json")

    # ---- connection handling ----

    def test_keep_alive_and_pipelining(self):
        reqs = b""
        for i in range(5):
            body = b"[%d]" % i
            reqs += (b"POST /transcode HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
                     b"X-Request-Id: p%d\r\nContent-Length: %d\r\n\r\n" % (i, len(body))) + body
        answers = http_exchange(self.server.http_port, reqs, 5)
        for i, (status, headers, body) in enumerate(answers):
            self.assertEqual(status, 200)
            self.assertEqual(headers["x-request-id"], "p%d" % i)
            self.assertEqual(body, b"[%d]" % i)
            self.assertNotEqual(headers.get("connection"), "close")

    def test_expect_100_continue(self):
        s = socket.create_connection(("127.0.0.1", self.server.http_port), timeout=10)
        s.sendall(b"POST /transcode HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
                  b"Expect: 100-continue\r\nContent-Length: 7\r\n\r\n")
        got = b""
        while b"\r\n\r\n" not in got:
            got += s.recv(100)
        self.assertTrue(got.startswith(b"HTTP/1.1 100 Continue\r\n"), got)
        s.sendall(b'{"a":1}')
        rest = got.split(b"\r\n\r\n", 1)[1]
        while b'{"a":1}' not in rest:
            chunk = s.recv(4096)
            self.assertTrue(chunk)
            rest += chunk
        self.assertTrue(rest.startswith(b"HTTP/1.1 200 OK"), rest)
        s.close()
        # Refused before the body: a wrong route answers at once, without 100.
        s = socket.create_connection(("127.0.0.1", self.server.http_port), timeout=10)
        s.sendall(b"POST /nope HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\n"
                  b"Content-Length: 1000\r\n\r\n")
        got = read_until_closed(s, 10)
        self.assertTrue(got.startswith(b"HTTP/1.1 404"), got)
        s.close()
        # The real client with a forced Expect header.
        r = self.post("/transcode", b"[1]" + b" " * 3000, headers=["Expect: 100-continue"])
        self.assertEqual(r.status, 200)


class JsonLogTest(unittest.TestCase):
    """--log-format json (here from the environment, as every flag can be): one JSON object
    per line with the access fields."""

    def test_json_access_lines(self):
        server = Server("--threads", "1", env={"POLYCODEC_LOG_FORMAT": "json",
                                                "POLYCODEC_LOG_LEVEL": "info"})
        with server:
            started = json.loads(server.wait_for(r'"event":"started"'))
            self.assertEqual(started["http_port"], server.http_port)
            for key in ("version", "commit", "tcp_port", "threads", "max_body"):
                self.assertIn(key, started)
            r = curl(server.base + "/transcode?to=json", data=b"[1]",
                     headers=["Content-Type: application/json", "X-Request-Id: json-log-1"])
            self.assertEqual(r.status, 200)
            line = json.loads(server.wait_for(r'"request_id":"json-log-1"'))
            self.assertEqual(line["logger"], "http")
            self.assertEqual(line["level"], "info")
            for key, value in (("transport", "http"), ("method", "POST"),
                               ("path", "/transcode"), ("from", "json"), ("to", "json"),
                               ("status", 200), ("bytes_in", 3), ("bytes_out", 3)):
                self.assertEqual(line[key], value, key)
            for key in ("decode_ms", "encode_ms", "total_ms", "time"):
                self.assertIn(key, line)
            self.assertEqual(server.stop(), 0)

    def test_warn_level_keeps_lifecycle_drops_access(self):
        server = Server("--threads", "1", "--log-level", "warn")
        with server:
            r = curl(server.base + "/healthz", headers=["X-Request-Id: quiet-1"])
            self.assertEqual(r.status, 200)
            self.assertEqual(server.stop(), 0)
            server.wait_for(r"event=stopped")
            self.assertFalse([l for l in server.lines if "event=access" in l], server.lines)


if __name__ == "__main__":
    unittest.main()
