"""GET /openapi.json (DESIGN section 16) against the running server: the document passes a real
OpenAPI 3.1 validator (@apidevtools/swagger-parser, pinned in tests/differential), lists every
route, format and option the server accepts (found by probing the server, not read from the
document), and the operations it describes behave as described (statuses, media types,
headers)."""
import copy
import json
import os
import re
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_common import SOURCE_DIR, Server, curl, polycodec_bin

DIFFERENTIAL = os.path.join(SOURCE_DIR, "tests", "differential")
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def need_validator():
    """Skips the test when node or the npm packages validate_openapi.mjs imports are missing
    (a checkout without `scripts/deps.sh`'s npm step): both validators need them."""
    if shutil.which("node") is None:
        raise unittest.SkipTest("node is not installed")
    for package in (("@apidevtools", "swagger-parser"), ("ajv",)):
        if not os.path.isdir(os.path.join(DIFFERENTIAL, "node_modules", *package)):
            raise unittest.SkipTest("npm packages missing: run scripts/deps.sh")


def validate(doc):
    """The validator's verdict on `doc` (a dict): {"ok": bool, ...}."""
    need_validator()
    p = subprocess.run(["node", os.path.join(DIFFERENTIAL, "validate_openapi.mjs")],
                       input=json.dumps(doc).encode(), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=120)
    if p.returncode != 0:
        raise AssertionError("validator failed: %s" % p.stderr.decode())
    return json.loads(p.stdout)


def schema_check(doc, checks):
    """Validates each (pointer, instance) of `checks` with Ajv against the schema at that
    pointer of `doc`; returns the list of error texts ("" = valid)."""
    need_validator()
    p = subprocess.run(["node", os.path.join(DIFFERENTIAL, "validate_openapi.mjs"), "instances"],
                       input=json.dumps({"document": doc, "checks": [
                           {"schema": s, "instance": i} for s, i in checks]}).encode(),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    if p.returncode != 0:
        raise AssertionError("validator failed: %s" % p.stderr.decode())
    return ["" if r["valid"] else r["errors"] for r in json.loads(p.stdout)["results"]]


def essence(content_type):
    return content_type.split(";")[0].strip().lower()


def operations(doc):
    for path, item in doc["paths"].items():
        for m in METHODS:
            if m in item:
                yield path, m, item[m]


def resolve(doc, obj):
    """Follows a local $ref."""
    while isinstance(obj, dict) and "$ref" in obj:
        node = doc
        for part in obj["$ref"].lstrip("#/").split("/"):
            node = node[part]
        obj = node
    return obj


def unknown_option(r):
    """True when the server answered that the query names no option it knows."""
    if r.status != 400:
        return False
    return r.json().get("code") == "invalid_option" and "unknown option" in r.json()["detail"]


class OpenApiTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = Server()
        r = curl(cls.server.base + "/openapi.json")
        assert r.status == 200, r
        cls.response = r
        cls.doc = r.json()
        cls.transcode = cls.doc["paths"]["/transcode"]["post"]
        cls.body = resolve(cls.doc, cls.transcode["requestBody"])
        cls.answer = resolve(cls.doc, cls.transcode["responses"]["200"])
        cls.params = {p["name"]: p for p in (resolve(cls.doc, p)
                                             for p in cls.transcode["parameters"])
                      if p["in"] == "query"}

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def post(self, query="", body=b'{"a":1}', content_type="application/json", accept=None,
             path="/transcode"):
        # "Content-Type:" with no value stops curl from sending its form type.
        headers = ["Content-Type: " + (content_type or "")]
        if accept:
            headers.append("Accept: " + accept)
        return curl(self.server.base + path + query, data=body, headers=headers)

    # ---- the document itself ----

    def test_validator_accepts_the_document(self):
        verdict = validate(self.doc)
        self.assertTrue(verdict["ok"], verdict)
        self.assertEqual(verdict["openapi"], "3.1.0")
        self.assertEqual(verdict["paths"], len(self.doc["paths"]))

    def test_validator_rejects_broken_copies(self):
        # The validator can fail: a dangling $ref, a missing info, a parameter in no place.
        broken = copy.deepcopy(self.doc)
        broken["paths"]["/transcode"]["post"]["responses"]["200"]["$ref"] += "-nothing"
        self.assertFalse(validate(broken)["ok"])
        broken = copy.deepcopy(self.doc)
        del broken["info"]
        self.assertFalse(validate(broken)["ok"])
        broken = copy.deepcopy(self.doc)
        broken["paths"]["/transcode"]["post"]["parameters"][1]["in"] = "body"
        self.assertFalse(validate(broken)["ok"])

    def test_cli_prints_the_served_document(self):
        p = subprocess.run([polycodec_bin(), "openapi"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout, self.response.body)
        h = subprocess.run([polycodec_bin(), "--help"], stdout=subprocess.PIPE, timeout=30)
        self.assertIn(b"polycodec openapi", h.stdout)

    def test_etag_and_cache_control(self):
        etag = self.response.headers["etag"]
        self.assertRegex(etag, r'^"[0-9a-f]{16}"$')
        self.assertIn("max-age=", self.response.headers["cache-control"])
        self.assertEqual(essence(self.response.headers["content-type"]), "application/json")
        for given in (etag, "W/" + etag, '"other", ' + etag, "*"):
            r = curl(self.server.base + "/openapi.json", headers=["If-None-Match: " + given])
            self.assertEqual(r.status, 304, given)
            self.assertEqual(r.body, b"")
            self.assertEqual(r.headers["etag"], etag)
        r = curl(self.server.base + "/openapi.json", headers=['If-None-Match: "other"'])
        self.assertEqual(r.status, 200)
        self.assertEqual(r.body, self.response.body)
        self.assertIn("304", self.doc["paths"]["/openapi.json"]["get"]["responses"])

    # ---- completeness against the server ----

    def test_every_route_is_a_path(self):
        # The server names its routes in the 404 answer; every one is a path of the document
        # and nothing else is.
        r = curl(self.server.base + "/no-such-route")
        self.assertEqual(r.status, 404)
        routes = re.search(r"\(try ([^)]*)\)", r.json()["detail"]).group(1).split(", ")
        self.assertEqual(sorted(routes), sorted(self.doc["paths"]))
        for path in routes:
            self.assertNotEqual(curl(self.server.base + path).status, 404, path)

    def test_every_format_and_media_type_appears(self):
        table = curl(self.server.base + "/formats").json()
        usable = [f for f in table if f["implemented"]]
        self.assertGreaterEqual(len(usable), 14)
        body_types = set(self.body["content"])
        answer_types = set(self.answer["content"])
        from_names = self.params["from"]["schema"]["examples"]
        to_names = self.params["to"]["schema"]["examples"]
        for f in usable:
            self.assertIn(f["name"], from_names)
            self.assertIn(f["name"], to_names)
            for t in f["media_types"]:
                self.assertIn(t, body_types, f["name"])
                self.assertIn(t, answer_types, f["name"])
        self.assertIn("application/json-seq", body_types)
        self.assertIn("application/cbor-seq", body_types)
        problem = self.doc["components"]["schemas"]["problem"]
        self.assertEqual(sorted(problem["properties"]["format"]["enum"]),
                         sorted(f["name"] for f in table))
        caps = self.doc["components"]["schemas"]["format_table"]["items"]["properties"]
        self.assertEqual(sorted(caps["capabilities"]["properties"]),
                         sorted(table[0]["capabilities"]))
        self.assertEqual(caps["id"]["maximum"], max(f["id"] for f in table))

    def candidate_options(self):
        """Option names from outside the document: DESIGN section 4's query parameters, the
        CLI's convert flags, the docs, a few that no server has, and the document's own."""
        names = set(self.params)
        design = os.path.join(SOURCE_DIR, "..", "shared", "DESIGN.md")
        texts = []
        for path in (design, os.path.join(SOURCE_DIR, "docs", "SERVICE.md"),
                     os.path.join(SOURCE_DIR, "README.md")):
            if os.path.exists(path):
                with open(path, encoding="utf-8") as f:
                    texts.append(f.read())
        for text in texts:
            names.update(re.findall(r"[?&`]([a-z][a-z_-]*)=", text))
        usage = subprocess.run([polycodec_bin(), "--help"], stdout=subprocess.PIPE,
                               timeout=30).stdout.decode()
        names.update(re.findall(r"--([a-z][a-z-]*)", usage))
        names.update({"indent", "sort", "strict", "format", "q", "callback", "encoding"})
        return names

    def test_every_option_the_server_accepts_is_documented(self):
        candidates = self.candidate_options()
        self.assertGreater(len(candidates - set(self.params)), 10)
        accepted = set()
        for name in sorted(candidates):
            r = self.post("?%s=x" % name)
            if not unknown_option(r):
                accepted.add(name)
        self.assertEqual(accepted, set(self.params))

    def test_media_type_parameters_are_accepted(self):
        # Each name the request body lists as a media-type parameter is an option of
        # Content-Type too (a bad value may be refused, but not as an unknown option); a name
        # it does not list is refused.
        listed = self.body["x-polycodec-media-type-parameters"]
        self.assertEqual(set(listed), set(self.params) - {"from", "to"})
        for name in listed:
            r = self.post(content_type="application/json; %s=x" % name)
            self.assertFalse(unknown_option(r), (name, r))
        self.assertTrue(unknown_option(self.post(content_type="application/json; bogus=1")))
        # The example each description gives works as a Content-Type (not schema, type and
        # reader_schema: they need a schema directory; nor avro's framing, schema_id and
        # avro_json: a bare datum needs a schema; nor stream: its answer is chunked).
        for name, p in self.params.items():
            m = re.search(r"e\.g\. `([^`]+)`", p["description"])
            if not m or name in ("schema", "stream", "type", "reader_schema", "framing",
                                     "schema_id", "avro_json"):
                continue
            if m.group(1).startswith("application/x-protojson"):
                continue  # protojson's options need a protobuf schema (tested in test_http.py)
            body = b"a,b\n1,2\n" if m.group(1).startswith("text/csv") else b'{"a":1}'
            if "multi=" in m.group(1):
                body = b"a: 1\n---\nb: 2\n"
            if m.group(1).startswith("application/cbor"):
                body = bytes.fromhex("a1616101")  # {"a": 1} (int_width's example)
            if m.group(1).startswith("application/x-plist"):
                body = b"<plist><dict><key>a</key><integer>1</integer></dict></plist>"  # binary's
            elif m.group(1).startswith("application/avro"):
                # an Object Container File that carries its own schema (fixtures/records.avro)
                with open(os.path.join(os.environ["POLYCODEC_SOURCE_DIR"], "fixtures",
                                       "records.avro"), "rb") as f:
                    body = f.read()
            elif m.group(1).startswith("application/xml"):
                # the xml options' examples (root=NAME names the root element)
                root = re.search(r"root=(\w+)", m.group(1))
                body = b"<%s>1</%s>" % ((root.group(1).encode(),) * 2 if root else (b"a", b"a"))
            r = self.post("?to=json", body=body, content_type=m.group(1))
            self.assertEqual(r.status, 200, (m.group(1), r))

    def test_documented_option_values_are_accepted(self):
        # Each enum value, and true/false for booleans, is accepted on a CSV body (the options
        # of other formats are accepted and ignored there).
        body = b"a,b\n1,x\n"
        for name, p in self.params.items():
            schema = p["schema"]
            if schema.get("type") == "boolean":
                values = ["true", "false"]
            elif "enum" in schema:
                values = schema["enum"]
            else:
                continue
            for v in values:
                if name == "stream" and v == "true":
                    continue  # checked below: a stream answer is chunked
                r = self.post("?to=json&%s=%s" % (name, v), body=body, content_type="text/csv")
                self.assertEqual(r.status, 200, (name, v, r))
        # A stream answer ends with a trailer, which the curl helper would read as the head.
        p = subprocess.run(["curl", "-sS", "--data-binary", "@-", "-H", "Content-Type: text/csv",
                            "-w", "\n%{http_code} %{content_type}",
                            self.server.base + "/transcode?to=ndjson&stream=true"],
                           input=body, stdout=subprocess.PIPE, timeout=30, check=True)
        out, status_line = p.stdout.rsplit(b"\n", 1)
        self.assertEqual(status_line.split(b" ")[0], b"200", p.stdout)
        self.assertEqual(essence(status_line.split(b" ", 1)[1].decode()), "application/x-ndjson")
        self.assertIn("application/x-ndjson", self.answer["content"])
        self.assertEqual([json.loads(line) for line in out.splitlines()], [{"a": "1", "b": "x"}])
        r = self.post("?header=sideways", body=body, content_type="text/csv")
        self.assertEqual(r.status, 400)
        self.assertIn("400", self.transcode["responses"])

    # ---- behaviour as described ----

    def check_problem(self, r, op, status):
        """`r` is a problem+json answer whose status `op` lists, matching the problem schema."""
        self.assertEqual(r.status, status, r)
        listed = op["responses"].get(str(status)) or resolve(self.doc, op["responses"]["default"])
        listed = resolve(self.doc, listed)
        self.assertIn(essence(r.headers["content-type"]), listed["content"])
        ref = listed["content"]["application/problem+json"]["schema"]["$ref"]
        body = r.json()
        self.assertEqual(schema_check(self.doc, [(ref, body)]), [""], body)
        self.assertEqual(body["status"], status)
        return body

    def test_schemas_accept_real_answers_and_refuse_others(self):
        # The /formats answer and a problem body, validated by Ajv against the document's own
        # schemas; altered copies fail, so the schemas say something.
        table = curl(self.server.base + "/formats").json()
        problem = curl(self.server.base + "/nothing").json()
        formats_ref = self.doc["paths"]["/formats"]["get"]["responses"]["200"]["content"][
            "application/json"]["schema"]["$ref"]
        problem_ref = "#/components/schemas/problem"
        bad_table = copy.deepcopy(table)
        bad_table[0]["capabilities"]["colour"] = True
        bad_problem = dict(problem, status="404")
        self.assertEqual(schema_check(self.doc, [
            (formats_ref, table), (problem_ref, problem),
            (formats_ref, bad_table), (problem_ref, bad_problem),
            (formats_ref, [dict(table[0], name="no-such-format")])]),
            ["", "", "data/0/capabilities must NOT have additional properties",
             "data/status must be integer", "data/0/name must be equal to one of the allowed values"])

    def test_each_operation_answers_a_documented_status_and_type(self):
        for path, method, op in operations(self.doc):
            if "requestBody" in op:
                r = curl(self.server.base + path, data=b'{"a":[1,2]}', method=method.upper(),
                         headers=["Content-Type: application/json"])
            else:
                r = curl(self.server.base + path, method=method.upper())
            self.assertIn(str(r.status), op["responses"], (path, method, r))
            listed = resolve(self.doc, op["responses"][str(r.status)])
            if "content" in listed:
                self.assertIn(essence(r.headers["content-type"]), listed["content"], (path, r))
            else:
                self.assertEqual(r.body, b"", (path, r))
            for h in listed.get("headers", {}):
                if h in ("X-Request-Id", "Server-Timing", "Vary", "ETag", "Cache-Control"):
                    self.assertIn(h.lower(), r.headers, (path, method, h))

    def test_other_methods_are_405_with_the_documented_allow(self):
        for path, item in self.doc["paths"].items():
            documented = sorted(m.upper() for m in METHODS if m in item)
            for m in ("DELETE", "PATCH"):
                self.assertNotIn(m, documented)
                r = curl(self.server.base + path, method=m)
                self.assertEqual(r.status, 405, (path, m))
                self.assertEqual(sorted(x.strip() for x in r.headers["allow"].split(",")),
                                 documented, path)
        default = resolve(self.doc, self.transcode["responses"]["default"])
        self.assertIn("405", default["description"])
        self.assertIn("Allow", default["headers"])

    def test_transcode_answers_each_media_type_it_lists(self):
        answer_types = self.answer["content"]
        table = curl(self.server.base + "/formats").json()
        for f in table:
            if not f["implemented"] or f["capabilities"]["needs_schema"]:
                continue
            t = f["media_types"][0]
            body = b'{"a":1,"b":"x"}' if f["capabilities"]["map_root_only"] \
                else b'[{"a":1,"b":"x"}]'
            # XML has one root element: an array is written inside root=NAME.
            query = "?root=records" if f["name"] == "xml" else ""
            r = self.post(query, body=body, accept=t)
            self.assertEqual(r.status, 200, (t, r))
            self.assertEqual(essence(r.headers["content-type"]), t)
            self.assertIn(t, answer_types)
            self.assertEqual(r.headers["vary"], "Accept, Accept-Encoding")  # DESIGN section 16
            self.assertIn("server-timing", r.headers)

    def test_error_statuses_as_described(self):
        op = self.transcode
        body = self.check_problem(self.post(body=b'{"a":1,}'), op, 400)
        self.assertEqual(body["format"], "json")
        self.assertIn("offset", body)
        self.check_problem(self.post(content_type="application/x-nothing"), op, 415)
        self.check_problem(self.post(content_type=None), op, 415)
        body = self.check_problem(self.post(accept="application/x-nothing"), op, 406)
        self.assertEqual(set(body["acceptable"]) - set(self.answer["content"]), set())
        self.check_problem(self.post(body=b'null', accept="application/toml"), op, 422)
        self.check_problem(self.post("?pretty=maybe"), op, 400)
        r = self.post(path="/validate")
        self.assertEqual(r.status, 204)
        self.assertIn("204", self.doc["paths"]["/validate"]["post"]["responses"])
        self.check_problem(self.post(body=b"[1", path="/validate"),
                           self.doc["paths"]["/validate"]["post"], 400)
        self.check_problem(curl(self.server.base + "/formats",
                                headers=["Accept: application/x-nothing"]),
                           self.doc["paths"]["/formats"]["get"], 406)

    def test_body_limit_is_413_as_described(self):
        with Server("--max-body", "64") as small:
            r = curl(small.base + "/transcode", data=b'{"a":"' + b"x" * 200 + b'"}',
                     headers=["Content-Type: application/json"])
        self.check_problem(r, self.transcode, 413)

    def test_put_is_described_and_behaves_as_post(self):
        put = self.doc["paths"]["/transcode"]["put"]
        self.assertEqual(put["requestBody"], self.transcode["requestBody"])
        r = curl(self.server.base + "/transcode?to=cbor", data=b'{"a":1}', method="PUT",
                 headers=["Content-Type: application/json"])
        self.assertEqual(r.status, 200)
        self.assertEqual(r.body, bytes.fromhex("a1616101"))  # RFC 8949: {"a": 1}


if __name__ == "__main__":
    unittest.main()
