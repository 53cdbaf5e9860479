"""`polycodec convert` and `polycodec formats` as a user runs them (DESIGN section 7)."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "differential"))
import common  # noqa: E402


def run(*args, data=b""):
    p = subprocess.run([common.polycodec_bin(), *args], input=data, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=60)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


class FormatsCommand(unittest.TestCase):
    def test_lists_every_format_of_the_table(self):
        rc, out, _ = run("formats")
        self.assertEqual(rc, 0)
        lines = out.decode().splitlines()
        names = [l.split()[1] for l in lines[1:]]
        common.assert_format_names(self, names)
        self.assertIn("application/vnd.msgpack", out.decode())

    def test_version(self):
        rc, out, _ = run("--version")
        self.assertEqual(rc, 0)
        self.assertRegex(out.decode(), r"^polycodec \d+\.\d+\.\d+ \(commit \S+\)")


class ConvertCommand(unittest.TestCase):
    def test_json_round_trip_keeps_values_and_bytes(self):
        data = common.fixture("records.json")
        rc, out, err = run("convert", "--from", "json", "--to", "json", data=data)
        self.assertEqual(rc, 0, err)
        self.assertEqual(out, data)  # compact output of a compact fixture is identical
        common.same_value(self, json.loads(out), json.loads(data))

    def test_formats_default_from_extensions_and_files(self):
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "in.json")
            dst = os.path.join(d, "out.json")
            with open(src, "wb") as f:
                f.write(b'{"a": [1, 2.5, "x"]}')
            rc, _, err = run("convert", src, dst)
            self.assertEqual(rc, 0, err)
            with open(dst, "rb") as f:
                self.assertEqual(f.read(), b'{"a":[1,2.5,"x"]}')

    def test_media_type_and_name_with_parameters_are_accepted(self):
        for spec in ("application/json", "json", "text/json; charset=utf-8", "JSON"):
            rc, out, err = run("convert", "--from", spec, "--to=json", data=b"[true]")
            self.assertEqual((rc, out), (0, b"[true]"), spec + ": " + err)

    def test_pretty(self):
        rc, out, _ = run("convert", "--from", "json", "--to", "json", "--pretty",
                         data=b'{"a":[1,{"b":null}],"c":{}}')
        self.assertEqual(rc, 0)
        self.assertEqual(out.decode(), '{\n  "a": [\n    1,\n    {\n      "b": null\n    }\n'
                                       '  ],\n  "c": {}\n}\n')

    def test_malformed_input_exits_2_with_position_and_path(self):
        rc, out, err = run("convert", "--from", "json", "--to", "json",
                           data=b'{"a": {"b": [1, 2,, 3]}}')
        self.assertEqual(rc, 2)
        self.assertEqual(out, b"")
        self.assertIn("json: line 1, column 19 (byte 18), at /a/b/2: expected a value, saw ','",
                      err)

    def test_usage_errors_exit_2(self):
        for args in (["convert", "--from", "nope", "--to", "json"],
                     ["convert", "--bogus"],
                     ["convert", "--to", "json"],            # stdin has no extension
                     ["convert", "--from", "json", "--to", "json", "/no/such/file.json"],
                     ["frobnicate"]):
            rc, _, err = run(*args)
            self.assertEqual(rc, 2, args)
            self.assertTrue(err.startswith("polycodec: ") or "usage" in err, err)

    def test_properties_files_by_extension_flags_and_errors(self):
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "app.properties")
            dst = os.path.join(d, "app.json")
            with open(src, "wb") as f:
                f.write(b"# settings\nserver.port = 8080\nserver.hosts.0=a\nserver.hosts.1=b\n"
                        b"greeting=hello \\\n    world\n")
            rc, _, err = run("convert", src, dst)
            self.assertEqual(rc, 0, err)
            with open(dst, "rb") as f:
                self.assertEqual(json.loads(f.read()), {
                    "server.port": "8080", "server.hosts.0": "a", "server.hosts.1": "b",
                    "greeting": "hello world"})
            rc, out, err = run("convert", "--unflatten", "--infer", "--to", "json", src)
            self.assertEqual(rc, 0, err)
            self.assertEqual(json.loads(out), {"server": {"port": 8080, "hosts": ["a", "b"]},
                                               "greeting": "hello world"})
        rc, out, err = run("convert", "--from", "json", "--to", "properties",
                           data=b'{"a":{"b":"x y","c":null}}')
        self.assertEqual(rc, 3)
        self.assertIn("at /a/c: null is not representable in properties", err)
        rc, out, err = run("convert", "--from", "json", "--to", "properties", "--lossy",
                           data=b'{"a":{"b":"x y","c":null}}')
        self.assertEqual((rc, out), (0, b"a.b=x y\na.c=\n"))
        rc, out, err = run("convert", "--from", "properties", "--to", "json",
                           data=b"a=1\n  b=\\uD800\n")
        self.assertEqual(rc, 2)
        self.assertIn("properties: line 2, column 5 (byte 8)", err)

    def test_unimplemented_format_says_so(self):
        # A format without a codec answers clearly instead of failing obscurely.
        rc, _, err = run("formats")
        for line in err.splitlines():
            pass
        rc, out, _ = run("formats")
        pending = [l.split()[1] for l in out.decode().splitlines()[1:] if "not yet" in l]
        for name in pending:
            rc, _, err = run("convert", "--from", "json", "--to", name, data=b"{}")
            self.assertEqual(rc, 2, name)
            self.assertIn("%s: encoding is not implemented yet" % name, err)


if __name__ == "__main__":
    unittest.main()
