// SPDX-License-Identifier: Apache-2.0
// Sources (stored copies read while writing this table; nothing here is copied from them):
//  [SDK]  ROCm/rocprofiler-sdk, source/share/rocprofiler-sdk/counter_defs.yaml
//         (commit 16c0eaee02c7f2139476d34eedfe04c8c82dab53): which architectures define each
//         counter, and the FETCH_SIZE / WRITE_SIZE expressions per architecture.
//  [SOL]  ROCm/rocprofiler-compute, src/rocprof_compute_soc/analysis_configs/gfx942/
//         0200_system-speed-of-light.yaml: "VALU FLOPs" (64 x (ADD + MUL + TRANS + 2 FMA) per
//         precision), "VALU IOPs" (64 x (INT32 + INT64)), "L2-Fabric Read/Write BW" (the gfx942
//         byte formulas below, identical to [SDK]'s FETCH_SIZE/WRITE_SIZE x 1024).
//  [PERFMON] ROCm/rocprofiler-compute, src/utils/perfmon_config.yaml (commit 75276d4): counters
//         per pass per block: SQ 8, TCC 4 (also TA 2, TD 2, TCP 4, ...) for gfx906, gfx908,
//         gfx90a, gfx940, gfx941, gfx942.
//  [PR8345] ROCm/rocm-systems pull request 8345: 12 SQ counters "exceed the eight available SQ
//         slots" on gfx90a and gfx940/941/942.
//  [MI350] ROCm documentation, "MI350 series performance counters" (rocm.docs.amd.com,
//         conceptual/gpu-arch/mi350-performance-counters): SQ_INSTS_VALU_MFMA_MOPS_F6F4.
#include "importers/amd_counters.hpp"

#include <perfgate/error.hpp>

#include <algorithm>
#include <cctype>

namespace perfgate::detail {

namespace {
namespace c = perfgate::counter;

// Instruction counters are wave-level (one count per wavefront instruction, [SDK]: "returned
// per-SE"). Multiplying by the lanes of a wavefront gives thread-level counts; like [SOL]'s
// "64 x ..." this assumes a full EXEC mask, so it overcounts divergent code and partial waves
// (NVIDIA's *_pred_on metrics do not). Transcendentals (TRANS) count as FP instructions, as in
// [SOL]'s VALU FLOPs; F16/BF16 VALU instructions have no canonical counter and are left out (the
// model has no FP16 terms). MFMA (matrix) work: cdna_matrix() below.
amd_formula lanes(std::vector<std::string_view> counters) {
  amd_formula f;
  for (auto n : counters) {
    f.terms.push_back({n, 1.0});
  }
  f.per_lane = true;
  return f;
}

amd_formula plain_sum(std::vector<std::string_view> counters) {
  amd_formula f = lanes(std::move(counters));
  f.per_lane = false;
  return f;
}

amd_formula bytes(std::string_view label, std::vector<amd_term> terms) {
  amd_formula f;
  f.terms = std::move(terms);
  f.label = label;
  return f;
}

// rocprofv3 can collect the derived counters themselves; they are in KB ([SDK]: "/1024").
amd_formula kilobytes(std::string_view derived) {
  amd_formula f;
  f.terms = {{derived, 1.0}};
  f.scale = 1024.0;
  return f;
}

bool is_kilobyte_fallback(const amd_formula& f) {
  return f.terms.size() == 1 &&
         (f.terms[0].counter == "FETCH_SIZE" || f.terms[0].counter == "WRITE_SIZE");
}

amd_counter_source unavailable(std::string_view canonical, std::string_view hint) {
  return {canonical, {}, hint};
}

// --- instruction mixes -----------------------------------------------------------------------

// gfx90a, gfx940/941/942, gfx950: [SDK] defines SQ_INSTS_VALU_{ADD,MUL,FMA,TRANS}_{F16,F32,F64}
// and SQ_INSTS_VALU_INT32/INT64 for exactly these. SQ_INSTS ("Total number of instructions
// issued") exists on gfx90a, gfx908, gfx940/941/942, gfx950. SQ_INSTS_LDS counts LDS
// instructions, SQ_INSTS_VMEM_RD/WR vector-memory reads/writes "including FLAT/scratch" (HIP's
// global_load/store are FLAT-encoded, so global accesses are in VMEM_RD/WR); scalar loads
// (SQ_INSTS_SMEM) are per wave, not per lane, and stay out of M_ldst.
std::vector<amd_counter_source> cdna_full_mix() {
  return {
      {c::inst_fp32,
       {lanes({"SQ_INSTS_VALU_ADD_F32", "SQ_INSTS_VALU_MUL_F32", "SQ_INSTS_VALU_FMA_F32",
               "SQ_INSTS_VALU_TRANS_F32"})},
       {}},
      {c::inst_fp32_fma, {lanes({"SQ_INSTS_VALU_FMA_F32"})}, {}},
      {c::inst_fp64,
       {lanes({"SQ_INSTS_VALU_ADD_F64", "SQ_INSTS_VALU_MUL_F64", "SQ_INSTS_VALU_FMA_F64",
               "SQ_INSTS_VALU_TRANS_F64"})},
       {}},
      {c::inst_fp64_fma, {lanes({"SQ_INSTS_VALU_FMA_F64"})}, {}},
      // [SOL] "VALU IOPs"; [SDK] "ValuIops" (gfx90a) = (INT32 + INT64) x 64.
      {c::inst_integer, {lanes({"SQ_INSTS_VALU_INT32", "SQ_INSTS_VALU_INT64"})}, {}},
      {c::inst_ldst, {lanes({"SQ_INSTS_LDS", "SQ_INSTS_VMEM_RD", "SQ_INSTS_VMEM_WR"})}, {}},
      {c::warp_inst_executed, {plain_sum({"SQ_INSTS"})}, {}},
  };
}

// Matrix (MFMA) work on gfx90a and gfx94x: [SDK] SQ_INSTS_VALU_MFMA_MOPS_<type> counts matrix
// operations in units of 512 (ROCm Compute Profiler, "FLOP counting conventions": MFMA FLOPs =
// 512 x MOPS), by source type; gfx94x adds F8 and XF32. SQ_INSTS_MFMA counts the wave-level MFMA
// instructions: the evidence of matrix work the operations counters must then measure.
amd_formula mops(std::string_view counter) {
  amd_formula f = plain_sum({counter});
  f.scale = 512.0;
  return f;
}

std::vector<amd_counter_source> cdna_matrix(bool gfx94x, bool gfx950) {
  std::vector<amd_counter_source> s = {
      {c::tensor_fp16, {mops("SQ_INSTS_VALU_MFMA_MOPS_F16")}, {}},
      {c::tensor_bf16, {mops("SQ_INSTS_VALU_MFMA_MOPS_BF16")}, {}},
      {c::tensor_fp32, {mops("SQ_INSTS_VALU_MFMA_MOPS_F32")}, {}},
      {c::tensor_fp64, {mops("SQ_INSTS_VALU_MFMA_MOPS_F64")}, {}},
      {c::tensor_int8, {mops("SQ_INSTS_VALU_MFMA_MOPS_I8")}, {}},
      {c::tensor_inst, {plain_sum({"SQ_INSTS_MFMA"})}, {}},
  };
  if (gfx94x) {
    s.push_back({c::tensor_fp8, {mops("SQ_INSTS_VALU_MFMA_MOPS_F8")}, {}});
    s.push_back({c::tensor_tf32, {mops("SQ_INSTS_VALU_MFMA_MOPS_XF32")}, {}});
  }
  if (gfx950) {
    // [MI350] SQ_INSTS_VALU_MFMA_MOPS_F6F4: "F6 or F4 data type" operations / 512. One counter
    // for both, so FP4 work: CDNA 4 runs FP6 and FP4 matrix math at one rate (MI355X: MXFP6 and
    // MXFP4 dense alike, twice FP8).
    s.push_back({c::tensor_fp4, {mops("SQ_INSTS_VALU_MFMA_MOPS_F6F4")}, {}});
  }
  return s;
}

std::vector<amd_counter_source> with_matrix(std::vector<amd_counter_source> sources, bool gfx94x,
                                            bool gfx950 = false) {
  for (auto& m : cdna_matrix(gfx94x, gfx950)) {
    sources.push_back(std::move(m));
  }
  return sources;
}

// Architectures without the per-precision VALU counters ([SDK] defines them for gfx90a and
// gfx94x/gfx950 only): the FP and integer mix cannot be measured.
std::vector<amd_counter_source> no_fp_mix(amd_counter_source ldst, amd_counter_source inst) {
  return {
      unavailable(c::inst_fp32, "SQ_INSTS_VALU_{ADD,MUL,FMA,TRANS}_F32"),
      unavailable(c::inst_fp32_fma, "SQ_INSTS_VALU_FMA_F32"),
      unavailable(c::inst_fp64, "SQ_INSTS_VALU_{ADD,MUL,FMA,TRANS}_F64"),
      unavailable(c::inst_fp64_fma, "SQ_INSTS_VALU_FMA_F64"),
      unavailable(c::inst_integer, "SQ_INSTS_VALU_INT32 + SQ_INSTS_VALU_INT64"),
      std::move(ldst),
      std::move(inst),
  };
}

// gfx908: SQ_INSTS, SQ_INSTS_LDS, SQ_INSTS_VMEM_RD/WR are defined ([SDK]).
std::vector<amd_counter_source> gfx908_mix() {
  return no_fp_mix(
      {c::inst_ldst, {lanes({"SQ_INSTS_LDS", "SQ_INSTS_VMEM_RD", "SQ_INSTS_VMEM_WR"})}, {}},
      {c::warp_inst_executed, {plain_sum({"SQ_INSTS"})}, {}});
}

// gfx900/gfx906: no SQ_INSTS ([SDK]); the total is the sum of the instruction classes that
// exist there. It misses branch, s_waitcnt/s_nop-style and export instructions, so it is a
// lower bound of the instructions issued.
std::vector<amd_counter_source> gfx9_mix() {
  return no_fp_mix(
      {c::inst_ldst, {lanes({"SQ_INSTS_LDS", "SQ_INSTS_VMEM_RD", "SQ_INSTS_VMEM_WR"})}, {}},
      {c::warp_inst_executed,
       {plain_sum({"SQ_INSTS_VALU", "SQ_INSTS_SALU", "SQ_INSTS_SMEM", "SQ_INSTS_LDS",
                   "SQ_INSTS_VMEM_RD", "SQ_INSTS_VMEM_WR"})},
       {}});
}

// gfx10 (gfx1010/1030/1031/1032): [SDK] defines SQ_INSTS_VALU/SALU/SMEM/LDS/FLAT/GDS there, but
// no SQ_INSTS and no SQ_INSTS_VMEM_RD/WR: memory instructions are SQ_INSTS_FLAT (global, flat,
// scratch) plus SQ_INSTS_LDS. Buffer (MUBUF) instructions are not counted anywhere.
std::vector<amd_counter_source> gfx10_mix() {
  return no_fp_mix({c::inst_ldst, {lanes({"SQ_INSTS_LDS", "SQ_INSTS_FLAT"})}, {}},
                   {c::warp_inst_executed,
                    {plain_sum({"SQ_INSTS_VALU", "SQ_INSTS_SALU", "SQ_INSTS_SMEM", "SQ_INSTS_LDS",
                                "SQ_INSTS_FLAT"})},
                    {}});
}

// gfx11 (gfx1100/1101/1102/1150/1151) and gfx12 (gfx1200/1201): as gfx10 plus
// SQ_INSTS_TEX_LOAD/TEX_STORE (buffer/image loads and stores) ([SDK]).
std::vector<amd_counter_source> gfx11_mix() {
  return no_fp_mix(
      {c::inst_ldst,
       {lanes({"SQ_INSTS_LDS", "SQ_INSTS_FLAT", "SQ_INSTS_TEX_LOAD", "SQ_INSTS_TEX_STORE"})},
       {}},
      {c::warp_inst_executed,
       {plain_sum({"SQ_INSTS_VALU", "SQ_INSTS_SALU", "SQ_INSTS_SMEM", "SQ_INSTS_LDS",
                   "SQ_INSTS_FLAT", "SQ_INSTS_TEX_LOAD", "SQ_INSTS_TEX_STORE"})},
       {}});
}

// --- memory traffic (bytes between the L2 and the memory fabric) ------------------------------

// gfx9/gfx900/gfx908/gfx90a ([SDK] FETCH_SIZE, WRITE_SIZE, times 1024): EA read requests are
// 32 or 64 bytes, write requests 32 or 64 bytes.
amd_counter_source tcc_ea_read() {
  return {c::dram_read_bytes,
          {bytes("FETCH_SIZE",
                 {{"TCC_EA_RDREQ_32B", 32.0}, {"TCC_EA_RDREQ", 64.0}, {"TCC_EA_RDREQ_32B", -64.0}}),
           kilobytes("FETCH_SIZE")},
          {}};
}
amd_counter_source tcc_ea_write() {
  return {c::dram_write_bytes,
          {bytes("WRITE_SIZE",
                 {{"TCC_EA_WRREQ", 32.0}, {"TCC_EA_WRREQ_64B", -32.0}, {"TCC_EA_WRREQ_64B", 64.0}}),
           kilobytes("WRITE_SIZE")},
          {}};
}

// gfx906 ([SDK]): the same on both EA interfaces, TCC_EA_* plus TCC_EA1_* (RDATA1_SIZE,
// WDATA1_SIZE).
amd_counter_source gfx906_read() {
  return {c::dram_read_bytes,
          {bytes("FETCH_SIZE", {{"TCC_EA_RDREQ_32B", 32.0},
                                {"TCC_EA_RDREQ", 64.0},
                                {"TCC_EA_RDREQ_32B", -64.0},
                                {"TCC_EA1_RDREQ_32B", 32.0},
                                {"TCC_EA1_RDREQ", 64.0},
                                {"TCC_EA1_RDREQ_32B", -64.0}}),
           kilobytes("FETCH_SIZE")},
          {}};
}
amd_counter_source gfx906_write() {
  return {c::dram_write_bytes,
          {bytes("WRITE_SIZE", {{"TCC_EA_WRREQ", 32.0},
                                {"TCC_EA_WRREQ_64B", -32.0},
                                {"TCC_EA_WRREQ_64B", 64.0},
                                {"TCC_EA1_WRREQ", 32.0},
                                {"TCC_EA1_WRREQ_64B", -32.0},
                                {"TCC_EA1_WRREQ_64B", 64.0}}),
           kilobytes("WRITE_SIZE")},
          {}};
}

// gfx940/941/942/950 ([SDK] FETCH_SIZE/WRITE_SIZE; [SOL] L2-Fabric Read/Write BW): the EA
// interface is TCC_EA0_*; TCC_BUBBLE counts 128-byte read requests, which TCC_EA0_RDREQ also
// counts: 128 x BUBBLE + 64 x (EA0_RDREQ - BUBBLE - EA0_RDREQ_32B) + 32 x EA0_RDREQ_32B.
amd_counter_source tcc_ea0_read() {
  return {c::dram_read_bytes,
          {bytes("FETCH_SIZE", {{"TCC_BUBBLE", 128.0},
                                {"TCC_EA0_RDREQ", 64.0},
                                {"TCC_BUBBLE", -64.0},
                                {"TCC_EA0_RDREQ_32B", -64.0},
                                {"TCC_EA0_RDREQ_32B", 32.0}}),
           kilobytes("FETCH_SIZE")},
          {}};
}
amd_counter_source tcc_ea0_write() {
  return {
      c::dram_write_bytes,
      {bytes("WRITE_SIZE",
             {{"TCC_EA0_WRREQ", 32.0}, {"TCC_EA0_WRREQ_64B", -32.0}, {"TCC_EA0_WRREQ_64B", 64.0}}),
       kilobytes("WRITE_SIZE")},
      {}};
}

// gfx10/gfx11 ([SDK]): the L2 is GL2C; reads of 32/64/96/128 bytes, writes
// (GL2C_MC_WRREQ - GL2C_EA_WRREQ_64B) x 32 + GL2C_EA_WRREQ_64B x 64.
amd_counter_source gl2c_read_rdna2_3() {
  return {c::dram_read_bytes,
          {bytes("FETCH_SIZE", {{"GL2C_EA_RDREQ_32B", 32.0},
                                {"GL2C_EA_RDREQ_64B", 64.0},
                                {"GL2C_EA_RDREQ_96B", 96.0},
                                {"GL2C_EA_RDREQ_128B", 128.0}}),
           kilobytes("FETCH_SIZE")},
          {}};
}
amd_counter_source gl2c_write_rdna2_3() {
  return {
      c::dram_write_bytes,
      {bytes("WRITE_SIZE",
             {{"GL2C_MC_WRREQ", 32.0}, {"GL2C_EA_WRREQ_64B", -32.0}, {"GL2C_EA_WRREQ_64B", 64.0}}),
       kilobytes("WRITE_SIZE")},
      {}};
}
// gfx12 ([SDK]): reads of 32/64/128 bytes. [SDK] defines no WRITE_SIZE for gfx12, so write
// bytes are not available there.
amd_counter_source gl2c_read_rdna4() {
  return {c::dram_read_bytes,
          {bytes("FETCH_SIZE", {{"GL2C_EA_RDREQ_32B", 32.0},
                                {"GL2C_EA_RDREQ_64B", 64.0},
                                {"GL2C_EA_RDREQ_128B", 128.0}}),
           kilobytes("FETCH_SIZE")},
          {}};
}

std::vector<amd_counter_source> with_traffic(std::vector<amd_counter_source> mix,
                                             amd_counter_source read, amd_counter_source write) {
  mix.push_back(std::move(read));
  mix.push_back(std::move(write));
  return mix;
}

// Per-pass limits. CDNA/GCN: [PERFMON] SQ 8 and TCC 4 (gfx906, gfx908, gfx90a, gfx940-942;
// [PR8345] confirms 8 SQ slots); gfx900 and gfx950 are not in [PERFMON] and are assumed to
// match their neighbours. RDNA (GL2C instead of TCC): no published table found; we take a
// conservative SQ 4 and GL2C 4 (a closed rocm-systems pull request, 3365, proposed SQ 8 /
// GL2C 4 for gfx1151). Derived "_sum" counters occupy one counter of their base block.
std::vector<amd_block_limit> cdna_limits() { return {{"SQ", 8}, {"TCC", 4}}; }
std::vector<amd_block_limit> rdna_limits() { return {{"SQ", 4}, {"GL2C", 4}}; }

std::vector<amd_arch> build_families() {
  std::vector<amd_arch> f;
  f.push_back({"gfx90a",
               {"gfx90a"},
               64,
               with_matrix(with_traffic(cdna_full_mix(), tcc_ea_read(), tcc_ea_write()), false),
               cdna_limits()});
  f.push_back({"gfx94x",
               {"gfx940", "gfx941", "gfx942"},
               64,
               with_matrix(with_traffic(cdna_full_mix(), tcc_ea0_read(), tcc_ea0_write()), true),
               cdna_limits()});
  // gfx950 (CDNA 4): gfx94x's counters and its FP6/FP4 operations counter.
  f.push_back(
      {"gfx950",
       {"gfx950"},
       64,
       with_matrix(with_traffic(cdna_full_mix(), tcc_ea0_read(), tcc_ea0_write()), true, true),
       cdna_limits()});
  f.push_back({"gfx908",
               {"gfx908"},
               64,
               with_traffic(gfx908_mix(), tcc_ea_read(), tcc_ea_write()),
               cdna_limits()});
  f.push_back({"gfx906",
               {"gfx906"},
               64,
               with_traffic(gfx9_mix(), gfx906_read(), gfx906_write()),
               cdna_limits()});
  f.push_back({"gfx900",
               {"gfx900"},
               64,
               with_traffic(gfx9_mix(), tcc_ea_read(), tcc_ea_write()),
               cdna_limits()});
  // RDNA: HIP compiles gfx10+ for wave32 by default, so 32 lanes unless the file says
  // otherwise (Wave_Front_Size).
  f.push_back({"gfx10",
               {"gfx1010", "gfx1030", "gfx1031", "gfx1032"},
               32,
               with_traffic(gfx10_mix(), gl2c_read_rdna2_3(), gl2c_write_rdna2_3()),
               rdna_limits()});
  f.push_back({"gfx11",
               {"gfx1100", "gfx1101", "gfx1102", "gfx1150", "gfx1151"},
               32,
               with_traffic(gfx11_mix(), gl2c_read_rdna2_3(), gl2c_write_rdna2_3()),
               rdna_limits()});
  f.push_back(
      {"gfx12",
       {"gfx1200", "gfx1201"},
       32,
       with_traffic(gfx11_mix(), gl2c_read_rdna4(), unavailable(c::dram_write_bytes, "WRITE_SIZE")),
       rdna_limits()});
  return f;
}

const std::vector<amd_arch>& families() {
  static const std::vector<amd_arch> table = build_families();
  return table;
}

bool same_formula(const amd_formula& a, const amd_formula& b) {
  if (a.per_lane != b.per_lane || a.scale != b.scale || a.terms.size() != b.terms.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.terms.size(); ++i) {
    if (a.terms[i].counter != b.terms[i].counter || a.terms[i].weight != b.terms[i].weight) {
      return false;
    }
  }
  return true;
}

// Union in an order where a more complete formula precedes any formula whose counters are a
// subset of it (gfx906 before gfx90a, gfx11 before gfx10 and gfx12); the KB fallbacks last.
amd_arch build_any() {
  // gfx906's byte formulas (two EA interfaces) must be tried before gfx90a's (one).
  static constexpr std::string_view family_order[] = {
      "gfx950", "gfx94x", "gfx906", "gfx90a", "gfx908", "gfx900", "gfx11", "gfx10", "gfx12"};
  amd_arch any;
  any.family = "any";
  any.default_wave_size = 64;
  any.limits = cdna_limits();
  std::vector<std::string_view> canonicals(c::model_inputs.begin(), c::model_inputs.end());
  canonicals.insert(canonicals.end(), c::tensor_ops.begin(), c::tensor_ops.end());
  canonicals.push_back(c::tensor_inst);
  for (auto canonical : canonicals) {
    amd_counter_source s{canonical, {}, {}};
    for (auto fam : family_order) {
      const auto it = std::find_if(families().begin(), families().end(),
                                   [&](const amd_arch& a) { return a.family == fam; });
      for (const auto& src : it->sources) {
        if (src.canonical != canonical) {
          continue;
        }
        for (const auto& alt : src.alternatives) {
          const bool seen = std::any_of(s.alternatives.begin(), s.alternatives.end(),
                                        [&](const amd_formula& f) { return same_formula(f, alt); });
          if (!seen) {
            s.alternatives.push_back(alt);
          }
        }
      }
    }
    std::stable_partition(s.alternatives.begin(), s.alternatives.end(),
                          [](const amd_formula& f) { return !is_kilobyte_fallback(f); });
    any.sources.push_back(std::move(s));
  }
  return any;
}

std::string join_names(const amd_formula& f, std::string_view sep) {
  std::vector<std::string> names;
  for (const auto& t : f.terms) {
    std::string n = amd_request_name(t.counter);
    if (std::find(names.begin(), names.end(), n) == names.end()) {
      names.push_back(std::move(n));
    }
  }
  std::string out;
  for (const auto& n : names) {
    out += (out.empty() ? "" : std::string(sep)) + n;
  }
  return out;
}

std::size_t limit_of(std::span<const amd_block_limit> limits, std::string_view block) {
  for (const auto& l : limits) {
    if (l.block == block) {
      return l.per_pass;
    }
  }
  return 1;
}

struct pass_state {
  std::vector<std::string> counters;
  std::map<std::string, std::size_t, std::less<>> used; ///< block -> counters in this pass
};

bool fits(const pass_state& p, const std::map<std::string, std::size_t, std::less<>>& need,
          std::span<const amd_block_limit> limits) {
  for (const auto& [block, n] : need) {
    const auto it = p.used.find(block);
    const std::size_t used = it == p.used.end() ? 0 : it->second;
    if (used + n > limit_of(limits, block)) {
      return false;
    }
  }
  return true;
}

void place(pass_state& p, const std::vector<std::string>& group) {
  for (const auto& name : group) {
    p.counters.push_back(name);
    ++p.used[std::string(amd_counter_block(name))];
  }
}

// First fit of whole groups; a group too big for an empty pass is placed counter by counter.
std::vector<std::vector<std::string>>
split_groups(const std::vector<std::vector<std::string>>& groups,
             std::span<const amd_block_limit> limits) {
  std::vector<pass_state> passes;
  auto put = [&](const std::vector<std::string>& group) {
    std::map<std::string, std::size_t, std::less<>> need;
    for (const auto& name : group) {
      ++need[std::string(amd_counter_block(name))];
    }
    for (auto& p : passes) {
      if (fits(p, need, limits)) {
        place(p, group);
        return true;
      }
    }
    if (fits(pass_state{}, need, limits)) {
      passes.emplace_back();
      place(passes.back(), group);
      return true;
    }
    return false;
  };
  for (const auto& group : groups) {
    if (group.empty() || put(group)) {
      continue;
    }
    for (const auto& name : group) {
      (void)put({name});
    }
  }
  std::vector<std::vector<std::string>> out;
  for (auto& p : passes) {
    out.push_back(std::move(p.counters));
  }
  return out;
}

const amd_arch& known_arch(std::string_view arch) {
  if (const amd_arch* a = find_amd_arch(arch)) {
    return *a;
  }
  std::string known;
  for (const auto& f : families()) {
    for (auto n : f.names) {
      known += (known.empty() ? "" : ", ") + std::string(n);
    }
  }
  throw usage_error("unknown AMD GPU architecture '" + std::string(arch) + "' (known: " + known +
                    ")");
}

// The counters of each canonical counter's preferred formula, each counter once overall.
std::vector<std::vector<std::string>> request_groups(const amd_arch& a) {
  std::vector<std::vector<std::string>> groups;
  std::vector<std::string> all;
  const auto& tensor = c::tensor_ops;
  for (const auto& s : a.sources) {
    // Matrix operations counters would cost every program a pass more; SQ_INSTS_MFMA alone
    // shows matrix work (docs/tensor.md: a second run for them is not built for AMD yet).
    if (s.alternatives.empty() ||
        std::find(tensor.begin(), tensor.end(), s.canonical) != tensor.end()) {
      continue;
    }
    std::vector<std::string> group;
    for (const auto& t : s.alternatives.front().terms) {
      std::string n = amd_request_name(t.counter);
      if (std::find(all.begin(), all.end(), n) == all.end()) {
        all.push_back(n);
        group.push_back(std::move(n));
      }
    }
    groups.push_back(std::move(group));
  }
  return groups;
}
} // namespace

std::string normalize_amd_arch(std::string_view arch) {
  while (!arch.empty() && std::isspace(static_cast<unsigned char>(arch.front())) != 0) {
    arch.remove_prefix(1);
  }
  arch = arch.substr(0, arch.find(':'));
  while (!arch.empty() && std::isspace(static_cast<unsigned char>(arch.back())) != 0) {
    arch.remove_suffix(1);
  }
  std::string out;
  for (char ch : arch) {
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  }
  return out;
}

const amd_arch* find_amd_arch(std::string_view arch) {
  const std::string name = normalize_amd_arch(arch);
  for (const auto& f : families()) {
    if (std::find(f.names.begin(), f.names.end(), name) != f.names.end()) {
      return &f;
    }
  }
  return nullptr;
}

std::span<const amd_arch> amd_arch_families() { return families(); }

const amd_arch& amd_any_arch() {
  static const amd_arch any = build_any();
  return any;
}

std::string_view amd_counter_block(std::string_view counter) {
  // Longest prefix first: SQC_ counters belong to the SQ block too ([SDK] "block: SQ").
  if (counter.starts_with("GL2C_")) {
    return "GL2C";
  }
  if (counter.starts_with("TCC_")) {
    return "TCC";
  }
  if (counter.starts_with("SQ_") || counter.starts_with("SQC_")) {
    return "SQ";
  }
  return "";
}

std::string amd_request_name(std::string_view base) {
  const auto block = amd_counter_block(base);
  if (block == "TCC" || block == "GL2C") {
    return std::string(base) + "_sum";
  }
  return std::string(base);
}

std::string amd_base_counter_name(std::string_view reported, bool* is_instance) {
  bool instance = false;
  while (!reported.empty() && reported.back() == ']') {
    const auto open = reported.rfind('[');
    if (open == std::string_view::npos) {
      break;
    }
    reported = reported.substr(0, open);
    instance = true;
  }
  if (!instance && reported.ends_with("_sum")) {
    reported.remove_suffix(4);
  }
  if (is_instance != nullptr) {
    *is_instance = instance;
  }
  return std::string(reported);
}

std::vector<std::string_view> amd_metrics_used(const amd_arch& a) {
  std::vector<std::string_view> all;
  for (const auto& s : a.sources) {
    for (const auto& alt : s.alternatives) {
      for (const auto& t : alt.terms) {
        if (std::find(all.begin(), all.end(), t.counter) == all.end()) {
          all.push_back(t.counter);
        }
      }
    }
  }
  return all;
}

std::vector<std::string> amd_counters_to_request(std::string_view arch) {
  std::vector<std::string> out;
  for (auto& group : request_groups(known_arch(arch))) {
    for (auto& n : group) {
      out.push_back(std::move(n));
    }
  }
  return out;
}

std::vector<std::vector<std::string>> amd_counter_passes(std::string_view arch) {
  const amd_arch& a = known_arch(arch);
  return split_groups(request_groups(a), a.limits);
}

std::vector<std::vector<std::string>> amd_tensor_counter_passes(std::string_view arch) {
  const amd_arch& a = known_arch(arch);
  const auto& tensor = c::tensor_ops;
  std::vector<std::vector<std::string>> groups;
  for (const auto& s : a.sources) {
    if (!s.alternatives.empty() &&
        std::find(tensor.begin(), tensor.end(), s.canonical) != tensor.end()) {
      std::vector<std::string> group;
      for (const auto& t : s.alternatives.front().terms) {
        group.push_back(amd_request_name(t.counter));
      }
      groups.push_back(std::move(group));
    }
  }
  return split_groups(groups, a.limits);
}

std::vector<std::vector<std::string>>
split_amd_counter_passes(std::span<const std::string> counters,
                         std::span<const amd_block_limit> limits) {
  std::vector<std::vector<std::string>> groups;
  for (const auto& n : counters) {
    groups.push_back({n});
  }
  return split_groups(groups, limits);
}

std::map<std::string, double, std::less<>>
resolve_amd_counters(const amd_arch& a, const std::map<std::string, double, std::less<>>& totals,
                     int wave_size, const std::string& file, const std::string& where) {
  std::map<std::string, double, std::less<>> out;
  for (const auto& s : a.sources) {
    for (const auto& alt : s.alternatives) {
      double sum = 0;
      bool complete = true;
      for (const auto& t : alt.terms) {
        const auto it = totals.find(t.counter);
        if (it == totals.end()) {
          complete = false;
          break;
        }
        sum += t.weight * it->second;
      }
      if (!complete) {
        continue;
      }
      double value = sum * alt.scale * (alt.per_lane ? static_cast<double>(wave_size) : 1.0);
      if (value < 0) {
        throw input_error(file, where,
                          std::string(alt.label.empty() ? s.canonical : alt.label) + " from " +
                              join_names(alt, ", ") + " is negative (" + std::to_string(value) +
                              "): the request counters contradict each other");
      }
      out[std::string(s.canonical)] = value;
      break;
    }
  }
  return out;
}

std::map<std::string, std::string, std::less<>> amd_native_names(const amd_arch& a) {
  std::map<std::string, std::string, std::less<>> out;
  for (const auto& s : a.sources) {
    std::string name;
    if (s.alternatives.empty()) {
      name = std::string(s.missing_hint) + " (no such counter on " + std::string(a.family) + ")";
    } else {
      const amd_formula& f = s.alternatives.front();
      name = f.label.empty() ? join_names(f, " + ")
                             : std::string(f.label) + " (" + join_names(f, ", ") + ")";
    }
    out[std::string(s.canonical)] = name;
  }
  return out;
}

} // namespace perfgate::detail
