// SPDX-License-Identifier: Apache-2.0
#include <perfgate/error.hpp>
#include <perfgate/model.hpp>

#include "model/device_rates.hpp"
#include "util/number_format.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <iterator>
#include <iomanip>
#include <sstream>

namespace perfgate {

std::string_view to_string(kernel_type t) {
  switch (t) {
  case kernel_type::fp32: return "fp32";
  case kernel_type::fp64: return "fp64";
  case kernel_type::integer: return "int";
  case kernel_type::tensor_fp16: return "tensor_fp16";
  case kernel_type::tensor_bf16: return "tensor_bf16";
  case kernel_type::tensor_tf32: return "tensor_tf32";
  case kernel_type::tensor_fp32: return "tensor_fp32";
  case kernel_type::tensor_fp64: return "tensor_fp64";
  case kernel_type::tensor_fp8: return "tensor_fp8";
  case kernel_type::tensor_int8: return "tensor_int8";
  case kernel_type::tensor_fp4: return "tensor_fp4";
  }
  return "?";
}

bool is_tensor(kernel_type t) {
  return t != kernel_type::fp32 && t != kernel_type::fp64 && t != kernel_type::integer;
}

const std::array<tensor_path, 8>& tensor_paths() {
  static const std::array<tensor_path, 8> paths = {{
      {kernel_type::tensor_fp16, counter::tensor_fp16, "tensor_fp16_gflops"},
      {kernel_type::tensor_bf16, counter::tensor_bf16, "tensor_bf16_gflops"},
      {kernel_type::tensor_tf32, counter::tensor_tf32, "tensor_tf32_gflops"},
      {kernel_type::tensor_fp32, counter::tensor_fp32, "tensor_fp32_gflops"},
      {kernel_type::tensor_fp64, counter::tensor_fp64, "tensor_fp64_gflops"},
      {kernel_type::tensor_fp8, counter::tensor_fp8, "tensor_fp8_gflops"},
      {kernel_type::tensor_int8, counter::tensor_int8, "tensor_int8_gops"},
      {kernel_type::tensor_fp4, counter::tensor_fp4, "tensor_fp4_gflops"},
  }};
  return paths;
}

const tensor_path& tensor_path_of(kernel_type t) {
  for (const auto& path : tensor_paths()) {
    if (path.type == t) {
      return path;
    }
  }
  throw std::logic_error("tensor_path_of: " + std::string(to_string(t)) + " is no tensor type");
}

std::string_view to_string(bound_class b) {
  return b == bound_class::memory ? "memory" : "compute";
}

std::string_view to_string(model_kind m) {
  return m == model_kind::quantitative ? "quantitative" : "roofline";
}

namespace {
// Counters are non-negative totals; a negative or non-finite one means a broken import.
void check_count(double v, std::string_view what) {
  if (!std::isfinite(v) || v < 0) {
    std::ostringstream s;
    s << "counter " << what << " is " << v << ", expected a finite count >= 0";
    throw kernel_input_error(s.str());
  }
}
} // namespace

namespace {
// Tensor work: the kernel is measured in its largest tensor precision when that outnumbers its
// SIMT operations (a GEMM, attention); its SIMT work stays a roof term of its own.
void add_tensor_work(kernel_params& k, const std::map<kernel_type, double>& tensor_ops) {
  for (const auto& [type, ops] : tensor_ops) {
    if (ops > 0) {
      k.tensor_ops[type] = ops;
    }
  }
  const auto dominant =
      std::max_element(k.tensor_ops.begin(), k.tensor_ops.end(),
                       [](const auto& a, const auto& b) { return a.second < b.second; });
  if (dominant != k.tensor_ops.end() && dominant->second >= k.W_simt) {
    k.K_type = dominant->first;
    k.W_comp = dominant->second;
  }
}
} // namespace

kernel_params derive_kernel_params(const model_counters& m) {
  const std::pair<double, std::string_view> counts[] = {{m.M_fma32, "M_fma32"},
                                                        {m.M_fma64, "M_fma64"},
                                                        {m.M_ldst, "M_ldst"},
                                                        {m.M_inst, "M_inst"},
                                                        {m.M_fp32, "M_fp32"},
                                                        {m.M_fp64, "M_fp64"},
                                                        {m.M_int, "M_int"},
                                                        {m.dram_read_bytes, "dram_read_bytes"},
                                                        {m.dram_write_bytes, "dram_write_bytes"}};
  for (const auto& [v, name] : counts) {
    check_count(v, name);
  }
  for (const auto& [type, ops] : m.tensor_ops) {
    check_count(ops, tensor_path_of(type).counter);
  }
  if (m.warp_size <= 0) {
    throw kernel_input_error("warp size must be positive");
  }

  kernel_params k;
  k.model = model_kind::quantitative;
  double ops = 0; // I_ops: thread-level instructions of the kernel's type
  double fma = 0;
  if (m.M_fp64 > 0) {
    k.K_type = kernel_type::fp64;
    ops = m.M_fp64;
    fma = m.M_fma64;
  } else if (m.M_fp32 > 0) {
    k.K_type = kernel_type::fp32;
    ops = m.M_fp32;
    fma = m.M_fma32;
  } else {
    k.K_type = kernel_type::integer;
    ops = m.M_int;
  }
  // An FMA instruction does 2 operations, every other instruction 1.
  k.W_comp = k.K_type == kernel_type::integer ? ops : ops + fma;
  k.simt_type = k.K_type;
  k.W_traf = m.dram_read_bytes + m.dram_write_bytes;
  k.write_bytes = m.dram_write_bytes;
  k.E_mix = k.K_type == kernel_type::integer ? 0.5 : (ops + fma) / (2 * ops);
  k.I_ops = ops;
  k.I_total = static_cast<double>(m.warp_size) * m.M_inst;

  k.W_simt = k.W_comp;
  add_tensor_work(k, m.tensor_ops);

  if (k.W_comp <= 0) {
    throw kernel_input_error("the kernel executes no operations of its type");
  }
  if (k.W_traf <= 0) {
    throw kernel_input_error("the kernel moves no DRAM bytes; its intensity is undefined");
  }
  if (*k.I_total <= 0) {
    throw kernel_input_error("the kernel executes no instructions (M_inst is 0)");
  }
  k.D_ops = ops / *k.I_total;
  k.D_ldst = m.M_ldst / *k.I_total;
  k.D_other = 1.0 - *k.D_ops - *k.D_ldst;
  if (*k.D_other < -1e-9) {
    std::ostringstream s;
    s << "instruction mix is inconsistent: D_ops + D_ldst = " << (*k.D_ops + *k.D_ldst)
      << " > 1 (thread-level counts exceed warp size x warp-level instructions; is the warp size "
      << m.warp_size << " right?)";
    throw kernel_input_error(s.str());
  }
  if (*k.D_other < 0) {
    k.D_other = 0.0;
  }
  k.O_krn = k.W_comp / k.W_traf;
  return k;
}

kernel_params declared_kernel_params(const declared_work& w, std::uint64_t invocations) {
  for (double v : {w.fp32_flops, w.fp64_flops, w.int_ops, w.bytes, w.working_set_bytes}) {
    if (!std::isfinite(v) || v < 0) {
      throw kernel_input_error("declared work must be finite and >= 0");
    }
  }
  kernel_params k;
  k.model = model_kind::roofline;
  if (w.fp64_flops > 0) {
    k.K_type = kernel_type::fp64;
    k.W_comp = w.fp64_flops;
  } else if (w.fp32_flops > 0) {
    k.K_type = kernel_type::fp32;
    k.W_comp = w.fp32_flops;
  } else {
    k.K_type = kernel_type::integer;
    k.W_comp = w.int_ops;
  }
  k.simt_type = k.K_type;
  k.W_simt = k.W_comp;
  std::map<kernel_type, double> tensor_ops;
  for (const auto& declared : w.tensor_ops) {
    const std::string& name = declared.first; // a plain reference: the lambda captures it
    const double ops = declared.second;
    const auto* path = std::find_if(tensor_paths().begin(), tensor_paths().end(),
                                    [&](const tensor_path& t) { return t.counter == name; });
    if (path == tensor_paths().end()) {
      throw kernel_input_error("declared tensor work '" + name + "' names no tensor precision");
    }
    if (!std::isfinite(ops) || ops < 0) {
      throw kernel_input_error("declared work must be finite and >= 0");
    }
    tensor_ops[path->type] = ops;
  }
  add_tensor_work(k, tensor_ops);
  if (w.bytes <= 0) {
    throw kernel_input_error(k.W_comp > 0
                                 ? "declared work has no bytes; its intensity is undefined"
                                 : "declared work has neither operations nor bytes");
  }
  // Bytes without operations (Google Benchmark's SetBytesProcessed alone): the memory roof is
  // the whole bound, and the compute side stays undeclared rather than guessed.
  k.compute_declared = k.W_comp > 0;
  k.matrix = w.matrix.value_or(false) || !k.tensor_ops.empty();
  k.matrix_undeclared = !w.matrix && !k.matrix;
  k.accumulate = w.accumulate == "fp16"   ? accumulate_precision::fp16
                 : w.accumulate == "fp32" ? accumulate_precision::fp32
                                          : accumulate_precision::unknown;
  k.W_traf = w.bytes;
  k.O_krn = k.W_comp / k.W_traf;
  k.items = w.items;
  if (w.working_set_bytes > 0) {
    k.working_set_bytes = w.working_set_bytes;
  }
  if (w.write_bytes) {
    if (!std::isfinite(*w.write_bytes) || *w.write_bytes < 0 || *w.write_bytes > w.bytes) {
      throw kernel_input_error("declared write bytes must be finite, >= 0 and at most the declared "
                               "bytes (they are the written part of them)");
    }
    k.write_bytes = *w.write_bytes;
  }
  k.ordinary_stores = w.ordinary_stores;
  // The memory level, one rule whatever declared the bytes (Google Benchmark's bytes_per_second
  // or perfgate_bytes, nvbench's global memory, a profile's declared_work): the declared working
  // set, else the data one iteration works on, which is what the benchmark says of its size.
  // Holding it to DRAM would assume it never fits a cache: snappy's BM_UFlat/2 (123 KB from L2)
  // ran at 2x a one-core DRAM roof on Zen 5, a one-thread triad over 6 MiB (in a 32 MiB L3) at
  // 2.4x. Re-reading a smaller buffer would be faster still, so this is an assumption the report
  // names, and a declared working set overrides it. The name's arguments are no size: snappy's
  // "/2" is an index into its test files, a "/4096" may count bytes, elements or threads; the
  // report shows them beside the choice, unread. The working set is what stays cached from one
  // iteration to the next: nvbench's cold times flush the GPU's L2 before every sample
  // (nvbench's measure_cold), so nothing does, and its states are held to DRAM.
  if (w.working_set_bytes <= 0 && w.bytes_source != "nvbench") {
    k.working_set_bytes = w.bytes / static_cast<double>(std::max<std::uint64_t>(1, invocations));
    k.working_set_source =
        "working set not declared" +
        (w.arguments.empty() ? "" : " (arguments /" + w.arguments + " not read as a size)") +
        ": one iteration's bytes";
  }
  return k;
}

namespace {
// Google Benchmark's SetItemsProcessed and nothing else: a count of unknown things.
bool only_items(const declared_work& w) {
  return w.items && w.bytes <= 0 && w.fp32_flops <= 0 && w.fp64_flops <= 0 && w.int_ops <= 0 &&
         w.tensor_ops.empty();
}
} // namespace

kernel_params kernel_params_from_profile(const profile& p, const kernel_profile& k) {
  const std::string file = p.source_file.empty() ? "<profile>" : p.source_file;
  const std::string where = "kernel '" + k.name + "'";
  try {
    if (k.work && only_items(*k.work)) {
      throw input_error(
          file, where,
          "declares only items_per_second (state.SetItemsProcessed: " +
              detail::fixed(*k.work->items, 0) +
              " items an iteration): an item has no size in bytes or operations, so no roof "
              "bounds its time and it cannot be judged; declare state.SetBytesProcessed(bytes) "
              "or the perfgate_* counters as well");
    }
    if (k.work) {
      kernel_params declared = declared_kernel_params(*k.work, k.invocations);
      if (!k.work->matrix && matrix_kernel_name(k.name)) { // a declaration wins over the name
        declared.matrix = true;
        declared.matrix_undeclared = false;
      }
      return declared;
    }
    if (p.format == profile_format::gbench_json) {
      throw input_error(file, where,
                        "declares no work: call state.SetBytesProcessed(bytes) (Google "
                        "Benchmark's bytes_per_second: judged against the memory roof), or set "
                        "the counters perfgate_bytes and one of perfgate_fp32_flops, "
                        "perfgate_fp64_flops, perfgate_int_ops or "
                        "perfgate_tensor_<precision>_ops (tensor_bf16, ...) to the work of ONE "
                        "iteration (default counter flags)");
    }
    // The nvbench collector replaces the declared bytes with CUPTI's counters.
    if (p.format == profile_format::nvbench_json && k.counters.empty()) {
      throw input_error(file, where,
                        "declares no work: call state.add_global_memory_reads<T>(n) and "
                        "add_global_memory_writes<T>(n) (nvbench's global memory bytes: judged "
                        "against the memory roof), or run it with the nvbench collector on an "
                        "NVIDIA GPU, whose CUPTI counters give the whole roof");
    }
    std::string missing;
    for (auto name : counter::model_inputs) {
      if (!k.counter(name)) {
        missing += (missing.empty() ? "" : ", ") + p.native_name(name);
      }
    }
    if (!missing.empty()) {
      throw input_error(file, where, "lacks metrics the quantitative model needs: " + missing);
    }
    model_counters m;
    m.M_fp32 = *k.counter(counter::inst_fp32);
    m.M_fma32 = *k.counter(counter::inst_fp32_fma);
    m.M_fp64 = *k.counter(counter::inst_fp64);
    m.M_fma64 = *k.counter(counter::inst_fp64_fma);
    m.M_int = *k.counter(counter::inst_integer);
    m.M_ldst = *k.counter(counter::inst_ldst);
    m.M_inst = *k.counter(counter::warp_inst_executed);
    m.dram_read_bytes = *k.counter(counter::dram_read_bytes);
    m.dram_write_bytes = *k.counter(counter::dram_write_bytes);
    m.warp_size = p.warp_size;
    std::string uncounted;
    for (const auto& path : tensor_paths()) {
      if (const auto ops = k.counter(path.counter)) {
        m.tensor_ops[path.type] = *ops;
      } else if (p.native_counter_names.count(path.counter) != 0) {
        uncounted += (uncounted.empty() ? "" : ", ") + p.native_name(path.counter);
      }
    }
    // Matrix instructions whose operations no counter measured: the kernel's work is unknown
    // (the flops of one instruction depend on its shape), and a roof without it would be
    // judged on the wrong work. Refuse, naming what to collect.
    const double mma_inst = k.matrix_instructions();
    if (mma_inst > 0 && k.tensor_operations() <= 0) {
      std::ostringstream s;
      s << "executed " << std::fixed << std::setprecision(0) << mma_inst
        << " matrix instructions on the tensor pipe (" << p.native_name(counter::tensor_inst)
        << (k.counter(counter::tensor_inst_hfma2)  ? " less its HFMA2 instructions"
            : k.counter(counter::inst_fp16_fma).value_or(0) > 0
                ? " less the most its HFMA2 thread instructions can be"
                : "")
        << ") but no counter in the profile measured their operations"
        << (uncounted.empty() ? "" : "; collect " + uncounted)
        << " (names vary by chip: `perfgate metrics --chip NAME`; the operations of one tensor "
           "instruction depend on its shape, so they cannot be inferred)";
      throw input_error(file, where, s.str());
    }
    kernel_params params = derive_kernel_params(m);
    params.l2_bytes = k.counter(counter::l2_bytes);
    params.shared_bytes = k.counter(counter::shared_bytes);
    params.matrix = !params.tensor_ops.empty() || matrix_kernel_name(k.name);
    return params;
  } catch (const kernel_input_error& e) {
    throw input_error(file, where, e.what()); // anchored on the file and kernel it came from
  }
}

bool matrix_kernel_name(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  // Library GEMM kernels as profilers name them: cuBLAS's sgemm/dgemm/gemm and xmma, CUTLASS,
  // cuBLASLt's nvjet, Tensile's Cijk_ (rocBLAS, hipBLASLt), MIOpen's igemm convolutions.
  constexpr std::string_view marks[] = {"gemm", "xmma", "cutlass", "nvjet", "cijk_"};
  return std::any_of(std::begin(marks), std::end(marks),
                     [&](std::string_view m) { return lower.find(m) != std::string::npos; });
}

std::optional<matrix_peak>
exact_matrix_peak(kernel_type t, const std::map<std::string, double, std::less<>>& extra) {
  const char* key = t == kernel_type::fp32   ? "tensor_fp32_gflops"
                    : t == kernel_type::fp64 ? "tensor_fp64_gflops"
                                             : nullptr;
  if (key == nullptr) {
    return std::nullopt;
  }
  const auto it = extra.find(std::string_view(key));
  if (it == extra.end()) {
    return std::nullopt;
  }
  return matrix_peak{it->second, key};
}

prediction predict(const kernel_params& k, const device& d, bool one_core) {
  // A power-limited part runs below the clock its peaks hold at: the predicted time is at the
  // clock it sustains, the roof (a bound) at its peaks' clock.
  if (d.sustained_clock_mhz && d.sm_clock_mhz &&
      std::fabs(*d.sustained_clock_mhz / *d.sm_clock_mhz - 1) > clock_reading_noise) {
    prediction p = predict(k, at_sm_clock(d, *d.sustained_clock_mhz), one_core);
    p.roof = roof_of(k, d, one_core);
    return p;
  }
  prediction p;
  p.device = d.id;
  const scope_peaks scope = peaks_of_scope(d, one_core);
  p.one_core = scope.one_core;
  const device_peaks& peak = scope.peaks;
  p.T_op = detail::peak_of(k.K_type, d, scope, detail::predicted_accumulate(k.accumulate));
  p.B_mem = peak.dram_gbs;
  // The thesis's instruction-mix model prices SIMT instructions; a tensor kernel is held to the
  // plain roofline of its tensor path.
  if (k.model == model_kind::quantitative && !is_tensor(k.K_type)) {
    // Costs relative to an FMA thread-instruction: T_SP/2 of them issue per second.
    p.W_op = peak.fp32_gflops / p.T_op;
    p.W_ldst = (peak.fp32_gflops / 2) / peak.ldst_ginst;
    p.W_other = (peak.fp32_gflops / 2) / peak.int_add_gops;
    p.C_op = *k.D_ops * *p.W_op;
    p.C_ldst = *k.D_ldst * *p.W_ldst;
    p.C_other = *k.D_other * *p.W_other;
    p.E_instr = *p.C_op / (*p.C_op + *p.C_ldst + *p.C_other);
    p.T_op_adj = *k.E_mix * *p.E_instr * p.T_op;
  } else {
    p.T_op_adj = p.T_op;
  }
  p.O_dev = p.T_op_adj / p.B_mem;
  if (!k.compute_declared) { // bytes alone: the memory side is all the model knows
    p.bound = bound_class::memory;
    p.T_pred = 0;
    p.predicted_time_s = k.W_traf / (p.B_mem * 1e9);
    p.roof = roof_of(k, d, one_core);
    return p;
  }
  if (k.O_krn > p.O_dev) {
    p.bound = bound_class::compute;
    p.T_pred = p.T_op_adj;
  } else {
    p.bound = bound_class::memory;
    p.T_pred = k.O_krn * p.B_mem;
  }
  p.predicted_time_s = k.W_comp / (p.T_pred * 1e9);
  p.roof = roof_of(k, d, one_core);
  return p;
}

namespace {
roof_term term(std::string resource, double amount, double rate, std::string via = {}) {
  return {std::move(resource), amount, rate, amount / (rate * 1e9), std::move(via)};
}

double time_of(const std::vector<roof_term>& terms, bool sum) {
  double t = 0;
  for (const auto& x : terms) {
    t = sum ? t + x.time_s : std::max(t, x.time_s);
  }
  return t;
}

// Where a device's tensor rate depends on the accumulate precision, which of its rates a roof
// term took and why: the declared accumulate's, or the faster one where none is declared.
std::string accumulate_via(kernel_type t, accumulate_precision acc,
                           const std::map<std::string, double, std::less<>>& extra) {
  const auto acc16 = detail::acc16_peak_key(t);
  if (!acc16 || !extra.contains(*acc16)) {
    return {};
  }
  switch (acc) {
  case accumulate_precision::fp32: return "FP32 accumulate, as declared";
  case accumulate_precision::fp16: return "FP16 accumulate, as declared: " + *acc16;
  default:
    return "accumulate not declared: the faster of FP16 and FP32 accumulate; declare "
           "\"accumulate\": \"fp32\" for the FP32-accumulate roof";
  }
}

const roof_term& largest(const std::vector<roof_term>& terms) {
  return *std::max_element(terms.begin(), terms.end(), [](const roof_term& a, const roof_term& b) {
    return a.time_s < b.time_s;
  });
}
} // namespace

namespace {
// The pipes a roof holds the kernel's SIMT precision to, raising `peak` where it takes the matrix
// units; returns the term's `via` (empty: the vector pipes, nothing to say). Matrix-shaped work
// may run on the matrix units that compute its precision exactly where they are faster (rocBLAS
// runs fp32 GEMMs on CDNA's FP32 MFMA at twice the vector rate), and so may declared work that
// does not say: without `matrix: true`, rocBLAS's SGEMMs beat the MI210's vector roof in 7,467
// of NeuSight's 80,906 cross-GPU predictions. A roof that depends on a hint is no bound.
std::string simt_path(const kernel_params& k, const std::map<std::string, double, std::less<>>& extra,
                      double& peak) {
  const auto mp = exact_matrix_peak(k.simt_type, extra);
  if (!mp || !(mp->gflops > peak)) {
    return {};
  }
  std::ostringstream vector_rate;
  vector_rate << std::fixed << std::setprecision(0) << peak;
  if (k.matrix) {
    peak = mp->gflops;
    return "matrix units, " + mp->key;
  }
  if (k.matrix_undeclared) {
    peak = mp->gflops;
    return "matrix units, " + mp->key + ": matrix use not declared; matrix: false (perfgate_matrix " +
           "0) holds it to the vector pipes, " + vector_rate.str() + " GFLOPS";
  }
  return k.model == model_kind::roofline ? "vector pipes: declared matrix: false" : std::string();
}
} // namespace

roof_bound roof_of(const kernel_params& k, const device& d, bool one_core) {
  const scope_peaks scope = peaks_of_scope(d, one_core);
  const device_peaks& peak = scope.peaks;
  const auto& extra = scope.extra; // a plain reference: lambdas capture it (clang 15)
  const bool use_one_core = scope.one_core;
  roof_bound r;
  r.co_issue = d.co_issue;

  // Compute: the kernel's SIMT type on its pipe, each op instruction at the FMA issue rate (T_op/2
  // of them per second), so non-FMA work is priced by the instruction, not by the flop; each
  // tensor precision at its own peak.
  std::vector<roof_term> compute;
  const std::string type(to_string(k.simt_type));
  double simt_peak = detail::peak_of(k.simt_type, d, scope);
  const std::string simt_via = simt_path(k, extra, simt_peak);
  if (k.model == model_kind::quantitative && k.I_ops && k.I_total && k.D_ldst && k.D_other) {
    if (*k.I_ops > 0) {
      compute.push_back(term(type, *k.I_ops, simt_peak / 2, simt_via));
    }
    const double ldst = *k.D_ldst * *k.I_total;
    if (ldst > 0) {
      compute.push_back(term("ldst", ldst, peak.ldst_ginst));
    }
    const double other = *k.D_other * *k.I_total;
    if (other > 0) {
      // Other instructions (integer, conversions, control) run at least at the integer-add
      // rate, and at least at the FMA issue rate where integer lanes are fewer than FP32 ones.
      compute.push_back(term("other", other, std::max(peak.int_add_gops, peak.fp32_gflops / 2)));
    }
  } else if (k.W_simt > 0) {
    compute.push_back(term(type, k.W_simt, simt_peak, simt_via));
  }
  for (const auto& [tensor_type, ops] : k.tensor_ops) {
    compute.push_back(term(std::string(to_string(tensor_type)), ops,
                           detail::peak_of(tensor_type, d, scope, k.accumulate),
                           accumulate_via(tensor_type, k.accumulate, extra)));
  }
  const double t_compute = time_of(compute, !r.co_issue);

  // Memory: DRAM at the best access pattern; on a CPU, at the best pattern of the kernel's
  // read/write mix when it is known (a store there costs by its kind: write-allocate or
  // non-temporal, and calibration measures every STREAM mix with both). GPUs keep the best
  // pattern: on the H100, elementwise kernels (2 reads per write) streamed 5% above the
  // time-shared read and copy patterns of their mix. Cache levels where the traffic through
  // them is measured.
  std::vector<roof_term> memory;
  const std::optional<cache_level> level =
      k.working_set_bytes ? cache_holding(d, *k.working_set_bytes, use_one_core) : std::nullopt;
  const std::optional<dram_mix_roof> mix =
      k.write_bytes && d.kind == "cpu"
          ? dram_roof_for_mix(d, use_one_core, k.W_traf - *k.write_bytes, *k.write_bytes,
                              k.ordinary_stores)
          : std::nullopt;
  const std::optional<cache_level> outer =
      !level && d.kind == "gpu" && k.working_set_bytes && *k.working_set_bytes < k.W_traf
          ? last_cache_level(d, use_one_core)
          : std::nullopt;
  if (level) {
    memory.push_back(term(level->name, k.W_traf, level->gbs, k.working_set_source));
  } else if (outer && k.working_set_source.empty()) {
    // A GPU kernel that reads a declared working set beyond every cache more than once: DRAM
    // must deliver the working set once, the re-reads may hit the last cache (thousands of
    // requests to data already in flight, or still resident): te42kyfo/gpu-benches' L2 test
    // read 17-25 MB, two to three times an MI210's 8 MB L2, at 1.5-2.3x its DRAM rate. Both
    // terms bound the time. (A CPU streaming a set beyond its LLC cyclically misses every time.)
    memory.push_back(term("dram", *k.working_set_bytes, memory_roof_gbs(d, use_one_core),
                          "the working set once, beyond every cache"));
    memory.push_back(term(outer->name, k.W_traf, outer->gbs,
                          "re-reads of a working set beyond every cache"));
  } else if (mix) {
    memory.push_back(term("dram", k.W_traf, mix->gbs, mix->via));
  } else if (!k.working_set_source.empty()) { // a working set taken, not declared: say so
    memory.push_back(term("dram", k.W_traf, memory_roof_gbs(d, use_one_core),
                          k.working_set_source + ", in no cache of " + d.id));
  } else {
    memory.push_back(term("dram", k.W_traf, memory_roof_gbs(d, use_one_core)));
  }
  const auto cache = [&](const char* resource, const std::optional<double>& bytes,
                         std::string_view peak_key) {
    const auto rate = extra.find(peak_key);
    if (bytes && *bytes > 0 && rate != extra.end() && !use_one_core) {
      memory.push_back(term(resource, *bytes, rate->second));
    }
  };
  cache("l2", k.l2_bytes, "l2_gbs");
  cache("shared", k.shared_bytes, "shared_gbs");
  const double t_memory = time_of(memory, false);

  r.terms = compute;
  r.terms.insert(r.terms.end(), memory.begin(), memory.end());
  r.T_roof = t_compute > 0 ? k.W_comp / (t_compute * 1e9) : 0.0; // 0: no compute declared
  r.B_roof = k.W_traf / (t_memory * 1e9);
  r.O_ridge = r.T_roof / r.B_roof;
  r.compute_time_s = t_compute;
  r.memory_time_s = t_memory;
  if (t_compute > t_memory) {
    r.bound = bound_class::compute;
    r.time_s = t_compute;
    r.limiter = r.co_issue || compute.size() == 1 ? largest(compute).resource : "issue";
  } else {
    r.bound = bound_class::memory;
    r.time_s = t_memory;
    r.limiter = largest(memory).resource;
  }
  return r;
}

std::string limiter_text(const roof_bound& r) {
  for (const auto& t : r.terms) {
    if (t.resource == r.limiter && !t.via.empty()) {
      return r.limiter + " (" + t.via + ")";
    }
  }
  return r.limiter;
}

double gated_time_s(const prediction& p) { return p.roof ? p.roof->time_s : p.predicted_time_s; }
bound_class gated_bound(const prediction& p) { return p.roof ? p.roof->bound : p.bound; }
double gated_ridge(const prediction& p) { return p.roof ? p.roof->O_ridge : p.O_dev; }

double prediction_error(double predicted_s, double measured_s) {
  return (predicted_s - measured_s) / measured_s;
}

double utilization_factor(double measured_ref_s, double predicted_ref_s) {
  return measured_ref_s / predicted_ref_s;
}

} // namespace perfgate
