"""Differential tests of Java properties: the polycodec binary against java.util.Properties
itself (OpenJDK 17, tests/differential/PropertiesRef.java, compiled with javac into a temporary
folder when the tests start), in both directions:

- Java's Properties.load(Reader) (UTF-8, strict) and our decoder read the same hand-written and
  generated files (every separator, escape, continuation and comment rule, errors included) to
  the same map;
- Java's load(Reader) and load(InputStream) both read what our encoder writes back to exactly
  the map we were given, and our lines are byte for byte the lines of Properties.store(
  OutputStream) for that map;
- our decoder reads what Java's store(Writer) and store(OutputStream) write back to the map;
- fixtures/bench.properties (written by scripts/gen_fixtures.py from bench.json, not by us) is
  what our encoder writes for the bench data, Java reads it to the flat map Python computes, and
  --unflatten --infer read it back to the bench data.
"""
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

sys.path.insert(0, os.path.join(common.SOURCE_DIR, "scripts"))
import gen_fixtures  # noqa: E402  (its flatten, for the bench.properties fixture)

HERE = os.path.dirname(os.path.abspath(__file__))
REF_SOURCE = os.path.join(HERE, "PropertiesRef.java")
CLASSES = None


def setUpModule():
    global CLASSES
    if shutil.which("javac") is None or shutil.which("java") is None:
        raise unittest.SkipTest("javac is not installed (scripts/deps.sh installs OpenJDK)")
    CLASSES = tempfile.mkdtemp(prefix="properties_ref_")
    p = subprocess.run(["javac", "-d", CLASSES, REF_SOURCE], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=600)
    if p.returncode != 0:
        raise AssertionError("javac PropertiesRef failed: " + p.stderr.decode())


def tearDownModule():
    if CLASSES:
        shutil.rmtree(CLASSES, ignore_errors=True)


def java(*args):
    p = subprocess.run(["java", "-cp", CLASSES, "PropertiesRef", *args], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=300)
    if p.returncode != 0:
        raise AssertionError("PropertiesRef %s failed: %s" % (args, p.stderr.decode()))
    return p.stdout.decode("utf-8")


def java_load(files, stream=False):
    """{name: ("OK", dict) or ("ERR", message)} for {name: bytes}, read by Properties.load;
    LONE_PUT holds the names where load put a key or value with a lone surrogate."""
    with tempfile.TemporaryDirectory() as d:
        for name, data in files.items():
            with open(os.path.join(d, name + ".properties"), "wb") as f:
                f.write(data)
        out = {}
        for line in java("load-stream" if stream else "load", d).splitlines():
            head, lone = line.rsplit("\t", 1)
            name, status, rest = head.split("\t", 2)
            name = name[:-len(".properties")]
            if lone == "1":
                LONE_PUT.add(name)
            else:
                LONE_PUT.discard(name)
            out[name] = (status, json.loads(rest) if status == "OK" else rest)
        return out


def java_store(maps):
    """{name: (writer bytes, stream bytes)}: Properties.store(Writer) and store(OutputStream)."""
    with tempfile.TemporaryDirectory() as d:
        for name, m in maps.items():
            with open(os.path.join(d, name + ".kv"), "w", encoding="ascii") as f:
                for k, v in m.items():
                    f.write("%s:%s\n" % (k.encode().hex(), v.encode().hex()))
        java("store", d)
        out = {}
        for name in maps:
            with open(os.path.join(d, name + ".writer.properties"), "rb") as f:
                w = f.read()
            with open(os.path.join(d, name + ".stream.properties"), "rb") as f:
                s = f.read()
            out[name] = (w, s)
        return out


LONE_PUT = set()


def ours_decode(data, *extra):
    """(True, dict) or (False, stderr) for our decoder; duplicates: the last wins, as in Java."""
    rc, out, err = common.convert(["--from", "properties", "--to", "json", *extra], data,
                                  check=False)
    if rc != 0:
        return False, err
    return True, json.loads(out)


def ours_encode(value, *extra):
    return common.convert(["--from", "json", "--to", "properties", *extra],
                          json.dumps(value).encode())[1]


# Hand-written files: the javadoc's examples and every rule of LineReader and loadConvert.
EDGE_FILES = {
    "javadoc": b"Truth = Beauty\n Truth:Beauty\nTruth                    :Beauty\n"
               b"fruits                           apple, banana, pear, \\\n"
               b"                                 cantaloupe, watermelon, \\\n"
               b"                                 kiwi, mango\ncheeses\n",
    "separators": b"a b\nc\td\ne\x0cf\ng=h\ni:j\nk = = l\nm:=n\no  :  p  \nq==\n=nokey\n:also\n",
    "escaped_keys": b"key\\ with\\ spaces = v\nk\\=x\\:y=z\n\\#not\\!comment=1\n\\\\=bs\n",
    "escapes": b"a=\\t\\n\\r\\f\\u0041\\u00e9\\uD83D\\uDE00\\q\\\\\\\"\\ \nz=\\u0000\\u001F\n",
    "backslash_non_ascii": "a=\\\u00e9\\\u6771\\\U0001F600\n".encode(),
    "utf8": "\u6771\u4eac=\u00e9t\u00e9 \U0001F600\nclé=valeur\n".encode(),
    "comments": b"# c\n! c\n   # indented\n\n  \t\x0c\n\r\na=1\n#b=2\na2=b # text\n",
    "cont_hash": b"a=b\\\n#c\n\\\n#c=1\nd=2\n",
    "line_ends": b"a=1\rb=2\r\nc=3\nd=x\\\r\n   y\\\r   z\\\n\t w\n",
    "even_backslashes": b"a=x\\\\\nb=y\\\\\\\\\nc=z\n",
    "final_backslash": b"a=1\nb=x\\",
    "final_backslash_ws": b"a=x\\\n   ",
    "final_lone_backslash": b"a=1\n\\",
    "final_backslash_lf": b"a=1\n\\\n",
    "final_backslash_cr": b"a=1\n\\\r",
    "final_backslash_crlf": b"a=1\n\\\r\n",
    "final_backslash_lf_ws": b"a=1\n\\\n  ",
    "lone_overwritten": b"a=\\uD800\na=1\n",
    "empty_continuation": b"a=x\\\n\nb=y\n",
    "key_continued": b"ke\\\n  y=\\u00\\\n   41\na\\\n  b c\n",
    "bom": b"\xef\xbb\xbfa=1\n",
    "duplicates": b"a=1\nb=2\na=3\n",
    "empty": b"",
    "only_comment": b"# nothing\n",
    "only_ws_key": b"   \\ \n",
    "trailing_ws_value": b"a = v  \t\x0c\n",
    "bad_u_short": b"a=1\nb=\\u12\n",
    "bad_u_digit": b"k\\u00G1=v\n",
    "bad_u_key": b"k\\u12=3456\n",
    "bad_u_continued": b"a=x\\\n  \\uZZZZ\n",
    "lone_high": b"a=\\uD800x\n",
    "lone_low": b"a=\\uDC00\n",
    "high_then_bmp": b"a=\\uD800\\u0041\n",
    "formfeed_key": b"\x0ckey\x0c\x0cvalue\n",
}


def check_decode(test, name, data, java_result):
    status, expect = java_result
    ok, ours = ours_decode(data)
    if name in LONE_PUT:
        # Java keeps a lone surrogate in its UTF-16 String (even where a later line replaces
        # it); UTF-8 cannot hold one, so we refuse the file there.
        test.assertFalse(ok, "%s: Java put a lone surrogate, we read %r" % (name, ours))
        test.assertIn("surrogate", ours, name)
        return
    if status == "ERR":
        test.assertTrue(expect.startswith("IllegalArgumentException"), (name, expect))
        test.assertFalse(ok, "%s: Java refused it (%s), we read %r" % (name, expect, ours))
        # Malformed \uxxxx, or a lone surrogate earlier on the same line (Java converts the
        # key and the value before it puts them).
        test.assertTrue("malformed \\uxxxx escape" in ours or "surrogate" in ours, (name, ours))
        return
    test.assertTrue(ok, "%s: Java read %r, we failed: %s" % (name, expect, ours))
    test.assertEqual(ours, expect, name)


# Characters the generators draw from: every one that means something to the grammar.
SPECIAL = [" ", "\t", "\x0c", "\n", "\r", "=", ":", "#", "!", "\\", "u", "0", "A", "\x00",
           "\x01", "\x1f", "\x7f", ".", "\"", "'", "$", "\u00e9", "\u6771", "\U0001F600",
           "\u2028", "\ufeff", "a", "b", "z", "9"]


def random_text(rnd, n):
    return "".join(rnd.choice(SPECIAL) for _ in range(rnd.randint(0, n)))


def random_map(rnd, size):
    m = {}
    for _ in range(size):
        m[random_text(rnd, 8)] = random_text(rnd, 12)
    return m


# Pieces of raw .properties text for the decode generator.
KEY_PIECES = ["a", "key", ".", "-", "\u00e9", "\u6771", "\U0001F600", "\\ ", "\\=", "\\:",
              "\\#", "\\!", "\\\\", "\\t", "\\n", "\\f", "\\r", "\\u00e9", "\\uD83D\\uDE00",
              "\\u0041", "\\q", "#", "!", "\\\u00e9", "\"", "0"]
VALUE_PIECES = KEY_PIECES + [" ", "\t", "=", ":", "  ", "\\u", "x"]
BAD_PIECES = ["\\u12", "\\uZZZZ", "\\uD800", "\\uDC00", "\\u00G1"]
SEPARATORS = ["=", ":", " ", "\t", "\x0c", " = ", " : ", "  =  ", "==", "=:", " ", ""]
EOLS = ["\n", "\r\n", "\r"]
LEADING = ["", "", " ", "\t", "\x0c", "  "]


def continuation(rnd):
    return "\\" + rnd.choice(EOLS) + rnd.choice(LEADING)


def random_file(rnd, bad):
    lines = []
    for _ in range(rnd.randint(0, 8)):
        kind = rnd.random()
        lead = rnd.choice(LEADING)
        if kind < 0.12:
            lines.append(lead + rnd.choice("#!") + random_text(rnd, 10).replace("\n", "")
                         .replace("\r", ""))
        elif kind < 0.2:
            lines.append(lead)
        else:
            key = "".join(rnd.choice(KEY_PIECES) for _ in range(rnd.randint(0, 4)))
            value = "".join(rnd.choice(VALUE_PIECES) for _ in range(rnd.randint(0, 6)))
            if bad and rnd.random() < 0.3:
                value += rnd.choice(BAD_PIECES)
            text = lead + key + rnd.choice(SEPARATORS) + value
            # Break the logical line at random places (not inside an escape).
            parts = []
            for ch in text:
                parts.append(ch)
                if rnd.random() < 0.04 and not (parts and parts[-1] == "\\"):
                    parts.append(continuation(rnd))
            lines.append("".join(parts))
    text = "".join(line + rnd.choice(EOLS) for line in lines)
    if rnd.random() < 0.2 and text:
        text = text.rstrip("\r\n")
    if rnd.random() < 0.05:
        text += "\\"
    return text.encode("utf-8")


class Decode(unittest.TestCase):
    def test_edge_files_read_as_java_reads_them(self):
        java_results = java_load(EDGE_FILES)
        for name, data in EDGE_FILES.items():
            with self.subTest(name):
                check_decode(self, name, data, java_results[name])
        # Make sure the edge cases mean what they say in Java.
        self.assertEqual(java_results["javadoc"][1]["fruits"],
                         "apple, banana, pear, cantaloupe, watermelon, kiwi, mango")
        self.assertEqual(java_results["bom"][1], {"\ufeffa": "1"})
        self.assertEqual(java_results["duplicates"][1], {"a": "3", "b": "2"})
        self.assertEqual(java_results["bad_u_short"][0], "ERR")
        self.assertEqual(java_results["lone_high"][1], {"a": "\ud800x"})
        self.assertIn("lone_high", LONE_PUT)
        self.assertEqual(java_results["final_lone_backslash"][1], {"a": "1", "": ""})
        self.assertEqual(java_results["final_backslash_crlf"][1], {"a": "1"})

    def test_generated_files_read_as_java_reads_them(self):
        rnd = random.Random(20261201)
        files = {"gen%03d" % i: random_file(rnd, bad=i % 4 == 3) for i in range(240)}
        java_results = java_load(files)
        errors = lone = 0
        for name, data in files.items():
            with self.subTest(name, text=data):
                check_decode(self, name, data, java_results[name])
            errors += java_results[name][0] == "ERR"
            lone += java_results[name][0] == "OK" and name in LONE_PUT
        # The generator reaches both outcomes.
        self.assertGreater(errors, 10)
        self.assertGreater(240 - errors - lone, 150)

    def test_invalid_utf8_refused_where_a_strict_reader_refuses(self):
        data = b"a=1\nb=\xc3\x28\n"
        self.assertEqual(java_load({"x": data})["x"][0], "ERR")
        ok, err = ours_decode(data)
        self.assertFalse(ok)
        self.assertIn("invalid UTF-8", err)
        self.assertIn("byte 6", err)

    def test_load_input_stream_reads_latin1(self):
        # The documented difference: load(InputStream) reads bytes as ISO-8859-1.
        data = "k=\u00e9\n".encode()
        self.assertEqual(java_load({"x": data}, stream=True)["x"], ("OK", {"k": "\u00c3\u00a9"}))
        self.assertEqual(ours_decode(data), (True, {"k": "\u00e9"}))


class Encode(unittest.TestCase):
    def maps(self):
        rnd = random.Random(17)
        maps = {"gen%03d" % i: random_map(rnd, rnd.randint(0, 12)) for i in range(120)}
        maps["edge"] = {"": "", " ": " ", "  lead": "  lead", "trail ": "trail  ",
                        "=:#!": "=:#!", "#k": "#v", "!k": "!v", "\\": "\\\\", "\\u0041": "\\u",
                        "nl\n": "a\nb\r\nc\rd", "tab\t": "\t", "ff\x0c": "\x0c",
                        "\u00e9\u6771\U0001F600": "\u00e9\u6771\U0001F600",
                        "ctl\x00\x01\x7f": "\x00\x1f\x7f", "\ufeff": "\u2028", "k": " = v"}
        return maps

    def test_java_reads_what_we_write_and_store_writes_the_same_lines(self):
        maps = self.maps()
        ours = {name: ours_encode(m) for name, m in maps.items()}
        for stream in (False, True):
            loaded = java_load(ours, stream=stream)
            for name, m in maps.items():
                with self.subTest(name, stream=stream):
                    self.assertEqual(loaded[name], ("OK", m))
        stored = java_store(maps)
        for name, m in maps.items():
            with self.subTest(name):
                self.assertTrue(all(b < 0x80 for b in ours[name]), "ASCII only")
                java_lines = [ln for ln in stored[name][1].split(b"\n")
                              if ln and not ln.startswith(b"#")]
                self.assertEqual(sorted(ours[name].split(b"\n")[:-1]), sorted(java_lines))

    def test_we_read_what_java_store_writes(self):
        maps = self.maps()
        stored = java_store(maps)
        for name, m in maps.items():
            writer, stream = stored[name]
            with self.subTest(name):
                self.assertEqual(ours_decode(writer), (True, m))
                self.assertEqual(ours_decode(stream), (True, m))

    def test_nested_documents_flatten_and_java_reads_the_flat_map(self):
        doc = {"server": {"host": "h", "port": 8080, "tls": {"on": True, "ciphers": ["a b", "c"]}},
               "name": "x=y", "ratio": 0.5, "list": [{"k": "v"}, [1, 2]]}
        text = ours_encode(doc)
        flat = {"server.host": "h", "server.port": "8080", "server.tls.on": "true",
                "server.tls.ciphers.0": "a b", "server.tls.ciphers.1": "c", "name": "x=y",
                "ratio": "0.5", "list.0.k": "v", "list.1.0": "1", "list.1.1": "2"}
        self.assertEqual(java_load({"n": text})["n"], ("OK", flat))
        self.assertEqual(ours_decode(text, "--unflatten", "--infer"), (True, doc))

    def test_unrepresentable_values_are_refused_with_their_path(self):
        for doc, path in (({"a": {"b": None}}, "/a/b"), ({"a": {}}, "/a"), ({"a": []}, "/a"),
                          ({"a": {"b.c": "1"}}, "/a/b.c"), ({"a": {"0": "x"}}, "/a"), ([1], "")):
            rc, _, err = common.convert(["--from", "json", "--to", "properties"],
                                        json.dumps(doc).encode(), check=False)
            self.assertEqual(rc, 3, (doc, err))
            self.assertIn("not representable", err)
            if path:
                self.assertIn("at %s" % path, err)
        rc, out, err = common.convert(["--from", "json", "--to", "properties", "--lossy"],
                                      b'{"a":{"b":null,"c":{}}}', check=False)
        self.assertEqual((rc, out), (0, b"a.b=\n"))
        self.assertIn("null_to_empty", err)


class Fixture(unittest.TestCase):
    def test_bench_fixture_is_what_we_write_and_what_java_reads(self):
        bench = common.load_json_fixture("bench.json")
        text = common.fixture("bench.properties")
        self.assertEqual(ours_encode({"records": bench}), text)

        pairs = []  # flattened as the generator of the fixture flattens it
        gen_fixtures.flatten("", {"records": bench}, pairs)
        flat = dict(pairs)
        self.assertEqual(java_load({"bench": text})["bench"], ("OK", flat))
        self.assertEqual(ours_decode(text), (True, flat))
        self.assertEqual(ours_decode(text, "--unflatten", "--infer"), (True, {"records": bench}))

    def test_flat_bench_fixture_writes_the_same_file(self):
        # bench_flat.json (the data of the properties bench rows) is the same flat map.
        flat = common.fixture("bench_flat.json")
        text = common.fixture("bench.properties")
        self.assertEqual(common.convert(["--from", "json", "--to", "properties"], flat)[1], text)
        self.assertEqual(ours_decode(text), (True, json.loads(flat)))


if __name__ == "__main__":
    unittest.main()
