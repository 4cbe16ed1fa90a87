#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs a composite GitHub action's steps (action.yml) offline, as a runner would, under a fake
GitHub: the workflow command files (GITHUB_OUTPUT, GITHUB_ENV, GITHUB_PATH,
GITHUB_STEP_SUMMARY), the event payload (GITHUB_EVENT_PATH), the `${{ }}` expressions and `if:`
conditions the action uses, actions/upload-artifact (kept in memory), actions/cache/restore and
actions/cache/save (a store shared by runners, as a repository's cache is shared by its jobs:
exact keys, a folder kept as a tar), and GitHub's REST API as
an http.server on 127.0.0.1 (FakeGitHubApi: workflow runs, their artifacts, issue comments).
Nothing here reaches the network. Used by tests/ci/test_action.py."""
import http.server
import io
import json
import os
import re
import shutil
import subprocess
import tarfile
import threading
import urllib.parse
import zipfile

import yaml


# --- expressions ---------------------------------------------------------------------------

TOKEN = re.compile(r"\s*(?:(?P<str>'(?:[^']|'')*')|(?P<num>\d+(?:\.\d+)?)|"
                   r"(?P<op>==|!=|&&|\|\||[!()])|(?P<name>[A-Za-z_][A-Za-z0-9_.\-]*))")


class Expression:
    """GitHub's expression language as far as action.yml uses it: literals, context paths
    (inputs.x, github.event.pull_request.base.sha, steps.id.outputs.y), ! == != && || and
    parentheses, and the status functions success(), always(), failure(), cancelled()."""

    def __init__(self, text, context, status):
        self.tokens, at = [], 0
        text = text.strip()
        while at < len(text):
            match = TOKEN.match(text, at)
            if not match or match.end() == at:
                raise ValueError(f"cannot parse the expression {text!r} at {at}")
            self.tokens.append((match.lastgroup, match.group(match.lastgroup)))
            at = match.end()
        self.context, self.status, self.at = context, status, 0

    def value(self):
        result = self.either()
        if self.at != len(self.tokens):
            raise ValueError(f"trailing tokens in {self.tokens}")
        return result

    def peek(self):
        return self.tokens[self.at] if self.at < len(self.tokens) else (None, None)

    def take(self):
        self.at += 1
        return self.tokens[self.at - 1]

    def either(self):
        left = self.both()
        while self.peek() == ("op", "||"):
            self.take()
            right = self.both()
            left = left if truthy(left) else right
        return left

    def both(self):
        left = self.compare()
        while self.peek() == ("op", "&&"):
            self.take()
            right = self.compare()
            left = right if truthy(left) else left
        return left

    def compare(self):
        left = self.unary()
        while self.peek() in (("op", "=="), ("op", "!=")):
            op = self.take()[1]
            right = self.unary()
            equal = loose(left) == loose(right)
            left = equal if op == "==" else not equal
        return left

    def unary(self):
        if self.peek() == ("op", "!"):
            self.take()
            return not truthy(self.unary())
        return self.atom()

    def atom(self):
        kind, text = self.take()
        if kind == "str":
            return text[1:-1].replace("''", "'")
        if kind == "num":
            return float(text)
        if (kind, text) == ("op", "("):
            inner = self.either()
            self.take()
            return inner
        if kind == "name" and self.peek() == ("op", "("):
            self.take()
            self.take()  # ')': the status functions take no argument
            return {"success": self.status == "success", "always": True,
                    "failure": self.status == "failure", "cancelled": False}[text]
        if text in ("true", "false", "null"):
            return {"true": True, "false": False, "null": None}[text]
        value = self.context
        for part in text.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        return value


def truthy(value):
    return value not in (None, False, 0, 0.0, "")


def loose(value):
    """GitHub compares strings case-insensitively and null as ''."""
    if value is None:
        return ""
    return value.lower() if isinstance(value, str) else value


def to_text(value):
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def substitute(text, context, status="success"):
    return re.sub(r"\$\{\{(.*?)\}\}",
                  lambda m: to_text(Expression(m.group(1), context, status).value()), str(text))


def condition(text, context, status):
    if text is None:
        return status == "success"
    text = str(text).strip()
    if text.startswith("${{") and text.endswith("}}"):
        text = text[3:-2]
    if not re.search(r"\b(success|always|failure|cancelled)\(\)", text):
        text = f"success() && ({text})"  # GitHub's implicit status check
    return truthy(Expression(text, context, status).value())


# --- the runner ----------------------------------------------------------------------------

def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def read_key_values(path):
    """A GITHUB_OUTPUT / GITHUB_ENV file: NAME=value lines and NAME<<DELIMITER blocks."""
    values, lines = {}, read(path).splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            end = lines.index(delimiter, i + 1)
            values[name] = "\n".join(lines[i + 1:end])
            i = end + 1
            continue
        if "=" in line:
            name, value = line.split("=", 1)
            values[name] = value
        i += 1
    return values


class StepResult:
    def __init__(self, step_id, name, outcome, outputs, stdout):
        self.id, self.name, self.outcome, self.outputs, self.stdout = (
            step_id, name, outcome, outputs, stdout)


class ActionRun:
    def __init__(self, steps, outputs, summary, failed):
        self.steps, self.outputs, self.summary, self.failed = steps, outputs, summary, failed

    def step(self, step_id):
        return next(s for s in self.steps if s.id == step_id)

    @property
    def stdout(self):
        return "".join(s.stdout for s in self.steps)

    def annotations(self):
        return [line for line in self.stdout.splitlines() if line.startswith("::error ")]


class Runner:
    """One job's runner: the action's directory, a workspace, a temp directory and a fake
    artifact store shared by the runs (so that a later run can fetch an earlier one's)."""

    def __init__(self, action_dir, workspace, temp, base_env, runner_name="runner-1", cache=None):
        self.action_dir, self.workspace, self.temp = action_dir, workspace, temp
        self.base_env, self.runner_name = dict(base_env), runner_name
        self.artifacts = {}  # name -> zip bytes, of the latest upload
        # key -> tar bytes of the saved folder; give several runners one dict to share it
        self.cache = {} if cache is None else cache
        self.cache_events = []  # (restore|save, key, hit or saved)
        with open(os.path.join(action_dir, "action.yml"), encoding="utf-8") as f:
            self.action = yaml.safe_load(f)

    def upload_artifact(self, inputs, run_dir):
        name, path = inputs["name"], os.path.join(self.workspace, inputs["path"])
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            for folder, _, files in os.walk(path):
                for file in files:
                    full = os.path.join(folder, file)
                    archive.write(full, os.path.relpath(full, path))
        self.artifacts[name] = buffer.getvalue()
        return {"artifact-id": str(len(self.artifacts)),
                "artifact-url": f"https://github.example.test/artifacts/{name}"}

    def restore_cache(self, inputs):
        """actions/cache/restore: the folder saved under exactly `key`, if any; GitHub's outputs
        (cache-hit 'true' on an exact match, else '' as GitHub leaves it on a miss)."""
        key, path = inputs["key"], inputs["path"]
        data = self.cache.get(key)
        self.cache_events.append(("restore", key, data is not None))
        if data is None:
            return {"cache-primary-key": key}
        shutil.rmtree(path, ignore_errors=True)
        with tarfile.open(fileobj=io.BytesIO(data)) as archive:
            archive.extractall(os.path.dirname(path))
        return {"cache-hit": "true", "cache-primary-key": key, "cache-matched-key": key}

    def save_cache(self, inputs):
        """actions/cache/save: keeps `path` under `key`; a key is never overwritten (GitHub
        refuses to save an existing key)."""
        key, path = inputs["key"], inputs["path"]
        if not key or not os.path.isdir(path):
            raise ValueError(f"actions/cache/save: no key or no folder {path!r}")
        saved = key not in self.cache
        if saved:
            buffer = io.BytesIO()
            with tarfile.open(fileobj=buffer, mode="w") as archive:
                archive.add(path, arcname=os.path.basename(path))
            self.cache[key] = buffer.getvalue()
        self.cache_events.append(("save", key, saved))
        return {}

    def uses(self, step, context, status, run_dir):
        """A step that uses an action this fake runner knows; returns its outputs."""
        inputs = {k: substitute(v, context, status) for k, v in (step.get("with") or {}).items()}
        name = step["uses"].split("@")[0]
        known = {"actions/upload-artifact": lambda: self.upload_artifact(inputs, run_dir),
                 "actions/cache/restore": lambda: self.restore_cache(inputs),
                 "actions/cache/save": lambda: self.save_cache(inputs)}
        if name not in known:
            raise ValueError(f"the fake runner has no {step['uses']}")
        return known[name]()

    def run(self, with_inputs, github, run_id):
        """Runs every step; returns an ActionRun. `github`: the github context (event_name,
        event, repository, sha, ref_name, base_ref, workflow_ref...)."""
        run_dir = os.path.join(self.temp, f"run-{run_id}")
        os.makedirs(run_dir)
        event_path = os.path.join(run_dir, "event.json")
        write(event_path, json.dumps(github.get("event", {})))
        inputs = {name: substitute(spec.get("default", ""), {"github": github})
                  for name, spec in (self.action.get("inputs") or {}).items()}
        unknown = set(with_inputs) - set(inputs)
        if unknown:
            raise ValueError(f"the action has no input {sorted(unknown)}")
        inputs.update(with_inputs)
        context = {"inputs": inputs, "github": github, "steps": {},
                   "runner": {"name": self.runner_name, "temp": self.temp}}
        env = dict(self.base_env)
        env.update(GITHUB_ACTION_PATH=self.action_dir, GITHUB_WORKSPACE=self.workspace,
                   RUNNER_TEMP=self.temp, RUNNER_NAME=self.runner_name,
                   GITHUB_EVENT_PATH=event_path, GITHUB_EVENT_NAME=github["event_name"],
                   GITHUB_REPOSITORY=github["repository"], GITHUB_SHA=github["sha"],
                   GITHUB_REF_NAME=github["ref_name"], GITHUB_BASE_REF=github.get("base_ref", ""),
                   GITHUB_WORKFLOW_REF=github["workflow_ref"], CI="true", GITHUB_ACTIONS="true")
        paths, summary, results, status = [], "", [], "success"
        for index, step in enumerate(self.action["runs"]["steps"]):
            step_id = step.get("id", f"step{index}")
            if not condition(step.get("if"), context, status):
                results.append(StepResult(step_id, step.get("name"), "skipped", {}, ""))
                context["steps"][step_id] = {"outputs": {}, "outcome": "skipped"}
                continue
            if "uses" in step:
                outputs, outcome, stdout = self.uses(step, context, status, run_dir), "success", ""
            else:
                outputs, outcome, stdout, summary_part = self.run_step(
                    step, step_id, context, status, env, paths, run_dir)
                summary += summary_part
            results.append(StepResult(step_id, step.get("name"), outcome, outputs, stdout))
            context["steps"][step_id] = {"outputs": outputs, "outcome": outcome}
            if outcome == "failure":
                status = "failure"
        outputs = {name: substitute(spec.get("value", ""), context, status)
                   for name, spec in (self.action.get("outputs") or {}).items()}
        return ActionRun(results, outputs, summary, status == "failure")

    def run_step(self, step, step_id, context, status, env, paths, run_dir):
        files = {k: os.path.join(run_dir, f"{step_id}.{k}") for k in ("output", "env", "path",
                                                                        "summary")}
        for path in files.values():
            write(path, "")
        step_env = dict(env)
        step_env.update({k: substitute(v, context, status) for k, v in
                         (step.get("env") or {}).items()})
        step_env.update(GITHUB_OUTPUT=files["output"], GITHUB_ENV=files["env"],
                        GITHUB_PATH=files["path"], GITHUB_STEP_SUMMARY=files["summary"])
        if paths:
            step_env["PATH"] = os.pathsep.join(paths + [env["PATH"]])
        if step.get("shell") != "bash":
            raise ValueError(f"step {step_id}: composite run steps name their shell (bash)")
        script = os.path.join(run_dir, f"{step_id}.sh")
        write(script, substitute(step["run"], context, status))
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", script],
                              cwd=self.workspace, env=step_env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
        env.update(read_key_values(files["env"]))
        paths[:0] = [line for line in read(files["path"]).splitlines() if line]
        outcome = "success" if done.returncode == 0 else "failure"
        summary = read(files["summary"])
        return read_key_values(files["output"]), outcome, done.stdout, summary


# --- the REST API --------------------------------------------------------------------------

class FakeGitHubApi:
    """GitHub's REST API for pr_loop.py on 127.0.0.1: workflow runs (filtered by branch,
    status and head_sha as GitHub does), their artifacts (zips served through a redirect, as
    GitHub's signed storage URLs are), a commit's history (`GET /commits?sha=`, from the git
    repository `git_dir`, newest first as GitHub lists it) and one pull request's issue
    comments. Records every request as (method, path, query, body)."""

    def __init__(self, repo, git_dir=None):
        self.repo, self.runs, self.comments, self.requests = repo, [], [], []
        self.git_dir = git_dir
        api = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def reply(self, status, body=None, headers=()):
                if isinstance(body, bytes):
                    data = body
                else:
                    data = b"" if body is None else json.dumps(body).encode()
                self.send_response(status)
                for k, v in headers:
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def handle_any(self, method):
                parsed = urllib.parse.urlsplit(self.path)
                query = dict(urllib.parse.parse_qsl(parsed.query))
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length)) if length else None
                api.requests.append((method, parsed.path, query, body))
                self.reply(*api.answer(method, parsed.path, query, body,
                                       f"http://127.0.0.1:{self.server.server_port}"))

            def do_GET(self):
                self.handle_any("GET")

            def do_POST(self):
                self.handle_any("POST")

            def do_PATCH(self):
                self.handle_any("PATCH")

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()

    def add_run(self, workflow, branch, head_sha, artifacts, conclusion="success"):
        """A finished run; artifacts: name -> zip bytes. The newest run comes first."""
        run_id = len(self.runs) + 1
        self.runs.insert(0, {"id": run_id, "workflow": workflow, "head_branch": branch,
                             "head_sha": head_sha, "conclusion": conclusion,
                             "artifacts": dict(artifacts),
                             "html_url": f"https://github.example.test/runs/{run_id}"})
        return run_id

    def answer(self, method, path, query, body, base):
        match = re.fullmatch(r"/storage/(\d+)/([^/]+)", path)
        if method == "GET" and match:  # where an artifact's download redirects
            return 200, self.storage(int(match.group(1)), match.group(2))
        prefix = f"/repos/{self.repo}"
        if not path.startswith(prefix):
            return 404, {"message": "Not Found"}
        path = path[len(prefix):]
        match = re.fullmatch(r"/actions/workflows/([^/]+)/runs", path)
        if method == "GET" and match:
            runs = [r for r in self.runs if r["workflow"] == match.group(1)
                    and r["head_branch"] == query.get("branch", r["head_branch"])
                    and r["head_sha"] == query.get("head_sha", r["head_sha"])
                    and r["conclusion"] == query.get("status", r["conclusion"])]
            shown = [{k: v for k, v in r.items() if k != "artifacts"}
                     for r in runs[:int(query.get("per_page", 30))]]
            return 200, {"total_count": len(runs), "workflow_runs": shown}
        if method == "GET" and path == "/commits" and self.git_dir:
            listed = subprocess.run(["git", "-C", self.git_dir, "rev-list",
                                     f"--max-count={int(query.get('per_page', 30))}",
                                     query["sha"]], check=True, stdout=subprocess.PIPE,
                                    text=True).stdout.split()
            return 200, [{"sha": sha} for sha in listed]
        match = re.fullmatch(r"/actions/runs/(\d+)/artifacts", path)
        if method == "GET" and match:
            run = next(r for r in self.runs if r["id"] == int(match.group(1)))
            return 200, {"artifacts": [
                {"id": run["id"] * 100 + i, "name": name, "expired": False,
                 "created_at": "2026-11-27T00:00:00Z",
                 "archive_download_url": f"{base}{prefix}/actions/artifacts/"
                                         f"{run['id']}/{name}/zip"}
                for i, name in enumerate(run["artifacts"])]}
        match = re.fullmatch(r"/actions/artifacts/(\d+)/([^/]+)/zip", path)
        if method == "GET" and match:
            return 302, None, [("Location", f"{base}/storage/{match.group(1)}/{match.group(2)}")]
        match = re.fullmatch(r"/issues/(\d+)/comments", path)
        if match and method == "GET":
            return 200, [c for c in self.comments if c["pr"] == int(match.group(1))]
        if match and method == "POST":
            comment = {"id": 1000 + len(self.comments), "pr": int(match.group(1)),
                       "body": body["body"]}
            self.comments.append(comment)
            return 201, comment
        match = re.fullmatch(r"/issues/comments/(\d+)", path)
        if match and method == "PATCH":
            comment = next(c for c in self.comments if c["id"] == int(match.group(1)))
            comment["body"] = body["body"]
            return 200, comment
        return 404, {"message": "Not Found"}

    def storage(self, run_id, name):
        return next(r for r in self.runs if r["id"] == run_id)["artifacts"][name]
