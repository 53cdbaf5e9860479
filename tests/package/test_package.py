"""The installed package, used from outside the tree (issue 18, DESIGN section 16).

Each test class installs the build (`cmake --install BUILD --prefix TMP`) and builds
tests/package/cmake-consumer/main.cpp against the installed tree only: with
find_package(polycodec) (CMakeConsumer) or with `pkg-config --cflags --libs polycodec`
(PkgConfigConsumer). DebianPackage runs cpack -G DEB. The consumer converts JSON to MessagePack; the bytes are checked against
the encoding worked out by hand from the MessagePack spec. InstalledTree checks what else the
install puts in place: binaries that run, man pages listing every flag of the usage text, docs,
and exported files that carry no build flags or paths of the build tree.

Environment (set by tests/package/CMakeLists.txt): POLYCODEC_BUILD_DIR, POLYCODEC_SOURCE_DIR,
POLYCODEC_CMAKE, POLYCODEC_CXX, POLYCODEC_GENERATOR, POLYCODEC_SANITIZE (the build's
sanitizers: an instrumented static library needs them at the consumer's link too).
"""
import glob
import gzip
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

BUILD = os.environ["POLYCODEC_BUILD_DIR"]
SOURCE = os.environ["POLYCODEC_SOURCE_DIR"]
CMAKE = os.environ.get("POLYCODEC_CMAKE", "cmake")
CPACK = os.environ.get("POLYCODEC_CPACK", "cpack")
CXX = os.environ.get("POLYCODEC_CXX", "c++")
GENERATOR = os.environ.get("POLYCODEC_GENERATOR", "Ninja")
SANITIZE = os.environ.get("POLYCODEC_SANITIZE", "")
CONSUMER = os.path.join(SOURCE, "tests", "package", "cmake-consumer")

DOC = b'{"a":[1,2.5,"x"],"b":null,"c":true}'
# MessagePack by hand: fixmap of 3 (0x83); fixstr "a" (a1 61); fixarray of 3 (93): positive
# fixint 1 (01), float 64 2.5 = 0x4004000000000000 (cb 40 04 00 ..), fixstr "x" (a1 78);
# "b" (a1 62) nil (c0); "c" (a1 63) true (c3).
MSGPACK = bytes.fromhex("83 a1 61 93 01 cb 40 04 00 00 00 00 00 00 a1 78 a1 62 c0 a1 63 c3")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def run(cmd, check=True, **kw):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=240, **kw)
    if check and p.returncode != 0:
        raise AssertionError("%s failed (%d):\n%s\n%s" % (
            " ".join(cmd), p.returncode, p.stdout.decode(errors="replace")[-3000:],
            p.stderr.decode(errors="replace")[-3000:]))
    return p


def sanitize_flags():
    return ["-fsanitize=" + SANITIZE] if SANITIZE else []


def install(prefix):
    # every component: a shared libpolycodec.so.* is in `runtime`, its namelink in `devel`
    run([CMAKE, "--install", BUILD, "--prefix", prefix])


def find_one(prefix, pattern):
    hits = glob.glob(os.path.join(prefix, pattern))
    if len(hits) != 1:
        raise AssertionError("expected one %s under %s, found %s" % (pattern, prefix, hits))
    return hits[0]


class Consumer:
    """Runs a built consumer binary and checks its conversions."""

    def check_consumer(self, exe):
        p = subprocess.run([exe, "json", "msgpack"], input=DOC, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout, MSGPACK)
        # and back: msgpack -> json gives the document again (compact JSON, key order kept)
        p = subprocess.run([exe, "msgpack", "json"], input=MSGPACK, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout, DOC)
        # hostile input: a clear error with its position, from the installed library
        p = subprocess.run([exe, "json", "msgpack"], input=b'{"a":[1,}', stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=60)
        self.assertEqual(p.returncode, 2)
        self.assertEqual(p.stdout, b"")
        self.assertRegex(p.stderr.decode(), r"^json: line 1, column 9 \(byte 8\)")


class CMakeConsumer(Consumer, unittest.TestCase):
    def test_find_package_builds_and_converts(self):
        with tempfile.TemporaryDirectory(prefix="polycodec-pkg-") as tmp:
            prefix = os.path.join(tmp, "prefix")
            install(prefix)
            build = os.path.join(tmp, "build")
            flags = " ".join(sanitize_flags())
            # Only the installed tree: no package registry, no hint of the build tree.
            run([CMAKE, "-S", CONSUMER, "-B", build, "-G", GENERATOR,
                 "-DCMAKE_CXX_COMPILER=" + CXX, "-DCMAKE_BUILD_TYPE=Release",
                 "-DCMAKE_PREFIX_PATH=" + prefix, "-DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF",
                 "-DCMAKE_CXX_FLAGS=" + flags, "-DCMAKE_EXE_LINKER_FLAGS=" + flags])
            cache = read(os.path.join(build, "CMakeCache.txt"))
            self.assertIn("polycodec_DIR:PATH=" + os.path.join(prefix, "lib", "cmake",
                                                               "polycodec"), cache)
            p = run([CMAKE, "--build", build, "--verbose"])
            # the consumer's compile line has none of the project's warning/sanitizer flags
            # (beyond the ones this test passed itself) and no include path into the sources
            compile_lines = [l for l in p.stdout.decode().splitlines() if " -c " in l]
            self.assertTrue(compile_lines, p.stdout)
            for line in compile_lines:
                self.assertNotIn("-Wshadow", line)
                self.assertNotIn(SOURCE + "/codec", line)
                if not SANITIZE:
                    self.assertNotIn("-fsanitize", line)
                self.assertIn("-I" + os.path.join(prefix, "include"), line.replace(
                    "-isystem ", "-I"))
            self.check_consumer(os.path.join(build, "consumer"))

    def test_version_file_rejects_another_minor(self):
        with tempfile.TemporaryDirectory(prefix="polycodec-pkg-") as tmp:
            prefix = os.path.join(tmp, "prefix")
            install(prefix)
            script = os.path.join(tmp, "probe.cmake")
            with open(script, "w") as f:
                f.write('find_package(polycodec 0.1 CONFIG REQUIRED)\n'
                        'message(STATUS "found ${polycodec_VERSION}")\n'
                        'find_package(polycodec 0.2 CONFIG QUIET)\n'
                        'message(STATUS "0.2 found: ${polycodec_FOUND}")\n')
            src = os.path.join(tmp, "src")
            os.mkdir(src)
            with open(os.path.join(src, "CMakeLists.txt"), "w") as f:
                f.write("cmake_minimum_required(VERSION 3.25)\nproject(p CXX)\n"
                        "include(%s)\n" % script)
            p = run([CMAKE, "-S", src, "-B", os.path.join(tmp, "b"), "-G", GENERATOR,
                     "-DCMAKE_CXX_COMPILER=" + CXX, "-DCMAKE_PREFIX_PATH=" + prefix])
            out = p.stdout.decode()
            self.assertIn("found 0.1.0", out)
            self.assertIn("0.2 found: 0", out)


class PkgConfigConsumer(Consumer, unittest.TestCase):
    def test_pkg_config_builds_and_converts(self):
        with tempfile.TemporaryDirectory(prefix="polycodec-pc-") as tmp:
            prefix = os.path.join(tmp, "prefix")
            install(prefix)
            env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(prefix, "lib", "pkgconfig"))
            version = run(["pkg-config", "--modversion", "polycodec"], env=env)
            self.assertEqual(version.stdout.decode().strip(), "0.1.0")
            shared = bool(glob.glob(os.path.join(prefix, "lib", "libpolycodec.so")))
            cmd = ["pkg-config", "--cflags", "--libs", "polycodec"]
            if not shared:
                cmd.insert(1, "--static")  # a static libpolycodec.a needs Requires.private
            flags = run(cmd, env=env).stdout.decode().split()
            self.assertIn("-lpolycodec", flags)
            self.assertFalse([f for f in flags if f.startswith("-W") or "sanitize" in f], flags)
            self.assertFalse([f for f in flags if SOURCE in f or BUILD in f], flags)
            if not shared:
                for lib in ("-lsimdjson",):
                    self.assertIn(lib, flags)
                # YAML and TOML decode with our own parsers: libyaml and toml++ are no
                # dependencies of the package.
                self.assertNotIn("-lyaml", flags)
                self.assertNotIn("-ltomlplusplus", flags)
            exe = os.path.join(tmp, "consumer")
            extra = ["-Wl,-rpath," + os.path.join(prefix, "lib")] if shared else []
            run([CXX, "-O1", os.path.join(CONSUMER, "main.cpp"), "-o", exe]
                + sanitize_flags() + flags + extra)
            self.check_consumer(exe)


class DebianPackage(unittest.TestCase):
    """cpack -G DEB of this build: the two packages, their files, and Depends that name the
    package of every shared library the binaries need (readelf NEEDED -> ldconfig -> dpkg -S,
    an account independent of dpkg-shlibdeps)."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="polycodec-deb-")
        out = os.path.join(cls.tmp.name, "out")
        run([CPACK, "-G", "DEB", "-B", out, "--config", os.path.join(BUILD, "CPackConfig.cmake")])
        cls.runtime = find_one(out, "polycodec_*.deb")
        cls.devel = find_one(out, "libpolycodec-dev_*.deb")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def field(self, deb, name):
        return run(["dpkg-deb", "--field", deb, name]).stdout.decode().strip()

    def files(self, deb):
        out = run(["dpkg-deb", "--contents", deb]).stdout.decode()
        return {line.split()[-1].lstrip(".") for line in out.splitlines()}

    def test_runtime_package(self):
        self.assertEqual(self.field(self.runtime, "Package"), "polycodec")
        self.assertEqual(self.field(self.runtime, "Version"), "0.1.0")
        files = self.files(self.runtime)
        for f in ("/usr/bin/polycodec", "/usr/bin/polycodec-loadtest",
                  "/usr/share/man/man1/polycodec.1", "/usr/share/man/man1/polycodec-loadtest.1",
                  "/usr/share/doc/polycodec/README.md", "/usr/share/polycodec/fixtures/records.json"):
            self.assertIn(f, files)
        self.assertFalse([f for f in files if f.startswith("/usr/include")], files)

    def owner(self, path):
        """The package owning a library file; dpkg knows /lib and /usr/lib (usrmerge) apart."""
        real = os.path.realpath(path)
        candidates = [path, real]
        for c in (path, real):
            candidates.append(c[len("/usr"):] if c.startswith("/usr/") else "/usr" + c)
        for c in candidates:
            p = run(["dpkg", "-S", c], check=False)
            if p.returncode == 0:
                return p.stdout.decode().split(":")[0]
        raise AssertionError("no package owns %s" % path)

    def test_runtime_depends_cover_every_needed_library(self):
        depends = self.field(self.runtime, "Depends")
        named = {d.strip().split()[0] for d in depends.split(",")}
        root = os.path.join(self.tmp.name, "root")
        run(["dpkg-deb", "-x", self.runtime, root])
        cache = run(["ldconfig", "-p"]).stdout.decode()
        for exe in ("polycodec", "polycodec-loadtest"):
            dyn = run(["readelf", "-d", os.path.join(root, "usr/bin", exe)]).stdout.decode()
            for lib in re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", dyn):
                if lib.startswith("libpolycodec"):
                    continue  # a shared build's own library, in this package
                m = re.search(r"^\s*%s \(.*x86-64.*\) => (\S+)$" % re.escape(lib), cache, re.M)
                self.assertTrue(m, "%s needs %s, not in ldconfig's cache" % (exe, lib))
                pkg = self.owner(m.group(1))
                # the package itself or a name it Provides (libspdlog1.10 -> libspdlog1.10-fmt9)
                provides = run(["dpkg-query", "-W", "-f", "${Provides}", pkg]).stdout.decode()
                names = {pkg} | {p.strip().split()[0] for p in provides.split(",") if p.strip()}
                self.assertTrue(names & named, "%s needs %s (package %s); Depends: %s" % (
                    exe, lib, " or ".join(sorted(names)), depends))
        # and the unpacked binary runs
        p = run([os.path.join(root, "usr/bin/polycodec"), "formats"])
        self.assertIn(b"msgpack", p.stdout)

    def test_devel_package(self):
        self.assertEqual(self.field(self.devel, "Package"), "libpolycodec-dev")
        files = self.files(self.devel)
        for f in ("/usr/include/polycodec/polycodec.hpp", "/usr/lib/cmake/polycodec/polycodec-config.cmake",
                  "/usr/lib/pkgconfig/polycodec.pc"):
            self.assertIn(f, files)
        depends = self.field(self.devel, "Depends")
        self.assertIn("libexpected-dev", depends)  # the public headers include tl/expected.hpp


class InstalledTree(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="polycodec-tree-")
        cls.prefix = os.path.join(cls.tmp.name, "prefix")
        install(cls.prefix)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def path(self, *parts):
        return os.path.join(self.prefix, *parts)

    def test_files_in_place(self):
        for rel in ("include/polycodec/polycodec.hpp", "include/polycodec/formats/postcard.hpp",
                    "lib/cmake/polycodec/polycodec-config.cmake",
                    "lib/cmake/polycodec/polycodec-config-version.cmake",
                    "lib/cmake/polycodec/polycodec-targets.cmake", "lib/pkgconfig/polycodec.pc",
                    "bin/polycodec", "bin/polycodec-loadtest",
                    "share/man/man1/polycodec.1", "share/man/man1/polycodec-loadtest.1",
                    "share/doc/polycodec/README.md", "share/doc/polycodec/SERVICE.md",
                    "share/doc/polycodec/formats/msgpack.md"):
            self.assertTrue(os.path.isfile(self.path(rel)), rel)
        self.assertTrue(glob.glob(self.path("lib", "libpolycodec.*")))
        # every public header, nothing from src/
        ours = sorted(os.path.relpath(p, os.path.join(SOURCE, "codec", "include"))
                      for p in glob.glob(os.path.join(SOURCE, "codec/include/polycodec/**/*.hpp"),
                                         recursive=True))
        installed = sorted(os.path.relpath(p, self.path("include"))
                           for p in glob.glob(self.path("include/polycodec/**/*"),
                                              recursive=True) if os.path.isfile(p))
        self.assertEqual(installed, ours)

    def test_exports_carry_no_build_flags_or_paths(self):
        for rel in glob.glob(self.path("lib/cmake/polycodec/*.cmake")) + [
                self.path("lib/pkgconfig/polycodec.pc")]:
            text = read(rel)
            for bad in ("polycodec_warnings", "polycodec_flags", "-Wall", "-fsanitize",
                        "-march", SOURCE, BUILD):
                self.assertNotIn(bad, text, rel)
        targets = read(self.path("lib/cmake/polycodec/polycodec-targets.cmake"))
        self.assertIn("add_library(polycodec::codec", targets)
        self.assertIn("tl::expected", targets)  # the public headers' one dependency

    def test_installed_binary_runs(self):
        p = run([self.path("bin", "polycodec"), "formats"])
        names = [l.split()[0] for l in p.stdout.decode().splitlines() if l.strip()]
        for fmt in ("json", "msgpack", "cbor", "yaml", "toml", "dotenv", "plist", "xml"):
            self.assertIn(fmt, p.stdout.decode())
        self.assertGreaterEqual(len(names), 21)
        p = subprocess.run([self.path("bin", "polycodec"), "convert", "--from", "json", "--to",
                            "msgpack"], input=DOC, stdout=subprocess.PIPE, timeout=60)
        self.assertEqual(p.stdout, MSGPACK)
        p = run([self.path("bin", "polycodec-loadtest"), "--help"], check=False)
        self.assertIn(b"polycodec-loadtest bench", p.stdout + p.stderr)
        # the load test's default data is the installed copy (share/polycodec/fixtures)
        self.assertTrue(os.path.isfile(self.path("share/polycodec/fixtures/records.json")))
        p = run([self.path("bin", "polycodec-loadtest"), "bench", "--ms", "20",
                 "--formats", "json,msgpack", "--no-stream"])
        self.assertRegex(p.stdout.decode(), r"(?m)^.*\bmsgpack\b")

    def test_man_pages_list_every_flag_of_the_usage_text(self):
        for exe, extra in (("polycodec", ["serve", "--help"]), ("polycodec-loadtest", None)):
            page = read(self.path("share/man/man1", exe + ".1"))
            self.assertTrue(page.startswith(".TH " + exe.upper() + " 1 "), page[:80])
            self.assertIn(".SH NAME", page)
            text = page.replace("\\-", "-").replace("\\e", "\\").replace("\\&", "")
            usage = b""
            for args in (["--help"], extra):
                if args:
                    p = subprocess.run([self.path("bin", exe)] + args, stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, timeout=60)
                    usage += p.stdout + p.stderr
            flags = set(re.findall(r"--[a-z][a-z0-9-]*", usage.decode()))
            self.assertGreater(len(flags), 5, usage)
            for flag in sorted(flags):
                self.assertIn(flag, text, "%s.1 lacks %s" % (exe, flag))
            # and the page renders (man's formatter accepts it)
            if shutil.which("groff"):
                r = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z"],
                                   input=page.encode(), stderr=subprocess.PIPE, timeout=60)
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertEqual(r.stderr, b"", r.stderr)


if __name__ == "__main__":
    unittest.main()
