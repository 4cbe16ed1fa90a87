#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Property test of the names in reports for other tools (issue 52; the one place that makes
them: perfgate/report/writers/tool_names.hpp). Rounds of generated reports, each several CTest
tests' reports (the writers' golden report with its kernels renamed), on one or two hosts, the
same kernel in several tests and on both hosts, a name twice in one report; names mixing `#`,
quotes, backslashes, line feeds, carriage returns, tabs, braces, commas, `=`, `%`, `$`, XML's
specials, non-ASCII and astral characters, and names of up to 3,000 characters, some differing
only past the bound. Each report and their `perfgate merge` are rendered as OpenMetrics and
JUnit, and:
  - prometheus_client's OpenMetrics parser reads every file (it fails on a malformed line and on
    a series twice);
  - GitLab's metrics parser (tests/cli/gitlab_parsers.py, from GitLab's source) reads it whole:
    no failure, one metric per sample, none lost to a `#`, none replaced;
  - every label value holds at most 120 bytes of UTF-8 once unescaped (a kernel numbered for
    uniqueness " (n)" more), and the samples are exactly those the report's numbers give;
  - xmllint accepts every JUnit file against Jenkins xunit's junit-10.xsd and Ant's JUnit.xsd;
    GitLab's JUnit parser keeps every test case; no (classname, name) pair twice; names
    bounded; one test case per kernel.

usage: check_tool_names.py PERFGATE REPORT_JSON XSD_DIR WORK_DIR [ROUNDS [SEED]]
exit 0 when every round passes, 1 at the first that fails (its files kept in WORK_DIR),
77 without prometheus_client or xmllint.
"""
import copy
import json
import os
import random
import re
import shutil
import subprocess
import sys
import urllib.parse
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_ci_formats  # noqa: E402
import gitlab_parsers  # noqa: E402
from check_ci_formats import SCHEMAS, fail  # noqa: E402

NAME_MAX = 120  # tool_names.hpp: k_tool_name_max
PIECES = ["#", '"', "'", "\\", "\n", "\r", "\t", "{", "}", ",", "=", " ", "%", "%23", "$", "`",
          "<", ">", "&", "é", "日本", "\U0001F680", "\\n", '\\"', "{lambda(int)#1}", "BM_copy",
          "void k<float, 4>(float*, int)", "::", "[grid 64x1x1]", "\u00a0", "\u2028"]


def generated_name(rng, file_name=False):
    """A kernel or test name: a random mix of the pieces, sometimes very long."""
    if rng.random() < 0.15:  # long: only the tail tells them apart
        name = "very_long_template_name<" * rng.randint(3, 120) + rng.choice(PIECES) + \
            str(rng.randint(0, 3))
    else:
        name = "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 8)))
    if file_name:  # a test's report file: no folder separator, within NAME_MAX of file systems
        name = name.replace("/", "_").encode()[:200].decode(errors="ignore") or "t"
    return name


def round_reports(rng, golden, work):
    """[(path, doc)] of one round: 2 to 4 tests on one or two hosts."""
    kernel_pool = [generated_name(rng) for _ in range(rng.randint(2, 6))]
    tests = [generated_name(rng, file_name=True) for _ in range(rng.randint(2, 4))]
    hosts = ["runner-a", "runner-b"][:rng.randint(1, 2)]
    reports = []
    for i, test in enumerate(tests):
        for host in (hosts if i == 0 else [rng.choice(hosts)]):  # the first test on each host
            doc = copy.deepcopy(golden)
            doc["meta"]["host"] = host
            for k in doc["kernels"]:
                k["name"] = rng.choice(kernel_pool)  # the same name in several tests, or twice
            path = Path(work, host, f"{test}.json")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(doc), encoding="utf-8")
            reports.append((path, doc))
    return reports


def run(command):
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        fail(f"{command[:3]} exited {done.returncode}: {done.stderr.strip()[-1500:]}")
    return done


def expected_samples(doc):
    """How many samples the report's numbers give (tool_names keeps every kernel apart)."""
    n = 0
    for k in doc["kernels"]:
        v = k["verdict"]
        n += v.get("efficiency") is not None
        n += bool(k.get("measured") and k["measured"].get("time_s"))
        n += v["status"] != "skip"
        for p in k.get("predictions", []):
            n += bool(p.get("roof") and p["roof"].get("time_s"))
            n += bool(p.get("predicted_time_s"))
    if "suite" in doc:
        n += 3 + len(doc["suite"]["counts"])
    return n


def bounded(value, what):
    """At most NAME_MAX bytes once the OpenMetrics percent-encoding is undone; a numbered
    kernel may end with ' (n)'."""
    raw = urllib.parse.unquote(value, errors="strict")
    raw = re.sub(r" \(\d+\)$", "", raw)
    if len(raw.encode()) > NAME_MAX:
        fail(f"{what} {value[:80]!r}... holds {len(raw.encode())} bytes, more than {NAME_MAX}")


def names_the_test(label, test):
    """Whether a `test` label (percent-decoded) is the test's name as tool_names bounds it:
    control characters as spaces, a long name's head and "~" with 8 hex digits, "@<host>"
    where another runner's report held the same kernel."""
    label = re.sub(r"@runner-[ab]$", "", urllib.parse.unquote(label))
    test = re.sub(r"[\x00-\x1f\x7f]", " ", test)
    if re.search(r"~[0-9a-f]{8}$", label) and len(test.encode()) > NAME_MAX:
        return test.startswith(label[:-9])
    return label == test


def check_test_labels(path, series, doc):
    """A merged report's kernel series each name the kernel's test (its origin)."""
    tests = {check_ci_formats.origin_test(k) for k in doc["kernels"] if k.get("origin")}
    for name, labels in series:
        labels = dict(labels)
        if name.startswith("perfgate_kernel_") and tests:
            if not any(names_the_test(labels.get("test", "\0"), t) for t in tests):
                fail(f"{path}: {name} {labels} names none of the merged tests")


def check_openmetrics(path, doc):
    from prometheus_client.openmetrics.parser import text_string_to_metric_families
    text = path.read_text(encoding="utf-8")
    series = set()
    try:
        for family in text_string_to_metric_families(text):
            for s in family.samples:
                key = (s.name, tuple(sorted(s.labels.items())))
                if key in series:
                    fail(f"{path}: the series {key} twice")
                series.add(key)
                for label in ("kernel", "device", "test"):
                    if label in s.labels:
                        bounded(s.labels[label], f"{path}: label {label}")
    except ValueError as e:
        fail(f"{path}: prometheus_client's OpenMetrics parser: {e}")
    check_test_labels(path, series, doc)
    if len(series) != expected_samples(doc):
        fail(f"{path}: {len(series)} samples, the report's numbers give {expected_samples(doc)}")
    try:
        metrics, repeated = gitlab_parsers.parse_metrics(text)
    except gitlab_parsers.GitLabParseError as e:
        fail(f"{path}: GitLab's metrics parser fails the whole report: {e}")
    if repeated or len(metrics) != len(series):
        fail(f"{path}: GitLab keeps {len(metrics)} metrics ({repeated} replaced) of "
             f"{len(series)} samples")
    kernels = {(dict(k[1]).get("test"), dict(k[1])["kernel"]) for k in series
               if k[0] == "perfgate_kernel_measured_seconds"}
    if len(kernels) != sum(1 for k in doc["kernels"] if k.get("measured")):
        fail(f"{path}: {len(kernels)} (test, kernel) label pairs for {len(doc['kernels'])} kernels")
    return len(series)


def check_junit(paths, docs, xsd_dir):
    """Both schemas and GitLab's parser (check_ci_formats), then one test case per kernel and
    every name bounded."""
    for path, doc, root in zip(paths, docs, check_ci_formats.validate_junit(paths, xsd_dir)):
        names = [c.get("name") for c in root.iter("testcase")]
        want = len(doc["kernels"]) + ("suite" in doc)
        if len(names) != want:
            fail(f"{path}: {len(names)} test cases for {want}")
        for name in names:
            bounded(name, f"{path}: test case")


def main(perfgate, golden_path, xsd_dir, work, rounds=20, seed=52):
    try:
        import prometheus_client.openmetrics.parser  # noqa: F401
    except ImportError:
        print("skipped: no prometheus_client (apt-get install python3-prometheus-client)")
        return 77
    if not shutil.which("xmllint"):
        print("skipped: no xmllint (apt-get install libxml2-utils)")
        return 77
    golden = json.loads(Path(golden_path).read_text(encoding="utf-8"))
    rng = random.Random(int(seed))
    samples = files = 0
    for n in range(int(rounds)):
        folder = Path(work, f"round-{n}")
        shutil.rmtree(folder, ignore_errors=True)
        reports = round_reports(rng, golden, folder)
        merged = folder / "merged.json"
        run([perfgate, "merge", *[str(p) for p, _ in reports], "-o", str(merged)])
        parts = reports + [(merged, json.loads(merged.read_text(encoding="utf-8")))]
        junit = []
        for i, (path, doc) in enumerate(parts):
            metrics, xml = folder / f"{i}.openmetrics.txt", folder / f"{i}.junit.xml"
            run([perfgate, "report", str(path), "--format", "openmetrics", "-o", str(metrics)])
            run([perfgate, "report", str(path), "--format", "junit", "-o", str(xml)])
            samples += check_openmetrics(metrics, doc)
            junit.append(xml)
        check_junit(junit, [doc for _, doc in parts], xsd_dir)
        files += len(parts)
        shutil.rmtree(folder)
    print(f"ok: {rounds} rounds, {files} reports ({rounds} merged), {samples} samples: parsed "
          "by prometheus_client and GitLab's parser, no series or test case twice, names "
          f"within {NAME_MAX} bytes, JUnit valid against {' and '.join(SCHEMAS)}")
    return 0


if __name__ == "__main__":
    if not 5 <= len(sys.argv) <= 7:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
