// SPDX-License-Identifier: Apache-2.0
#include "counter_mapping.hpp"

#include <algorithm>

namespace perfgate::detail {

namespace c = perfgate::counter;

std::span<const counter_source> nvprof_counter_sources() {
  // MODEL.md section 3: the thesis's metric set. Pascal's nvprof also offers DRAM bytes.
  static const std::vector<counter_source> table = {
      {c::inst_fp32, {{{"inst_fp_32"}}}},
      {c::inst_fp32_fma, {{{"flop_count_sp_fma"}}}},
      {c::inst_fp64, {{{"inst_fp_64"}}}},
      {c::inst_fp64_fma, {{{"flop_count_dp_fma"}}}},
      {c::inst_integer, {{{"inst_integer"}}}},
      {c::inst_ldst, {{{"inst_compute_ld_st"}}}},
      {c::warp_inst_executed, {{{"inst_executed"}}}},
      {c::dram_read_bytes, {{{"dram_read_transactions"}, 32.0}, {{"dram_read_bytes"}}}},
      {c::dram_write_bytes, {{{"dram_write_transactions"}, 32.0}, {{"dram_write_bytes"}}}},
  };
  return table;
}

std::span<const counter_source> ncu_counter_sources() {
  // SASS thread-level instruction classes with predicated-off threads excluded, as nvprof's
  // inst_* counted them. smsp__ and sm__ roll-ups of .sum give the same totals. GB202-class
  // chips name DRAM bytes dram__bytes_op_read/op_write; sectors are 32 bytes.
  static const std::vector<counter_source> table = {
      {c::inst_fp32,
       {{{"smsp__sass_thread_inst_executed_op_fp32_pred_on.sum"}},
        {{"sm__sass_thread_inst_executed_op_fp32_pred_on.sum"}},
        {{"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum",
          "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum",
          "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"}}}},
      {c::inst_fp32_fma,
       {{{"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"}},
        {{"sm__sass_thread_inst_executed_op_ffma_pred_on.sum"}}}},
      {c::inst_fp64,
       {{{"smsp__sass_thread_inst_executed_op_fp64_pred_on.sum"}},
        {{"sm__sass_thread_inst_executed_op_fp64_pred_on.sum"}},
        {{"smsp__sass_thread_inst_executed_op_dadd_pred_on.sum",
          "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum",
          "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum"}}}},
      {c::inst_fp64_fma,
       {{{"smsp__sass_thread_inst_executed_op_dfma_pred_on.sum"}},
        {{"sm__sass_thread_inst_executed_op_dfma_pred_on.sum"}}}},
      {c::inst_integer,
       {{{"smsp__sass_thread_inst_executed_op_integer_pred_on.sum"}},
        {{"sm__sass_thread_inst_executed_op_integer_pred_on.sum"}}}},
      {c::inst_ldst,
       {{{"smsp__sass_thread_inst_executed_op_memory_pred_on.sum"}},
        {{"sm__sass_thread_inst_executed_op_memory_pred_on.sum"}}}},
      {c::warp_inst_executed, {{{"smsp__inst_executed.sum"}}, {{"sm__inst_executed.sum"}}}},
      {c::dram_read_bytes,
       {{{"dram__bytes_read.sum"}},
        {{"dram__bytes_op_read.sum"}},
        {{"dram__sectors_read.sum"}, 32.0}}},
      {c::dram_write_bytes,
       {{{"dram__bytes_write.sum"}},
        {{"dram__bytes_op_write.sum"}},
        {{"dram__sectors_write.sum"}, 32.0}}},
  };
  return table;
}

std::vector<std::string_view> metrics_used(std::span<const counter_source> sources) {
  std::vector<std::string_view> all;
  for (const auto& s : sources) {
    for (const auto& alt : s.alternatives) {
      for (auto m : alt.metrics) {
        if (std::find(all.begin(), all.end(), m) == all.end()) {
          all.push_back(m);
        }
      }
    }
  }
  return all;
}

std::map<std::string, double, std::less<>>
resolve_counters(std::span<const counter_source> sources,
                 const std::map<std::string, double, std::less<>>& metric_totals) {
  std::map<std::string, double, std::less<>> out;
  for (const auto& s : sources) {
    for (const auto& alt : s.alternatives) {
      double sum = 0;
      bool complete = true;
      for (auto m : alt.metrics) {
        const auto it = metric_totals.find(m);
        if (it == metric_totals.end()) {
          complete = false;
          break;
        }
        sum += it->second;
      }
      if (complete) {
        out[std::string(s.canonical)] = sum * alt.scale;
        break;
      }
    }
  }
  return out;
}

std::map<std::string, std::string, std::less<>>
native_names(std::span<const counter_source> sources) {
  // The preferred (first) alternative names the counter; fallbacks would only clutter messages.
  std::map<std::string, std::string, std::less<>> out;
  for (const auto& s : sources) {
    std::string name;
    for (auto m : s.alternatives.front().metrics) {
      name += (name.empty() ? "" : " + ") + std::string(m);
    }
    out[std::string(s.canonical)] = name;
  }
  return out;
}

} // namespace perfgate::detail
