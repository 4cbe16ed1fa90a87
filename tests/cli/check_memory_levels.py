#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""One cache rule for every way of declaring bytes (issue 53, docs/model.md "The memory level"):
a kernel whose working set sits in a cache is held to that cache, whatever declared its bytes.

For every level of this machine's CPU as `perfgate calibrate` found it (L1, L2, L3, DRAM, one
core's and all cores' capacities) and of a GPU entry (h100-sxm: its 50 MB L2, DRAM), a kernel
whose one iteration moves exactly that level's capacity in bytes is declared four ways:
  gbench-bps     Google Benchmark's bytes_per_second (SetBytesProcessed)
  gbench-perfgate  perfgate_bytes, perfgate_fp64_flops, perfgate_write_bytes and
                 perfgate_ordinary_stores (the issue's triad: held to DRAM before the rule)
  nvbench        nvbench's global memory reads and writes (a state of tests/data/nvbench)
  profile        a perfgate-profile's declared_work (bytes over two invocations)
and predicted on the device: the roof's memory term must be that level, and the report must keep
the working set it took (one iteration's bytes). The working set is what stays cached from one
iteration to the next: nvbench's cold times flush the L2 before every sample, so its states are
held to DRAM at every size, with no working set taken.

usage: check_memory_levels.py PERFGATE DATA_DIR LOCAL_CPU_JSON WORK_DIR
"""
import copy
import json
import subprocess
import sys
from pathlib import Path


def gbench(ws, perfgate_counters, threads):
    bench = {"name": "BM_kernel", "run_name": "BM_kernel", "run_type": "iteration",
             "iterations": 100, "threads": threads, "real_time": 1e6 / threads, "cpu_time": 1e6,
             "time_unit": "ns"}
    if perfgate_counters:  # the work of one iteration of every thread
        bench.update({"perfgate_bytes": ws, "perfgate_fp64_flops": ws / 12,
                      "perfgate_write_bytes": ws / 3, "perfgate_ordinary_stores": 1})
    else:  # per second of CPU time of one thread: ws x threads bytes an iteration of all threads
        bench["bytes_per_second"] = ws / threads / 1e-3
    return {"context": {"host_name": "test", "json_schema_version": 1}, "benchmarks": [bench]}


def nvbench(template, ws):
    """The first state of a real nvbench layout with its global memory bytes set to `ws`."""
    doc = copy.deepcopy(template)
    bench = doc["benchmarks"][0]
    bench["states"] = bench["states"][:1]
    doc["benchmarks"] = [bench]
    state = bench["states"][0]
    state["summaries"] = [s for s in state["summaries"]
                          if not s["tag"].startswith("nv/json/bin:")
                          and not s["tag"].endswith("bw/global/bytes_per_second")]
    for s in state["summaries"]:
        if s["tag"].startswith("nv/gmem/reads/"):
            s["data"][0]["value"] = str(int(ws * 2 // 3))
        elif s["tag"].startswith("nv/gmem/writes/"):
            s["data"][0]["value"] = str(int(ws - ws * 2 // 3))
    return doc


def profile(ws, threads):
    kernel = {"name": "kernel", "invocations": 2, "time_s": 2e-3,
              "declared_work": {"fp32_flops": ws / 4, "fp64_flops": 0, "int_ops": 0,
                                "bytes": 2 * ws}}
    if threads:
        kernel["threads"] = threads
    return {"schema": "perfgate-profile/1", "device": {"name": "test", "warp_size": 32},
            "kernels": [kernel]}


def levels_of(device, one_core):
    """(level, capacity in bytes the kernel's scope sees) from fastest to DRAM, per the rule: a
    CPU's L1 and L2 are per core (all cores see one each), its LLC and a GPU's L2 are shared."""
    caches = device.get("cache_bytes", {})
    cores = 1 if one_core or device.get("kind") != "cpu" else device["compute_units"]
    out = []
    for name in ("l1", "l2", "llc"):
        if name in caches:
            shared = name == "llc" or device.get("kind") != "cpu"
            out.append((name, caches[name] * (1 if shared else cores)))
    # Each level's capacity must be beyond twice the faster's, or no working set sits in it alone.
    for (_, faster), (name, cap) in zip(out, out[1:]):
        if cap <= 2 * faster:
            sys.exit("%s: %s capacity %d within twice the faster level's: no case for it" % (
                device["id"], name, cap))
    out.append(("dram", 4 * out[-1][1]))  # beyond twice the last cache
    return out


def memory_term(report):
    kernel = report["kernels"][0]
    roof = kernel["predictions"][0]["roof"]
    terms = [t for t in roof["terms"] if t["resource"] in ("l1", "l2", "llc", "dram")]
    return (terms[0]["resource"] if len(terms) == 1 else "%d memory terms" % len(terms),
            kernel["params"].get("working_set_bytes"))


def main(perfgate, data, local_cpu, work):
    work = Path(work)
    work.mkdir(parents=True, exist_ok=True)
    template = json.loads((Path(data) / "nvbench" / "copy_h200.json").read_text())
    cpu = json.loads(Path(local_cpu).read_text())
    if not {"l1", "l2", "llc"} <= set(cpu.get("cache_bytes", {})):
        print("skipped: this machine's calibration names no L1, L2 and LLC sizes: %s" %
              cpu.get("cache_bytes"))
        return 77
    # The built-in entry as the source tree holds it (DATA_DIR is tests/data).
    gpu = json.loads((Path(data).resolve().parents[1] / "perfgate" / "devices" /
                      "h100-sxm.json").read_text())
    cases = []
    # CPU: one thread (gbench threads 1, profile threads 1) sees one core's caches; nvbench
    # kernels (no thread count) are held to all cores', like every multi-threaded kernel.
    for level, ws in levels_of(cpu, one_core=True):
        cases += [("gbench-bps", level, ws, gbench(ws, False, 1), local_cpu),
                  ("gbench-perfgate", level, ws, gbench(ws, True, 1), local_cpu),
                  ("profile", level, ws, profile(ws, 1), local_cpu)]
    for level, ws in levels_of(cpu, one_core=False):
        cases += [("nvbench", level, ws, nvbench(template, ws), local_cpu),
                  ("gbench-bps-2-threads", level, ws, gbench(ws, False, 2), local_cpu)]
    for level, ws in levels_of(gpu, one_core=False):
        cases += [("gbench-bps", level, ws, gbench(ws, False, 1), "h100-sxm"),
                  ("gbench-perfgate", level, ws, gbench(ws, True, 1), "h100-sxm"),
                  ("nvbench", level, ws, nvbench(template, ws), "h100-sxm"),
                  ("profile", level, ws, profile(ws, 0), "h100-sxm")]
    failures = []
    for i, (path, level, ws, doc, device) in enumerate(cases):
        source = work / ("case-%d.json" % i)
        source.write_text(json.dumps(doc))
        out = work / ("case-%d.report.json" % i)
        run = subprocess.run([perfgate, "predict", "--profile", str(source), "--device", device,
                              "--format", "json", "-o", str(out)], capture_output=True, text=True)
        if run.returncode != 0:
            failures.append("%s %s on %s: exit %d: %s" % (path, level, device, run.returncode,
                                                          run.stderr.strip()))
            continue
        held, taken = memory_term(json.loads(out.read_text()))
        name = "local-cpu" if device == local_cpu else device
        print("%-21s %9d B on %-9s -> %s" % (path, ws, name, held))
        want = "dram" if path == "nvbench" else level
        if held != want:
            failures.append("%s: a working set of %d B on %s is held to %s, expected %s" % (
                path, ws, name, held, want))
        if path == "nvbench":
            if taken is not None:
                failures.append("nvbench %s: the report took a working set %s after L2 flushes"
                                % (level, taken))
        elif taken is None or abs(taken - ws) > 1e-6 * ws:
            failures.append("%s %s: the report's working set is %s, expected one iteration's %d" % (
                path, level, taken, ws))
    for f in failures:
        print("FAIL:", f)
    print("%d cases, %d failures" % (len(cases), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
