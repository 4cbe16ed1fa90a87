#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Validates perfgate's JSON output against the JSON Schemas in perfgate/schema/.

Every report and device file this test makes (predict on every bundled and fixture profile,
run, merge, calibrate, the built-in database) and every one the other tests left in the build
tree is checked with Debian's python3-jsonschema (Draft 2020-12).

A long array (an A100's NeuSight report holds 4,352 kernels; the build tree's 161 reports hold
72,238) is checked one element per shape: two elements have one shape when they have the same
keys at every depth and every value sits on the same side of every bound the schemas state (each
minimum, maximum, length limit, pattern, enum and const value). Within one document such
elements pass or fail the same checks (a keyword whose checks a shape does not decide stops the
test); checking every one of them took 135-160 s of each CI configuration, alone on the 2-core
VM. A control proves that a kernel without its name at the end of the largest report (its kernels
repeated past 64 where it is shorter) is still found.

usage: validate_reports.py PERFGATE SOURCE_DIR BUILD_DIR WORK_DIR
"""
import bisect
import json
import re
import subprocess
import sys
from pathlib import Path

try:
    import jsonschema
except ImportError:  # 77: CTest's skip, unless the build requires the validator
    print(f"skipped: {sys.executable} has no jsonschema (Debian: python3-jsonschema; "
          "scripts/install-deps.sh installs it)", file=sys.stderr)
    sys.exit(77)


LONG = 64  # arrays longer than this are checked one element per shape


class Shapes:
    """The bounds of a set of schemas, and the shape of a JSON value relative to them."""

    def __init__(self, schemas):
        self.numbers, self.lengths, self.patterns, self.words = set(), set(), set(), set()
        for schema in schemas:
            self._collect(schema)
        self.numbers, self.lengths = sorted(self.numbers), sorted(self.lengths)
        self.patterns = [re.compile(p) for p in sorted(self.patterns)]
        self._strings = {}

    # The keywords whose checks a shape decides. Another keyword (uniqueItems, multipleOf, a
    # checked format...) could tell two elements of one shape apart: the test stops on it.
    KEYWORDS = {"$schema", "$id", "$ref", "$defs", "$comment", "title", "description", "default",
                "examples", "format", "type", "properties", "patternProperties",
                "additionalProperties", "propertyNames", "required", "items", "prefixItems",
                "enum", "const", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
                "minItems", "maxItems", "minLength", "maxLength", "pattern", "allOf", "anyOf",
                "oneOf", "not", "if", "then", "else",
                "minProperties", "maxProperties", "dependentRequired"}  # keys: in the shape
    NAMED = {"properties", "patternProperties", "$defs"}  # maps of names to schemas

    def _collect(self, schema):
        if isinstance(schema, bool):
            return
        for key, value in schema.items():
            if key not in self.KEYWORDS:
                sys.exit(f"schema keyword '{key}': validate_reports.py's shapes do not decide it")
            if key in self.NAMED:
                for sub in value.values():
                    self._collect(sub)
            elif key in ("allOf", "anyOf", "oneOf", "prefixItems"):
                for sub in value:
                    self._collect(sub)
            elif key in ("items", "additionalProperties", "propertyNames", "not", "if", "then",
                         "else"):
                self._collect(value)
            elif key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
                self.numbers.add(value)
            elif key in ("minItems", "maxItems", "minLength", "maxLength"):
                self.lengths.add(value)
            elif key == "pattern":
                self.patterns.add(value)
            elif key in ("enum", "const"):
                for word in value if key == "enum" else [value]:
                    if isinstance(word, str):
                        self.words.add(word)
                    elif isinstance(word, (int, float)) and not isinstance(word, bool):
                        self.numbers.add(word)

    def _side(self, bounds, x):  # which interval between (or which one of) the bounds x is in
        i = bisect.bisect_left(bounds, x)
        return 2 * i + (i < len(bounds) and bounds[i] == x)

    def of(self, value):
        if isinstance(value, dict):  # keys in the writer's order: another order is another shape
            return ("o",) + tuple((k, self.of(v)) for k, v in value.items())
        if isinstance(value, list):
            return ("a", self._side(self.lengths, len(value)),
                    frozenset(self.of(v) for v in value))
        if isinstance(value, bool) or value is None:
            return ("v", value)
        if isinstance(value, (int, float)):
            return ("n", isinstance(value, int), self._side(self.numbers, value))
        shape = self._strings.get(value)
        if shape is None:  # names repeat across documents: each string is classified once
            shape = ("s", self._side(self.lengths, len(value)),
                     value if value in self.words else None,
                     tuple(bool(p.search(value)) for p in self.patterns))
            self._strings[value] = shape
        return shape

    def reduced(self, value):
        """The value with every long array cut to its first element of each shape (and kept
        whole where the cut would change which side of a length bound it is on)."""
        if isinstance(value, dict):
            return {k: self.reduced(v) for k, v in value.items()}
        if not isinstance(value, list):
            return value
        if len(value) <= LONG:
            return [self.reduced(v) for v in value]
        kept, seen = [], set()
        for item in value:
            shape = self.of(item)
            if shape not in seen:
                seen.add(shape)
                kept.append(item)
        if self._side(self.lengths, len(kept)) != self._side(self.lengths, len(value)):
            kept = value
        return [self.reduced(v) for v in kept]


def control(validator, shapes, name, doc, key):
    """A copy of the report doc whose last kernel lacks a required key, reduced as every
    document is, must fail: the shape cut keeps a broken kernel wherever it is."""
    broken = json.loads(json.dumps(doc))
    # The tests that leave reports of thousands of kernels may not have run yet (CTest orders
    # by its cost data, and a single configuration may run alone): the report's own kernels,
    # repeated past LONG, make the long array then.
    if not broken["kernels"]:
        sys.exit(f"{name}: the control needs a report with kernels")
    while len(broken["kernels"]) <= LONG:
        broken["kernels"] += json.loads(json.dumps(broken["kernels"]))
    length = len(broken["kernels"])
    del broken["kernels"][-1][key]
    if not any(True for _ in validator.iter_errors(shapes.reduced(broken))):
        sys.exit(f"{name}: without '{key}' in kernel {length - 1} the reduced report still "
                 "validates: the shape cut hides errors")
    print(f"control: {name} without '{key}' in kernel {length - 1} of {length} is refused")


def main(perfgate, source, build, work):
    source, build, work = Path(source), Path(build), Path(work)
    work.mkdir(parents=True, exist_ok=True)
    schemas = {
        "perfgate-report/1": json.loads((source / "perfgate/schema/report-1.schema.json").read_text()),
        "perfgate-report/2": json.loads((source / "perfgate/schema/report-2.schema.json").read_text()),
        "perfgate-device/1": json.loads((source / "perfgate/schema/device-1.schema.json").read_text()),
        "perfgate-latencies/1": json.loads((source / "perfgate/schema/latencies-1.schema.json").read_text()),
        "perfgate-idg/1": json.loads((source / "perfgate/schema/idg-1.schema.json").read_text()),
        "perfgate-hull/1": json.loads((source / "perfgate/schema/hull-1.schema.json").read_text()),
        "perfgate-hull-app/1": json.loads((source / "perfgate/schema/hull-app-1.schema.json").read_text()),
    }
    validators = {k: jsonschema.Draft202012Validator(v) for k, v in schemas.items()}
    for v in schemas.values():
        jsonschema.Draft202012Validator.check_schema(v)

    devices = ["--device", "gtx-480", "--device", "h100-sxm", "--device", "mi300x"]
    profiles = sorted((source / "examples/profiles").glob("*.csv")) + [
        source / "tests/data/ncu/raw_two_kernels.csv",
        source / "tests/data/ncu/long_two_kernels.csv",
        source / "tests/data/gbench/stream_benchmarks.json",
        # Bytes alone (bytes_per_second): no compute side, which the schema says is absent.
        source / "tests/data/external/gbench_distributed-ranges_dr-bench-1bbc05c8.json",
    ]
    made = []
    for i, profile in enumerate(profiles):
        out = work / f"predict-{i}.json"
        subprocess.run([perfgate, "predict", "--profile", str(profile), *devices, "--format", "json",
                        "-o", str(out)], check=True, stderr=subprocess.DEVNULL)
        made.append(out)
    # Tensor-core kernels (K_type tensor_bf16, tensor_ops, simt_type).
    tensor = work / "predict-tensor.json"
    subprocess.run([perfgate, "predict", "--profile", str(source / "tests/data/h100/tensor_ncu_raw.csv"),
                    "--kernel", "nvjet_sm90_tst_|flash_fprop", "--device", "h100-sxm", "--device",
                    "mi300x", "--format", "json", "-o", str(tensor)], check=True,
                   stderr=subprocess.DEVNULL)
    made.append(tensor)
    # Predictions scaled from a measurement (predictor measured-scaling, its scaling block).
    scaled = work / "predict-measured-on.json"
    subprocess.run([perfgate, "predict", "--profile",
                    str(source / "tests/data/h100/torch_ncu_raw_h100_noclk.csv"), "--measured-on",
                    str(source / "tests/data/h100/h100-calibrated.json"), "--device", "h200",
                    "--device", "a100-80gb", "--format", "json", "-o", str(scaled)], check=True,
                   stderr=subprocess.DEVNULL)
    if not any(p.get("scaling") for k in json.loads(scaled.read_text())["kernels"]
               for p in k["predictions"]):
        sys.exit(f"{scaled}: expected predictions scaled from the measurement")
    made.append(scaled)
    gated = work / "run.json"
    rc = subprocess.run([perfgate, "run", "--collector", "gbench", "--device",
                         str(source / "tests/data/devices/valid_device.json"), "--device", "h100-sxm",
                         "--min-efficiency", "0.1", "--report", str(gated), "--",
                         str(source / "tests/cli/fake_gbench.sh")],
                        stdout=subprocess.DEVNULL).returncode
    if rc not in (0, 1):
        sys.exit(f"perfgate run exited {rc}")
    made.append(gated)
    merged = work / "merged.json"
    subprocess.run([perfgate, "merge", str(made[0]), str(gated), "-o", str(merged)], check=True,
                   stderr=subprocess.DEVNULL)
    made.append(merged)
    calibrated = work / "local-cpu.json"
    subprocess.run([perfgate, "calibrate", "--backend", "cpu", "--quick", "-o", str(calibrated)],
                   check=True, stderr=subprocess.DEVNULL)
    made.append(calibrated)
    builtin = json.loads(subprocess.run([perfgate, "devices", "--format", "json"], check=True,
                                        capture_output=True, text=True).stdout)

    # The writers' golden report: every verdict, declared and counted work, a kernel skipped.
    made.append(source / "tests/data/golden/writers/report.json")
    # The whole tensor capture: its FP16 GEMM cannot be judged (skip_reason, params null).
    whole = work / "predict-tensor-whole.json"
    subprocess.run([perfgate, "predict", "--profile", str(source / "tests/data/h100/tensor_ncu_raw.csv"),
                    "--device", "h100-sxm", "--format", "json", "-o", str(whole)], check=True,
                   stderr=subprocess.DEVNULL)
    if not any("skip_reason" in k for k in json.loads(whole.read_text())["kernels"]):
        sys.exit(f"{whole}: expected a kernel with a skip_reason")
    made.append(whole)
    # The latencies fitted from the real H100 chains.
    latencies = work / "latencies-h100.json"
    subprocess.run([perfgate, "pipeline", "fit", "--sweep",
                    str(source / "tests/data/h100/pipeline_latency_h100.csv"), "-o", str(latencies)],
                   check=True, stderr=subprocess.DEVNULL)
    made.append(latencies)
    # The pipeline simulator's inputs kept with the tests.
    made += sorted((source / "tests/data/pipeline").glob("*.idg.json"))
    made += sorted((source / "tests/data/pipeline").glob("*.latencies.json"))
    # Boat hull bands: a class on a GPU and a CPU with transfers, and an application.
    for name, args in [
        ("hull-class.json", ["--species", "1024x1024 tile(1x1024) -> 1024 element", "--f", "1",
                             "--device", "gtx470", "--device", "q8300", "--device", "h100-sxm",
                             "--transfers"]),
        ("hull-neighbourhood.json", ["--species", "512x512|neighbourhood(5x5) -> 512x512|element",
                                     "--f", "2", "--alpha", "1000", "--beta", "10", "--device",
                                     "mi300x", "--fma", "yes", "--coalescing", "scattered"]),
        ("hull-app.json", ["--app", str(source / "examples/hull/case_study.app.json"), "--device",
                           "gtx470", "--device", "gts250", "--fma", "no"]),
    ]:
        out = work / name
        subprocess.run([perfgate, "hull", *args, "--format", "json", "-o", str(out)], check=True,
                       stderr=subprocess.DEVNULL)
        made.append(out)
    made += sorted((source / "examples/hull").glob("*.app.json"))
    documents = [(str(p), json.loads(p.read_text())) for p in made]
    documents += [(f"built-in device {d['id']}", d) for d in builtin]
    for path in sorted(build.rglob("*.json")):
        # FetchContent's copies of a source (consumer.fetchcontent's clone of this one) hold
        # the deliberately malformed test data too: what was written here is what counts.
        if work in path.parents or "_deps" in path.relative_to(build).parts:
            continue
        try:
            doc = json.loads(path.read_text())
        except (ValueError, UnicodeDecodeError):
            continue
        if isinstance(doc, dict) and doc.get("schema") in validators:
            documents.append((str(path), doc))

    shapes = Shapes(schemas.values())
    errors = 0
    counts = {}
    checked = total = 0
    for name, doc in documents:
        schema = doc.get("schema")
        counts[schema] = counts.get(schema, 0) + 1
        reduced = shapes.reduced(doc)
        total += len(doc.get("kernels", []))
        checked += len(reduced.get("kernels", []))
        for error in validators[schema].iter_errors(reduced):
            errors += 1
            where = "/".join(str(p) for p in error.absolute_path)
            print(f"{name}: {schema}: at /{where}: {error.message}")
    print(", ".join(f"{n} {s} documents" for s, n in sorted(counts.items())) +
          f" validated, {errors} errors (of the reports' {total} kernels, {checked} checked: one"
          " per shape)")
    longest = max((d for d in documents if d[1].get("schema") == "perfgate-report/2"),
                  key=lambda d: len(d[1]["kernels"]))
    # A report's kernels each require a name (report-2.schema.json, $defs/kernel).
    control(validators["perfgate-report/2"], shapes, *longest, "name")
    if (counts.get("perfgate-report/2", 0) < len(profiles) + 2 or counts.get("perfgate-device/1", 0) < 2
            or counts.get("perfgate-latencies/1", 0) < 2 or counts.get("perfgate-idg/1", 0) < 1
            or counts.get("perfgate-hull/1", 0) < 3 or counts.get("perfgate-hull-app/1", 0) < 1):
        sys.exit("too few documents were validated")
    return 1 if errors else 0


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
