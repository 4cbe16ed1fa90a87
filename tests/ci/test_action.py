#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The GitHub action (action.yml) run offline, step by step, under a fake GitHub
(tests/ci/action_runner.py): a project of twelve perf tests in a git repository, its main branch
gated on push (the stored reports), then a pull request compared with its base commit.

The project gates recorded Google Benchmark output (COLLECTOR profile: no calibration, fixed
times) against the device `bad` (DRAM 100 GB/s): every kernel BM_kNN moves 1e8 bytes, a 1 ms
roof. On main each takes 1.25 ms (efficiency 0.8, MIN_EFFICIENCY 0.5: all pass). The pull
request slows BM_k00 by 1.3x (0.62: passes the gate, a regression against the base) and BM_kNN
by 1.6 + 0.1 NN (NN = 1..11: 0.47 down to 0.30: each fails the gate); the worst is BM_k11.
A later commit on main changes the README only and its run failed (no stored reports): a second
pull request from it, as fast as main, shows what missing-baseline does (issue 52).

usage: test_action.py PERFGATE_BUILD_DIR SOURCE_DIR [unittest arguments]"""
import importlib.util
import io
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import unittest
import zipfile

if importlib.util.find_spec("yaml") is None:  # action_runner reads action.yml with it
    print("skipped: PyYAML is not installed (python3-yaml)")
    sys.exit(77)
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from action_runner import FakeGitHubApi, Runner  # noqa: E402
from test_pr_loop import zip_of  # noqa: E402

REPO = "owner/name"
KERNELS = 12
BASE_MS = 1.25
WORKFLOW_REF = f"{REPO}/.github/workflows/perf.yml@refs/heads/main"


def slowdown(k):
    return 1.3 if k == 0 else 1.6 + 0.1 * k


def profile(times_ms):
    context = {"date": "2026-11-27T00:00:00+00:00", "host_name": "recorded",
               "executable": "/recorded", "num_cpus": 2, "mhz_per_cpu": 2600,
               "cpu_scaling_enabled": False, "caches": [], "library_build_type": "release"}
    benchmarks = [{"name": f"BM_k{k:02d}", "family_index": k, "per_family_instance_index": 0,
                   "run_name": f"BM_k{k:02d}", "run_type": "iteration", "repetitions": 1,
                   "repetition_index": 0, "threads": 1, "iterations": 10,
                   "real_time": t, "cpu_time": t, "time_unit": "ms", "perfgate_bytes": 1e8}
                  for k, t in enumerate(times_ms)]
    return json.dumps({"context": context, "benchmarks": benchmarks}, indent=1) + "\n"


def project_cmakelists():
    """The project, and the line of each test's add_perf_prediction call."""
    lines = ["cmake_minimum_required(VERSION 3.25)",
             "project(action_fixture LANGUAGES NONE)",
             "enable_testing()",
             "find_package(PerfGate 0.1 REQUIRED)",
             "include(PerfGate)",
             "find_program(TRUE_PROGRAM true REQUIRED)",
             "add_executable(recorded IMPORTED)",
             "set_target_properties(recorded PROPERTIES IMPORTED_LOCATION \"${TRUE_PROGRAM}\")"]
    calls = {}
    for k in range(KERNELS):
        lines.append(f"add_perf_prediction(recorded NAME perf.k{k:02d} COLLECTOR profile")
        calls[f"BM_k{k:02d}"] = len(lines)
        lines.append(f'  PROFILE "${{CMAKE_CURRENT_SOURCE_DIR}}/profile.json" KERNELS "^BM_k{k:02d}$"')
        lines.append('  DEVICES "${CMAKE_CURRENT_SOURCE_DIR}/device.json" MIN_EFFICIENCY 0.5)')
    return "\n".join(lines) + "\n", calls


def git(workspace, *args):
    return subprocess.run(["git", "-C", workspace, *args], check=True, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE).stdout.strip()


class ActionTest(unittest.TestCase):
    build = source = None

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="perfgate-action-")
        install = os.path.join(cls.tmp, "install")
        subprocess.run(["cmake", "--install", cls.build, "--prefix", install], check=True,
                       stdout=subprocess.DEVNULL)
        ws = cls.workspace = os.path.join(cls.tmp, "workspace")
        os.makedirs(ws)
        text, cls.calls = project_cmakelists()
        pathlib.Path(ws, "CMakeLists.txt").write_text(text)
        shutil.copy(os.path.join(cls.source, "tests/data/devices/valid_device.json"),
                    os.path.join(ws, "device.json"))
        pathlib.Path(ws, ".gitignore").write_text("build/\nperfgate-action-reports/\n")
        pathlib.Path(ws, "profile.json").write_text(profile([BASE_MS] * KERNELS))
        git(ws, "init", "-q", "-b", "main")
        git(ws, "-c", "user.name=t", "-c", "user.email=t@example.test", "add", "-A")
        git(ws, "-c", "user.name=t", "-c", "user.email=t@example.test", "commit", "-qm", "base")
        cls.base_sha = git(ws, "rev-parse", "HEAD")
        git(ws, "checkout", "-qb", "pr")
        pathlib.Path(ws, "profile.json").write_text(
            profile([BASE_MS * slowdown(k) for k in range(KERNELS)]))
        git(ws, "-c", "user.name=t", "-c", "user.email=t@example.test", "commit", "-qam", "slower")
        cls.head_sha = git(ws, "rev-parse", "HEAD")

        cls.api = FakeGitHubApi(REPO, git_dir=ws)
        env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
        env.update(GITHUB_API_URL=cls.api.url,
                   PATH=os.pathsep.join([os.path.join(install, "bin"), env["PATH"]]))
        temp = os.path.join(cls.tmp, "runner-temp")
        os.makedirs(temp)
        cls.runner = Runner(cls.source, ws, temp, env)
        cls.runs = 0

        # main at the base commit: its reports become the stored baseline of that commit. A
        # later run of another commit holds an unreadable report: taking the previous run
        # instead of the base commit's would fail the comparison.
        git(ws, "checkout", "-q", "main")
        cls.push = cls.run_action({}, cls.push_context(cls.base_sha))
        cls.push_artifacts = dict(cls.runner.artifacts)
        cls.api.add_run("perf.yml", "main", cls.base_sha, cls.push_artifacts)
        cls.api.add_run("perf.yml", "main", "f" * 40,
                        {"perfgate-reports-runner-1": zip_of({"all.json": "{}"})})

        # main moves on to a commit whose run failed (its reports unreadable, and not a success:
        # never a baseline); a pull request from it changes nothing that is timed.
        pathlib.Path(ws, "README.md").write_text("docs only\n")
        git(ws, "add", "README.md")
        git(ws, "-c", "user.name=t", "-c", "user.email=t@example.test", "commit", "-qm", "docs")
        cls.unstored_sha = git(ws, "rev-parse", "HEAD")
        cls.api.add_run("perf.yml", "main", cls.unstored_sha,
                        {"perfgate-reports-runner-1": zip_of({"all.json": "{}"})},
                        conclusion="failure")
        git(ws, "checkout", "-qb", "pr-same-speed")
        git(ws, "-c", "user.name=t", "-c", "user.email=t@example.test", "commit", "-q",
            "--allow-empty", "-m", "same speed")
        cls.same_speed_sha = git(ws, "rev-parse", "HEAD")
        git(ws, "checkout", "-q", "pr")

    @classmethod
    def tearDownClass(cls):
        cls.api.close()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    @classmethod
    def run_action(cls, inputs, github):
        cls.runs += 1
        return cls.runner.run(inputs, github, cls.runs)

    @staticmethod
    def push_context(sha):
        return {"event_name": "push", "event": {"after": sha}, "repository": REPO, "sha": sha,
                "ref_name": "main", "workflow_ref": WORKFLOW_REF, "token": "TOKEN",
                "server_url": "https://github.example.test"}

    def pr_context(self, fork=False, number=5, base=None, head=None):
        base, head = base or self.base_sha, head or self.head_sha
        event = {"pull_request": {"number": number, "base": {"sha": base, "ref": "main"},
                                  "head": {"sha": head, "repo": {"fork": fork}}}}
        return {"event_name": "pull_request", "event": event, "repository": REPO,
                "sha": head, "ref_name": f"{number}/merge", "base_ref": "main",
                "workflow_ref": WORKFLOW_REF, "token": "TOKEN",
                "server_url": "https://github.example.test"}

    def run_unstored_base(self, inputs, number):
        """The pull request from the commit whose run failed: its base has no stored reports."""
        git(self.workspace, "checkout", "-q", "pr-same-speed")
        try:
            return self.run_action(inputs, self.pr_context(number=number, base=self.unstored_sha,
                                                           head=self.same_speed_sha))
        finally:
            git(self.workspace, "checkout", "-q", "pr")

    def comment_of(self, number):
        comments = [c for c in self.api.comments if c["pr"] == number]
        self.assertEqual(len(comments), 1)
        return comments[0]["body"]

    def requests(self, method, suffix):
        return [r for r in self.api.requests if r[0] == method and r[1].endswith(suffix)]

    def assert_steps(self, run, outcomes):
        self.assertEqual({s.id: s.outcome for s in run.steps if s.id in outcomes}, outcomes,
                         run.stdout)

    def test_push_gates_and_stores_the_reports(self):
        run = self.push
        self.assertFalse(run.failed, run.stdout)
        self.assertEqual(run.outputs["verdict"], "pass")
        self.assertEqual(run.outputs["failed-kernels"], "0")
        self.assert_steps(run, {"base": "skipped", "compare": "skipped", "verdict": "success"})
        with zipfile.ZipFile(io.BytesIO(self.push_artifacts["perfgate-reports-runner-1"])) as z:
            self.assertTrue({"all.json", "summary.md", "tests.json"} <= set(z.namelist()))
            report = json.loads(z.read("all.json"))
            summary = z.read("summary.md").decode()
        self.assertEqual(sorted(k["name"] for k in report["kernels"]),
                         [f"BM_k{k:02d}" for k in range(KERNELS)])
        self.assertEqual({k["verdict"]["status"] for k in report["kernels"]}, {"pass"})
        self.assertTrue(run.summary.startswith(summary), run.summary[:500])
        self.assertEqual(run.annotations(), [])

    def test_pull_request_compares_with_its_base_and_annotates_the_worst_first(self):
        before = len(self.api.requests)
        run = self.run_action({}, self.pr_context())
        self.assertTrue(run.failed)
        self.assertEqual(run.outputs["verdict"], "fail")
        self.assertEqual(run.outputs["failed-kernels"], str(KERNELS))
        self.assertEqual(run.step("compare").outputs["status"], "1", run.stdout)
        runs_queries = [r[2] for r in self.api.requests[before:] if r[1].endswith("/runs")]
        self.assertEqual(runs_queries[0].get("head_sha"), self.base_sha)
        self.assertEqual(runs_queries[0].get("branch"), "main")

        # GitHub shows 10 error annotations a step: the 10 worst of the 12, worst first, each at
        # its test's add_perf_prediction call; then how many more.
        annotations = run.annotations()
        want = [f"BM_k{k:02d}" for k in range(KERNELS - 1, 1, -1)]
        self.assertEqual(len(annotations), 10, run.stdout)
        for line, kernel in zip(annotations, want):
            self.assertTrue(line.startswith(
                f"::error file=CMakeLists.txt,line={self.calls[kernel]},title=perfgate%3A "
                f"{kernel} (perf.{kernel[3:]})::"), line)
        self.assertIn("2 more failing kernels", run.stdout)

        compare = pathlib.Path(self.workspace, "perfgate-action-reports/compare.md").read_text()
        self.assertTrue(run.summary.startswith(compare))
        self.assertIn("BM_k00", compare)
        comments = [c for c in self.api.comments if c["pr"] == 5]
        self.assertEqual(len(comments), 1)
        self.assertTrue(comments[0]["body"].startswith("<!-- perfgate-action -->\n" + compare))

        # Run again: the same comment is updated, no second one.
        before = len(self.api.requests)
        again = self.run_action({}, self.pr_context())
        self.assertTrue(again.failed)
        self.assertEqual(len([c for c in self.api.comments if c["pr"] == 5]), 1)
        patches = [r for r in self.api.requests[before:] if r[0] == "PATCH"]
        self.assertEqual([r[1] for r in patches], [f"/repos/{REPO}/issues/comments/{comments[0]['id']}"])
        self.assertEqual(len(self.requests("POST", "/issues/5/comments")), 1)

    def test_a_forks_pull_request_gets_the_summary_and_no_comment(self):
        before = len(self.api.requests)
        run = self.run_action({}, self.pr_context(fork=True))
        self.assertEqual(run.outputs["verdict"], "fail")
        self.assertNotIn("POST", [r[0] for r in self.api.requests[before:]])
        self.assertNotIn("PATCH", [r[0] for r in self.api.requests[before:]])
        self.assertIn("BM_k11", run.summary)
        self.assertEqual(len(run.annotations()), 10)

    def test_comment_off_posts_nothing(self):
        before = len(self.api.requests)
        run = self.run_action({"comment": "false"}, self.pr_context())
        self.assertEqual(run.outputs["verdict"], "fail")
        self.assertEqual([r for r in self.api.requests[before:] if "/comments" in r[1]], [])

    def test_ab_builds_the_base_commit_and_points_the_tests_at_it(self):
        before = len(self.api.requests)
        run = self.run_action({"baseline": "ab"}, self.pr_context())
        self.assert_steps(run, {"base": "success", "gate": "success", "compare": "skipped"})
        base_dir = run.step("base").outputs["dir"]
        self.assertTrue(os.path.isfile(os.path.join(base_dir, "CTestTestfile.cmake")))
        self.assertEqual(git(os.path.dirname(base_dir), "rev-parse", "HEAD"), self.base_sha)
        cache = pathlib.Path(self.workspace, "build/CMakeCache.txt").read_text()
        self.assertIn(f"PERFGATE_AB_BASE_DIR:UNINITIALIZED={base_dir}\n", cache)
        self.assertEqual([r for r in self.api.requests[before:] if r[1].endswith("/runs")], [])
        # The next run of the same build tree without ab compares single builds again.
        self.run_action({"comment": "false"}, self.pr_context())
        cache = pathlib.Path(self.workspace, "build/CMakeCache.txt").read_text()
        self.assertIn("PERFGATE_AB_BASE_DIR:UNINITIALIZED=\n", cache)

    def test_history_on_main_appends_this_run(self):
        git(self.workspace, "checkout", "-q", "main")
        try:
            run = self.run_action({"baseline": "history"}, self.push_context(self.base_sha))
        finally:
            git(self.workspace, "checkout", "-q", "pr")
        self.assertFalse(run.failed, run.stdout)
        with zipfile.ZipFile(io.BytesIO(self.runner.artifacts["perfgate-reports-runner-1"])) as z:
            history = z.read("history.jsonl").decode().splitlines()
        self.assertGreaterEqual(len(history), 1)
        self.assertIn(self.base_sha, history[0])

    # Issue 52: a base without stored reports never passes silently.
    def test_a_base_without_reports_is_compared_with_its_nearest_stored_ancestor(self):
        run = self.run_unstored_base({}, 11)  # missing-baseline: ancestor, the default
        self.assertFalse(run.failed, run.stdout)
        self.assertEqual(run.outputs["verdict"], "pass")
        self.assertEqual(run.outputs["baseline-commit"], self.base_sha)
        self.assertEqual(run.step("compare").outputs["status"], "0")
        body = self.comment_of(11)
        self.assertIn(f"Compared with the stored reports of **{self.base_sha[:12]}**, the "
                      f"nearest ancestor of the base commit {self.unstored_sha[:12]}", body)
        self.assertIn("12 kernels, 0 regressed", body)
        self.assertIn(self.base_sha[:12], run.summary)

    def test_missing_baseline_fail_compares_nothing_and_fails(self):
        run = self.run_unstored_base({"missing-baseline": "fail"}, 12)
        self.assertTrue(run.failed)
        self.assertEqual(run.outputs["verdict"], "no-baseline")
        self.assertEqual(run.outputs["baseline-commit"], "")
        self.assertEqual(run.step("compare").outputs["status"], "4")
        self.assert_steps(run, {"compare": "success", "verdict": "failure"})
        body = self.comment_of(12)
        self.assertIn("**Nothing was compared: no baseline.**", body)
        self.assertIn("**This check fails**", body)
        self.assertIn("::error title=perfgate::nothing was compared: the base commit "
                      f"{self.unstored_sha[:12]} has no stored reports", run.stdout)

    def test_missing_baseline_pass_says_nothing_was_compared(self):
        run = self.run_unstored_base({"missing-baseline": "pass"}, 13)
        self.assertFalse(run.failed, run.stdout)
        self.assertEqual(run.outputs["verdict"], "pass")
        self.assertEqual(run.outputs["baseline-commit"], "")
        self.assertTrue(run.summary.startswith("**Nothing was compared: no baseline.**"),
                        run.summary[:300])
        self.assertIn("This check passes on the gate alone", self.comment_of(13))

    def test_ancestor_without_any_stored_run_fails_as_fail_does(self):
        runs, self.api.runs = self.api.runs, []  # no run of the workflow ever stored reports
        try:
            run = self.run_unstored_base({}, 14)
        finally:
            self.api.runs = runs
        self.assertTrue(run.failed)
        self.assertEqual(run.outputs["verdict"], "no-baseline")
        self.assertIn("nor any of its 99 nearest ancestors", run.stdout)
        self.assertIn("**This check fails**", self.comment_of(14))

    def test_a_bad_missing_baseline_input_fails(self):
        run = self.run_unstored_base({"missing-baseline": "skip"}, 15)
        self.assertTrue(run.failed)
        self.assert_steps(run, {"compare": "failure"})
        self.assertIn("::error title=perfgate::input missing-baseline must be ancestor, fail or "
                      "pass, not 'skip'", run.stdout)

    def test_a_bad_baseline_input_stops_at_the_first_step(self):
        run = self.run_action({"baseline": "previous"}, self.pr_context())
        self.assertTrue(run.failed)
        self.assert_steps(run, {"install": "failure", "gate": "skipped", "verdict": "skipped"})
        self.assertIn("::error title=perfgate::input baseline must be stored, ab or history",
                      run.stdout)


if __name__ == "__main__":
    ActionTest.build, ActionTest.source = sys.argv[1], sys.argv[2]
    unittest.main(argv=[sys.argv[0], *sys.argv[3:]])
