#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes rocpd_gfx942.db: the dispatches of counter_collection_gfx942.csv in a rocpd schema-3
database, as rocprofv3 (ROCm 7.0+) stores them: one rocpd_pmc_event row per dimension instance
(per-channel "X[i]" counters of the CSV become instances of X, which counters_collection sums).

The schema comes from a database made with AMD's schema-3 DDL (argv[1]: the shared
derived_synthetic_schema3_one_dispatch_sq_waves.db; see FORMAT.md); its rows are replaced."""
import collections
import csv
import json
import re
import shutil
import sqlite3
import sys

template, out = sys.argv[1], "rocpd_gfx942.db"
shutil.copyfile(template, out)
db = sqlite3.connect(out)
guid = db.execute("SELECT value FROM rocpd_metadata WHERE tag = 'guid'").fetchone()[0]
for view in ("rocpd_pmc_event", "rocpd_info_pmc", "rocpd_event", "rocpd_kernel_dispatch",
             "rocpd_info_kernel_symbol"):
    table = db.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE ?",
                       (view + "_%",)).fetchone()[0]
    db.execute(f"DELETE FROM `{table}`")
def table(view):
    return db.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE ?",
                      (view + "_0%",)).fetchone()[0]
agent_table = table("rocpd_info_agent")
db.execute(f"UPDATE `{agent_table}` SET extdata = ? WHERE id = 2",
           (json.dumps({"wave_front_size": 64}),))

rows = list(csv.DictReader(open("counter_collection_gfx942.csv")))
dispatches = collections.OrderedDict()
for r in rows:
    dispatches.setdefault(r["Dispatch_Id"], []).append(r)
symbols, pmcs = {}, {}
for i, (dispatch, rs) in enumerate(dispatches.items(), start=1):
    r0 = rs[0]
    name = r0["Kernel_Name"]
    if name not in symbols:
        symbols[name] = len(symbols) + 1
        db.execute(f"INSERT INTO `{table('rocpd_info_kernel_symbol')}` (id, guid, nid, pid, "
                   "code_object_id, kernel_name, display_name, sgpr_count, arch_vgpr_count, "
                   "accum_vgpr_count, extdata) VALUES (?, ?, 1, 1, 1, ?, ?, ?, ?, ?, '{}')",
                   (symbols[name], guid, name, name, int(r0["SGPR_Count"]),
                    int(r0["VGPR_Count"]), int(r0["Accum_VGPR_Count"])))
    db.execute(f"INSERT INTO `{table('rocpd_event')}` (id, guid, category_id, stack_id, "
               "correlation_id, call_stack, line_info, extdata) VALUES (?, ?, 1, ?, 0, '{}', "
               "'{}', '{}')", (i, guid, i))
    wg = int(r0["Workgroup_Size"])
    db.execute(f"INSERT INTO `{table('rocpd_kernel_dispatch')}` (id, guid, nid, pid, tid, "
               "agent_id, kernel_id, dispatch_id, queue_id, stream_id, start, end, "
               "private_segment_size, group_segment_size, workgroup_size_x, workgroup_size_y, "
               "workgroup_size_z, grid_size_x, grid_size_y, grid_size_z, region_name_id, "
               "event_id, extdata) VALUES (?, ?, 1, 1, 1, 2, ?, ?, 1, 0, ?, ?, 0, 0, ?, 1, 1, "
               "?, 1, 1, 2, ?, '{}')",
               (i, guid, symbols[name], int(dispatch), int(r0["Start_Timestamp"]),
                int(r0["End_Timestamp"]), wg, int(r0["Grid_Size"]), i))
    for r in rs:
        base = re.sub(r"\[\d+\]$", "", r["Counter_Name"])
        if base not in pmcs:
            pmcs[base] = len(pmcs) + 1
            db.execute(f"INSERT INTO `{table('rocpd_info_pmc')}` (id, guid, nid, pid, agent_id, "
                       "target_arch, name, symbol, value_type, block, is_constant, is_derived, "
                       "extdata) VALUES (?, ?, 1, 1, 2, 'GPU', ?, ?, 'ABS', ?, 0, 0, '{}')",
                       (pmcs[base], guid, base, base, base.split("_")[0]))
        db.execute(f"INSERT INTO `{table('rocpd_pmc_event')}` (guid, event_id, pmc_id, value, "
                   "extdata) VALUES (?, ?, ?, ?, '{}')",
                   (guid, i, pmcs[base], float(r["Counter_Value"])))
db.commit()
db.execute("VACUUM")
db.close()
