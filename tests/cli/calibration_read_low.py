#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A calibration that read low, as one taken while the machine was busy: every peak and every
measured rate of CALIBRATION divided by FACTOR, written to LOW; OTHER_HOST gets the same with
its provenance naming another host (a file `perfgate run` must not measure again).

usage: calibration_read_low.py CALIBRATION FACTOR LOW OTHER_HOST
"""
import json
import sys


def lowered(doc: dict, factor: float) -> dict:
    for scope in ("peaks", "peaks_one_core"):
        for key, value in doc.get(scope, {}).items():
            if isinstance(value, (int, float)):
                doc[scope][key] = value / factor
    for m in doc["measurements"]:
        for key in ("best", "median", "min", "max"):
            m[key] = m[key] / factor
    return doc


def main() -> int:
    source, factor, low, other_host = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4]
    with open(source, encoding="utf-8") as f:
        doc = lowered(json.load(f), factor)
    with open(low, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=2)
    doc["provenance"]["host"] = doc["provenance"]["host"] + "-elsewhere"
    with open(other_host, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
