"""The W3C XML Conformance Test Suite (xmlts20130923.zip in ../shared/corpus/xml) against the
xml decoder.

The zip is kept unmodified (its licence allows only that): the test extracts it into a
temporary folder. The catalogue (xmlconf/xmlconf.xml) includes one file per collection; each
TEST has a TYPE (valid, invalid, not-wf, error), the URI of its document relative to its
collection, and the RECOMMENDATION/VERSION/EDITION it belongs to. In scope: XML 1.0 (fifth
edition and the errata), without the namespace recommendations and XML 1.1. Every not-wf case
must be rejected, every valid and invalid case (both well-formed) accepted; "error" cases
(optional errors) are not graded. The decoder runs with ordered=true so that comments and
processing instructions are kept rather than refused by the default mapping.

Cases that do not behave are listed with their reason in xml_conformance_known_failures.txt;
the test fails when a listed case starts passing (the list is stale) and when an unlisted one
fails. The figures are recorded in docs/formats/xml.md.
"""
import os
import re
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET
import zipfile
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import common

HERE = os.path.dirname(os.path.abspath(__file__))
KNOWN = os.path.join(HERE, "xml_conformance_known_failures.txt")
OUT_OF_SCOPE_RECS = {"XML1.1", "NS1.0", "NS1.1", "NS1.0-errata1e"}


def load_known():
    known = {}
    with open(KNOWN, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            path, _, reason = line.partition("\t")
            assert reason.strip(), "no reason given for %s in %s" % (path, KNOWN)
            known[path] = reason.strip()
    return known


def cases(root):
    """(relative path, type) of every in-scope TEST of the catalogue under `root`."""
    catalogue = os.path.join(root, "xmlconf", "xmlconf.xml")
    with open(catalogue, encoding="utf-8") as f:
        text = f.read()
    # The collections are external entities of the catalogue: <!ENTITY x SYSTEM "sun/a.xml">.
    files = re.findall(r'<!ENTITY\s+\S+\s+SYSTEM\s+"([^"]+)"', text)
    out = []
    for rel in files:
        path = os.path.join(root, "xmlconf", rel)
        # Some collections are fragments (several TESTCASES at the top): wrapped in one root.
        with open(path, "rb") as f:
            body = f.read().decode("utf-8")
        body = re.sub(r"^\s*<\?xml[^>]*\?>", "", body)
        body = re.sub(r"<!DOCTYPE[^\[>]*(\[.*?\])?\s*>", "", body, count=1, flags=re.S)
        tree = ET.ElementTree(ET.fromstring("<ROOT>" + body + "</ROOT>"))
        base_dir = os.path.dirname(rel)

        def walk(el, base):
            b = el.get("{http://www.w3.org/XML/1998/namespace}base")
            if b:
                base = os.path.normpath(os.path.join(base, b))
            for child in el:
                if child.tag == "TEST":
                    rec = child.get("RECOMMENDATION", "XML1.0")
                    edition = child.get("EDITION")
                    if child.get("VERSION") == "1.1" or rec in OUT_OF_SCOPE_RECS:
                        continue
                    if edition is not None and "5" not in edition.split():
                        continue  # superseded by the fifth edition
                    uri = os.path.normpath(os.path.join(base, child.get("URI")))
                    out.append((uri, child.get("TYPE")))
                else:
                    walk(child, base)
        walk(tree.getroot(), base_dir)
    return out


class XmlConformance(unittest.TestCase):
    def test_w3c_suite(self):
        zip_path = common.corpus("xml", "xmlts20130923.zip")
        binary = common.polycodec_bin()
        known = load_known()
        with tempfile.TemporaryDirectory() as tmp:
            with zipfile.ZipFile(zip_path) as z:
                z.extractall(tmp)
            root = os.path.join(tmp, "xmlconf")
            all_cases = [(p, t) for p, t in cases(tmp) if t in ("valid", "invalid", "not-wf")]
            self.assertGreater(len(all_cases), 1500, "the catalogue was not read")

            def run(case):
                rel, kind = case
                p = subprocess.run([binary, "convert", "--from", "xml;ordered=true", "--to",
                                    "json", os.path.join(root, rel)],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=60)
                return rel, kind, p.returncode, p.stderr.decode("utf-8", "replace").strip()

            with ThreadPoolExecutor(max_workers=2) as ex:
                results = list(ex.map(run, all_cases))
        counts = {"valid": [0, 0], "invalid": [0, 0], "not-wf": [0, 0]}
        unexpected = []
        fixed = []
        for rel, kind, rc, err in results:
            self.assertIn(rc, (0, 2), "%s: exit %d (a crash?): %s" % (rel, rc, err))
            good = (rc == 0) if kind != "not-wf" else (rc == 2)
            counts[kind][0 if good else 1] += 1
            if good and rel in known:
                fixed.append(rel)
            elif not good and rel not in known:
                unexpected.append("%s (%s): %s" % (rel, kind,
                                                   err or "accepted, but it is not well-formed"))
        seen = {rel for rel, _, _, _ in results}
        stale = sorted(set(known) - seen)
        summary = ", ".join("%s %d passed %d failed" % (k, v[0], v[1]) for k, v in counts.items())
        print("\nW3C XML conformance: %d cases; %s" % (len(results), summary))
        self.assertEqual(stale, [], "known failures that are not in scope of the catalogue")
        self.assertEqual(fixed, [], "listed as known failures but passing now: remove them")
        if unexpected and os.environ.get("XML_CONFORMANCE_DUMP"):
            with open(os.environ["XML_CONFORMANCE_DUMP"], "w", encoding="utf-8") as f:
                f.write("\n".join(unexpected) + "\n")
        self.maxDiff = None
        self.assertEqual(unexpected, [], "failures not in the known-failure list")


if __name__ == "__main__":
    unittest.main()
