#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The pull-request loop of .github/workflows/perf.yml and ci.yml (docs/ci.md).

  fetch-baseline  the report artifact of the target branch's latest successful run (or, with
                  --commit, of that commit's: a pull request's base; with --ancestors, of the
                  nearest ancestor that has one where the commit has none) -> DIR
  compare         `perfgate compare BASE HEAD --format md -o MD`, with the job's verdict; with
                  no BASE, says plainly that nothing was compared and fails (exit 4) unless
                  --missing-baseline pass
  comment         post or update ONE pull-request comment, found by its hidden marker
  summary         append a report to the job summary ($GITHUB_STEP_SUMMARY), within its limit
  annotate        `::error file=...,line=...` for each failing kernel at the add_perf_prediction
                  call that gated it (from CTest's test list), the worst first, at most --limit

Exit codes:
  0  done (compare: no regression, or no baseline with --missing-baseline pass)
  1  compare: a regression
  2  an error: HTTP or network (the message names the URL and status), bad input, a report
     perfgate compare could not read, an artifact that would extract outside DIR
  4  fetch-baseline: no baseline (no successful run on the branch, or none of its artifacts
     matches the prefix; with --commit, none of the commit's nor of its --ancestors');
     compare: no baseline, nothing compared (--missing-baseline fail, the default)
  N  compare: any other exit code of perfgate compare, passed on

GitHub's REST API is reached at $GITHUB_API_URL (default https://api.github.com) with the token
in $GITHUB_TOKEN; the standard library only, so the script runs on any runner with python3.
"""
import argparse
import io
import json
import os
import re
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from collections import namedtuple

EXIT_OK = 0
EXIT_REGRESSION = 1
EXIT_ERROR = 2
EXIT_NO_BASELINE = 4

MARKER = "<!-- perfgate-report -->"
COMMENT_LIMIT = 65536  # characters: GitHub refuses a longer comment body
SUMMARY_LIMIT = 1048576  # bytes of UTF-8 per step: GitHub drops a longer job summary
# A little under the limit: other steps' tools may append to the same step's summary.
DEFAULT_SUMMARY_LIMIT = 1_000_000
JOIN = "\n---\n"  # between several Markdown files of one body (ci.yml's reports/*.md)


class Failure(Exception):
    """An error the script reports in one line and exits with `code`."""

    def __init__(self, message, code=EXIT_ERROR):
        super().__init__(message)
        self.code = code


class NoBaseline(Failure):
    def __init__(self, message):
        super().__init__(message, EXIT_NO_BASELINE)


# --- truncation ----------------------------------------------------------------------------

def truncation_note(shown, total, artifact_url=None):
    where = f"the artifact {artifact_url}" if artifact_url else "this workflow run's artifact"
    # The blank line ends a Markdown table, which would otherwise swallow the note as a row.
    return f"\n… truncated: {shown} of {total} lines shown; the full report is in {where}\n"


def char_length(text):
    return len(text)


def utf8_length(text):
    return len(text.encode("utf-8"))


def _open_fence(lines):
    """Whether the lines leave a ``` code block open (the note would land inside it)."""
    open_ = False
    for line in lines:
        if line.lstrip().startswith("```"):
            open_ = not open_
    return open_


def truncate(text, limit, measure=char_length, artifact_url=None):
    """`text` if it fits in `limit` (as counted by `measure`), else its longest prefix of whole
    lines that fits together with the truncation note, so that no line and no multi-byte
    character is cut."""
    if measure(text) <= limit:
        return text
    lines = text.splitlines(keepends=True)
    total = len(lines)
    # The note with `total` is at least as long as with any smaller count: reserve that much,
    # plus a closing fence.
    reserve = measure("```\n" + truncation_note(total, total, artifact_url))
    budget = limit - reserve
    if budget < 0:
        raise Failure(f"a limit of {limit} leaves no room for the truncation note")
    kept, used = [], 0
    for line in lines:
        size = measure(line)
        if used + size > budget:
            break
        kept.append(line)
        used += size
    fence = "```\n" if _open_fence(kept) else ""
    return "".join(kept) + fence + truncation_note(len(kept), total, artifact_url)


def join_bodies(texts):
    return JOIN.join(texts)


def comment_body(markdown, marker=MARKER, limit=COMMENT_LIMIT, artifact_url=None):
    """The marker on the first line (how the next run finds the comment), then the Markdown,
    truncated so that the whole body stays within GitHub's comment limit."""
    head = marker + "\n"
    return head + truncate(markdown, limit - len(head), char_length, artifact_url)


def summary_text(markdown, limit=DEFAULT_SUMMARY_LIMIT, artifact_url=None):
    if limit > SUMMARY_LIMIT:
        raise Failure(f"--limit {limit}: GitHub's job summary limit is {SUMMARY_LIMIT} bytes")
    text = truncate(markdown, limit, utf8_length, artifact_url)
    # Ends with a newline so that the next append starts a block of its own.
    return text if text.endswith("\n") or utf8_length(text) + 1 > limit else text + "\n"


# --- GitHub's REST API -----------------------------------------------------------------------

Response = namedtuple("Response", "status headers body")  # headers: lower-case names


def http_request(method, url, token=None, data=None):
    """The only place that touches the network (the tests replace it). Follows redirects;
    the token is not sent on to a redirect's host (GitHub's artifact downloads redirect to
    signed storage URLs, which reject a second credential)."""
    body = None if data is None else json.dumps(data).encode("utf-8")
    request = urllib.request.Request(url, data=body, method=method)
    request.add_header("Accept", "application/vnd.github+json")
    request.add_header("X-GitHub-Api-Version", "2022-11-28")
    request.add_header("User-Agent", "perfgate-pr-loop")
    if body is not None:
        request.add_header("Content-Type", "application/json")
    if token:
        request.add_unredirected_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            headers = {k.lower(): v for k, v in response.headers.items()}
            return Response(response.status, headers, response.read())
    except urllib.error.HTTPError as e:
        # GitHub explains an error in its JSON body: one line of it is enough.
        detail = " ".join(e.read().decode("utf-8", "replace").split())[:300]
        raise Failure(f"{method} {url}: HTTP {e.code} {e.reason}" +
                      (f": {detail}" if detail else "")) from None
    except (urllib.error.URLError, OSError) as e:
        reason = getattr(e, "reason", e)
        raise Failure(f"{method} {url}: {reason}") from None


def next_link(link_header):
    """The rel="next" URL of a Link header (GitHub's pagination), or None."""
    for part in (link_header or "").split(","):
        match = re.match(r'\s*<([^>]*)>\s*;(.*)', part)
        if match and re.search(r'\brel="?next"?', match.group(2)):
            return match.group(1)
    return None


class GitHub:
    def __init__(self, api_url, token, request=http_request):
        self.api_url = api_url.rstrip("/")
        self.token = token
        self.request = request

    def url(self, path, **query):
        url = path if path.startswith(("http://", "https://")) else self.api_url + path
        return url + ("?" + urllib.parse.urlencode(query) if query else "")

    def call(self, method, url, data=None):
        response = self.request(method, url, self.token, data)
        if not 200 <= response.status < 300:
            raise Failure(f"{method} {url}: HTTP {response.status}")
        return response

    def json(self, method, url, data=None):
        response = self.call(method, url, data)
        try:
            return json.loads(response.body.decode("utf-8")) if response.body else None
        except ValueError as e:
            raise Failure(f"{method} {url}: not JSON ({e})") from None

    def paginate(self, url):
        """Every item of a list endpoint, page after page (the Link header's rel="next")."""
        items = []
        while url:
            response = self.call("GET", url)
            try:
                page = json.loads(response.body.decode("utf-8"))
            except ValueError as e:
                raise Failure(f"GET {url}: not JSON ({e})") from None
            items.extend(page)
            url = next_link(response.headers.get("link"))
        return items


# --- fetch-baseline --------------------------------------------------------------------------

def select_artifact(artifacts, prefix, prefer=None):
    """The artifact named `prefer` if there is one, else the newest whose name starts with
    `prefix`; expired ones cannot be downloaded. None when no artifact fits."""
    usable = [a for a in artifacts
              if a.get("name", "").startswith(prefix) and not a.get("expired", False)]
    if prefer:
        for a in usable:
            if a["name"] == prefer:
                return a
    if not usable:
        return None
    return max(usable, key=lambda a: (a.get("created_at") or "", a.get("id") or 0))


def safe_extract(zip_bytes, out_dir):
    """Extracts the zip into out_dir, refusing the whole archive if any member would land
    outside it (an absolute path, a drive, or a `..` component). Returns the member names."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(zip_bytes))
    except zipfile.BadZipFile as e:
        raise Failure(f"the artifact is not a zip archive ({e})") from None
    with archive:
        names = archive.namelist()
        for name in names:
            parts = re.split(r"[\\/]", name)
            if (name.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", name)
                    or ".." in parts):
                raise Failure(f"refusing to extract the artifact: member '{name}' would be "
                              f"written outside {out_dir}")
        os.makedirs(out_dir, exist_ok=True)
        archive.extractall(out_dir)
    return [n for n in names if not n.endswith("/")]


def run_artifact(github, repo, run, prefix, prefer):
    """The artifact of `run` that holds the reports, or None."""
    artifacts_url = github.url(f"/repos/{repo}/actions/runs/{run['id']}/artifacts",
                               per_page=100)
    artifacts = (github.json("GET", artifacts_url) or {}).get("artifacts") or []
    return select_artifact(artifacts, prefix, prefer)


def nearest_stored_ancestor(github, repo, branch, workflow, prefix, prefer, commit, depth):
    """(run, artifact) of the nearest of `commit`'s `depth` ancestors (GitHub's list of the
    commits it reaches, newest first) with a successful run on `branch` (one of its latest 100)
    that holds the reports; None when none has."""
    commits = github.json("GET", github.url(f"/repos/{repo}/commits", sha=commit,
                                            per_page=min(depth + 1, 100))) or []
    runs_url = github.url(f"/repos/{repo}/actions/workflows/{workflow}/runs", branch=branch,
                          status="success", per_page=100)
    runs_of = {}
    for run in (github.json("GET", runs_url) or {}).get("workflow_runs") or []:
        runs_of.setdefault(run.get("head_sha"), []).append(run)
    for ancestor in commits[1:depth + 1]:  # the first is the commit itself
        for run in runs_of.get(ancestor.get("sha"), []):
            artifact = run_artifact(github, repo, run, prefix, prefer)
            if artifact is not None:
                return run, artifact
    return None


def fetch_baseline(github, repo, branch, workflow, prefix, out_dir, prefer=None, log=None,
                   commit=None, ancestors=0):
    """With `commit`, the latest successful run of that commit (a pull request's base: what the
    pull request changes, not whatever ran last on the branch); where it has none holding the
    reports (its run failed, was skipped, or its artifact expired) and `ancestors` > 0, the
    nearest of that many ancestors that has. Returns (artifact, files, run)."""
    log = log or (lambda message: print(message, file=sys.stderr))
    query = dict(branch=branch, status="success", per_page=1)
    if commit:
        query["head_sha"] = commit
    runs_url = github.url(f"/repos/{repo}/actions/workflows/{workflow}/runs", **query)
    runs = (github.json("GET", runs_url) or {}).get("workflow_runs") or []
    if commit:
        runs = [r for r in runs if r.get("head_sha") == commit]
    run = runs[0] if runs else None
    artifact = run_artifact(github, repo, run, prefix, prefer) if run else None
    if artifact is None and commit and ancestors > 0:
        found = nearest_stored_ancestor(github, repo, branch, workflow, prefix, prefer, commit,
                                        ancestors)
        if found is None:
            raise NoBaseline(f"no baseline: neither commit {commit[:12]} nor any of its "
                             f"{ancestors} nearest ancestors has a successful run of {workflow} "
                             f"on branch '{branch}' of {repo} with an unexpired artifact named "
                             f"{prefix}*")
        run, artifact = found
        log(f"baseline: commit {commit[:12]} has no stored reports; its nearest ancestor with "
            f"them is {run.get('head_sha', '?')[:12]}")
    if run is None:
        of_commit = f" of commit {commit[:12]}" if commit else ""
        raise NoBaseline(f"no baseline yet: {workflow} has no successful run{of_commit} on "
                         f"branch '{branch}' of {repo}")
    if artifact is None:
        raise NoBaseline(f"no baseline yet: the latest successful run of {workflow} on "
                         f"'{branch}' ({run.get('html_url', run['id'])}) has no unexpired "
                         f"artifact named {prefix}*")
    archive = github.call("GET", artifact["archive_download_url"]).body
    files = safe_extract(archive, out_dir)
    log(f"baseline: artifact {artifact['name']} of run {run.get('html_url', run['id'])} "
        f"(commit {run.get('head_sha', '?')[:12]}) -> {out_dir}/ ({len(files)} files)")
    return artifact, files, run


# --- compare ---------------------------------------------------------------------------------

def verdict(code):
    """perfgate compare's exit code -> (the job's exit code, what to say)."""
    if code == 0:
        return EXIT_OK, "no regression"
    if code == 1:
        return EXIT_REGRESSION, "regression: perfgate compare found a regression (see the table)"
    if code == 2:
        return EXIT_ERROR, "compare could not read the reports"
    return code, f"perfgate compare exited {code}"


MISSING_BASELINE = ("fail", "pass")  # what compare does without a baseline


def no_baseline_markdown(base, missing="fail", fallback=None):
    text = (f"**Nothing was compared: no baseline.** `{base}` does not exist: no stored report "
            "of the base was found (the fetch step's log says what was looked for).")
    if missing == "fail":
        text += (" **This check fails**: without a comparison nothing shows that this change "
                 "is not slower (`missing-baseline: fail`).\n")
    else:
        text += (" This check passes on the gate alone, as `missing-baseline: pass` asks: no "
                 "regression could be looked for.\n")
    if fallback is not None:
        text += "\nThis run's report:\n\n" + fallback
    return text


def baseline_note(base_commit, baseline_commit):
    """What the comparison is against: the base commit's reports, or its nearest ancestor's."""
    if not baseline_commit:
        return ""
    if base_commit and baseline_commit != base_commit:
        return (f"Compared with the stored reports of **{baseline_commit[:12]}**, the nearest "
                f"ancestor of the base commit {base_commit[:12]} that has them: the base "
                "commit's run failed, was skipped, or its reports expired.\n\n")
    return f"Compared with the stored reports of the base commit {baseline_commit[:12]}.\n\n"


def run_compare(perfgate, base, head, md_out, fallback_file=None, run=subprocess.run,
                missing="fail", note=""):
    """Writes md_out (`note` first) and returns (exit code, message)."""
    if not os.path.exists(base):
        fallback = read_text(fallback_file) if fallback_file else None
        write_text(md_out, no_baseline_markdown(base, missing, fallback))
        if missing == "fail":
            return EXIT_NO_BASELINE, "no baseline: nothing was compared, and the check fails"
        return EXIT_OK, "no baseline: nothing was compared (missing-baseline pass)"
    command = [perfgate, "compare", base, head, "--format", "md", "-o", md_out]
    try:
        done = run(command, stderr=subprocess.PIPE, text=True)
    except OSError as e:
        raise Failure(f"cannot run {perfgate}: {e}") from None
    sys.stderr.write(done.stderr or "")
    code, message = verdict(done.returncode)
    if done.returncode == 1:
        # perfgate's Markdown says "<n> kernels, <r> regressed": the log line repeats it.
        try:
            counts = re.search(r"(\d+) kernels, (\d+) regressed", read_text(md_out))
        except Failure:
            counts = None  # still a regression: the exit code says so
        if counts:
            message = f"regression: {counts.group(2)} of {counts.group(1)} kernels regressed"
    if done.returncode not in (0, 1):
        # perfgate wrote no table: the comment says why instead.
        write_text(md_out, f"**perfgate compare failed** (exit {done.returncode}): {message}.\n"
                           f"\n```\n{(done.stderr or '').strip()}\n```\n")
    elif note:
        write_text(md_out, note + read_text(md_out))
    return code, message


# --- comment ---------------------------------------------------------------------------------

def marked_comments(comments, marker):
    """The comments this loop posted: those whose body starts with the marker (a reply that
    merely quotes one does not)."""
    return [c for c in comments if (c.get("body") or "").lstrip().startswith(marker)]


def upsert_comment(github, repo, pr, body, marker, log=None):
    """Updates the first comment holding the marker, or creates one. Returns (action, id)."""
    log = log or (lambda message: print(message, file=sys.stderr))
    comments = github.paginate(github.url(f"/repos/{repo}/issues/{pr}/comments", per_page=100))
    mine = marked_comments(comments, marker)
    if len(mine) > 1:
        log(f"{len(mine)} comments hold the marker {marker} "
            f"({', '.join(str(c['id']) for c in mine)}): updating the first")
    if mine:
        comment = github.json("PATCH", github.url(f"/repos/{repo}/issues/comments/{mine[0]['id']}"),
                              {"body": body})
        return "updated", (comment or {}).get("id", mine[0]["id"])
    comment = github.json("POST", github.url(f"/repos/{repo}/issues/{pr}/comments"),
                          {"body": body})
    return "created", (comment or {}).get("id")


# --- annotate --------------------------------------------------------------------------------

ANNOTATION_LIMIT = 10  # GitHub shows at most 10 error annotations of a step


def gating_calls(ctest_json, root):
    """test name -> (file relative to root, line) of the add_perf_prediction call that made it,
    from `ctest --show-only=json-v1` (each test's backtrace, walked up to that call)."""
    graph = ctest_json.get("backtraceGraph") or {}
    nodes, files, commands = (graph.get(k) or [] for k in ("nodes", "files", "commands"))
    calls = {}
    for test in ctest_json.get("tests") or []:
        index = test.get("backtrace")
        while index is not None and 0 <= index < len(nodes):
            node = nodes[index]
            command = node.get("command")
            # CMake commands are case-insensitive: ADD_PERF_PREDICTION(...) is the same call.
            if command is not None and commands[command].lower() == "add_perf_prediction":
                path = files[node["file"]]
                if root and os.path.isabs(path):
                    relative = os.path.relpath(path, root)
                    path = path if relative.startswith("..") else relative
                calls[test["name"]] = (path.replace(os.sep, "/"), node.get("line", 1))
                break
            index = node.get("parent")
    return calls


def report_test(kernel, report_path):
    """The perf test whose report a kernel came from: a merged report's origin names the file
    ("<dir>/perf.x.json (host)"), a test's own report is named after the test."""
    origin = kernel.get("origin") or report_path
    file = re.sub(r" \([^()]*\)$", "", origin)
    name = os.path.basename(file)
    return name[:-len(".json")] if name.endswith(".json") else name


def failing_kernels(report, report_path, comparison=None):
    """[(ratio, kernel, test, message)], the worst first: a kernel the gate failed (its
    efficiency on the local device) or that regressed against the base (its efficiency head /
    base); the lower the ratio, the worse. Kernels without a number come last."""
    failing = {}
    for kernel in report.get("kernels") or []:
        verdict = kernel.get("verdict") or {}
        if verdict.get("status") != "fail":
            continue
        test = report_test(kernel, report_path)
        reasons = verdict.get("reasons") or ["failed the gate"]
        failing[(kernel["name"], test)] = [verdict.get("efficiency"), reasons[0]]
    tests_of = {}
    for kernel in report.get("kernels") or []:
        tests_of.setdefault(kernel["name"], report_test(kernel, report_path))
    for kernel in (comparison or {}).get("kernels") or []:
        if not kernel.get("failures"):
            continue
        key = (kernel["name"], tests_of.get(kernel["name"], ""))
        base, head = kernel.get("base_efficiency"), kernel.get("head_efficiency")
        ratio = head / base if base and head is not None else None
        message = "regressed against the base: " + "; ".join(kernel["failures"])
        if key in failing:
            entry = failing[key]
            entry[1] = message + "; " + entry[1]
            if ratio is not None and (entry[0] is None or ratio < entry[0]):
                entry[0] = ratio
        else:
            failing[key] = [ratio, message]
    ranked = sorted(failing.items(),
                    key=lambda item: (item[1][0] is None, item[1][0] or 0.0, item[0]))
    return [(ratio, name, test, message) for (name, test), (ratio, message) in ranked]


def escape_data(text):
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text):
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotations(failing, calls, limit=ANNOTATION_LIMIT):
    """GitHub workflow commands: one ::error a kernel (at its add_perf_prediction call when
    CTest lists it, else without a place), at most `limit`, then one line saying how many more."""
    lines = []
    for ratio, name, test, message in failing[:limit]:
        where = ""
        if test in calls:
            file, line = calls[test]
            where = f"file={escape_property(file)},line={line},"
        title = escape_property(f"perfgate: {name} ({test})")
        lines.append(f"::error {where}title={title}::{escape_data(message)}")
    more = len(failing) - limit
    if more > 0:
        kernels = "kernel is" if more == 1 else "kernels are"
        lines.append(f"{more} more failing {kernels} not annotated (GitHub shows {limit} a "
                     f"step): the job summary lists them all")
    return lines


def read_json(path):
    try:
        return json.loads(read_text(path))
    except ValueError as e:
        raise Failure(f"{path}: not JSON ({e})") from None


# --- command line ----------------------------------------------------------------------------

def read_text(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        raise Failure(f"cannot read {path}: {e.strerror}") from None


def write_text(path, text, mode="w"):
    try:
        with open(path, mode, encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise Failure(f"cannot write {path}: {e.strerror}") from None


def github_from_env(request=http_request):
    token = os.environ.get("GITHUB_TOKEN")
    if not token:
        raise Failure("GITHUB_TOKEN is not set (the workflow passes ${{ github.token }})")
    return GitHub(os.environ.get("GITHUB_API_URL") or "https://api.github.com", token, request)


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="pr_loop.py", description=__doc__.split("\n\n")[0],
        epilog="Exit codes: 0 done, 1 regression, 2 error, 4 no baseline (fetch-baseline; "
               "compare: nothing compared).")
    commands = parser.add_subparsers(dest="command", required=True)

    p = commands.add_parser("fetch-baseline", help="the target branch's report artifact -> DIR")
    p.add_argument("--repo", required=True, help="OWNER/NAME")
    p.add_argument("--branch", required=True)
    p.add_argument("--workflow", required=True, help="the workflow file, e.g. perf.yml")
    p.add_argument("--artifact-prefix", required=True)
    p.add_argument("--prefer", help="this artifact name if the run has it (the same runner)")
    p.add_argument("--out", required=True, help="extract into this directory")
    p.add_argument("--commit", help="the run of this commit (a pull request's base sha)")
    p.add_argument("--ancestors", type=int, default=0,
                   help="with --commit: where it has no stored reports, the nearest of this many "
                        "of its ancestors that has (at most 99; default 0: none)")
    p.add_argument("--github-output",
                   help="append baseline-commit=SHA and baseline-run=URL here ($GITHUB_OUTPUT)")

    p = commands.add_parser("compare",
                            help="perfgate compare, Markdown out, exit 1 on a regression")
    p.add_argument("--perfgate", default="perfgate", help="the perfgate executable")
    p.add_argument("--base", required=True, help="the baseline report (missing: no baseline yet)")
    p.add_argument("--head", required=True, help="this run's report")
    p.add_argument("--md-out", required=True, help="write the Markdown here")
    p.add_argument("--no-baseline-body", help="Markdown shown under the note when there is no "
                                              "baseline (e.g. reports/summary.md)")
    p.add_argument("--missing-baseline", choices=MISSING_BASELINE, default="fail",
                   help="without BASE: fail (exit 4, the default) or pass; either way the "
                        "Markdown says that nothing was compared")
    p.add_argument("--base-commit", help="the pull request's base commit")
    p.add_argument("--baseline-commit",
                   help="the commit BASE was measured at (fetch-baseline's baseline-commit): "
                        "the Markdown names it, and says so where it is not the base commit")

    p = commands.add_parser("comment", help="post or update the pull request's comment")
    p.add_argument("--repo", required=True, help="OWNER/NAME")
    p.add_argument("--pr", required=True, type=int, help="the pull request's number")
    p.add_argument("--body-file", required=True, nargs="+",
                   help="Markdown; several files are joined with ---")
    p.add_argument("--marker", default=MARKER)
    p.add_argument("--artifact-url", help="where the full report is, named when truncated")

    p = commands.add_parser("summary", help="append to the job summary within its limit")
    p.add_argument("--body-file", required=True, nargs="+",
                   help="Markdown; several files are joined with ---")
    p.add_argument("--out", default=os.environ.get("GITHUB_STEP_SUMMARY"),
                   help="the summary file (default: $GITHUB_STEP_SUMMARY)")
    p.add_argument("--limit", type=int, default=DEFAULT_SUMMARY_LIMIT,
                   help=f"bytes of UTF-8 (GitHub's limit: {SUMMARY_LIMIT})")
    p.add_argument("--artifact-url", help="where the full report is, named when truncated")

    p = commands.add_parser("annotate", help="::error at the add_perf_prediction of each "
                                             "failing kernel, the worst first")
    p.add_argument("--report", required=True, help="the run's (merged) report")
    p.add_argument("--tests", required=True,
                   help="`ctest --show-only=json-v1` of the build tree that ran it")
    p.add_argument("--compare", help="`perfgate compare --format json` against the base")
    p.add_argument("--root", default=os.environ.get("GITHUB_WORKSPACE") or os.getcwd(),
                   help="file paths relative to this (default: $GITHUB_WORKSPACE)")
    p.add_argument("--limit", type=int, default=ANNOTATION_LIMIT)
    p.add_argument("--github-output", help="append failed-kernels=N here ($GITHUB_OUTPUT)")
    return parser.parse_args(argv)


def main(argv=None, request=http_request):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        if args.command == "fetch-baseline":
            if not 0 <= args.ancestors <= 99:
                raise Failure(f"--ancestors {args.ancestors}: give 0 to 99 (one page of "
                              "GitHub's commit list)")
            _, _, run = fetch_baseline(github_from_env(request), args.repo, args.branch,
                                       args.workflow, args.artifact_prefix, args.out,
                                       args.prefer, commit=args.commit, ancestors=args.ancestors)
            if args.github_output:
                write_text(args.github_output, f"baseline-commit={run.get('head_sha', '')}\n"
                                               f"baseline-run={run.get('html_url', '')}\n", "a")
            return EXIT_OK
        if args.command == "annotate":
            comparison = read_json(args.compare) if args.compare else None
            failing = failing_kernels(read_json(args.report), args.report, comparison)
            for line in annotations(failing, gating_calls(read_json(args.tests), args.root),
                                    args.limit):
                print(line)
            if args.github_output:
                write_text(args.github_output, f"failed-kernels={len(failing)}\n", "a")
            return EXIT_OK
        if args.command == "compare":
            code, message = run_compare(args.perfgate, args.base, args.head, args.md_out,
                                        args.no_baseline_body, missing=args.missing_baseline,
                                        note=baseline_note(args.base_commit,
                                                           args.baseline_commit))
            print(f"{message} ({args.md_out})", file=sys.stderr)
            return code
        body = join_bodies([read_text(f) for f in args.body_file])
        if args.command == "comment":
            text = comment_body(body, args.marker, COMMENT_LIMIT, args.artifact_url)
            action, comment_id = upsert_comment(github_from_env(request), args.repo, args.pr,
                                                text, args.marker)
            print(f"{action} comment {comment_id} on pull request #{args.pr}")
            return EXIT_OK
        if args.command == "summary":
            if not args.out:
                raise Failure("no --out and GITHUB_STEP_SUMMARY is not set")
            text = summary_text(body, args.limit, args.artifact_url)
            write_text(args.out, text, "a")
            truncated = " (truncated)" if utf8_length(body) > args.limit else ""
            print(f"appended {utf8_length(text)} bytes to {args.out}{truncated}")
            return EXIT_OK
    except Failure as e:
        print(f"pr_loop.py {args.command}: {e}", file=sys.stderr)
        return e.code
    raise AssertionError(args.command)


if __name__ == "__main__":
    sys.exit(main())
