// SPDX-License-Identifier: Apache-2.0
// The roof (model.hpp roof_of): the speed-of-light time the gate judges against.
#include <perfgate/device.hpp>
#include <perfgate/error.hpp>
#include <perfgate/model.hpp>

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>

namespace {
using perfgate::bound_class;

perfgate::device toy_device(bool co_issue) {
  perfgate::device d;
  d.id = "toy";
  d.peaks = {1000.0, 500.0, 250.0, 400.0, 200.0, 100.0}; // T_SP T_DP T_int T_add T_ldst B_mem
  d.co_issue = co_issue;
  return d;
}

// 1000 FP32 instructions (600 FMA: 1600 flops), 500 loads/stores, 3200 thread instructions in
// all.
perfgate::model_counters fp32_counters(double dram_bytes, double dram_write_bytes = 0) {
  perfgate::model_counters m;
  m.M_fp32 = 1000;
  m.M_fma32 = 600;
  m.M_ldst = 500;
  m.M_inst = 100;
  m.M_int = 400;
  m.dram_read_bytes = dram_bytes;
  m.dram_write_bytes = dram_write_bytes;
  return m;
}

perfgate::kernel_params fp32_kernel(double dram_bytes, double dram_write_bytes = 0) {
  return perfgate::derive_kernel_params(fp32_counters(dram_bytes, dram_write_bytes));
}

const perfgate::roof_term& term(const perfgate::roof_bound& r, std::string_view resource) {
  for (const auto& t : r.terms) {
    if (t.resource == resource) {
      return t;
    }
  }
  ADD_FAILURE() << "no roof term " << resource;
  return r.terms.front();
}
} // namespace

TEST(Roof, SinglePipelineSumsTheComputeTermsLikeTheThesis) {
  const auto k = fp32_kernel(1.0); // compute-bound
  const auto p = perfgate::predict(k, toy_device(false));
  ASSERT_TRUE(p.roof);
  const auto& r = *p.roof;
  // fp32: 1000 instructions at T_SP/2 = 500 G/s; ldst 500 at 200; other 1700 at max(400, 500).
  EXPECT_DOUBLE_EQ(term(r, "fp32").time_s, 1000 / 500e9);
  EXPECT_DOUBLE_EQ(term(r, "ldst").time_s, 500 / 200e9);
  EXPECT_DOUBLE_EQ(term(r, "other").time_s, 1700 / 500e9);
  EXPECT_DOUBLE_EQ(r.time_s, 1000 / 500e9 + 500 / 200e9 + 1700 / 500e9);
  EXPECT_EQ(r.bound, bound_class::compute);
  EXPECT_EQ(r.limiter, "issue");
  EXPECT_FALSE(r.co_issue);
}

TEST(Roof, CoIssueOverlapsTheComputeTerms) {
  const auto k = fp32_kernel(1.0);
  const auto r = perfgate::roof_of(k, toy_device(true));
  EXPECT_DOUBLE_EQ(r.time_s, 1700 / 500e9); // the 'other' pipe is the busiest
  EXPECT_EQ(r.limiter, "other");
  EXPECT_TRUE(r.co_issue);
  EXPECT_DOUBLE_EQ(r.T_roof, 1600 / r.time_s / 1e9);
}

TEST(Roof, NeverAboveTheModelsPredictionForTheSameDevice) {
  // The roof is at least as fast as the thesis's prediction: the DRAM roof >= B_mem and the
  // compute terms at most the single-pipeline sum.
  for (double bytes : {1.0, 50.0, 1e4}) {
    for (bool co : {false, true}) {
      auto d = toy_device(co);
      d.extra_peaks["dram_read_gbs"] = 130.0;
      const auto p = perfgate::predict(fp32_kernel(bytes), d);
      EXPECT_LE(p.roof->time_s, p.predicted_time_s * (1 + 1e-12)) << bytes << " " << co;
    }
  }
}

TEST(Roof, MemoryRoofOfAnUnknownMixIsTheBestAccessPattern) {
  auto d = toy_device(true);
  d.extra_peaks = {{"dram_read_gbs", 120.0}, {"dram_triad_nt_gbs", 140.0}, {"l2_gbs", 900.0}};
  EXPECT_DOUBLE_EQ(perfgate::memory_roof_gbs(d), 140.0); // l2_gbs is not a DRAM pattern
  auto k = fp32_kernel(1e6);
  k.write_bytes.reset(); // how much of the traffic is written is not known
  const auto r = perfgate::roof_of(k, d);
  EXPECT_EQ(r.bound, bound_class::memory);
  EXPECT_EQ(r.limiter, "dram");
  EXPECT_DOUBLE_EQ(r.time_s, 1e6 / 140e9);
  EXPECT_DOUBLE_EQ(r.B_roof, 140.0);
  EXPECT_EQ(term(r, "dram").via, "");
  EXPECT_EQ(perfgate::limiter_text(r), "dram");
  d.peaks.dram_roof_gbs = 150.0; // stated explicitly: it wins over the patterns
  EXPECT_DOUBLE_EQ(perfgate::roof_of(k, d).time_s, 1e6 / 150e9);
}

// One core of a Zen VM (calibrated 2026-11-23, rounded): reads stream faster than any mix.
perfgate::device zen_like_one_core_patterns() {
  auto d = toy_device(true);
  d.extra_peaks = {{"dram_read_gbs", 20.0},     {"dram_write_gbs", 13.0},
                   {"dram_copy_gbs", 15.0},     {"dram_triad_gbs", 17.0},
                   {"dram_write_nt_gbs", 21.0}, {"dram_copy_nt_gbs", 19.0},
                   {"dram_triad_nt_gbs", 18.0}, {"l2_gbs", 90.0}};
  return d;
}

TEST(Roof, DramPatternsSplitTheirBytesAsStreamCountsThem) {
  const auto patterns = perfgate::dram_patterns(zen_like_one_core_patterns(), false);
  ASSERT_EQ(patterns.size(), 7u); // l2_gbs is no DRAM pattern
  for (const auto& p : patterns) {
    if (p.name == "dram_triad") {
      EXPECT_DOUBLE_EQ(p.read_gbs, 17.0 * 2 / 3); // a = b + s c: two arrays read, one written
      EXPECT_DOUBLE_EQ(p.write_gbs, 17.0 / 3);
    }
    if (p.name == "dram_write_nt") {
      EXPECT_DOUBLE_EQ(p.read_gbs, 0.0);
      EXPECT_DOUBLE_EQ(p.write_gbs, 21.0);
    }
  }
}

TEST(Roof, TheDramRoofFollowsTheKernelsReadWriteMix) {
  const auto d = zen_like_one_core_patterns();
  const auto roof = [&](double read, double write) {
    const auto r = perfgate::dram_roof_for_mix(d, false, read, write);
    EXPECT_TRUE(r.has_value()) << read << " " << write;
    return r.value_or(perfgate::dram_mix_roof{});
  };
  // A read-only kernel (dot product): the read pattern, not the faster non-temporal write.
  EXPECT_DOUBLE_EQ(roof(2e9, 0).gbs, 20.0);
  EXPECT_EQ(roof(2e9, 0).via, "dram_read");
  // A triad's mix: the better triad (non-temporal here), not the 21 GB/s of writing alone.
  EXPECT_DOUBLE_EQ(roof(2e9, 1e9).gbs, 18.0);
  EXPECT_EQ(roof(2e9, 1e9).via, "dram_triad_nt");
  // Copy's mix: the better copy. Write-only: the better write.
  EXPECT_DOUBLE_EQ(roof(1e9, 1e9).gbs, 19.0);
  EXPECT_DOUBLE_EQ(roof(0, 1e9).gbs, 21.0);
  // 3 GB read, 1 GB written lies between read (share 1) and triad (share 2/3): triad_nt moves
  // the 1 GB written with 2 GB read (3 GB at 18 GB/s), the read pattern the last 1 GB (at 20).
  const auto between = roof(3e9, 1e9);
  EXPECT_NEAR(between.gbs, 4.0 / (3.0 / 18 + 1.0 / 20), 1e-12);
  EXPECT_EQ(between.via, "dram_read + dram_triad_nt");
}

// A kernel of ordinary stores cannot use the non-temporal patterns: its roof is the best plain
// pattern of its mix, named; without the declaration the non-temporal one stays in (a bound).
TEST(Roof, OrdinaryStoresAreHeldToThePlainPatternsOfTheirMix) {
  auto d = zen_like_one_core_patterns();
  d.kind = "cpu";
  const auto plain = perfgate::dram_roof_for_mix(d, false, 2e9, 1e9, true);
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->via, "dram_triad");
  EXPECT_LT(plain->gbs, 18.0); // below the non-temporal triad's 18 GB/s
  perfgate::declared_work w;
  w.fp64_flops = 2e8;
  w.bytes = 2.4e9;
  w.write_bytes = 0.8e9;
  EXPECT_EQ(perfgate::limiter_text(perfgate::roof_of(perfgate::declared_kernel_params(w), d)),
            "dram (dram_triad_nt)");
  w.ordinary_stores = true;
  const auto r = perfgate::roof_of(perfgate::declared_kernel_params(w), d);
  EXPECT_EQ(perfgate::limiter_text(r), "dram (dram_triad)");
  EXPECT_DOUBLE_EQ(r.B_roof, plain->gbs);
}

TEST(Roof, ADramMixBeyondTheMeasuredPatternsFallsBackToTheBestPattern) {
  auto d = toy_device(true);
  d.kind = "cpu";
  d.extra_peaks = {{"dram_read_gbs", 120.0}, {"dram_copy_gbs", 140.0}};
  // Writes only, but no pattern was measured writing alone: nothing shows that rate.
  EXPECT_FALSE(perfgate::dram_roof_for_mix(d, false, 0, 1e6));
  perfgate::declared_work w;
  w.fp32_flops = 1.0;
  w.bytes = 1e6;
  w.write_bytes = 1e6;
  const auto r = perfgate::roof_of(perfgate::declared_kernel_params(w), d);
  EXPECT_DOUBLE_EQ(r.time_s, 1e6 / 140e9);
  EXPECT_DOUBLE_EQ(term(r, "dram").rate, 140.0);
  EXPECT_EQ(term(r, "dram").via, "working set not declared: one iteration's bytes, in no cache of toy");
  // A datasheet device without patterns has no mix roof either.
  EXPECT_FALSE(perfgate::dram_roof_for_mix(toy_device(true), false, 1e6, 1e6));
}

TEST(Roof, DeclaredWriteBytesSelectTheOneCorePatternsOfTheirMix) {
  auto d = zen_like_one_core_patterns();
  d.kind = "cpu";
  d.one_core_peaks = perfgate::device_peaks{100.0, 50.0, 25.0, 40.0, 20.0, 10.0, 21.0};
  d.one_core_extra_peaks = {
      {"dram_triad_gbs", 15.0}, {"dram_triad_nt_gbs", 14.0}, {"dram_read_gbs", 21.0}};
  perfgate::declared_work w;
  w.fp64_flops = 2e8;
  w.bytes = 2.4e9; // a triad over 1e8 doubles: 16 B read and 8 B written per element
  w.write_bytes = 0.8e9;
  const auto k = perfgate::declared_kernel_params(w);
  const auto one = perfgate::roof_of(k, d, true);
  EXPECT_DOUBLE_EQ(one.time_s, 2.4e9 / 15e9);
  EXPECT_EQ(term(one, "dram").via, "dram_triad");
  EXPECT_EQ(perfgate::limiter_text(one), "dram (dram_triad)");
  EXPECT_DOUBLE_EQ(perfgate::roof_of(k, d, false).time_s, 2.4e9 / 18e9);
  w.write_bytes = 3e9; // more written than moved
  EXPECT_THROW((void)perfgate::declared_kernel_params(w), perfgate::kernel_input_error);
}

TEST(Roof, OneCoreKernelsUseTheOneCoreMemoryRoof) {
  auto d = toy_device(true);
  d.kind = "cpu";
  d.extra_peaks["dram_triad_gbs"] = 130.0;
  d.one_core_peaks = perfgate::device_peaks{100.0, 50.0, 25.0, 40.0, 20.0, 10.0, 14.0};
  perfgate::declared_work w;
  w.fp64_flops = 1e3;
  w.bytes = 1e9;
  const auto k = perfgate::declared_kernel_params(w);
  EXPECT_DOUBLE_EQ(perfgate::roof_of(k, d, true).time_s, 1e9 / 14e9);
  EXPECT_DOUBLE_EQ(perfgate::roof_of(k, d, false).time_s, 1e9 / 130e9);
}

TEST(Roof, DeclaredWorkIsPricedAtThePeakOfItsType) {
  perfgate::declared_work w;
  w.fp64_flops = 5e12;
  w.bytes = 1e9;
  const auto r = perfgate::roof_of(perfgate::declared_kernel_params(w), toy_device(true));
  ASSERT_EQ(r.terms.size(), 2u); // fp64 and dram
  EXPECT_EQ(r.limiter, "fp64");
  EXPECT_DOUBLE_EQ(r.time_s, 5e12 / 500e9);
  EXPECT_EQ(r.bound, bound_class::compute);
  EXPECT_DOUBLE_EQ(r.O_ridge, 500.0 / 100.0);
}

TEST(Roof, MeasuredCacheTrafficAddsCacheTerms) {
  auto d = toy_device(true);
  d.extra_peaks["l2_gbs"] = 300.0;
  auto k = fp32_kernel(100.0);
  k.l2_bytes = 3000.0; // 10 ns through L2 vs 1 ns from DRAM
  const auto r = perfgate::roof_of(k, d);
  EXPECT_EQ(r.limiter, "l2");
  EXPECT_EQ(r.bound, bound_class::memory);
  EXPECT_DOUBLE_EQ(r.time_s, 3000 / 300e9);
  // Where the device has no L2 rate, the traffic cannot be priced: DRAM alone.
  EXPECT_EQ(perfgate::roof_of(k, toy_device(true)).limiter, "other");
}

TEST(Roof, GatedValuesFallBackToTheModelWithoutARoof) {
  auto p = perfgate::predict(fp32_kernel(1e6), toy_device(true));
  EXPECT_DOUBLE_EQ(perfgate::gated_time_s(p), p.roof->time_s);
  p.roof.reset(); // a prediction read from a format-1 report
  EXPECT_DOUBLE_EQ(perfgate::gated_time_s(p), p.predicted_time_s);
  EXPECT_EQ(perfgate::gated_bound(p), p.bound);
  EXPECT_DOUBLE_EQ(perfgate::gated_ridge(p), p.O_dev);
}

namespace {
// A 2-core CPU: 32 KiB L1d and 512 KiB L2 per core, 32 MiB shared LLC.
perfgate::device cpu_with_caches() {
  perfgate::device d;
  d.id = "cpu";
  d.kind = "cpu";
  d.co_issue = true;
  d.compute_units = 2;
  d.peaks = {200.0, 100.0, 100.0, 100.0, 100.0, 20.0};
  d.one_core_peaks = perfgate::device_peaks{100.0, 50.0, 50.0, 50.0, 50.0, 10.0};
  d.cache_bytes = {{"l1", 32768.0}, {"l2", 524288.0}, {"llc", 33554432.0}};
  d.extra_peaks = {{"l2_gbs", 200.0}, {"llc_gbs", 100.0}};
  d.one_core_extra_peaks = {{"l2_gbs", 80.0}, {"llc_gbs", 40.0}};
  return d;
}

perfgate::kernel_params streaming(double working_set) {
  perfgate::declared_work w;
  w.fp64_flops = 1e3;
  w.bytes = 1e9;
  w.working_set_bytes = working_set;
  return perfgate::declared_kernel_params(w);
}
} // namespace

TEST(Roof, ACpuWorkingSetStreamsFromTheCacheThatHoldsIt) {
  const auto d = cpu_with_caches();
  const auto level = [&](double ws, bool one) {
    const auto r = perfgate::roof_of(streaming(ws), d, one);
    return r.limiter + " " + std::to_string(static_cast<int>(r.B_roof));
  };
  EXPECT_EQ(level(40e3, true), "l1 200");   // <= 2 x 32 KiB: one core's L1, 50 G lanes x 4 B
  EXPECT_EQ(level(100e3, true), "l2 80");   // beyond 2 x L1, within 2 x L2
  EXPECT_EQ(level(10e6, true), "llc 40");   // within 2 x the LLC
  EXPECT_EQ(level(100e6, true), "dram 10"); // beyond every cache
  EXPECT_EQ(level(1.5e6, false), "l2 200"); // all cores: two L2s of 512 KiB
  EXPECT_EQ(level(1.5e6, true), "llc 40");  // one core sees one L2
  EXPECT_EQ(perfgate::roof_of(streaming(0), d, true).limiter, "dram"); // undeclared
}

// SetBytesProcessed alone: one iteration's bytes stand for the working set, and the report says
// so; a declared working set wins, and perfgate_bytes without one keeps DRAM.
TEST(Roof, BytesOnlyBenchmarksAreHeldToTheCacheTheirBytesFit) {
  const auto d = cpu_with_caches();
  perfgate::declared_work w;
  w.bytes = 123e3; // snappy's BM_UFlat/2: 123 KB decompressed an iteration
  w.bytes_source = "bytes_per_second";
  const auto r = perfgate::roof_of(perfgate::declared_kernel_params(w), d, true);
  EXPECT_EQ(r.limiter, "l2");
  EXPECT_DOUBLE_EQ(r.B_roof, 80.0);
  EXPECT_EQ(perfgate::limiter_text(r), "l2 (working set not declared: one iteration's bytes)");
  // The name's arguments are named beside the choice, never read as a size.
  w.arguments = "2";
  EXPECT_EQ(perfgate::limiter_text(perfgate::roof_of(perfgate::declared_kernel_params(w), d, true)),
            "l2 (working set not declared (arguments /2 not read as a size): one iteration's "
            "bytes)");
  w.arguments.clear();
  // Beyond every cache: DRAM, and the report still says what it took.
  w.bytes = 1e9;
  EXPECT_EQ(perfgate::limiter_text(perfgate::roof_of(perfgate::declared_kernel_params(w), d, true)),
            "dram (working set not declared: one iteration's bytes, in no cache of cpu)");
  w.bytes = 123e3;
  w.working_set_bytes = 20e3;
  EXPECT_EQ(perfgate::limiter_text(perfgate::roof_of(perfgate::declared_kernel_params(w), d, true)),
            "l1");
  // One rule whatever declared the bytes (issue 53): perfgate_bytes picks the level as
  // bytes_per_second does (before, it was held to DRAM) ...
  w.working_set_bytes = 0;
  w.bytes_source = "perfgate_bytes";
  EXPECT_EQ(perfgate::roof_of(perfgate::declared_kernel_params(w), d, true).limiter, "l2");
  // ... and a profile's bytes over several invocations: one invocation's bytes.
  w.bytes = 4 * 600e3; // 600 KB an invocation fit the L2 (512 KiB, up to twice over), 2.4 MB no
  EXPECT_EQ(perfgate::roof_of(perfgate::declared_kernel_params(w, 4), d, true).limiter, "l2");
  EXPECT_EQ(perfgate::roof_of(perfgate::declared_kernel_params(w, 1), d, true).limiter, "llc");
  // nvbench's cold times flush the GPU's L2 before every sample: nothing stays cached.
  w.bytes = 123e3;
  w.bytes_source = "nvbench";
  EXPECT_EQ(perfgate::roof_of(perfgate::declared_kernel_params(w), d, true).limiter, "dram");
}

TEST(Roof, ACacheWithoutAMeasuredRateTakesTheFasterLevels) {
  auto d = cpu_with_caches();
  d.one_core_extra_peaks.erase("l2_gbs");
  // L2 holds it but its rate is unknown: the L1 rate is a bound the L2 cannot beat.
  EXPECT_EQ(perfgate::roof_of(streaming(100e3), d, true).B_roof, 200.0);
  auto gpu = cpu_with_caches();
  gpu.kind = "gpu"; // a GPU's caches are the chip's, which all SMs share (issue 42)
  EXPECT_EQ(perfgate::roof_of(streaming(100e3), d, false).limiter, "l1"); // 2 cores' L1s
  EXPECT_EQ(perfgate::roof_of(streaming(100e3), gpu, false).limiter, "l2");
  EXPECT_EQ(perfgate::roof_of(streaming(1e9), gpu, false).limiter, "dram");
}

// The H100 (shared/data/h100): elementwise kernels with 2 reads per write streamed 5% above the
// read and copy patterns time-shared to their mix, so a GPU's DRAM roof stays the best pattern.
TEST(Roof, AGpuKeepsTheBestPatternWhateverItsMix) {
  auto d = toy_device(true);
  d.kind = "gpu";
  d.extra_peaks = {
      {"dram_read_gbs", 3078.0}, {"dram_write_gbs", 3161.0}, {"dram_copy_gbs", 2817.0}};
  const auto k = fp32_kernel(2e9, 1e9); // measured: 2 GB read, 1 GB written
  EXPECT_EQ(k.write_bytes, 1e9);
  const auto r = perfgate::roof_of(k, d);
  EXPECT_DOUBLE_EQ(term(r, "dram").rate, 3161.0);
  d.kind = "cpu"; // the same patterns on a CPU: time-shared read and copy
  EXPECT_LT(term(perfgate::roof_of(k, d), "dram").rate, 3078.0);
}

// ---- tensor-core work (docs/tensor.md) ----------------------------------------------------
namespace {
using perfgate::kernel_type;

// A co-issuing GPU with BF16 and FP64 tensor paths, and no FP8 one.
perfgate::device tensor_gpu() {
  perfgate::device d = toy_device(true);
  d.kind = "gpu";
  d.extra_peaks["tensor_bf16_gflops"] = 8000.0;
  d.extra_peaks["tensor_fp64_gflops"] = 1000.0;
  d.sm_clock_mhz = 1000.0;
  return d;
}

// The FP32 kernel (1600 SIMT flops, 1000 DRAM bytes) with tensor work of one precision.
perfgate::model_counters with_tensor(kernel_type type, double ops) {
  auto m = fp32_counters(800, 200);
  m.tensor_ops[type] = ops;
  return m;
}
} // namespace

TEST(TensorRoof, TensorWorkThatOutnumbersTheSimtFlopsSetsTheKernelsType) {
  const auto k = perfgate::derive_kernel_params(with_tensor(kernel_type::tensor_bf16, 1e6));
  EXPECT_EQ(k.K_type, kernel_type::tensor_bf16);
  EXPECT_EQ(k.simt_type, kernel_type::fp32);
  EXPECT_EQ(k.W_comp, 1e6); // the tensor operations alone: 2 m n k
  EXPECT_DOUBLE_EQ(k.O_krn, 1e6 / 1000.0);
  EXPECT_DOUBLE_EQ(*k.E_mix, 1600.0 / 2000.0); // still the SIMT instructions' mix
  EXPECT_EQ(k.tensor_ops.at(kernel_type::tensor_bf16), 1e6);
}

TEST(TensorRoof, FewerTensorOperationsThanSimtFlopsKeepTheSimtType) {
  const auto k = perfgate::derive_kernel_params(with_tensor(kernel_type::tensor_bf16, 1599));
  EXPECT_EQ(k.K_type, kernel_type::fp32);
  EXPECT_EQ(k.W_comp, 1600.0);
  // The tensor work is still a roof term of its own.
  const auto r = perfgate::roof_of(k, tensor_gpu());
  EXPECT_DOUBLE_EQ(term(r, "tensor_bf16").time_s, 1599 / 8000e9);
}

TEST(TensorRoof, EachPrecisionIsPricedAtItsOwnPeakAndTheLargestTermLimits) {
  auto m = with_tensor(kernel_type::tensor_bf16, 8e6);
  m.tensor_ops[kernel_type::tensor_fp64] = 2e6;
  const auto k = perfgate::derive_kernel_params(m);
  EXPECT_EQ(k.K_type, kernel_type::tensor_bf16);
  const auto d = tensor_gpu();
  const auto r = perfgate::roof_of(k, d);
  EXPECT_DOUBLE_EQ(term(r, "tensor_bf16").time_s, 8e6 / 8000e9); // 1 us
  EXPECT_DOUBLE_EQ(term(r, "tensor_fp64").time_s, 2e6 / 1000e9); // 2 us: the limiter
  EXPECT_EQ(r.limiter, "tensor_fp64");
  EXPECT_EQ(r.bound, perfgate::bound_class::compute);
  // Co-issue: the pipes overlap, so the roof is the largest term, not their sum.
  EXPECT_DOUBLE_EQ(r.time_s, 2e6 / 1000e9);
  // The thesis's prediction holds a tensor kernel to the plain roofline of its path.
  const auto p = perfgate::predict(k, d);
  EXPECT_EQ(p.T_op, 8000.0);
  EXPECT_EQ(p.T_op_adj, 8000.0);
  EXPECT_FALSE(p.E_instr);
  EXPECT_EQ(p.bound, perfgate::bound_class::compute); // O_krn 10,000 op/B > 8000 / 100
}

TEST(TensorRoof, ASinglePipelineDeviceSumsTensorAndSimtTerms) {
  auto d = tensor_gpu();
  d.co_issue = false;
  const auto k = perfgate::derive_kernel_params(with_tensor(kernel_type::tensor_bf16, 8e6));
  const auto r = perfgate::roof_of(k, d);
  double sum = 0;
  for (const auto& t : r.terms) {
    if (t.resource != "dram") {
      sum += t.time_s;
    }
  }
  EXPECT_DOUBLE_EQ(r.time_s, sum);
  EXPECT_EQ(r.limiter, "issue");
}

TEST(TensorRoof, ADeviceWithoutTheKernelsPathRefusesItByName) {
  const auto k = perfgate::derive_kernel_params(with_tensor(kernel_type::tensor_fp8, 1e6));
  auto d = tensor_gpu();
  d.origin = "built-in";
  try {
    (void)perfgate::predict(k, d);
    FAIL() << "predicted FP8 tensor work on a device without an FP8 path";
  } catch (const perfgate::usage_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "device 'toy' has no tensor_fp8 path: no peak 'tensor_fp8_gflops' in built-in (the "
              "hardware lacks that precision, or the device file does not state its peak); "
              "predict the kernel on a device that has it");
  }
  // A minor tensor precision is refused as well: its term cannot be priced.
  const auto minor = perfgate::derive_kernel_params(with_tensor(kernel_type::tensor_fp8, 10));
  EXPECT_EQ(minor.K_type, kernel_type::fp32);
  EXPECT_THROW((void)perfgate::roof_of(minor, d), perfgate::usage_error);
}

TEST(TensorRoof, TensorPeaksFollowTheSmClock) {
  const auto d = perfgate::at_sm_clock(tensor_gpu(), 1500.0);
  EXPECT_DOUBLE_EQ(d.extra_peaks.at("tensor_bf16_gflops"), 12000.0);
}

TEST(TensorRoof, NegativeTensorCountsAreBrokenInput) {
  EXPECT_THROW((void)perfgate::derive_kernel_params(with_tensor(kernel_type::tensor_bf16, -1)),
               perfgate::kernel_input_error);
}

TEST(TensorRoof, EveryTensorTypeHasAPathAndANameOfItsOwn) {
  std::set<std::string> names;
  for (const auto& path : perfgate::tensor_paths()) {
    EXPECT_TRUE(perfgate::is_tensor(path.type));
    EXPECT_EQ(&perfgate::tensor_path_of(path.type), &path);
    EXPECT_EQ("tensor_" + std::string(path.counter).substr(7, path.counter.size() - 11),
              std::string(perfgate::to_string(path.type)));
    names.insert(std::string(perfgate::to_string(path.type)));
  }
  EXPECT_EQ(names.size(), perfgate::tensor_paths().size());
  EXPECT_FALSE(perfgate::is_tensor(kernel_type::fp64));
  EXPECT_THROW((void)perfgate::tensor_path_of(kernel_type::fp32), std::logic_error);
}
