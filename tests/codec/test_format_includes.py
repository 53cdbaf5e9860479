"""Formats share code only through codec/src/detail/ (docs/ARCHITECTURE.md, issue 15).

Every `#include "..."` in a file under codec/src/formats/ must resolve (as the compiler
would: next to the including file, then codec/src, then codec/include) to
  - one of the including format's own files: formats/<fmt>/... for formats/<fmt>.cpp and the
    headers under formats/<fmt>/, or formats/formats.hpp (the codec declarations);
  - a helper under codec/src/detail/;
  - a public header under codec/include/.
Files under codec/src/detail/ may include only detail/ and the public headers, so a helper
cannot reach into a format either. Needs no build; POLYCODEC_SOURCE_DIR or the checkout.
"""
import os
import re
import unittest

ROOT = os.environ.get("POLYCODEC_SOURCE_DIR") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..")
SRC = os.path.realpath(os.path.join(ROOT, "codec", "src"))
PUBLIC = os.path.realpath(os.path.join(ROOT, "codec", "include"))
FORMATS = os.path.join(SRC, "formats")
DETAIL = os.path.join(SRC, "detail")

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def sources(folder):
    for dirpath, _, names in os.walk(folder):
        for n in sorted(names):
            if n.endswith((".cpp", ".hpp", ".h", ".inc", ".ipp")):
                yield os.path.join(dirpath, n)


def resolve(including, name):
    """The file the compiler would open for `#include "name"`, or None."""
    for base in (os.path.dirname(including), SRC, PUBLIC):
        p = os.path.realpath(os.path.join(base, name))
        if os.path.isfile(p):
            return p
    return None


def under(path, folder):
    return os.path.commonpath([path, folder]) == folder


def owner(path):
    """The format a file under formats/ belongs to: <fmt> of formats/<fmt>.cpp or
    formats/<fmt>/...; None for a file directly in formats/ that is no format's .cpp."""
    rel = os.path.relpath(path, FORMATS).split(os.sep)
    if len(rel) > 1:
        return rel[0]
    stem, ext = os.path.splitext(rel[0])
    return stem if ext == ".cpp" else None


def allowed_from_format(including, target):
    if under(target, DETAIL) or under(target, PUBLIC):
        return True
    if target == os.path.join(FORMATS, "formats.hpp"):
        return True
    if under(target, FORMATS):
        fmt = owner(including)
        own = os.path.join(FORMATS, fmt) if fmt else None
        return own is not None and under(target, own)
    return False


def violations(files, allowed):
    bad = []
    for f in files:
        with open(f, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        for m in INCLUDE.finditer(text):
            name = m.group(1)
            line = text.count("\n", 0, m.start()) + 1
            target = resolve(f, name)
            rel = os.path.relpath(f, SRC)
            if target is None:
                bad.append(f'{rel}:{line}: #include "{name}" resolves to no file')
            elif not allowed(f, target):
                bad.append(f'{rel}:{line}: #include "{name}" is '
                           f'{os.path.relpath(target, SRC)}, not this format\'s own file, '
                           'detail/ or a public header')
    return bad


class FormatIncludes(unittest.TestCase):
    def test_the_tree_is_there(self):
        self.assertTrue(os.path.isfile(os.path.join(FORMATS, "json.cpp")), FORMATS)
        self.assertTrue(os.path.isdir(DETAIL), DETAIL)

    def test_formats_include_only_their_own_files_detail_and_public_headers(self):
        bad = violations(sources(FORMATS), allowed_from_format)
        self.assertEqual(bad, [], "\n" + "\n".join(bad))

    def test_detail_includes_no_format(self):
        bad = violations(sources(DETAIL),
                         lambda _f, t: under(t, DETAIL) or under(t, PUBLIC))
        self.assertEqual(bad, [], "\n" + "\n".join(bad))

    def test_the_check_catches_a_cross_format_include(self):
        # The rule itself, on paths: pickle may use its own folder, postcard may not.
        pickle_cpp = os.path.join(FORMATS, "pickle.cpp")
        postcard_cpp = os.path.join(FORMATS, "postcard.cpp")
        own = os.path.join(FORMATS, "pickle", "x.hpp")
        self.assertTrue(allowed_from_format(pickle_cpp, own))
        self.assertFalse(allowed_from_format(postcard_cpp, own))
        self.assertFalse(allowed_from_format(postcard_cpp, os.path.join(FORMATS, "json.cpp")))
        self.assertFalse(allowed_from_format(postcard_cpp, os.path.join(SRC, "stream", "x.hpp")))
        self.assertTrue(allowed_from_format(postcard_cpp, os.path.join(FORMATS, "formats.hpp")))
        self.assertTrue(allowed_from_format(postcard_cpp, os.path.join(DETAIL, "utf8.hpp")))


if __name__ == "__main__":
    unittest.main()
