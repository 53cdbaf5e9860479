"""Shared helpers of the differential tests (Python unittest, run by ctest).

The tests run the real `polycodec` binary (POLYCODEC_BIN) and independent implementations:
Python's standard library and the npm packages of tests/differential/package.json.
"""
import json
import os
import shutil
import subprocess
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.environ.get("POLYCODEC_SOURCE_DIR", os.path.dirname(os.path.dirname(HERE)))
FIXTURES = os.path.join(SOURCE_DIR, "fixtures")
CORPUS = os.environ.get("POLYCODEC_CORPUS_DIR",
                        os.path.join(SOURCE_DIR, "..", "shared", "corpus"))
NODE_MODULES = os.path.join(HERE, "node_modules")


def polycodec_bin():
    b = os.environ.get("POLYCODEC_BIN")
    if not b or not os.path.exists(b):
        raise unittest.SkipTest("POLYCODEC_BIN is not set (run through ctest)")
    return b


def convert(args, data, check=True):
    """Runs `polycodec convert ARGS` with `data` (bytes) on stdin.

    Returns (returncode, stdout bytes, stderr text). With check=True a non-zero exit fails
    with the message."""
    p = subprocess.run([polycodec_bin(), "convert", *args], input=data,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    err = p.stderr.decode("utf-8", "replace")
    if check and p.returncode != 0:
        raise AssertionError("polycodec convert %s failed (%d): %s" % (args, p.returncode, err))
    return p.returncode, p.stdout, err


def node(script, args=(), data=b""):
    """Runs tests/differential/SCRIPT with node, `data` on stdin; returns stdout bytes."""
    if shutil.which("node") is None:
        raise unittest.SkipTest("node is not installed")
    if not os.path.isdir(NODE_MODULES):
        raise unittest.SkipTest("npm packages missing: run scripts/deps.sh")
    p = subprocess.run(["node", os.path.join(HERE, script), *args], input=data,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120, cwd=HERE)
    if p.returncode != 0:
        raise AssertionError("node %s %s failed: %s" % (script, args, p.stderr.decode()))
    return p.stdout


def corpus(*parts):
    """Path of a corpus file or folder; skips the test when the corpus is absent."""
    path = os.path.join(CORPUS, *parts)
    if not os.path.exists(path):
        raise unittest.SkipTest("conformance corpus %s not found (set POLYCODEC_CORPUS_DIR)"
                                % os.path.join(*parts))
    return path


def table_names():
    """The format names of the table (codec/src/format.cpp), in id order, as scripts/fuzz and
    tests/fuzz/CMakeLists.txt read it."""
    import re
    with open(os.path.join(SOURCE_DIR, "codec", "src", "format.cpp")) as f:
        return re.findall(r'^ *\{format_id::[a-z0-9_]+, "([a-z0-9_]+)"', f.read(), re.M)


def fixture(name):
    with open(os.path.join(FIXTURES, name), "rb") as f:
        return f.read()


def load_json_fixture(name):
    return json.loads(fixture(name))


def same_value(test, a, b, where=""):
    """Deep equality that tells int from float (json.loads keeps them apart) and names the
    first difference as a JSON Pointer."""
    def walk(x, y, path):
        if type(x) != type(y) and not (isinstance(x, (list, tuple)) and isinstance(y, (list, tuple))):
            test.fail("%s%s: %r (%s) != %r (%s)" % (where, path or "/", x, type(x).__name__,
                                                   y, type(y).__name__))
        if isinstance(x, dict):
            test.assertEqual(list(x.keys()), list(y.keys()), "%s%s: keys differ" % (where, path))
            for k in x:
                walk(x[k], y[k], "%s/%s" % (path, k))
        elif isinstance(x, (list, tuple)):
            test.assertEqual(len(x), len(y), "%s%s: lengths differ" % (where, path))
            for i, (u, v) in enumerate(zip(x, y)):
                walk(u, v, "%s/%d" % (path, i))
        elif isinstance(x, float) and x != x:
            test.assertTrue(y != y, "%s%s: NaN != %r" % (where, path, y))
        else:
            test.assertEqual(x, y, "%s%s" % (where, path))
    walk(a, b, "")
