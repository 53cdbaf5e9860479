"""The suite's conventions (README "Tests", cmake/tests.cmake): every registered test has one
of the labels, a listed test script that is missing fails configuration, a test without a
label (or with an unknown one) fails configuration.

Environment: POLYCODEC_BUILD_DIR, POLYCODEC_SOURCE_DIR, POLYCODEC_CMAKE, POLYCODEC_CTEST.
"""
import os
import re
import subprocess
import tempfile
import unittest

BUILD = os.environ["POLYCODEC_BUILD_DIR"]
SOURCE = os.environ["POLYCODEC_SOURCE_DIR"]
CMAKE = os.environ.get("POLYCODEC_CMAKE", "cmake")
CTEST = os.environ.get("POLYCODEC_CTEST", "ctest")
LABELS = ["unit", "conformance", "differential", "service", "deploy", "slow"]


def total(args):
    p = subprocess.run([CTEST, "--test-dir", BUILD, "-N"] + args, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=120, check=True)
    m = re.search(r"Total Tests: (\d+)", p.stdout.decode())
    assert m, p.stdout
    return int(m.group(1))


def configure(body):
    with tempfile.TemporaryDirectory(prefix="polycodec-conv-") as tmp:
        with open(os.path.join(tmp, "CMakeLists.txt"), "w") as f:
            f.write("cmake_minimum_required(VERSION 3.25)\nproject(p NONE)\nenable_testing()\n"
                    "include(%s/cmake/tests.cmake)\n%s\n" % (SOURCE, body))
        return subprocess.run([CMAKE, "-S", tmp, "-B", os.path.join(tmp, "b")],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)


class Conventions(unittest.TestCase):
    def test_every_registered_test_has_a_label(self):
        # gtest cases are discovered at build time, so this is checked on the built suite
        everything = total([])
        self.assertGreater(everything, 400)
        unlabelled = total(["-LE", "^(%s)$" % "|".join(LABELS)])
        self.assertEqual(unlabelled, 0)
        per_label = {l: total(["-L", "^%s$" % l]) for l in LABELS if l != "slow"}
        for label, n in per_label.items():
            self.assertGreater(n, 0, label)

    def test_a_missing_listed_script_fails_configuration(self):
        p = configure("polycodec_require_test_script(${CMAKE_CURRENT_SOURCE_DIR}/gone.py)")
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("gone.py is listed but does not exist", " ".join(p.stderr.decode().split()))
        p = configure("polycodec_require_test_script(${CMAKE_CURRENT_SOURCE_DIR}/CMakeLists.txt)")
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_a_test_without_a_known_label_fails_configuration(self):
        p = configure("add_test(NAME t COMMAND true)\npolycodec_check_test_labels()")
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("test t has no label", " ".join(p.stderr.decode().split()))
        p = configure("add_test(NAME t COMMAND true)\n"
                      "set_tests_properties(t PROPERTIES LABELS bench)\n"
                      "polycodec_check_test_labels()")
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("label 'bench' is not one of", " ".join(p.stderr.decode().split()))
        p = configure("add_test(NAME t COMMAND true)\n"
                      "set_tests_properties(t PROPERTIES LABELS \"service;slow\")\n"
                      "polycodec_check_test_labels()")
        self.assertEqual(p.returncode, 0, p.stderr)


if __name__ == "__main__":
    unittest.main()
