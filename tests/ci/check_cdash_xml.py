#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""What CDash receives from perfgate's perf tests (docs/ci.md, "CDash"), checked offline.

Installs perfgate, configures tests/ci/cdash_project against the install tree with
find_package(PerfGate), runs `ctest -T Test` there (Testing/<tag>/Test.xml is the file
`ctest -D Experimental` would submit; nothing is submitted) and checks that Test.xml:
  - parses as XML;
  - holds, for every kernel with an efficiency in each perf test's report, one
    <NamedMeasurement type="numeric/double" name="<kernel>.efficiency"> whose <Value> is that
    efficiency (4 decimals) and lies in (0, 10];
  - gives a kernel name with < > & and " back exactly once parsed (perfgate escapes it; CTest
    3.25 copies the name into Test.xml as printed, and drops a measurement whose name holds a
    raw < or &);
  - attaches the failing test's report as CTest 3.25 writes ATTACHED_FILES_ON_FAIL: a
    <NamedMeasurement name="Attached File" type="file" encoding="base64" compression="tar/gzip"
    filename="<test>.json"> child of <Test>, a gzip tar holding the report byte for byte; the
    passing test attaches nothing;
  - embeds each test's roofline (<CTestMeasurementFile type="image/svg+xml">) as a base64 SVG.

usage: check_cdash_xml.py CMAKE CTEST PERFGATE_BUILD_DIR SOURCE_DIR WORK_DIR
"""
import base64
import io
import json
import shutil
import subprocess
import tarfile
import xml.etree.ElementTree as ET
from pathlib import Path

from check_support import CheckFailed, check, run_main

TEMPLATED = 'BM_copy<float, "a&b">'
EXPECTED_STATUS = {"perf.stream": "failed", "perf.templated": "passed"}


def run(what, command, cwd=None, expect_success=True):
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    if expect_success and done.returncode != 0:
        raise CheckFailed(f"{what} failed ({done.returncode})\n  Command: {' '.join(command)}\n"
                          f"{done.stdout}{done.stderr}")
    return done


def named(parent, name):
    return [m for m in parent.findall("NamedMeasurement") if m.get("name") == name]


def check_test(test_xml, test, build):
    name = test.findtext("Name")
    where = f"{test_xml}: test {name}"
    check(test.get("Status") == EXPECTED_STATUS[name],
          f"{where}: Status=\"{test.get('Status')}\", expected \"{EXPECTED_STATUS[name]}\"")
    results = test.find("Results")
    check(results is not None, f"{where}: no <Results>")
    report_path = build / "perfgate-reports" / f"{name}.json"
    check(report_path.exists(), f"{where}: the test wrote no report at {report_path}")
    report = json.loads(report_path.read_text(encoding="utf-8"))

    # One numeric measurement per kernel with an efficiency, and none for anything else.
    want = {f"{k['name']}.efficiency": k["verdict"]["efficiency"] for k in report["kernels"]
            if k["verdict"].get("efficiency") is not None}
    check(want, f"{where}: its report {report_path} has no kernel with an efficiency")
    got = {m.get("name"): m for m in results.findall("NamedMeasurement")
           if (m.get("name") or "").endswith(".efficiency")}
    check(sorted(got) == sorted(want),
          f"{where}: efficiency measurements {sorted(got)}, expected one per kernel of "
          f"{report_path}: {sorted(want)}")
    for measurement, efficiency in want.items():
        m = got[measurement]
        check(m.get("type") == "numeric/double",
              f"{where}: <NamedMeasurement name=\"{measurement}\"> has type=\"{m.get('type')}\", "
              "expected \"numeric/double\"")
        text = m.findtext("Value")
        try:
            value = float(text)
        except (TypeError, ValueError):
            raise CheckFailed(f"{where}: {measurement}: <Value>{text}</Value> is not a number")
        check(0 < value <= 10, f"{where}: {measurement} = {value}, expected in (0, 10]")
        check(abs(value - efficiency) <= 5e-5,
              f"{where}: {measurement} = {value}, but the report says {efficiency}")

    # The roofline chart, embedded as an image.
    charts = named(results, "roofline")
    check(len(charts) == 1, f"{where}: {len(charts)} roofline measurements, expected 1")
    chart = charts[0]
    check(chart.get("type") == "image/svg+xml" and chart.get("encoding") == "base64",
          f"{where}: roofline measurement attributes {chart.attrib}, expected type image/svg+xml "
          "and encoding base64")
    svg = base64.b64decode(chart.findtext("Value") or "").decode("utf-8")
    check(svg.startswith("<?xml") and "<svg" in svg and "perfgate roofline: bad" in svg,
          f"{where}: the roofline measurement does not decode to perfgate's SVG chart of the "
          f"local device 'bad': {svg[:200]!r}")

    # ATTACHED_FILES_ON_FAIL: the report of a failing test only.
    attached = named(test, "Attached File")
    if EXPECTED_STATUS[name] == "passed":
        check(not attached, f"{where}: a passing test has an attached file")
        return
    check(len(attached) == 1,
          f"{where}: {len(attached)} <NamedMeasurement name=\"Attached File\"> children of "
          "<Test>, expected 1 (ATTACHED_FILES_ON_FAIL)")
    a = attached[0]
    expected = {"name": "Attached File", "type": "file", "encoding": "base64",
                "compression": "tar/gzip", "filename": f"{name}.json"}
    check(a.attrib == expected,
          f"{where}: attached file attributes {a.attrib}, expected {expected}")
    try:
        archive = tarfile.open(fileobj=io.BytesIO(base64.b64decode(a.findtext("Value") or "")),
                               mode="r:gz")
        members = archive.getmembers()
        check([m.name for m in members] == [f"{name}.json"],
              f"{where}: the attached archive holds {[m.name for m in members]}, expected "
              f"{name}.json")
        content = archive.extractfile(members[0]).read()
    except (tarfile.TarError, OSError, ValueError) as e:
        raise CheckFailed(f"{where}: the attached file is no base64 gzip tar: {e}")
    check(content == report_path.read_bytes(),
          f"{where}: the attached {name}.json differs from {report_path}")
    failed = [k["name"] for k in report["kernels"] if k["verdict"]["status"] == "fail"]
    check(failed == ["BM_triad_strided"],
          f"{where}: the attached report fails {failed}, expected ['BM_triad_strided']")


def main(cmake, ctest, perfgate_build, source, work):
    source, work = Path(source), Path(work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    install, build = work / "install", work / "build"
    run("install perfgate", [cmake, "--install", perfgate_build, "--prefix", str(install)])
    run("configure tests/ci/cdash_project",
        [cmake, "-S", str(source / "tests/ci/cdash_project"), "-B", str(build),
         f"-DCMAKE_PREFIX_PATH={install}", f"-DPERFGATE_TEST_DATA={source / 'tests/data'}",
         f"-DBENCHMARK_PROGRAM={source / 'tests/cli/fake_gbench.sh'}"])
    done = run("ctest -T Test", [ctest, "-T", "Test"], cwd=build, expect_success=False)
    output = done.stdout + done.stderr
    check(done.returncode != 0, f"ctest -T Test passed, but perf.stream must fail:\n{output}")

    tag_file = build / "Testing" / "TAG"
    check(tag_file.exists(), f"ctest -T Test wrote no {tag_file}:\n{output}")
    tag = tag_file.read_text().splitlines()[0]
    test_xml = build / "Testing" / tag / "Test.xml"
    check(test_xml.exists(), f"ctest -T Test wrote no {test_xml}:\n{output}")
    try:
        root = ET.parse(test_xml).getroot()
    except ET.ParseError as e:
        raise CheckFailed(f"{test_xml} is not well-formed XML: {e}")
    print(f"ok: {test_xml} parses ({root.get('Generator')})")

    tests = {t.findtext("Name"): t for t in root.iter("Test") if t.find("Name") is not None}
    check(sorted(tests) == sorted(EXPECTED_STATUS),
          f"{test_xml}: tests {sorted(tests)}, expected {sorted(EXPECTED_STATUS)}")
    for name, test in sorted(tests.items()):
        check_test(test_xml, test, build)
        print(f"ok: {name}: {test.get('Status')}, one efficiency measurement per kernel, "
              "the roofline embedded" + (", its report attached" if name == "perf.stream" else ""))

    # Escaping: the name parses back to the kernel's, and the file holds the escaped form.
    names = [m.get("name") for m in tests["perf.templated"].iter("NamedMeasurement")]
    check(f"{TEMPLATED}.efficiency" in names,
          f"{test_xml}: perf.templated has no measurement named {TEMPLATED}.efficiency once "
          f"parsed: {names}")
    escaped = 'name="BM_copy&lt;float, &quot;a&amp;b&quot;&gt;.efficiency"'
    check(escaped in test_xml.read_text(encoding="utf-8"),
          f"{test_xml}: the attribute {escaped} is missing")
    print(f"ok: the kernel name {TEMPLATED} is escaped in Test.xml and parses back to itself")
    return 0


if __name__ == "__main__":
    run_main(main, 5, __doc__)
