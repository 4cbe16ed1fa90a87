#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The GitLab template (ci/gitlab/perfgate.gitlab-ci.yml) offline: the YAML is read as GitLab
would (PyYAML), the job publishes the metrics and JUnit reports, and its script, run by bash as
a runner's shell runs it (the lines in order, in one session, stopping at the first failure),
gates test_action.py's project of twelve perf tests: the pull request's profile, eleven kernels
below MIN_EFFICIENCY. The job fails (the gate did) and still writes the reports, which
tests/cli/check_ci_formats.py's checks accept: prometheus_client's OpenMetrics parser and
GitLab's metrics parser, Jenkins xunit's and Ant's JUnit schemas and GitLab's JUnit parser, one
test case per kernel with its test in the classname, the numbers and verdicts of the merged
report.

usage: test_gitlab.py PERFGATE_BUILD_DIR SOURCE_DIR [unittest arguments]
exit 77 without PyYAML, prometheus_client or xmllint."""
import importlib.util
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "cli"))
for module in ("yaml", "prometheus_client"):  # check_ci_formats parses with the latter
    if importlib.util.find_spec(module) is None:
        print(f"skipped: {module} is not installed (python3-yaml, python3-prometheus-client)")
        sys.exit(77)
if not shutil.which("xmllint"):
    print("skipped: no xmllint (libxml2-utils)")
    sys.exit(77)
import check_ci_formats  # noqa: E402
import yaml  # noqa: E402
from test_action import BASE_MS, KERNELS, profile, project_cmakelists, slowdown  # noqa: E402


class GitLabTemplate(unittest.TestCase):
    build = source = None

    @classmethod
    def setUpClass(cls):
        template = pathlib.Path(cls.source, "ci/gitlab/perfgate.gitlab-ci.yml")
        cls.pipeline = yaml.safe_load(template.read_text(encoding="utf-8"))
        cls.tmp = tempfile.mkdtemp(prefix="perfgate-gitlab-")
        cls.install = os.path.join(cls.tmp, "install")
        subprocess.run(["cmake", "--install", cls.build, "--prefix", cls.install], check=True,
                       stdout=subprocess.DEVNULL)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def job(self):
        job = dict(self.pipeline[".perfgate"])
        job.update({k: v for k, v in self.pipeline["perfgate"].items() if k != "extends"})
        return job

    def test_the_job_publishes_metrics_and_junit_reports(self):
        self.assertEqual(self.pipeline["perfgate"]["extends"], ".perfgate")
        artifacts = self.job()["artifacts"]
        self.assertEqual(artifacts["when"], "always")
        self.assertEqual(set(artifacts["reports"]), {"metrics", "junit"})
        for path in artifacts["reports"].values():
            self.assertTrue(any(path.startswith(p) for p in artifacts["paths"]), path)

    def test_the_script_gates_a_project_and_writes_reports_the_parsers_accept(self):
        project = os.path.join(self.tmp, "project")
        os.makedirs(project)
        text, _ = project_cmakelists()
        pathlib.Path(project, "CMakeLists.txt").write_text(text)
        shutil.copy(os.path.join(self.source, "tests/data/devices/valid_device.json"),
                    os.path.join(project, "device.json"))
        pathlib.Path(project, "profile.json").write_text(
            profile([BASE_MS * slowdown(k) for k in range(KERNELS)]))

        job = self.job()
        env = {k: v for k, v in os.environ.items() if not k.startswith("PERFGATE")}
        env.update({k: str(v) for k, v in job["variables"].items()})
        env.update(CI="true", GITLAB_CI="true", CMAKE_PREFIX_PATH=self.install,
                   PATH=os.pathsep.join([os.path.join(self.install, "bin"), env["PATH"]]))
        script = "set -eo pipefail\n" + "\n".join(job["script"]) + "\n"
        done = subprocess.run(["bash", "--noprofile", "--norc", "-c", script], cwd=project,
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True)
        self.assertNotEqual(done.returncode, 0, "the gate failed: so must the job")
        self.assertNotEqual(done.returncode, 2, done.stdout[-3000:])

        reports = job["artifacts"]["reports"]
        doc = json.loads(pathlib.Path(project, "perfgate-ci/all.json").read_text())
        self.assertEqual(len(doc["kernels"]), KERNELS)
        metrics = pathlib.Path(project, reports["metrics"]).read_text(encoding="utf-8")
        junit = pathlib.Path(project, reports["junit"])
        try:
            check_ci_formats.check_openmetrics(metrics, doc)
            check_ci_formats.check_junit(
                junit, pathlib.Path(self.source, "tests/data/junit"), doc)
        except SystemExit as e:  # check_ci_formats fails by exiting, with its message printed
            self.fail(f"check_ci_formats rejected the job's reports (exit {e.code})")
        cases = ET.parse(junit).getroot().iter("testcase")
        failed = sorted(c.get("name") for c in cases if c.find("failure") is not None)
        self.assertEqual(failed, [f"BM_k{k:02d}" for k in range(1, KERNELS)])


if __name__ == "__main__":
    GitLabTemplate.build, GitLabTemplate.source = sys.argv[1], sys.argv[2]
    unittest.main(argv=[sys.argv[0], *sys.argv[3:]])
