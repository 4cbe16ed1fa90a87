#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""`perfgate report --format openmetrics` and `--format junit` read by the parsers other tools
use, and every number and verdict they carry checked against the same report's JSON.

- OpenMetrics: prometheus_client's OpenMetrics parser (Debian's python3-prometheus-client, the
  parser Prometheus' Python client uses for the exposition format) must accept the text, and so
  must GitLab's metrics parser (gitlab_parsers.py: the same number of metrics, none dropped or
  replaced); each family holds one sample per kernel (and device) that has the number in the
  JSON, equal to it at 4 significant digits (the digits of every writer for other tools), and
  none for a kernel that lacks it; a merged report's kernels carry their test (the report file
  their origin names) as the label `test`; the suite's figure (the JSON's `suite`) as gauges
  equal to its numbers where the JSON has one, no suite gauge where it has none.
- JUnit: xmllint validates the file against Jenkins xunit's junit-10.xsd and Ant's JUnit.xsd
  (tests/data/junit/); GitLab's JUnit parser keeps every case (none replaced); a test case per
  kernel, failures and skips counted as in the JSON, a failure's message the first reason;
  where the JSON has a suite, a passing test case for it first and testsuite properties equal
  to its numbers.

usage: check_ci_formats.py PERFGATE REPORT_JSON XSD_DIR WORK_DIR
exit 0 when both pass, 1 when one fails, 77 without the parser or xmllint.
"""
import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gitlab_parsers  # noqa: E402

SCHEMAS = ("jenkins-xunit-junit-10.xsd", "ant-junit.xsd")  # in tests/data/junit/


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def render(perfgate, report, fmt, out):
    subprocess.run([perfgate, "report", str(report), "--format", fmt, "-o", str(out)], check=True)
    return out.read_text(encoding="utf-8")


def sample_key(name, **labels):
    return (name, tuple(sorted(labels.items())))


def rounded(value):
    """A number as the writers for other tools print it: 4 significant digits."""
    return float(f"{value:.4g}")


def origin_test(kernel):
    """The test a merged report's kernel came from: its origin's report file, no .json."""
    origin = kernel.get("origin")
    if not origin:
        return None
    file = origin[:origin.rfind(" (")] if origin.endswith(")") and " (" in origin else origin
    name = os.path.basename(file)
    return name[:-len(".json")] if name.endswith(".json") else name


def expected_suite(suite):
    """The suite's gauges as the JSON's `suite` has its numbers."""
    ratio, confidence = suite["time_ratio"], f"{suite['confidence']:.4g}"
    want = {sample_key("perfgate_suite_time_ratio"): ratio["estimate"],
            sample_key("perfgate_suite_time_ratio_low", confidence=confidence): ratio["lo"],
            sample_key("perfgate_suite_time_ratio_high", confidence=confidence): ratio["hi"]}
    for verdict, count in suite["counts"].items():
        want[sample_key("perfgate_suite_kernels", verdict=verdict)] = count
    return want


def expected_openmetrics(doc):
    """{(family, labels): value} as the JSON has them (names short and unique here)."""
    want = {}
    for k in doc["kernels"]:
        v = k["verdict"]
        test = {"test": origin_test(k)} if origin_test(k) else {}
        local = v.get("device") or doc["profile"].get("local_device") or ""
        at_local = {"kernel": k["name"], "device": local, **test}
        if v.get("efficiency") is not None:
            want[sample_key("perfgate_kernel_efficiency", **at_local)] = v["efficiency"]
        if k.get("measured") and k["measured"].get("time_s"):
            want[sample_key("perfgate_kernel_measured_seconds", **at_local)] = \
                k["measured"]["time_s"]
        if v["status"] != "skip":
            want[sample_key("perfgate_kernel_failed", **at_local)] = \
                1.0 if v["status"] == "fail" else 0.0
        for p in k.get("predictions", []):
            at = {"kernel": k["name"], "device": p["device"], **test}
            if p.get("roof") and p["roof"].get("time_s"):
                want[sample_key("perfgate_kernel_roof_seconds", **at)] = p["roof"]["time_s"]
            if p.get("predicted_time_s"):
                want[sample_key("perfgate_kernel_predicted_seconds", **at)] = p["predicted_time_s"]
    if "suite" in doc:
        want.update(expected_suite(doc["suite"]))
    return want


def parse_openmetrics(text):
    """{(family, labels): value} as prometheus_client's OpenMetrics parser reads the text
    (it raises on anything malformed, a repeated series included), and the units."""
    try:
        from prometheus_client.openmetrics.parser import text_string_to_metric_families
    except ImportError:
        print("skipped: no prometheus_client (apt-get install python3-prometheus-client)")
        sys.exit(77)
    got, units = {}, {}
    for fam in text_string_to_metric_families(text):
        if fam.type != "gauge":
            fail(f"{fam.name}: type {fam.type}, expected gauge")
        units[fam.name] = fam.unit
        for s in fam.samples:
            key = sample_key(s.name, **s.labels)
            if key in got:
                fail(f"two samples for {key}")
            got[key] = s.value
    return got, units


def check_gitlab_metrics(text, samples):
    """GitLab's metrics parser keeps one metric per sample: none lost to a `#`, none replaced."""
    try:
        metrics, repeated = gitlab_parsers.parse_metrics(text)
    except gitlab_parsers.GitLabParseError as e:
        fail(f"GitLab's metrics parser fails the whole report: {e}")
    if repeated or len(metrics) != samples:
        fail(f"GitLab's metrics parser keeps {len(metrics)} metrics ({repeated} replaced) of "
             f"{samples} samples")
    return metrics


def check_openmetrics(text, doc):
    got, units = parse_openmetrics(text)
    check_gitlab_metrics(text, len(got))
    want = expected_openmetrics(doc)
    if set(got) != set(want):
        fail(f"samples differ from the JSON: extra {sorted(set(got) - set(want))[:3]}, "
             f"missing {sorted(set(want) - set(got))[:3]}")
    for key, value in want.items():
        if got[key] != rounded(value):
            fail(f"{key}: {got[key]!r} in OpenMetrics, {value!r} in the JSON "
                 f"({rounded(value)!r} at 4 significant digits)")
    if units.get("perfgate_kernel_roof_seconds") != "seconds":
        fail(f"perfgate_kernel_roof_seconds has unit {units.get('perfgate_kernel_roof_seconds')!r}")
    print(f"ok: OpenMetrics parsed by prometheus_client and GitLab's parser, {len(got)} samples "
          "equal to the JSON's numbers")


def validate_junit(paths, xsd_dir):
    """xmllint against each third-party schema; GitLab's parser keeps every case, no
    (classname, name) twice. The files' roots."""
    xmllint = shutil.which("xmllint")
    if not xmllint:
        print("skipped: no xmllint (apt-get install libxml2-utils)")
        sys.exit(77)
    for schema in SCHEMAS:
        r = subprocess.run([xmllint, "--noout", "--schema", str(Path(xsd_dir, schema)),
                            *map(str, paths)], capture_output=True, text=True)
        if r.returncode != 0:
            fail(f"xmllint rejects JUnit files against {schema}: {r.stderr.strip()[-2000:]}")
    roots = []
    for path in paths:
        try:
            cases, replaced = gitlab_parsers.parse_junit(path)
        except gitlab_parsers.GitLabParseError as e:
            fail(f"{path}: GitLab's JUnit parser fails the report: {e}")
        root = ET.parse(path).getroot()
        pairs = [(c.get("classname"), c.get("name")) for c in root.iter("testcase")]
        if replaced or len(cases) != len(pairs) or len(set(pairs)) != len(pairs):
            fail(f"{path}: {len(pairs)} test cases, {len(set(pairs))} distinct (classname, "
                 f"name), GitLab keeps {len(cases)}")
        roots.append(root)
    return roots


def check_junit(path, xsd_dir, doc):
    root = validate_junit([path], xsd_dir)[0]
    cases = root.findall("./testsuite/testcase")
    check_junit_suite(root, cases, doc.get("suite"))
    if "suite" in doc:
        cases = cases[1:]
    kernels = doc["kernels"]
    if [c.get("name") for c in cases] != [k["name"] for k in kernels]:
        fail("the test cases are not the report's kernels, in order")
    statuses = [k["verdict"]["status"] for k in kernels]
    suites = root.findall("./testsuite")
    for attr, status in (("failures", "fail"), ("skipped", "skip")):
        counted = sum(int(s.get(attr)) for s in suites)
        if counted != statuses.count(status):
            fail(f"{attr}: {counted} over the suites, the JSON has {statuses.count(status)} "
                 f"'{status}'")
    tests = sum(int(s.get("tests")) for s in suites)
    if tests != len(kernels) + ("suite" in doc):
        fail(f"tests={tests} for {len(kernels)} kernels and "
             f"{'a' if 'suite' in doc else 'no'} suite")
    for c, k in zip(cases, kernels):
        v = k["verdict"]
        failure, skipped = c.find("failure"), c.find("skipped")
        if (failure is not None) != (v["status"] == "fail"):
            fail(f"{k['name']}: failure element {failure is not None}, status {v['status']}")
        if (skipped is not None) != (v["status"] == "skip"):
            fail(f"{k['name']}: skipped element {skipped is not None}, status {v['status']}")
        if failure is not None and failure.get("message") != v["reasons"][0]:
            fail(f"{k['name']}: failure message is not the verdict's first reason")
        test = origin_test(k)
        if test and not c.get("classname").startswith(f"perfgate.{test}."):
            fail(f"{k['name']}: classname {c.get('classname')!r} does not name its test {test}")
    print(f"ok: JUnit valid against {' and '.join(SCHEMAS)}, kept whole by GitLab's parser, "
          f"{len(cases)} test cases matching the JSON")


def check_junit_suite(root, cases, suite):
    """The suite's test case first and its properties, or neither without a suite."""
    props = {p.get("name"): p.get("value")
             for p in root.findall("./testsuite/properties/property")
             if p.get("name").startswith("perfgate.suite.")}
    suite_cases = [c for c in cases if c.get("classname") == "perfgate.suite"]
    if suite is None:
        if props or suite_cases:
            fail("no suite in the JSON, yet the JUnit file has suite properties or a suite case")
        return
    if not cases or cases[0] not in suite_cases or len(suite_cases) != 1:
        fail("the JSON has a suite: its test case must come first, once")
    if len(cases[0]) != 0:
        fail("the suite's test case must pass")
    if "geometric mean time ratio" not in (root.find("./testsuite/system-out").text or ""):
        fail("the first suite's system-out must hold the suite's line")
    ratio = suite["time_ratio"]
    want = {"time_ratio": ratio["estimate"], "time_ratio_low": ratio["lo"],
            "time_ratio_high": ratio["hi"], "confidence": suite["confidence"],
            "kernels": suite["kernels"], **suite["counts"]}
    for name, value in want.items():
        got = props.get("perfgate.suite." + name)
        if got is None or float(got) != rounded(value):
            fail(f"property perfgate.suite.{name} is {got!r}, the JSON has {value!r}")


def check_both(perfgate, report, xsd_dir, work, doc):
    check_openmetrics(render(perfgate, report, "openmetrics", work / "report.openmetrics.txt"), doc)
    render(perfgate, report, "junit", work / "report.junit.xml")
    check_junit(work / "report.junit.xml", xsd_dir, doc)


def main(perfgate, report, xsd_dir, work):
    work = Path(work)
    work.mkdir(parents=True, exist_ok=True)
    doc = json.loads(Path(report).read_text(encoding="utf-8"))
    if not any(k["verdict"]["status"] == "fail" for k in doc["kernels"]) or \
       not any(k["verdict"]["status"] == "skip" for k in doc["kernels"]) or "suite" not in doc:
        fail(f"{report} should hold a failed and a skipped kernel and a suite for this check "
             "to mean much")
    check_both(perfgate, report, Path(xsd_dir), work, doc)
    # The same report without a comparison: no suite gauge, property or test case at all.
    del doc["suite"]
    no_suite = work / "no-suite.json"
    no_suite.write_text(json.dumps(doc), encoding="utf-8")
    check_both(perfgate, no_suite, Path(xsd_dir), work, doc)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
