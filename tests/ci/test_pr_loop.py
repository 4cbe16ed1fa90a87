#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""scripts/pr_loop.py offline: truncation, the comment's marker, pagination, the baseline's
artifact, the compare verdict. GitHub is a fake request function or, for the real urllib
layer, an http.server on 127.0.0.1: nothing here reaches the network."""
import contextlib
import http.server
import io
import json
import os
import pathlib
import socket
import stat
import sys
import tempfile
import threading
import unittest
import urllib.parse
import zipfile
from unittest import mock

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "scripts"))
import pr_loop  # noqa: E402

API = "https://api.example.test"
REPO = "owner/name"
URL = "https://github.com/owner/name/actions/runs/7/artifacts/9"


def lines(n, text="| `kernel` | 1.00 µs → 2.00 µs |"):
    return "".join(f"{text} {i}\n" for i in range(n))


def zip_of(members):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return buffer.getvalue()


class FakeGitHub:
    """Answers (method, URL path) from a table; records every call with its query and data."""

    def __init__(self, routes):
        self.routes = routes
        self.calls = []

    def __call__(self, method, url, token=None, data=None):
        parsed = urllib.parse.urlsplit(url)
        query = dict(urllib.parse.parse_qsl(parsed.query))
        self.calls.append((method, parsed.path, query, data, token))
        key = (method, parsed.path + ("?page=" + query["page"] if "page" in query else ""))
        if key not in self.routes:
            raise pr_loop.Failure(f"{method} {url}: HTTP 404 Not Found")
        answer = self.routes[key]
        answer = answer(data) if callable(answer) else answer
        status, headers, body = answer
        if not isinstance(body, bytes):
            body = json.dumps(body).encode("utf-8")
        return pr_loop.Response(status, headers, body)

    def github(self):
        return pr_loop.GitHub(API, "TOKEN", self)


class Truncation(unittest.TestCase):
    def assert_whole_line_prefix(self, original, result):
        kept = result[:result.index("\n… truncated")]
        self.assertTrue(original.startswith(kept))
        self.assertTrue(kept == "" or kept.endswith("\n"), "a line was cut")
        return kept

    def test_under_the_limit_is_unchanged(self):
        text = lines(10)
        self.assertEqual(pr_loop.truncate(text, len(text)), text)
        self.assertEqual(pr_loop.truncate(text, len(text.encode()), pr_loop.utf8_length), text)
        self.assertEqual(pr_loop.comment_body(text), pr_loop.MARKER + "\n" + text)
        self.assertEqual(pr_loop.summary_text(text), text)

    def test_character_limit_keeps_the_longest_prefix_of_whole_lines(self):
        text = lines(1000)
        limit = 5000
        result = pr_loop.truncate(text, limit, artifact_url=URL)
        self.assertLessEqual(len(result), limit)
        kept = self.assert_whole_line_prefix(text, result)
        shown = kept.count("\n")
        self.assertTrue(result.endswith(
            f"\n… truncated: {shown} of 1000 lines shown; the full report is in the artifact "
            f"{URL}\n"))
        # One more line would not have fitted with the note.
        next_line = text.splitlines(keepends=True)[shown]
        self.assertGreater(len(kept + next_line + pr_loop.truncation_note(shown + 1, 1000, URL)),
                           limit)
        self.assertGreater(shown, 50)

    def test_byte_limit_counts_utf8_bytes_not_characters(self):
        text = lines(2000)  # 'µ' and '→' are 2 and 3 bytes of UTF-8
        limit = len(text) + 1000  # fits in characters, not in bytes
        self.assertGreater(len(text.encode("utf-8")), limit)
        self.assertEqual(pr_loop.truncate(text, limit, pr_loop.char_length, URL), text)
        result = pr_loop.truncate(text, limit, pr_loop.utf8_length, URL)
        self.assertLessEqual(len(result.encode("utf-8")), limit)
        kept = self.assert_whole_line_prefix(text, result)
        shown = kept.count("\n")
        self.assertIn(f"… truncated: {shown} of 2000 lines shown", result)
        # The longest prefix: one more line would overflow the byte limit.
        next_line = text.splitlines(keepends=True)[shown]
        note = pr_loop.truncation_note(shown + 1, 2000, URL)
        self.assertGreater(len((kept + next_line + note).encode("utf-8")), limit)
        self.assertGreater(shown, 1500)

    def test_summary_stays_under_the_byte_limit(self):
        text = lines(60000)  # ~3 MB
        result = pr_loop.summary_text(text, artifact_url=URL)
        self.assertLessEqual(len(result.encode("utf-8")), pr_loop.DEFAULT_SUMMARY_LIMIT)
        self.assertLess(pr_loop.DEFAULT_SUMMARY_LIMIT, pr_loop.SUMMARY_LIMIT)
        self.assertEqual(pr_loop.SUMMARY_LIMIT, 1048576)
        self.assertIn(f"of 60000 lines shown; the full report is in the artifact {URL}", result)
        with self.assertRaises(pr_loop.Failure):
            pr_loop.summary_text(text, limit=pr_loop.SUMMARY_LIMIT + 1)

    def test_note_with_and_without_artifact_url(self):
        self.assertEqual(pr_loop.truncation_note(3, 10, URL),
                         f"\n… truncated: 3 of 10 lines shown; the full report is in the "
                         f"artifact {URL}\n")
        self.assertEqual(pr_loop.truncation_note(3, 10),
                         "\n… truncated: 3 of 10 lines shown; the full report is in this "
                         "workflow run's artifact\n")
        result = pr_loop.truncate(lines(100), 500)
        self.assertIn("lines shown; the full report is in this workflow run's artifact", result)

    def test_comment_body_marker_first_and_within_65536_characters(self):
        text = lines(10000)
        body = pr_loop.comment_body(text, artifact_url=URL)
        self.assertEqual(pr_loop.COMMENT_LIMIT, 65536)
        self.assertLessEqual(len(body), 65536)
        self.assertGreater(len(body), 65536 - 200)
        self.assertTrue(body.startswith(pr_loop.MARKER + "\n| `kernel`"))
        self.assert_whole_line_prefix(pr_loop.MARKER + "\n" + text, body)
        self.assertIn("of 10000 lines shown", body)

    def test_an_open_code_block_is_closed_before_the_note(self):
        text = "intro\n```\n" + lines(100)
        result = pr_loop.truncate(text, 300)
        self.assertLessEqual(len(result), 300)
        self.assertIn("```\n\n… truncated", result)
        plain = pr_loop.truncate(lines(100), 300)
        self.assertNotIn("```", plain)

    def test_bodies_joined_with_a_rule(self):
        self.assertEqual(pr_loop.join_bodies(["a\n", "b\n"]), "a\n\n---\nb\n")


class Comments(unittest.TestCase):
    def comment_routes(self, pages, updated=None, created=None):
        routes = {}
        path = f"/repos/{REPO}/issues/5/comments"
        for i, page in enumerate(pages):
            key = ("GET", path + (f"?page={i + 1}" if i else ""))
            headers = {}
            if i + 1 < len(pages):
                headers["link"] = (f'<{API}{path}?per_page=100&page={i + 2}>; rel="next", '
                                   f'<{API}{path}?per_page=100&page={len(pages)}>; rel="last"')
            routes[key] = (200, headers, page)
        routes[("POST", path)] = (201, {}, {"id": 99})
        for cid in updated or []:
            routes[("PATCH", f"/repos/{REPO}/issues/comments/{cid}")] = (200, {}, {"id": cid})
        return routes

    def test_marker_detection(self):
        marker = pr_loop.MARKER
        comments = [{"id": 1, "body": "looks good"},
                    {"id": 2, "body": f"{marker}\n| table |"},
                    {"id": 3, "body": f"> quoting\n> {marker}"},
                    {"id": 4, "body": None},
                    {"id": 5, "body": f"{marker}\nagain"}]
        self.assertEqual([c["id"] for c in pr_loop.marked_comments(comments, marker)], [2, 5])
        self.assertEqual(pr_loop.marked_comments(comments, "<!-- other -->"), [])

    def test_creates_when_no_comment_holds_the_marker(self):
        fake = FakeGitHub(self.comment_routes([[{"id": 1, "body": "hi"}]]))
        action, cid = pr_loop.upsert_comment(fake.github(), REPO, 5, "BODY", pr_loop.MARKER)
        self.assertEqual((action, cid), ("created", 99))
        self.assertEqual(fake.calls[-1][:2], ("POST", f"/repos/{REPO}/issues/5/comments"))
        self.assertEqual(fake.calls[-1][3], {"body": "BODY"})
        self.assertEqual(fake.calls[-1][4], "TOKEN")

    def test_updates_the_comment_holding_the_marker(self):
        page = [{"id": 1, "body": "hi"}, {"id": 42, "body": pr_loop.MARKER + "\nold"}]
        fake = FakeGitHub(self.comment_routes([page], updated=[42]))
        action, cid = pr_loop.upsert_comment(fake.github(), REPO, 5, "NEW", pr_loop.MARKER)
        self.assertEqual((action, cid), ("updated", 42))
        self.assertEqual(fake.calls[-1][:2], ("PATCH", f"/repos/{REPO}/issues/comments/42"))
        self.assertEqual(fake.calls[-1][3], {"body": "NEW"})
        self.assertNotIn("POST", [c[0] for c in fake.calls])

    def test_several_markers_update_the_first_and_say_so(self):
        page = [{"id": 7, "body": pr_loop.MARKER + "\na"}, {"id": 8, "body": pr_loop.MARKER}]
        fake = FakeGitHub(self.comment_routes([page], updated=[7, 8]))
        said = []
        action, cid = pr_loop.upsert_comment(fake.github(), REPO, 5, "NEW", pr_loop.MARKER,
                                             said.append)
        self.assertEqual((action, cid), ("updated", 7))
        self.assertEqual([c[1] for c in fake.calls if c[0] == "PATCH"],
                         [f"/repos/{REPO}/issues/comments/7"])
        self.assertEqual(len(said), 1)
        self.assertIn("2 comments hold the marker", said[0])
        self.assertIn("7, 8", said[0])

    def test_pagination_follows_link_headers(self):
        pages = [[{"id": i, "body": "chatter"} for i in range(100)],
                 [{"id": 100 + i, "body": "chatter"} for i in range(100)],
                 [{"id": 555, "body": pr_loop.MARKER + "\nold"}]]
        fake = FakeGitHub(self.comment_routes(pages, updated=[555]))
        action, cid = pr_loop.upsert_comment(fake.github(), REPO, 5, "NEW", pr_loop.MARKER)
        self.assertEqual((action, cid), ("updated", 555))
        gets = [c for c in fake.calls if c[0] == "GET"]
        self.assertEqual([c[2].get("page") for c in gets], [None, "2", "3"])
        self.assertEqual(gets[0][2]["per_page"], "100")

    def test_next_link(self):
        header = ('<https://api.github.com/x?page=3>; rel="next", '
                  '<https://api.github.com/x?page=9>; rel="last"')
        self.assertEqual(pr_loop.next_link(header), "https://api.github.com/x?page=3")
        self.assertEqual(pr_loop.next_link('<https://a/x?page=1>; rel="prev", '
                                           '<https://a/x?page=1>; rel="first"'), None)
        self.assertEqual(pr_loop.next_link('<https://a/x?page=1>; rel="last", '
                                           '<https://a/x?page=2>; rel="next"'),
                         "https://a/x?page=2")
        self.assertIsNone(pr_loop.next_link(None))

    def test_comment_command_truncates_and_reports_what_it_did(self):
        with tempfile.TemporaryDirectory() as tmp:
            body = pathlib.Path(tmp, "compare.md")
            body.write_text(lines(5000), encoding="utf-8")
            fake = FakeGitHub(self.comment_routes([[]]))
            out = io.StringIO()
            with mock.patch.dict(os.environ, {"GITHUB_TOKEN": "T", "GITHUB_API_URL": API}), \
                    contextlib.redirect_stdout(out):
                code = pr_loop.main(["comment", "--repo", REPO, "--pr", "5", "--body-file",
                                     str(body), "--artifact-url", URL], request=fake)
        self.assertEqual(code, 0)
        self.assertIn("created comment 99 on pull request #5", out.getvalue())
        posted = fake.calls[-1][3]["body"]
        self.assertLessEqual(len(posted), 65536)
        self.assertTrue(posted.startswith(pr_loop.MARKER + "\n"))
        self.assertIn(f"of 5000 lines shown; the full report is in the artifact {URL}", posted)

    def test_comment_without_token_is_an_error(self):
        with tempfile.TemporaryDirectory() as tmp:
            body = pathlib.Path(tmp, "r.md")
            body.write_text("x\n")
            env = {k: v for k, v in os.environ.items() if k != "GITHUB_TOKEN"}
            with mock.patch.dict(os.environ, env, clear=True), \
                    contextlib.redirect_stderr(io.StringIO()) as err:
                code = pr_loop.main(["comment", "--repo", REPO, "--pr", "5",
                                     "--body-file", str(body)], request=FakeGitHub({}))
        self.assertEqual(code, 2)
        self.assertIn("GITHUB_TOKEN is not set", err.getvalue())


class Summary(unittest.TestCase):
    def test_appends_joined_files_within_the_limit(self):
        with tempfile.TemporaryDirectory() as tmp:
            a, b = pathlib.Path(tmp, "a.md"), pathlib.Path(tmp, "b.md")
            a.write_text("# a → µs\n", encoding="utf-8")
            b.write_text(lines(3000), encoding="utf-8")
            out = pathlib.Path(tmp, "summary")
            out.write_text("earlier step\n", encoding="utf-8")
            with contextlib.redirect_stdout(io.StringIO()) as said:
                code = pr_loop.main(["summary", "--body-file", str(a), str(b), "--out", str(out),
                                     "--limit", "10000", "--artifact-url", URL])
            self.assertEqual(code, 0)
            written = out.read_bytes()
        self.assertTrue(written.startswith(b"earlier step\n# a \xe2\x86\x92 \xc2\xb5s\n\n---\n"))
        appended = written[len(b"earlier step\n"):]
        self.assertLessEqual(len(appended), 10000)
        self.assertIn(f"lines shown; the full report is in the artifact {URL}".encode(), appended)
        self.assertIn("(truncated)", said.getvalue())


class Artifacts(unittest.TestCase):
    ARTIFACTS = [
        {"id": 1, "name": "perfgate-reports", "created_at": "2024-05-03T00:00:00Z"},
        {"id": 2, "name": "perfgate-perf-reports-gpu-a", "created_at": "2024-05-01T00:00:00Z"},
        {"id": 3, "name": "perfgate-perf-reports-gpu-b", "created_at": "2024-05-02T00:00:00Z"},
        {"id": 4, "name": "perfgate-perf-reports-gpu-c", "created_at": "2024-05-09T00:00:00Z",
         "expired": True},
    ]

    def test_selects_the_newest_with_the_prefix(self):
        chosen = pr_loop.select_artifact(self.ARTIFACTS, "perfgate-perf-reports-")
        self.assertEqual(chosen["id"], 3)

    def test_prefers_the_named_artifact(self):
        chosen = pr_loop.select_artifact(self.ARTIFACTS, "perfgate-perf-reports-",
                                         prefer="perfgate-perf-reports-gpu-a")
        self.assertEqual(chosen["id"], 2)
        chosen = pr_loop.select_artifact(self.ARTIFACTS, "perfgate-perf-reports-",
                                         prefer="perfgate-perf-reports-gpu-c")  # expired
        self.assertEqual(chosen["id"], 3)

    def test_none_when_nothing_matches(self):
        self.assertIsNone(pr_loop.select_artifact(self.ARTIFACTS, "other-"))
        self.assertIsNone(pr_loop.select_artifact([], "perfgate-perf-reports-"))

    def test_refuses_a_zip_escaping_the_directory(self):
        for evil in ("../evil.json", "reports/../../evil.json", "/tmp/evil.json",
                     "..\\evil.json", "C:/evil.json"):
            with self.subTest(evil), tempfile.TemporaryDirectory() as tmp:
                out = pathlib.Path(tmp, "baseline")
                archive = zip_of({"all.json": "{}", evil: "x"})
                with self.assertRaises(pr_loop.Failure) as caught:
                    pr_loop.safe_extract(archive, str(out))
                self.assertEqual(caught.exception.code, 2)
                self.assertIn(evil, str(caught.exception))
                # Nothing at all was extracted, not even the good member.
                self.assertFalse(out.exists() and any(out.iterdir()))
                self.assertFalse(pathlib.Path(tmp, "evil.json").exists())

    def test_extracts_a_good_zip(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = pathlib.Path(tmp, "baseline")
            files = pr_loop.safe_extract(zip_of({"all.json": "{}", "sub/x.md": "# x"}), str(out))
            self.assertEqual(sorted(files), ["all.json", "sub/x.md"])
            self.assertEqual(pathlib.Path(out, "sub/x.md").read_text(), "# x")

    def test_a_broken_zip_is_an_error(self):
        with tempfile.TemporaryDirectory() as tmp, self.assertRaises(pr_loop.Failure):
            pr_loop.safe_extract(b"not a zip", tmp)


class FetchBaseline(unittest.TestCase):
    RUNS = f"/repos/{REPO}/actions/workflows/perf.yml/runs"
    ARTIFACTS = f"/repos/{REPO}/actions/runs/7/artifacts"
    RUN = {"id": 7, "html_url": "https://github.com/owner/name/actions/runs/7",
           "head_sha": "0123456789abcdef"}

    def fetch(self, fake, out):
        return pr_loop.fetch_baseline(fake.github(), REPO, "main", "perf.yml",
                                      "perfgate-perf-reports-", out, log=lambda m: None)

    def test_downloads_and_extracts_the_artifact(self):
        fake = FakeGitHub({
            ("GET", self.RUNS): (200, {}, {"workflow_runs": [self.RUN]}),
            ("GET", self.ARTIFACTS): (200, {}, {"artifacts": [
                {"id": 9, "name": "perfgate-perf-reports-gpu", "created_at": "2024-01-01",
                 "archive_download_url": f"{API}/repos/{REPO}/actions/artifacts/9/zip"}]}),
            ("GET", f"/repos/{REPO}/actions/artifacts/9/zip"):
                (200, {}, zip_of({"all.json": '{"schema": "perfgate-report/2"}'})),
        })
        with tempfile.TemporaryDirectory() as tmp:
            artifact, files, run = self.fetch(fake, tmp)
            self.assertEqual(run["id"], 7)
            self.assertEqual(artifact["id"], 9)
            self.assertEqual(files, ["all.json"])
            self.assertIn("perfgate-report/2", pathlib.Path(tmp, "all.json").read_text())
        self.assertEqual(fake.calls[0][2],
                         {"branch": "main", "status": "success", "per_page": "1"})

    def test_no_successful_run_is_no_baseline(self):
        fake = FakeGitHub({("GET", self.RUNS): (200, {}, {"total_count": 0,
                                                          "workflow_runs": []})})
        with tempfile.TemporaryDirectory() as tmp, self.assertRaises(pr_loop.NoBaseline) as c:
            self.fetch(fake, tmp)
        self.assertEqual(c.exception.code, 4)
        self.assertIn("no baseline yet", str(c.exception))
        self.assertIn("no successful run on branch 'main'", str(c.exception))

    def test_no_matching_artifact_is_no_baseline(self):
        fake = FakeGitHub({
            ("GET", self.RUNS): (200, {}, {"workflow_runs": [self.RUN]}),
            ("GET", self.ARTIFACTS): (200, {}, {"artifacts": [{"id": 1, "name": "other"}]}),
        })
        with tempfile.TemporaryDirectory() as tmp, self.assertRaises(pr_loop.NoBaseline) as c:
            self.fetch(fake, tmp)
        self.assertIn("perfgate-perf-reports-*", str(c.exception))
        self.assertIn(self.RUN["html_url"], str(c.exception))

    def test_main_exits_4_without_a_baseline_and_2_on_http_errors(self):
        args = ["fetch-baseline", "--repo", REPO, "--branch", "main", "--workflow", "perf.yml",
                "--artifact-prefix", "perfgate-perf-reports-"]
        empty = FakeGitHub({("GET", self.RUNS): (200, {}, {"workflow_runs": []})})
        with tempfile.TemporaryDirectory() as tmp, \
                mock.patch.dict(os.environ, {"GITHUB_TOKEN": "T", "GITHUB_API_URL": API}):
            with contextlib.redirect_stderr(io.StringIO()) as err:
                self.assertEqual(pr_loop.main(args + ["--out", tmp], request=empty), 4)
            self.assertIn("no baseline yet", err.getvalue())
            self.assertEqual(pr_loop.EXIT_NO_BASELINE, 4)
            with contextlib.redirect_stderr(io.StringIO()) as err:
                self.assertEqual(pr_loop.main(args + ["--out", tmp], request=FakeGitHub({})), 2)
            self.assertIn(f"{API}{self.RUNS}", err.getvalue())
            self.assertIn("HTTP 404", err.getvalue())


    def test_commit_asks_for_that_commits_run_and_refuses_another(self):
        # An API that ignored head_sha would answer with the branch's latest run: not the base.
        fake = FakeGitHub({("GET", self.RUNS): (200, {}, {"workflow_runs": [self.RUN]})})
        with tempfile.TemporaryDirectory() as tmp, self.assertRaises(pr_loop.NoBaseline) as c:
            pr_loop.fetch_baseline(fake.github(), REPO, "main", "perf.yml",
                                   "perfgate-perf-reports-", tmp, log=lambda m: None,
                                   commit="fedcba9876543210")
        self.assertEqual(fake.calls[0][2], {"branch": "main", "status": "success",
                                            "per_page": "1", "head_sha": "fedcba9876543210"})
        self.assertIn("no successful run of commit fedcba987654 on branch 'main'",
                      str(c.exception))


class FetchAncestor(unittest.TestCase):
    """A base commit without stored reports (issue 52): the nearest ancestor that has them."""
    RUNS = f"/repos/{REPO}/actions/workflows/perf.yml/runs"
    COMMITS = f"/repos/{REPO}/commits"
    BASE, PARENT, GRANDPARENT = "c2" * 20, "c1" * 20, "c0" * 20

    def routes(self, runs, artifacts):
        """runs: [(id, sha)]; artifacts: run id -> [names]."""
        routes = {
            ("GET", self.COMMITS): (200, {}, [{"sha": c} for c in
                                              (self.BASE, self.PARENT, self.GRANDPARENT)]),
            ("GET", self.RUNS): (200, {}, {"workflow_runs": [
                {"id": i, "head_sha": sha, "html_url": f"https://github.test/runs/{i}"}
                for i, sha in runs]}),
        }
        for run_id, names in artifacts.items():
            routes[("GET", f"/repos/{REPO}/actions/runs/{run_id}/artifacts")] = (200, {}, {
                "artifacts": [{"id": run_id * 10 + n, "name": name, "created_at": "2026",
                               "archive_download_url":
                                   f"{API}/repos/{REPO}/actions/artifacts/{run_id}/zip"}
                              for n, name in enumerate(names)]})
            routes[("GET", f"/repos/{REPO}/actions/artifacts/{run_id}/zip")] = \
                (200, {}, zip_of({"all.json": f'{{"run": {run_id}}}'}))
        return FakeGitHub(routes)

    def fetch(self, fake, tmp, ancestors=3, log=None):
        return pr_loop.fetch_baseline(fake.github(), REPO, "main", "perf.yml", "perfgate-r-",
                                      tmp, log=log or (lambda m: None), commit=self.BASE,
                                      ancestors=ancestors)

    def test_the_nearest_ancestor_with_reports_not_one_without(self):
        # The parent's run holds no report artifact; the grandparent's does.
        fake = self.routes([(8, self.PARENT), (9, self.GRANDPARENT)],
                           {8: ["logs"], 9: ["perfgate-r-gpu"]})
        said = []
        with tempfile.TemporaryDirectory() as tmp:
            artifact, _, run = self.fetch(fake, tmp, log=said.append)
            self.assertEqual(pathlib.Path(tmp, "all.json").read_text(), '{"run": 9}')
        self.assertEqual((run["id"], run["head_sha"], artifact["name"]),
                         (9, self.GRANDPARENT, "perfgate-r-gpu"))
        commits = [c for c in fake.calls if c[1] == self.COMMITS]
        self.assertEqual(commits[0][2], {"sha": self.BASE, "per_page": "4"})
        self.assertIn(f"commit {self.BASE[:12]} has no stored reports; its nearest ancestor "
                      f"with them is {self.GRANDPARENT[:12]}", said[0])

    def test_the_base_itself_first(self):
        fake = self.routes([(7, self.BASE), (9, self.GRANDPARENT)],
                           {7: ["perfgate-r-gpu"], 9: ["perfgate-r-gpu"]})
        with tempfile.TemporaryDirectory() as tmp:
            _, _, run = self.fetch(fake, tmp)
        self.assertEqual(run["id"], 7)
        self.assertEqual([c for c in fake.calls if c[1] == self.COMMITS], [])

    def test_no_ancestor_with_reports_is_no_baseline(self):
        fake = self.routes([(8, self.PARENT)], {8: ["logs"]})
        with tempfile.TemporaryDirectory() as tmp, self.assertRaises(pr_loop.NoBaseline) as c:
            self.fetch(fake, tmp, ancestors=1)
        self.assertIn(f"neither commit {self.BASE[:12]} nor any of its 1 nearest ancestors",
                      str(c.exception))

    def test_without_ancestors_the_base_alone(self):
        fake = self.routes([(9, self.GRANDPARENT)], {9: ["perfgate-r-gpu"]})
        with tempfile.TemporaryDirectory() as tmp, self.assertRaises(pr_loop.NoBaseline):
            self.fetch(fake, tmp, ancestors=0)

    def test_main_names_the_commit_in_github_output(self):
        fake = self.routes([(9, self.GRANDPARENT)], {9: ["perfgate-r-gpu"]})
        args = ["fetch-baseline", "--repo", REPO, "--branch", "main", "--workflow", "perf.yml",
                "--artifact-prefix", "perfgate-r-", "--commit", self.BASE]
        with tempfile.TemporaryDirectory() as tmp, \
                mock.patch.dict(os.environ, {"GITHUB_TOKEN": "T", "GITHUB_API_URL": API}), \
                contextlib.redirect_stderr(io.StringIO()) as err:
            out = pathlib.Path(tmp, "output")
            self.assertEqual(pr_loop.main(args + ["--out", tmp, "--ancestors", "2",
                                                  "--github-output", str(out)], request=fake), 0)
            self.assertEqual(out.read_text(), f"baseline-commit={self.GRANDPARENT}\n"
                                              "baseline-run=https://github.test/runs/9\n")
            self.assertEqual(pr_loop.main(args + ["--out", tmp, "--ancestors", "100"],
                                          request=fake), 2)
        self.assertIn("--ancestors 100: give 0 to 99", err.getvalue())


class Annotate(unittest.TestCase):
    # ctest --show-only=json-v1's shape: add_test inside add_perf_prediction (PerfGate.cmake),
    # called from the project's CMakeLists.txt at line 12 (perf.a) and, in capitals, from a
    # helper function of the project's own at line 20 of x.cmake (perf.b).
    TESTS = {"backtraceGraph": {
        "commands": ["add_test", "add_perf_prediction", "my_helper", "ADD_PERF_PREDICTION"],
        "files": ["/ws/cmake/PerfGate.cmake", "/ws/CMakeLists.txt", "/elsewhere/x.cmake"],
        "nodes": [{"file": 1}, {"file": 1, "line": 12, "command": 1, "parent": 0},
                  {"file": 0, "line": 685, "command": 0, "parent": 1},
                  {"file": 1, "line": 19, "command": 2, "parent": 0},
                  {"file": 2, "line": 20, "command": 3, "parent": 3},
                  {"file": 0, "line": 685, "command": 0, "parent": 4}]},
        "tests": [{"name": "perf.a", "backtrace": 2}, {"name": "perf.b", "backtrace": 5},
                  {"name": "unit", "backtrace": 0}]}

    def kernel(self, name, test, status, efficiency, reason="below MIN_EFFICIENCY"):
        return {"name": name, "origin": f"/ws/build/perfgate-reports/{test}.json (host)",
                "verdict": {"status": status, "efficiency": efficiency, "reasons": [reason]}}

    def test_calls_walk_the_backtrace_up_to_add_perf_prediction(self):
        self.assertEqual(pr_loop.gating_calls(self.TESTS, "/ws"),
                         {"perf.a": ("CMakeLists.txt", 12), "perf.b": ("/elsewhere/x.cmake", 20)})

    def test_worst_first_merges_gate_and_regression_and_limits(self):
        report = {"kernels": [self.kernel("k1", "perf.a", "fail", 0.4),
                              self.kernel("k2", "perf.a", "pass", 0.9),
                              self.kernel("k3", "perf.b", "fail", None, "no, 100%, a,b"),
                              self.kernel("k4", "perf.b", "fail", 0.2)]}
        comparison = {"kernels": [
            {"name": "k2", "base_efficiency": 1.0, "head_efficiency": 0.9,
             "failures": ["efficiency dropped"]},
            {"name": "k1", "base_efficiency": 0.8, "head_efficiency": 0.4,
             "failures": ["efficiency dropped"]},
            {"name": "k4", "base_efficiency": 0.2, "head_efficiency": 0.2, "failures": []}]}
        failing = pr_loop.failing_kernels(report, "all.json", comparison)
        self.assertEqual([(f[1], f[0]) for f in failing],
                         [("k4", 0.2), ("k1", 0.4), ("k2", 0.9), ("k3", None)])
        self.assertEqual(failing[1][3], "regressed against the base: efficiency dropped; "
                                        "below MIN_EFFICIENCY")
        lines = pr_loop.annotations(failing, pr_loop.gating_calls(self.TESTS, "/ws"), limit=3)
        self.assertEqual(lines[0], "::error file=/elsewhere/x.cmake,line=20,"
                                   "title=perfgate%3A k4 (perf.b)::below MIN_EFFICIENCY")
        self.assertTrue(lines[1].startswith("::error file=CMakeLists.txt,line=12,"))
        self.assertEqual(len(lines), 4)
        self.assertTrue(lines[3].startswith("1 more failing kernel is not annotated"))
        last = pr_loop.annotations(failing[3:], {}, limit=3)
        self.assertEqual(last, ["::error title=perfgate%3A k3 (perf.b)::no, 100%25, a,b"])


class RealHttp(unittest.TestCase):
    """http_request itself against a local server: the token goes to the API but not on to
    the redirect target, and an HTTP error names the URL and the status."""

    def setUp(self):
        seen = self.seen = []
        archive = zip_of({"all.json": "{}", "summary.md": "# µs → s\n"})

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def reply(self, status, body=b"", headers=()):
                self.send_response(status)
                for k, v in headers:
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self):
                self.do_GET()

            def do_GET(self):
                seen.append((self.path, self.headers.get("Authorization")))
                base = f"http://127.0.0.1:{self.server.server_port}"
                path = urllib.parse.urlsplit(self.path).path
                if path == f"/repos/{REPO}/actions/workflows/perf.yml/runs":
                    self.reply(200, json.dumps({"workflow_runs": [{"id": 7}]}).encode())
                elif path == f"/repos/{REPO}/actions/runs/7/artifacts":
                    self.reply(200, json.dumps({"artifacts": [{
                        "id": 9, "name": "perfgate-perf-reports-x", "created_at": "2024",
                        "archive_download_url": f"{base}/repos/{REPO}/actions/artifacts/9/zip",
                    }]}).encode())
                elif path == f"/repos/{REPO}/actions/artifacts/9/zip":
                    self.reply(302, headers=[("Location", f"{base}/storage/9.zip?sig=abc")])
                elif path == "/storage/9.zip":
                    self.reply(200, archive)
                else:
                    self.reply(403, b'{"message": "Resource not accessible by integration"}')

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.api = f"http://127.0.0.1:{self.server.server_port}"
        # A proxy from the environment must not see these requests.
        env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
        self.env = mock.patch.dict(os.environ, env, clear=True)
        self.env.start()

    def tearDown(self):
        self.env.stop()
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()

    def test_fetch_baseline_through_urllib(self):
        with tempfile.TemporaryDirectory() as tmp:
            os.environ.update(GITHUB_TOKEN="SECRET", GITHUB_API_URL=self.api)
            with contextlib.redirect_stderr(io.StringIO()) as err:
                code = pr_loop.main(["fetch-baseline", "--repo", REPO, "--branch", "main",
                                     "--workflow", "perf.yml", "--artifact-prefix",
                                     "perfgate-perf-reports-", "--out", tmp])
            self.assertEqual(code, 0, err.getvalue())
            self.assertEqual(pathlib.Path(tmp, "summary.md").read_text(encoding="utf-8"),
                             "# µs → s\n")
        auth = {path.split("?")[0]: token for path, token in self.seen}
        self.assertEqual(auth[f"/repos/{REPO}/actions/artifacts/9/zip"], "Bearer SECRET")
        self.assertIsNone(auth["/storage/9.zip"], "the token followed the redirect")

    def test_http_error_names_url_and_status(self):
        url = f"{self.api}/repos/{REPO}/issues/5/comments"
        with self.assertRaises(pr_loop.Failure) as caught:
            pr_loop.http_request("POST", url, "SECRET", {"body": "x"})
        self.assertEqual(caught.exception.code, 2)
        self.assertIn(f"POST {url}: HTTP 403", str(caught.exception))
        self.assertIn("Resource not accessible", str(caught.exception))

    def test_unreachable_server_names_url(self):
        # A port nothing listens on: bound, then closed.
        with socket.socket() as free:
            free.bind(("127.0.0.1", 0))
            url = f"http://127.0.0.1:{free.getsockname()[1]}/x"
        with self.assertRaises(pr_loop.Failure) as caught:
            pr_loop.http_request("GET", url)
        self.assertEqual(caught.exception.code, 2)
        self.assertIn(f"GET {url}: ", str(caught.exception))


class Compare(unittest.TestCase):
    def test_verdict_maps_perfgate_compare_exit_codes(self):
        self.assertEqual(pr_loop.verdict(0)[0], 0)
        code, message = pr_loop.verdict(1)
        self.assertEqual(code, 1)
        self.assertTrue(message.startswith("regression: "))
        self.assertEqual(pr_loop.verdict(2), (2, "compare could not read the reports"))
        self.assertEqual(pr_loop.verdict(3)[0], 3)
        self.assertEqual(pr_loop.verdict(77)[0], 77)

    def fake_perfgate(self, tmp, code, markdown="", stderr=""):
        """A perfgate that writes -o's Markdown and exits with `code`."""
        script = pathlib.Path(tmp, "perfgate")
        script.write_text(f"#!{sys.executable}\n"
                          "import sys\n"
                          "args = sys.argv[1:]\n"
                          "assert args[0] == 'compare' and args[3:6] == ['--format', 'md', '-o']\n"
                          f"if {markdown!r}:\n"
                          f"    open(args[6], 'w', encoding='utf-8').write({markdown!r})\n"
                          f"sys.stderr.write({stderr!r})\n"
                          f"sys.exit({code})\n", encoding="utf-8")
        script.chmod(script.stat().st_mode | stat.S_IXUSR)
        pathlib.Path(tmp, "base.json").write_text("{}")
        return str(script)

    def compare(self, tmp, perfgate, base="base.json", extra=()):
        md = pathlib.Path(tmp, "compare.md")
        summary = pathlib.Path(tmp, "summary.md")
        summary.write_text("## this run\n", encoding="utf-8")
        with contextlib.redirect_stderr(io.StringIO()) as err:
            code = pr_loop.main(["compare", "--perfgate", perfgate, "--base",
                                 str(pathlib.Path(tmp, base)), "--head",
                                 str(pathlib.Path(tmp, "head.json")), "--md-out", str(md),
                                 "--no-baseline-body", str(summary), *extra])
        return code, md.read_text(encoding="utf-8") if md.exists() else None, err.getvalue()

    def test_regression_exits_1_with_the_table_written(self):
        table = "## perfgate compare\n\n`a` → `b`: 3 kernels, 1 regressed, 0 with warnings.\n"
        with tempfile.TemporaryDirectory() as tmp:
            code, md, err = self.compare(tmp, self.fake_perfgate(tmp, 1, table))
        self.assertEqual(code, 1)
        self.assertEqual(md, table)
        self.assertIn("regression: 1 of 3 kernels regressed", err)

    def test_no_regression_exits_0(self):
        with tempfile.TemporaryDirectory() as tmp:
            code, md, err = self.compare(tmp, self.fake_perfgate(tmp, 0, "table\n"))
        self.assertEqual((code, md), (0, "table\n"))
        self.assertIn("no regression", err)

    def test_unreadable_reports_exit_2_and_say_why_in_the_markdown(self):
        with tempfile.TemporaryDirectory() as tmp:
            code, md, err = self.compare(
                tmp, self.fake_perfgate(tmp, 2, stderr="perfgate: head.json: no such file\n"))
        self.assertEqual(code, 2)
        self.assertIn("compare could not read the reports", err)
        self.assertIn("perfgate compare failed", md)
        self.assertIn("head.json: no such file", md)

    def test_other_exit_codes_pass_through(self):
        with tempfile.TemporaryDirectory() as tmp:
            code, _, _ = self.compare(tmp, self.fake_perfgate(tmp, 3))
        self.assertEqual(code, 3)

    def test_no_baseline_compares_nothing_and_fails_by_default(self):
        with tempfile.TemporaryDirectory() as tmp:
            code, md, err = self.compare(tmp, "/nonexistent/perfgate", base="missing.json")
        self.assertEqual(code, 4)
        self.assertTrue(md.startswith("**Nothing was compared: no baseline.**"))
        self.assertIn("**This check fails**", md)
        self.assertTrue(md.endswith("## this run\n"))
        self.assertIn("no baseline: nothing was compared, and the check fails", err)

    def test_no_baseline_passes_when_asked_and_says_nothing_was_compared(self):
        with tempfile.TemporaryDirectory() as tmp:
            code, md, err = self.compare(tmp, "/nonexistent/perfgate", base="missing.json",
                                         extra=["--missing-baseline", "pass"])
        self.assertEqual(code, 0)
        self.assertTrue(md.startswith("**Nothing was compared: no baseline.**"))
        self.assertIn("This check passes on the gate alone", md)
        self.assertIn("nothing was compared (missing-baseline pass)", err)

    def test_an_ancestors_baseline_is_named_above_the_table(self):
        with tempfile.TemporaryDirectory() as tmp:
            code, md, _ = self.compare(tmp, self.fake_perfgate(tmp, 0, "table\n"),
                                       extra=["--base-commit", "b" * 40,
                                              "--baseline-commit", "a" * 40])
        self.assertEqual(code, 0)
        self.assertEqual(md, f"Compared with the stored reports of **{'a' * 12}**, the nearest "
                             f"ancestor of the base commit {'b' * 12} that has them: the base "
                             "commit's run failed, was skipped, or its reports expired.\n\n"
                             "table\n")
        with tempfile.TemporaryDirectory() as tmp:
            _, md, _ = self.compare(tmp, self.fake_perfgate(tmp, 1, "table\n"),
                                    extra=["--base-commit", "b" * 40, "--baseline-commit", "b" * 40])
        self.assertEqual(md, f"Compared with the stored reports of the base commit {'b' * 12}."
                             "\n\ntable\n")

    def test_missing_perfgate_is_an_error(self):
        with tempfile.TemporaryDirectory() as tmp:
            pathlib.Path(tmp, "base.json").write_text("{}")
            code, _, err = self.compare(tmp, str(pathlib.Path(tmp, "no-perfgate")))
        self.assertEqual(code, 2)
        self.assertIn("cannot run", err)


if __name__ == "__main__":
    unittest.main()
