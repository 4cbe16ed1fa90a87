#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The GitHub action's first steps (action.yml: cache-key, restore, install, save) run offline
under the fake GitHub of tests/ci/action_runner.py, on a runner where perfgate is not installed:
the first job builds perfgate from the action's source and saves it in the cache; the next job,
on a fresh runner, restores it and builds nothing; the build dependencies come from apt-get
where the runner allows it, else from perfgate's pinned download; the cache key follows the
sources. Then each job gates a two-test project with the perfgate it got.

Compiling perfgate here would take minutes, so `cmake` on the runner's PATH is a stand-in that
records its calls and, for the action's own source only, configures nothing and installs this
build tree's perfgate (cmake --install); every other call goes to the real cmake. apt-get,
dpkg-query and sudo are stand-ins too (recorded; dpkg-query answers from FAKE_INSTALLED).

usage: test_action_install.py PERFGATE_BUILD_DIR SOURCE_DIR [unittest arguments]"""
import importlib.util
import json
import os
import pathlib
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest

if importlib.util.find_spec("yaml") is None:  # action_runner reads action.yml with it
    print("skipped: PyYAML is not installed (python3-yaml)")
    sys.exit(77)
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from action_runner import Runner  # noqa: E402

REPO = "owner/name"

FAKE_CMAKE = r"""#!/bin/bash
# The action's build of its own source (-S SOURCE, then --build / --install of
# RUNNER_TEMP/perfgate-build) is pretended; anything else is the real cmake.
echo "cmake $*" >>"$FAKE_LOG"
if [[ " $* " == *" -S $FAKE_ACTION_SOURCE "* ]]; then exit 0; fi
case "$1:$2" in
  --build:*/perfgate-build) exit 0 ;;
  --install:*/perfgate-build) exec "$REAL_CMAKE" --install "$REAL_PERFGATE_BUILD" "${@:3}" ;;
esac
exec "$REAL_CMAKE" "$@"
"""
FAKE_APT_GET = """#!/bin/bash
echo "apt-get $*" >>"$FAKE_LOG"
"""
FAKE_DPKG_QUERY = """#!/bin/bash
# dpkg-query -W -f='${Status}' PACKAGE: installed when FAKE_INSTALLED names it.
package="${@: -1}"
if [[ " $FAKE_INSTALLED " == *" $package "* ]]; then printf 'install ok installed'; exit 0; fi
echo "dpkg-query: no packages found matching $package" >&2
exit 1
"""
FAKE_SUDO = """#!/bin/bash
echo "sudo $*" >>"$FAKE_LOG"
[ "$1" = -n ] && shift
exec "$@"
"""


def gbench_output(time_ms):
    context = {"date": "2026-11-27T00:00:00+00:00", "host_name": "recorded",
               "executable": "/recorded", "num_cpus": 2, "mhz_per_cpu": 2600,
               "cpu_scaling_enabled": False, "caches": [], "library_build_type": "release"}
    benchmarks = [{"name": f"BM_k{k}", "family_index": k, "per_family_instance_index": 0,
                   "run_name": f"BM_k{k}", "run_type": "iteration", "repetitions": 1,
                   "repetition_index": 0, "threads": 1, "iterations": 10, "real_time": time_ms,
                   "cpu_time": time_ms, "time_unit": "ms", "perfgate_bytes": 1e8}
                  for k in range(2)]
    return json.dumps({"context": context, "benchmarks": benchmarks}, indent=1) + "\n"


PROJECT = """cmake_minimum_required(VERSION 3.25)
project(install_fixture LANGUAGES NONE)
enable_testing()
find_package(PerfGate 0.1 REQUIRED)
include(PerfGate)
find_program(TRUE_PROGRAM true REQUIRED)
add_executable(recorded IMPORTED)
set_target_properties(recorded PROPERTIES IMPORTED_LOCATION "${TRUE_PROGRAM}")
foreach(k 0 1)
  add_perf_prediction(recorded NAME perf.k${k} COLLECTOR profile
    PROFILE "${CMAKE_CURRENT_SOURCE_DIR}/profile.json" KERNELS "^BM_k${k}$"
    DEVICES "${CMAKE_CURRENT_SOURCE_DIR}/device.json" MIN_EFFICIENCY 0.5)
endforeach()
"""


def write_executable(path, text):
    pathlib.Path(path).write_text(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


class ActionInstallTest(unittest.TestCase):
    build = source = None

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="perfgate-action-install-")
        fakes = os.path.join(cls.tmp, "fakes")
        os.makedirs(fakes)
        for name, text in {"cmake": FAKE_CMAKE, "apt-get": FAKE_APT_GET,
                           "dpkg-query": FAKE_DPKG_QUERY, "sudo": FAKE_SUDO}.items():
            write_executable(os.path.join(fakes, name), text)
        ws = cls.workspace = os.path.join(cls.tmp, "workspace")
        os.makedirs(ws)
        pathlib.Path(ws, "CMakeLists.txt").write_text(PROJECT)
        pathlib.Path(ws, "profile.json").write_text(gbench_output(1.25))
        shutil.copy(os.path.join(cls.source, "tests/data/devices/valid_device.json"),
                    os.path.join(ws, "device.json"))
        cls.log = os.path.join(cls.tmp, "calls.log")
        env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
        # No perfgate on PATH: the action must build (or restore) it.
        path = [p for p in env["PATH"].split(os.pathsep)
                if not os.access(os.path.join(p, "perfgate"), os.X_OK)]
        env.update(PATH=os.pathsep.join([fakes, *path]), FAKE_LOG=cls.log,
                   FAKE_ACTION_SOURCE=cls.source, REAL_PERFGATE_BUILD=cls.build,
                   REAL_CMAKE=shutil.which("cmake", path=os.pathsep.join(path)),
                   FAKE_INSTALLED="", GITHUB_API_URL="http://127.0.0.1:9")
        cls.env = env
        cls.temp = os.path.join(cls.tmp, "runner-temp")
        cls.runs = 0

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def job(self, inputs, cache, env=None):
        """One job on a fresh runner (the same RUNNER_TEMP path, emptied, as a hosted runner
        has) sharing `cache` with the other jobs; returns (run, runner, calls)."""
        shutil.rmtree(self.temp, ignore_errors=True)
        os.makedirs(self.temp)
        shutil.rmtree(os.path.join(self.workspace, "build"), ignore_errors=True)
        pathlib.Path(self.log).write_text("")
        runner = Runner(self.source, self.workspace, self.temp, {**self.env, **(env or {})},
                        cache=cache)
        type(self).runs += 1
        github = {"event_name": "push", "event": {"after": "a" * 40}, "repository": REPO,
                  "sha": "a" * 40, "ref_name": "main", "action_ref": "v0.1.0",
                  "workflow_ref": f"{REPO}/.github/workflows/perf.yml@refs/heads/main",
                  "token": "TOKEN", "server_url": "https://github.example.test"}
        run = runner.run({"comment": "false", **inputs}, github, self.runs)
        return run, runner, pathlib.Path(self.log).read_text().splitlines()

    def configure_calls(self, calls):
        return [c for c in calls if c.startswith("cmake ") and f" -S {self.source} " in f"{c} "]

    def assert_gated(self, run):
        self.assertFalse(run.failed, run.stdout)
        self.assertEqual(run.outputs["verdict"], "pass", run.stdout)
        self.assertTrue(os.path.isfile(os.path.join(self.workspace,
                                                    "perfgate-action-reports/all.json")))

    def test_the_first_job_builds_and_saves_the_next_restores_and_builds_nothing(self):
        cache = {}
        run, runner, calls = self.job({"dependencies": "fetch"}, cache)
        self.assert_gated(run)
        key = run.step("cache-key").outputs["key"]
        self.assertRegex(key, r"^perfgate-[a-z0-9.]+-[a-z0-9_]+-cxx[0-9a-f]{8}-v0\.1\.0-[0-9a-f]{16}$")
        self.assertEqual(run.step("install").outputs.get("built"), "true", run.stdout)
        self.assertEqual(runner.cache_events, [("restore", key, False), ("save", key, True)])
        configure = self.configure_calls(calls)
        self.assertEqual(len(configure), 1, calls)
        self.assertIn("-DPERFGATE_FETCH_DEPENDENCIES=ON", configure[0])
        self.assertFalse([c for c in calls if c.startswith(("apt-get", "sudo"))], calls)
        binary = os.path.join(self.temp, "perfgate", "bin", "perfgate")
        self.assertEqual(run.step("install").outputs["perfgate"], binary)

        again, runner, calls = self.job({"dependencies": "fetch"}, cache)
        self.assert_gated(again)
        self.assertEqual(again.step("cache-key").outputs["key"], key)
        self.assertEqual(runner.cache_events, [("restore", key, True)])
        self.assertEqual(again.step("restore").outputs.get("cache-hit"), "true")
        self.assertNotIn("built", again.step("install").outputs)
        self.assertEqual(self.configure_calls(calls), [], calls)
        self.assertFalse([c for c in calls if " --install " in f" {c} "], calls)
        self.assertIn("restored from the cache", again.step("install").stdout)
        self.assertEqual(again.step("install").outputs["perfgate"], binary)
        self.assertEqual(again.step("save").outcome, "skipped")

    def test_missing_packages_come_from_apt_and_the_download_stays_the_safety_net(self):
        run, _, calls = self.job({}, {})  # dependencies: auto, nothing installed
        self.assert_gated(run)
        installs = [c for c in calls if c.startswith("apt-get install")]
        self.assertEqual(len(installs), 1, calls)
        self.assertTrue(installs[0].endswith(" nlohmann-json3-dev libcli11-dev"), installs)
        self.assertIn("apt-get update -q", calls)
        self.assertIn("-DPERFGATE_FETCH_DEPENDENCIES=ON", self.configure_calls(calls)[0])

        # One already installed: only the other; both: apt-get is not run at all.
        _, _, calls = self.job({}, {}, {"FAKE_INSTALLED": "libcli11-dev"})
        self.assertEqual([c for c in calls if c.startswith("apt-get install")],
                         ["apt-get install -y -q --no-install-recommends nlohmann-json3-dev"])
        _, _, calls = self.job({}, {}, {"FAKE_INSTALLED": "nlohmann-json3-dev libcli11-dev"})
        self.assertFalse([c for c in calls if c.startswith("apt-get")], calls)

    def test_dependencies_apt_never_downloads(self):
        run, _, calls = self.job({"dependencies": "apt"}, {})
        self.assert_gated(run)
        self.assertIn("-DPERFGATE_FETCH_DEPENDENCIES=OFF", self.configure_calls(calls)[0])

    def test_a_bad_dependencies_input_stops_at_the_install_step(self):
        run, runner, calls = self.job({"dependencies": "pip"}, {})
        self.assertTrue(run.failed)
        self.assertEqual(run.step("install").outcome, "failure")
        self.assertIn("::error title=perfgate::input dependencies must be auto, apt or fetch, "
                      "not 'pip'", run.stdout)
        self.assertEqual(self.configure_calls(calls), [])
        self.assertEqual([e[0] for e in runner.cache_events], ["restore"])

    def test_an_installed_perfgate_is_used_and_nothing_is_cached(self):
        prefix = os.path.join(self.tmp, "installed")
        subprocess.run([self.env["REAL_CMAKE"], "--install", self.build, "--prefix", prefix],
                       check=True, stdout=subprocess.DEVNULL)
        bin_dir = os.path.join(prefix, "bin")
        run, runner, calls = self.job({}, {}, {"PATH": bin_dir + os.pathsep + self.env["PATH"]})
        self.assert_gated(run)
        self.assertEqual(run.step("cache-key").outputs["key"], "")
        self.assertEqual(run.step("restore").outcome, "skipped")
        self.assertEqual(run.step("save").outcome, "skipped")
        self.assertEqual(runner.cache_events, [])
        self.assertEqual(self.configure_calls(calls), [])
        self.assertEqual(run.step("install").outputs["perfgate"],
                         os.path.join(bin_dir, "perfgate"))

    def test_the_cache_key_follows_the_sources_built_and_the_ref(self):
        def copy(name):
            root = os.path.join(self.tmp, name)
            os.makedirs(root)
            for part in ("CMakeLists.txt", "cmake", "perfgate", "microbench", "packaging"):
                src = os.path.join(self.source, part)
                (shutil.copytree if os.path.isdir(src) else shutil.copy)(
                    src, os.path.join(root, part))
            os.makedirs(os.path.join(root, "scripts"))
            shutil.copy(os.path.join(self.source, "scripts/perf_action.sh"),
                        os.path.join(root, "scripts"))
            return root

        def key(root, ref="v0.1.0"):
            out = os.path.join(self.tmp, f"key-{name_of(root)}-{ref}.out")
            pathlib.Path(out).write_text("")
            env = {**self.env, "GITHUB_OUTPUT": out, "ACTION_REF": ref}
            subprocess.run(["bash", os.path.join(root, "scripts/perf_action.sh"), "cache-key"],
                           check=True, env=env, stdout=subprocess.DEVNULL)
            return pathlib.Path(out).read_text().strip()

        def name_of(root):
            return os.path.basename(root)

        a, b = copy("tree-a"), copy("tree-b")
        self.assertEqual(key(a), key(b))
        self.assertNotEqual(key(a), key(a, "v0.2.0"))
        with open(os.path.join(b, "perfgate/cli/main.cpp"), "a", encoding="utf-8") as f:
            f.write("// changed\n")
        self.assertNotEqual(key(a), key(b))
        # What is not built (the action's scripts, tests, docs) leaves the key as it is.
        with open(os.path.join(a, "scripts/perf_action.sh"), "a", encoding="utf-8") as f:
            f.write("# changed\n")
        self.assertEqual(key(a), key(copy("tree-c")))


if __name__ == "__main__":
    ActionInstallTest.build, ActionInstallTest.source = sys.argv[1], sys.argv[2]
    unittest.main(argv=[sys.argv[0], *sys.argv[3:]])
