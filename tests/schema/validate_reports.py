#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Validates perfgate's JSON output against the JSON Schemas in perfgate/schema/.

Every report and device file this test makes (predict on every bundled and fixture profile,
run, merge, calibrate, the built-in database) and every one the other tests left in the build
tree is checked with Debian's python3-jsonschema (Draft 2020-12).

usage: validate_reports.py PERFGATE SOURCE_DIR BUILD_DIR WORK_DIR
"""
import json
import subprocess
import sys
from pathlib import Path

try:
    import jsonschema
except ImportError:  # 77: CTest's skip, unless the build requires the validator
    print(f"skipped: {sys.executable} has no jsonschema (Debian: python3-jsonschema; "
          "scripts/install-deps.sh installs it)", file=sys.stderr)
    sys.exit(77)


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

    errors = 0
    counts = {}
    for name, doc in documents:
        schema = doc.get("schema")
        counts[schema] = counts.get(schema, 0) + 1
        for error in validators[schema].iter_errors(doc):
            errors += 1
            where = "/".join(str(p) for p in error.absolute_path)
            print(f"{name}: {schema}: at /{where}: {error.message}")
    print(", ".join(f"{n} {s} documents" for s, n in sorted(counts.items())) +
          f" validated, {errors} errors")
    if (counts.get("perfgate-report/2", 0) < len(profiles) + 2 or counts.get("perfgate-device/1", 0) < 2
            or counts.get("perfgate-latencies/1", 0) < 2 or counts.get("perfgate-idg/1", 0) < 1
            or counts.get("perfgate-hull/1", 0) < 3 or counts.get("perfgate-hull-app/1", 0) < 1):
        sys.exit("too few documents were validated")
    return 1 if errors else 0


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
