#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""`perfgate report --format openmetrics` and `--format junit` read by real parsers, and every
number and verdict they carry checked against the same report's JSON.

- OpenMetrics: prometheus_client's OpenMetrics parser (Debian's python3-prometheus-client, the
  parser Prometheus' Python client uses for the exposition format) must accept the text; each
  family holds one sample per kernel (and device) that has the number in the JSON, equal to it
  as a double, and none for a kernel that lacks it; the suite's figure (the JSON's `suite`) as
  gauges equal to its numbers where the JSON has one, no suite gauge where it has none.
- JUnit: xmllint validates the file against tests/data/junit/junit.xsd; a test case per
  kernel, failures and skips counted as in the JSON, a failure's message the first reason;
  where the JSON has a suite, a passing test case for it first and testsuite properties equal
  to its numbers.

usage: check_ci_formats.py PERFGATE REPORT_JSON XSD WORK_DIR
exit 0 when both pass, 1 when one fails, 77 without the parser or xmllint.
"""
import json
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def render(perfgate, report, fmt, out):
    subprocess.run([perfgate, "report", str(report), "--format", fmt, "-o", str(out)], check=True)
    return out.read_text(encoding="utf-8")


def sample_key(name, **labels):
    return (name, tuple(sorted(labels.items())))


def expected_suite(suite):
    """The suite's gauges as the JSON's `suite` has its numbers."""
    ratio, confidence = suite["time_ratio"], str(suite["confidence"])
    want = {sample_key("perfgate_suite_time_ratio"): ratio["estimate"],
            sample_key("perfgate_suite_time_ratio_low", confidence=confidence): ratio["lo"],
            sample_key("perfgate_suite_time_ratio_high", confidence=confidence): ratio["hi"]}
    for verdict, count in suite["counts"].items():
        want[sample_key("perfgate_suite_kernels", verdict=verdict)] = count
    return want


def expected_openmetrics(doc):
    """{(family, labels): value} as the JSON has them."""
    want = {}
    for k in doc["kernels"]:
        v = k["verdict"]
        local = v.get("device") or doc["profile"].get("local_device") or ""
        at_local = {"kernel": k["name"], "device": local}
        if v.get("efficiency") is not None:
            want[sample_key("perfgate_kernel_efficiency", **at_local)] = v["efficiency"]
        if k.get("measured") and k["measured"].get("time_s"):
            want[sample_key("perfgate_kernel_measured_seconds", **at_local)] = \
                k["measured"]["time_s"]
        if v["status"] != "skip":
            want[sample_key("perfgate_kernel_failed", **at_local)] = \
                1.0 if v["status"] == "fail" else 0.0
        for p in k.get("predictions", []):
            at = {"kernel": k["name"], "device": p["device"]}
            if p.get("roof") and p["roof"].get("time_s"):
                want[sample_key("perfgate_kernel_roof_seconds", **at)] = p["roof"]["time_s"]
            if p.get("predicted_time_s"):
                want[sample_key("perfgate_kernel_predicted_seconds", **at)] = p["predicted_time_s"]
    if "suite" in doc:
        want.update(expected_suite(doc["suite"]))
    return want


def check_openmetrics(text, doc):
    try:
        from prometheus_client.openmetrics.parser import text_string_to_metric_families
    except ImportError:
        print("skipped: no prometheus_client (apt-get install python3-prometheus-client)")
        sys.exit(77)
    got = {}
    units = {}
    for fam in text_string_to_metric_families(text):  # raises on anything malformed
        if fam.type != "gauge":
            fail(f"{fam.name}: type {fam.type}, expected gauge")
        units[fam.name] = fam.unit
        for s in fam.samples:
            key = sample_key(s.name, **s.labels)
            if key in got:
                fail(f"two samples for {key}")
            got[key] = s.value
    want = expected_openmetrics(doc)
    if set(got) != set(want):
        fail(f"samples differ from the JSON: extra {sorted(set(got) - set(want))[:3]}, "
             f"missing {sorted(set(want) - set(got))[:3]}")
    for key, value in want.items():
        if got[key] != float(value):
            fail(f"{key}: {got[key]!r} in OpenMetrics, {value!r} in the JSON")
    if units.get("perfgate_kernel_roof_seconds") != "seconds":
        fail(f"perfgate_kernel_roof_seconds has unit {units.get('perfgate_kernel_roof_seconds')!r}")
    print(f"ok: OpenMetrics parsed, {len(got)} samples equal to the JSON's numbers")


def check_junit(path, xsd, doc):
    xmllint = shutil.which("xmllint")
    if not xmllint:
        print("skipped: no xmllint (apt-get install libxml2-utils)")
        sys.exit(77)
    r = subprocess.run([xmllint, "--noout", "--schema", str(xsd), str(path)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"xmllint rejects the JUnit file against {xsd.name}: {r.stderr.strip()}")
    root = ET.parse(path).getroot()
    cases = root.findall("./testsuite/testcase")
    check_junit_suite(root, cases, doc.get("suite"))
    if "suite" in doc:
        cases = cases[1:]
    kernels = doc["kernels"]
    if [c.get("name") for c in cases] != [k["name"] for k in kernels]:
        fail("the test cases are not the report's kernels, in order")
    statuses = [k["verdict"]["status"] for k in kernels]
    for attr, status in (("failures", "fail"), ("skipped", "skip")):
        if int(root.get(attr)) != statuses.count(status):
            fail(f"{attr}={root.get(attr)}, the JSON has {statuses.count(status)} '{status}'")
    if int(root.get("tests")) != len(kernels) + ("suite" in doc):
        fail(f"tests={root.get('tests')} for {len(kernels)} kernels and "
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
    print(f"ok: JUnit valid against {xsd.name}, {len(cases)} test cases matching the JSON")


def check_junit_suite(root, cases, suite):
    """The suite's test case first and its properties, or neither without a suite."""
    props = {p.get("name"): p.get("value")
             for p in root.findall("./testsuite/properties/property")}
    suite_cases = [c for c in cases if c.get("classname") == "perfgate.suite"]
    if suite is None:
        if props or suite_cases:
            fail("no suite in the JSON, yet the JUnit file has suite properties or a suite case")
        return
    if not cases or cases[0] not in suite_cases or len(suite_cases) != 1:
        fail("the JSON has a suite: its test case must come first, once")
    if len(cases[0]) != 1 or cases[0][0].tag != "system-out":
        fail("the suite's test case must pass with its figure in system-out")
    ratio = suite["time_ratio"]
    want = {"time_ratio": ratio["estimate"], "time_ratio_low": ratio["lo"],
            "time_ratio_high": ratio["hi"], "confidence": suite["confidence"],
            "kernels": suite["kernels"], **suite["counts"]}
    for name, value in want.items():
        got = props.get("perfgate.suite." + name)
        if got is None or float(got) != float(value):
            fail(f"property perfgate.suite.{name} is {got!r}, the JSON has {value!r}")


def check_both(perfgate, report, xsd, work, doc):
    check_openmetrics(render(perfgate, report, "openmetrics", work / "report.openmetrics.txt"), doc)
    render(perfgate, report, "junit", work / "report.junit.xml")
    check_junit(work / "report.junit.xml", xsd, doc)


def main(perfgate, report, xsd, work):
    work = Path(work)
    work.mkdir(parents=True, exist_ok=True)
    doc = json.loads(Path(report).read_text(encoding="utf-8"))
    if not any(k["verdict"]["status"] == "fail" for k in doc["kernels"]) or \
       not any(k["verdict"]["status"] == "skip" for k in doc["kernels"]) or "suite" not in doc:
        fail(f"{report} should hold a failed and a skipped kernel and a suite for this check "
             "to mean much")
    check_both(perfgate, report, Path(xsd), work, doc)
    # The same report without a comparison: no suite gauge, property or test case at all.
    del doc["suite"]
    no_suite = work / "no-suite.json"
    no_suite.write_text(json.dumps(doc), encoding="utf-8")
    check_both(perfgate, no_suite, Path(xsd), work, doc)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
