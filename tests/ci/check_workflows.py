#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Reads GitHub workflow files and fails when a job on a self-hosted runner can start from a
fork's pull request without a maintainer's approval (docs/ci.md, "What a self-hosted runner
exposes"). A pull request's code runs on the runner: from a fork, that is anybody's code.

The rules, for every job whose runs-on names `self-hosted` (directly or through its matrix):
- the workflow is not triggered by pull_request_target (it runs with the base repository's
  token and secrets);
- when it is triggered by pull_request, the job's environment is an expression that selects
  the environment `gpu-fork-approval` for a pull request from another repository
  (github.event.pull_request.head.repo.full_name != github.repository): a protected environment
  whose required reviewers approve each such run;
- the job states its token permissions, and the workflow's default grants none (`{}`).

usage: check_workflows.py WORKFLOW.yml...   (exit 0 safe, 1 unsafe, 77 without PyYAML)
       check_workflows.py --expect-fork-run WORKFLOW.yml   (the check itself: exit 0 when it
       finds that the workflow lets a fork's pull request start unapproved, else 1)
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_support import CheckFailed, check  # noqa: E402

try:
    import yaml
except ImportError:
    print("check_workflows: skipped: PyYAML is missing (Debian: python3-yaml)")
    sys.exit(77)

APPROVAL_ENVIRONMENT = "gpu-fork-approval"
FORK_TEST = "github.event.pull_request.head.repo.full_name != github.repository"


def labels(job):
    runs_on = job.get("runs-on", [])
    if isinstance(runs_on, str) and "matrix." in runs_on:
        found = []
        matrix = job.get("strategy", {}).get("matrix", {})
        for entry in matrix.get("include", []) or []:
            for value in entry.values():
                found += value if isinstance(value, list) else [value]
        for value in matrix.values():
            if isinstance(value, list):
                for v in value:
                    found += v if isinstance(v, list) else [v]
        return [str(x) for x in found]
    return [runs_on] if isinstance(runs_on, str) else [str(x) for x in runs_on]


def check_workflow(path):
    wf = yaml.safe_load(Path(path).read_text())
    triggers = wf.get("on", wf.get(True))  # YAML 1.1 reads the key `on` as true
    if isinstance(triggers, str):
        triggers = {triggers: None}
    elif isinstance(triggers, list):
        triggers = {t: None for t in triggers}
    triggers = triggers or {}
    for name, job in (wf.get("jobs") or {}).items():
        if "self-hosted" not in labels(job):
            continue
        where = f"{path}: job '{name}' (self-hosted)"
        check("pull_request_target" not in triggers,
              f"{where}: the workflow runs on pull_request_target, which gives a fork's code the "
              "base repository's token and secrets")
        check("permissions" in job, f"{where}: states no token permissions of its own")
        check(wf.get("permissions") == {},
              f"{path}: the workflow's default permissions must be none (permissions: {{}}), "
              "each job granting what it needs")
        if "pull_request" in triggers:
            env = job.get("environment")
            env = env.get("name") if isinstance(env, dict) else env
            check(isinstance(env, str) and APPROVAL_ENVIRONMENT in env and FORK_TEST in env,
                  f"{where}: can start from a fork's pull request unapproved: its environment "
                  f"must select '{APPROVAL_ENVIRONMENT}' (required reviewers) when "
                  f"{FORK_TEST}")


def main(*paths):
    if not paths:
        sys.exit(__doc__)
    if paths[0] == "--expect-fork-run":
        try:
            check_workflow(paths[1])
        except CheckFailed as e:
            if "can start from a fork's pull request unapproved" in str(e):
                print(f"ok: caught: {e}")
                return 0
            print(f"FAIL: caught something else: {e}", file=sys.stderr)
            return 1
        print(f"FAIL: {paths[1]} passed the check", file=sys.stderr)
        return 1
    failed = 0
    for p in paths:
        try:
            check_workflow(p)
            print(f"ok: {p}")
        except CheckFailed as e:
            print(f"FAIL: {e}", file=sys.stderr)
            failed = 1
    return failed


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
