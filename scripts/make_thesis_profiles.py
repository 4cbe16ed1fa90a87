#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Write the thesis case studies (Konstantinidis 2017, Tables 4.4 and 4.9) as nvprof CSV.

The thesis profiled red/black SOR and SGEMM on a GTX-480 with nvprof; its tables print the
per-invocation metric values. This script writes them back in the format `nvprof --csv
--metrics ...` prints, so that perfgate's main job and golden tests read exactly what a user
of nvprof would hand it.

usage: make_thesis_profiles.py THESIS_DATA_DIR OUTPUT_DIR
"""
import json
import sys
from pathlib import Path

# nvprof's metric descriptions, as nvprof prints them.
DESCRIPTIONS = {
    "inst_executed": "Instructions Executed",
    "inst_fp_32": "FP Instructions(Single)",
    "inst_fp_64": "FP Instructions(Double)",
    "inst_integer": "Integer Instructions",
    "inst_compute_ld_st": "Load/Store Instructions",
    "flop_count_sp_fma": "Floating Point Operations(Single Precision FMA)",
    "flop_count_dp_fma": "Floating Point Operations(Double Precision FMA)",
    "dram_read_transactions": "Device Memory Read Transactions",
    "dram_write_transactions": "Device Memory Write Transactions",
}
SYMBOL_TO_METRIC = {
    "M_fma32": "flop_count_sp_fma",
    "M_fma64": "flop_count_dp_fma",
    "M_ldst": "inst_compute_ld_st",
    "M_inst": "inst_executed",
    "M_fp32": "inst_fp_32",
    "M_fp64": "inst_fp_64",
    "M_int": "inst_integer",
    "M_tran_r": "dram_read_transactions",
    "M_tran_w": "dram_write_transactions",
}
CASES = [
    # (thesis file, table key, output name, program, kernel signature)
    ("case_red_black_sor.json", "table_4_4_metrics_rbsor", "red_black_sor.gtx-480.nvprof.csv",
     "./rbsor 8192", "kernel_red(double*, double const *, int, int, double)"),
    ("case_sgemm.json", "table_4_9_metrics_sgemm", "sgemm_32x32.gtx-480.nvprof.csv",
     "./sgemm 1280 640 640", "sgemm_kernel<int=32>(float const *, float const *, float*, int, int, int)"),
]


def write_case(data_dir: Path, out_dir: Path, case) -> Path:
    source, key, out_name, program, kernel = case
    table = json.loads((data_dir / source).read_text())[key]
    pid = 24817
    lines = [
        f"=={pid}== NVPROF is profiling process {pid}, command: {program}",
        f"=={pid}== Some kernel(s) will be replayed on device 0 in order to collect all events/metrics.",
        f"=={pid}== Profiling application: {program}",
        f"=={pid}== Profiling result:",
        f"=={pid}== Metric result:",
        '"Device","Kernel","Invocations","Metric Name","Metric Description","Min","Max","Avg"',
    ]
    device = "GeForce GTX 480 (0)"
    for symbol, metric in SYMBOL_TO_METRIC.items():
        value = table["metrics"][symbol]
        lines.append(f'"{device}","{kernel}",{table["invocations"]},"{metric}",'
                     f'"{DESCRIPTIONS[metric]}",{value},{value},{value}')
    out = out_dir / out_name
    out.write_text("\n".join(lines) + "\n")
    return out


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    data_dir, out_dir = Path(argv[1]), Path(argv[2])
    out_dir.mkdir(parents=True, exist_ok=True)
    for case in CASES:
        print(f"wrote {write_case(data_dir, out_dir, case)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
