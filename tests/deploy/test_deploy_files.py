"""deploy/: every YAML and JSON file parses, Prometheus accepts the config and the rules, and
every dashboard query is valid PromQL (checked by promtool as recording rules)."""
import glob
import json
import os
import shutil
import subprocess
import tempfile
import unittest

import yaml

ROOT = os.environ.get("POLYCODEC_SOURCE_DIR",
                      os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
DEPLOY = os.path.join(ROOT, "deploy")


def promtool():
    p = shutil.which("promtool")
    if p is None:
        raise unittest.SkipTest("promtool missing (Debian package prometheus; scripts/deps.sh)")
    return p


def dashboard_queries():
    """(panel title, expr) of every panel target, with Grafana variables substituted."""
    out = []
    for path in glob.glob(os.path.join(DEPLOY, "grafana", "dashboards", "*.json")):
        with open(path) as f:
            dash = json.load(f)
        for panel in dash["panels"]:
            for t in panel.get("targets", []):
                expr = t["expr"].replace("$__rate_interval", "1m").replace('"$format"', '".*"')
                out.append((panel["title"], expr))
    return out


class DeployFiles(unittest.TestCase):
    def test_every_yaml_and_json_file_parses(self):
        files = 0
        for path in glob.glob(os.path.join(DEPLOY, "**", "*"), recursive=True):
            if path.endswith((".yml", ".yaml")):
                with open(path) as f:
                    docs = [d for d in yaml.safe_load_all(f)]
                self.assertTrue(docs and all(d is not None for d in docs), path)
                files += 1
            elif path.endswith(".json"):
                with open(path) as f:
                    json.load(f)
                files += 1
        self.assertGreaterEqual(files, 12)

    def test_promtool_accepts_config_and_rules(self):
        for args in (["check", "config", os.path.join(DEPLOY, "prometheus", "prometheus.yml")],
                     ["check", "rules", os.path.join(DEPLOY, "prometheus", "rules.yml")]):
            p = subprocess.run([promtool(), *args], capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)

    def test_alerts_cover_errors_latency_down_and_drain(self):
        with open(os.path.join(DEPLOY, "prometheus", "rules.yml")) as f:
            rules = yaml.safe_load(f)["groups"][0]["rules"]
        names = {r["alert"] for r in rules}
        for want in ("PolycodecHighErrorRatio", "PolycodecHighP99Latency",
                     "PolycodecTargetDown", "PolycodecDrainStuck"):
            self.assertIn(want, names)

    def test_dashboard_panels_are_described_and_queries_are_valid_promql(self):
        with open(os.path.join(DEPLOY, "grafana", "dashboards", "polycodec.json")) as f:
            dash = json.load(f)
        self.assertIn("format", [v["name"] for v in dash["templating"]["list"]])
        for panel in dash["panels"]:
            self.assertTrue(panel.get("description"), panel["title"])
        queries = dashboard_queries()
        self.assertGreaterEqual(len(queries), 15)
        rules = {"groups": [{"name": "dashboard", "rules": [
            {"record": "dashboard:q%d" % i, "expr": e} for i, (_, e) in enumerate(queries)]}]}
        with tempfile.NamedTemporaryFile("w", suffix=".yml") as f:
            yaml.safe_dump(rules, f)
            f.flush()
            p = subprocess.run([promtool(), "check", "rules", f.name], capture_output=True,
                               text=True)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)

    def test_kubernetes_probes_and_drain_timing_match(self):
        with open(os.path.join(DEPLOY, "k8s", "deployment.yaml")) as f:
            dep = yaml.safe_load(f)
        spec = dep["spec"]["template"]["spec"]
        c = spec["containers"][0]
        self.assertEqual(c["readinessProbe"]["httpGet"]["path"], "/readyz")
        self.assertEqual(c["livenessProbe"]["httpGet"]["path"], "/healthz")
        env = {e["name"]: e["value"] for e in c["env"]}
        grace = int(env["POLYCODEC_GRACE"].rstrip("s"))
        pre_stop = int(c["lifecycle"]["preStop"]["exec"]["command"][-1])
        self.assertGreater(spec["terminationGracePeriodSeconds"], grace + pre_stop)
        with open(os.path.join(DEPLOY, "k8s", "kustomization.yaml")) as f:
            kust = yaml.safe_load(f)
        for res in kust["resources"]:
            self.assertTrue(os.path.exists(os.path.join(DEPLOY, "k8s", res)), res)


if __name__ == "__main__":
    unittest.main()
