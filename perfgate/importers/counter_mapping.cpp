// SPDX-License-Identifier: Apache-2.0
#include "importers/counter_mapping.hpp"

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
  // Integrated GPUs (GA10B, GB10B, GB20B) have no dram__ counters: their memory is system
  // memory behind the L2, so the L2's system-memory traffic stands in for DRAM traffic.
  static constexpr std::string_view kSysmemRead =
      "no DRAM counters on this integrated GPU: L2 read misses to system memory x 32 B";
  static constexpr std::string_view kSysmemWrite =
      "no DRAM counters on this integrated GPU: L2 writes to system memory x 32 B (the L2 "
      "writes back, so this bounds the memory writes from above)";
  // SASS thread-level instruction classes with predicated-off threads excluded, as nvprof's
  // inst_* counted them. smsp__ and sm__ roll-ups of .sum give the same totals (the widely copied
  // roofline scripts collect the sm__ fadd/fmul/ffma and dadd/dmul/dfma sums). GB202-class
  // chips name DRAM bytes dram__bytes_op_read/op_write; sectors are 32 bytes. dram__bytes.sum
  // (read + write in one) is handled by the ncu importer: split_dram_total().
  static const std::vector<counter_source> table = {
      {c::inst_fp32,
       {{{"smsp__sass_thread_inst_executed_op_fp32_pred_on.sum"}},
        {{"sm__sass_thread_inst_executed_op_fp32_pred_on.sum"}},
        {{"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum",
          "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum",
          "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"}},
        {{"sm__sass_thread_inst_executed_op_fadd_pred_on.sum",
          "sm__sass_thread_inst_executed_op_fmul_pred_on.sum",
          "sm__sass_thread_inst_executed_op_ffma_pred_on.sum"}}}},
      {c::inst_fp32_fma,
       {{{"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"}},
        {{"sm__sass_thread_inst_executed_op_ffma_pred_on.sum"}}}},
      {c::inst_fp64,
       {{{"smsp__sass_thread_inst_executed_op_fp64_pred_on.sum"}},
        {{"sm__sass_thread_inst_executed_op_fp64_pred_on.sum"}},
        {{"smsp__sass_thread_inst_executed_op_dadd_pred_on.sum",
          "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum",
          "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum"}},
        {{"sm__sass_thread_inst_executed_op_dadd_pred_on.sum",
          "sm__sass_thread_inst_executed_op_dmul_pred_on.sum",
          "sm__sass_thread_inst_executed_op_dfma_pred_on.sum"}}}},
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
        {{"dram__sectors_read.sum"}, 32.0},
        {{"lts__t_sectors_aperture_sysmem_op_read_lookup_miss.sum"}, 32.0, kSysmemRead}}},
      {c::dram_write_bytes,
       {{{"dram__bytes_write.sum"}},
        {{"dram__bytes_op_write.sum"}},
        {{"dram__sectors_write.sum"}, 32.0},
        {{"lts__t_sectors_aperture_sysmem_op_write.sum"}, 32.0, kSysmemWrite}}},
      {c::l2_bytes, {{{"lts__t_bytes.sum"}}, {{"lts__t_sectors.sum"}, 32.0}}},
      // Tensor work: operations by input precision (an FMA = 2), which equal 2 m n k exactly on
      // the H100 captures (tests/data/h100/README.md), and the tensor pipe's warp instructions,
      // which show tensor work no operations counter measured.
      // Names per chip from CUPTI 13's metric tables (docs/tensor.md): GH100 alone has an
      // undivided src_fp16; the other chips split it by accumulator, Turing's FP32-accumulate
      // half is named for all three 16/19-bit inputs (Turing has FP16 only).
      {c::tensor_fp16,
       {{{"sm__ops_path_tensor_src_fp16.sum"}},
        {{"sm__ops_path_tensor_src_fp16_dst_fp16.sum",
          "sm__ops_path_tensor_src_fp16_dst_fp32.sum"}},
        {{"sm__ops_path_tensor_src_fp16_dst_fp16.sum",
          "sm__ops_path_tensor_src_fp16_bf16_tf32_dst_fp32.sum"}}}},
      {c::tensor_bf16, {{{"sm__ops_path_tensor_src_bf16_dst_fp32.sum"}}}},
      {c::tensor_tf32, {{{"sm__ops_path_tensor_src_tf32_dst_fp32.sum"}}}},
      {c::tensor_fp64, {{{"sm__ops_path_tensor_src_fp64.sum"}}}},
      {c::tensor_fp8,
       {{{"sm__ops_path_tensor_src_fp8.sum"}},
        {{"sm__ops_path_tensor_src_fp8_dst_fp16.sum", "sm__ops_path_tensor_src_fp8_dst_fp32.sum"}},
        {{"sm__ops_path_tensor_src_fp4_fp6_fp8_dst_fp16.sum",
          "sm__ops_path_tensor_src_fp4_fp6_fp8_dst_fp32.sum"},
         1.0,
         "GB100-class chips count FP4 and FP6 inputs of the mixed FP8/FP6/FP4 instruction with "
         "FP8, which runs them at the FP8 rate"}}},
      // GH100 also splits INT8 by instruction: IMMA (mma.sync) and IGMMA (wgmma); a capture may
      // hold only those.
      {c::tensor_int8,
       {{{"sm__ops_path_tensor_src_int8.sum"}},
        {{"sm__ops_path_tensor_op_imma_src_int8.sum", "sm__ops_path_tensor_op_igmma_src_int8.sum"}},
        {{"sm__ops_path_tensor_op_igmma_src_int8.sum"}},
        {{"sm__ops_path_tensor_op_imma_src_int8.sum"}}}},
      {c::tensor_fp4,
       {{{"sm__ops_path_tensor_src_fp4_dst_fp32.sum",
          "sm__ops_path_tensor_src_fp4_fp6_dst_fp16.sum",
          "sm__ops_path_tensor_src_fp4_fp6_dst_fp32.sum"},
         1.0,
         "FP6 inputs of the FP4/FP6 instruction are counted with FP4"},
        {{"sm__ops_path_tensor_src_fp4_dst_fp32.sum"}}}},
      // GA100 and GH100 issue SIMT HFMA2 to the tensor pipe too: the model subtracts inst_fp16_fma
      // before taking tensor instructions as evidence of matrix work.
      {c::tensor_inst, {{{"sm__inst_executed_pipe_tensor.sum"}}}},
      {c::tensor_inst_hfma2, {{{"sm__inst_executed_pipe_tensor_op_hmma_type_hfma2.sum"}}}},
      {c::inst_fp16_fma,
       {{{"smsp__sass_thread_inst_executed_op_hfma_pred_on.sum"}},
        {{"sm__sass_thread_inst_executed_op_hfma_pred_on.sum"}}}},
      {c::shared_bytes,
       {{{"smsp__sass_data_bytes_mem_shared.sum"}},
        {{"l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"},
         128.0,
         "shared-memory wavefronts x 128 B: an upper bound on the bytes accessed"}}},
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
