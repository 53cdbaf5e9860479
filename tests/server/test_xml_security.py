"""Hostile XML against a running server: billion laughs, quadratic blowup and XXE (file and
http SYSTEM ids, a parameter entity, an external DTD subset) are each refused with a clear 400
problem+json (format, offset, line, column), no connection is ever made to the SYSTEM ids, and
the server's peak memory (VmHWM) stays flat."""
import os
import re
import socket
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from server_common import Server, curl


def vm_hwm(pid):
    with open("/proc/%d/status" % pid) as f:
        return int(re.search(r"VmHWM:\s+(\d+) kB", f.read()).group(1)) * 1024


def billion_laughs(levels=10):
    d = ["<!DOCTYPE lolz [", '<!ENTITY lol0 "lol">']
    for i in range(1, levels):
        d.append('<!ENTITY lol%d "%s">' % (i, ("&lol%d;" % (i - 1)) * 10))
    d.append("]>")
    d.append("<lolz>&lol%d;</lolz>" % (levels - 1))
    return "".join(d).encode()  # 10^9 "lol"s: 3 GB of text


def quadratic(entity_size=100000, refs=30000):
    return ('<!DOCTYPE q [<!ENTITY a "%s">]><q>%s</q>'
            % ("a" * entity_size, "&a;" * refs)).encode()  # 3 GB of text from 190 KB


class XmlSecurity(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # A listener standing for the SYSTEM ids' host: nothing may ever connect to it.
        cls.trap = socket.socket()
        cls.trap.bind(("127.0.0.1", 0))
        cls.trap.listen(8)
        cls.trap.setblocking(False)
        cls.trap_port = cls.trap.getsockname()[1]
        cls.server = Server()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.trap.close()

    def refused(self, body, words):
        r = curl(self.server.base + "/transcode?to=json", data=body,
                 headers=["Content-Type: application/xml"])
        self.assertEqual(r.status, 400, r.body[:300])
        self.assertTrue(r.headers.get("content-type", "").startswith("application/problem+json"))
        p = r.json()
        self.assertEqual(p["format"], "xml")
        for k in ("offset", "line", "column"):
            self.assertIn(k, p)
        self.assertGreater(p["line"], 0)
        self.assertRegex(p["detail"], words)
        return p

    def assert_no_connection(self):
        try:
            conn, _ = self.trap.accept()
        except BlockingIOError:
            return
        conn.close()
        self.fail("the server connected to a SYSTEM id's host")

    def test_expansion_bombs_refused_with_flat_memory(self):
        curl(self.server.base + "/healthz")
        before = vm_hwm(self.server.proc.pid)
        for name, body in (("billion laughs", billion_laughs()), ("quadratic", quadratic())):
            with self.subTest(name):
                p = self.refused(body, r"entity expansion|amplification")
                self.assertLessEqual(p["offset"], len(body))
        after = vm_hwm(self.server.proc.pid)
        # 3 GB of text each were asked for; the peak grows by a few MiB at most.
        self.assertLess(after - before, 32 << 20, (before, after))
        self.assertEqual(curl(self.server.base + "/healthz").status, 200)

    def test_external_entities_refused_and_never_fetched(self):
        url = "http://127.0.0.1:%d/x" % self.trap_port
        cases = [
            ('<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r>&x;</r>',
             r"external entity &x; \(SYSTEM \"file:///etc/passwd\"\) refused"),
            ('<!DOCTYPE r [<!ENTITY x SYSTEM "%s">]><r>&x;</r>' % url,
             r"external entity &x; .*refused"),
            ('<!DOCTYPE r [<!ENTITY %% p SYSTEM "%s"> %%p;]><r/>' % url,
             r"external parameter entity .*refused"),
            ('<!DOCTYPE r SYSTEM "%s"><r>&fromdtd;</r>' % url,
             r"entity &fromdtd; is not declared in the internal subset"),
            ('<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r a="&x;"/>',
             r"external entity"),
        ]
        for body, words in cases:
            with self.subTest(body[:60]):
                p = self.refused(body.encode(), words)
                self.assertNotIn("root:x:0", p["detail"])  # nothing of /etc/passwd
        self.assert_no_connection()
        # The same through /validate.
        r = curl(self.server.base + "/validate", data=cases[0][0].encode(),
                 headers=["Content-Type: application/xml"])
        self.assertEqual(r.status, 400)

    def test_well_formedness_errors_have_position_and_path(self):
        p = self.refused(b"<a>\n  <b></c></a>", r"mismatched tag")
        self.assertEqual((p["offset"], p["line"], p["column"]), (11, 2, 8))
        self.assertEqual(p["path"], "/a/b")
        deep = b"<a>" * 5000
        self.refused(deep, r"nesting deeper")


if __name__ == "__main__":
    unittest.main()
