// SPDX-License-Identifier: Apache-2.0
// The model's rules beyond the thesis's two case studies (those are in golden/).
#include <perfgate/error.hpp>
#include <perfgate/model.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace {
perfgate::device toy_device() {
  perfgate::device d;
  d.id = "toy";
  d.peaks = {1000.0, 500.0, 250.0, 400.0, 200.0, 100.0}; // T_SP T_DP T_int T_add T_ldst B_mem
  return d;
}

perfgate::model_counters fp32_kernel() {
  perfgate::model_counters m;
  m.M_fp32 = 1000;
  m.M_fma32 = 600;
  m.M_ldst = 500;
  m.M_inst = 100; // x 32 = 3200 thread instructions
  m.M_int = 400;
  m.dram_read_bytes = 800;
  m.dram_write_bytes = 200;
  return m;
}
} // namespace

TEST(Model, KernelTypePrecedenceIsFp64ThenFp32ThenInt) {
  auto m = fp32_kernel();
  EXPECT_EQ(perfgate::derive_kernel_params(m).K_type, perfgate::kernel_type::fp32);
  m.M_fp64 = 1;
  EXPECT_EQ(perfgate::derive_kernel_params(m).K_type, perfgate::kernel_type::fp64);
  m.M_fp64 = 0;
  m.M_fp32 = 0;
  m.M_fma32 = 0;
  const auto k = perfgate::derive_kernel_params(m);
  EXPECT_EQ(k.K_type, perfgate::kernel_type::integer);
  EXPECT_EQ(k.W_comp, 400.0); // integer work is M_int
  EXPECT_EQ(*k.E_mix, 0.5);   // fixed for integer kernels
  const auto p = perfgate::predict(k, toy_device());
  EXPECT_EQ(p.T_op, 250.0); // T_int
  EXPECT_EQ(*p.W_op, 4.0);  // T_SP / T_int
}

TEST(Model, Fp32ParametersFollowTheDefinitions) {
  const auto k = perfgate::derive_kernel_params(fp32_kernel());
  EXPECT_EQ(k.W_comp, 1600.0); // M_fp32 + M_fma32
  EXPECT_EQ(k.W_traf, 1000.0);
  EXPECT_DOUBLE_EQ(*k.E_mix, 1600.0 / 2000.0); // (M_fp32 + M_fma32) / (2 M_fp32)
  EXPECT_DOUBLE_EQ(*k.D_ops, 1000.0 / 3200.0);
  EXPECT_DOUBLE_EQ(*k.D_ldst, 500.0 / 3200.0);
  EXPECT_DOUBLE_EQ(*k.D_other, 1.0 - 1500.0 / 3200.0);
  EXPECT_DOUBLE_EQ(k.O_krn, 1.6);
}

TEST(Model, PredictionFollowsTheDefinitions) {
  const auto k = perfgate::derive_kernel_params(fp32_kernel());
  const auto p = perfgate::predict(k, toy_device());
  EXPECT_EQ(*p.W_op, 1.0);
  EXPECT_EQ(*p.W_ldst, 500.0 / 200.0);
  EXPECT_EQ(*p.W_other, 500.0 / 400.0);
  const double c_op = *k.D_ops, c_ldst = *k.D_ldst * 2.5, c_other = *k.D_other * 1.25;
  EXPECT_DOUBLE_EQ(*p.E_instr, c_op / (c_op + c_ldst + c_other));
  EXPECT_DOUBLE_EQ(p.T_op_adj, 0.8 * *p.E_instr * 1000.0);
  EXPECT_DOUBLE_EQ(p.O_dev, p.T_op_adj / 100.0);
  // O_krn 1.6 < O_dev (about 3.2): memory-bound at O_krn x B_mem.
  EXPECT_EQ(p.bound, perfgate::bound_class::memory);
  EXPECT_DOUBLE_EQ(p.T_pred, 160.0);
  EXPECT_DOUBLE_EQ(p.predicted_time_s, 1600.0 / 160e9);
}

TEST(Model, AWiderWavefrontDilutesTheMix) {
  // I_total = warp size x M_inst with the warp size of the profiled GPU.
  auto m = fp32_kernel();
  m.warp_size = 64;
  const auto k = perfgate::derive_kernel_params(m);
  EXPECT_DOUBLE_EQ(*k.I_total, 6400.0);
  EXPECT_DOUBLE_EQ(*k.D_ops, 1000.0 / 6400.0);
}

TEST(Model, RidgePointExactlyIsMemoryBound) {
  perfgate::declared_work w{1000.0, 0, 0, 1000.0};
  auto d = toy_device();
  d.peaks.dram_gbs = 1000.0; // O_dev = 1000 / 1000 = 1 = O_krn
  const auto p = perfgate::predict(perfgate::declared_kernel_params(w), d);
  EXPECT_EQ(p.bound, perfgate::bound_class::memory);
  EXPECT_DOUBLE_EQ(p.T_pred, 1000.0);
}

TEST(Model, DeclaredWorkIsThePlainRooflineWithoutMixTerms) {
  perfgate::declared_work w{0, 2.0e9, 0, 1.0e9};
  const auto k = perfgate::declared_kernel_params(w);
  EXPECT_EQ(k.model, perfgate::model_kind::roofline);
  EXPECT_EQ(k.K_type, perfgate::kernel_type::fp64);
  EXPECT_FALSE(k.E_mix);
  const auto p = perfgate::predict(k, toy_device());
  EXPECT_FALSE(p.E_instr);
  EXPECT_EQ(p.T_op_adj, 500.0); // T_DP, no adjustment
  EXPECT_EQ(p.O_dev, 5.0);
  EXPECT_EQ(p.bound, perfgate::bound_class::memory); // O_krn 2 < O_dev 5
  EXPECT_EQ(p.T_pred, 200.0);                        // O_krn x B_mem
  w.bytes = 1.0e8;                                   // O_krn 20 > 5
  const auto q = perfgate::predict(perfgate::declared_kernel_params(w), toy_device());
  EXPECT_EQ(q.bound, perfgate::bound_class::compute);
  EXPECT_EQ(q.T_pred, 500.0);
}

TEST(Model, InconsistentCountsAreInputErrors) {
  auto m = fp32_kernel();
  m.dram_read_bytes = m.dram_write_bytes = 0;
  EXPECT_THROW((void)perfgate::derive_kernel_params(m), perfgate::kernel_input_error);
  m = fp32_kernel();
  m.M_inst = 10; // 320 thread instructions < M_fp32 + M_ldst
  try {
    (void)perfgate::derive_kernel_params(m);
    FAIL() << "expected kernel_input_error";
  } catch (const perfgate::kernel_input_error& e) {
    EXPECT_NE(std::string(e.what()).find("is the warp size 32 right?"), std::string::npos);
  }
  m = fp32_kernel();
  m.M_fp32 = -1;
  EXPECT_THROW((void)perfgate::derive_kernel_params(m), perfgate::kernel_input_error);
  EXPECT_THROW((void)perfgate::declared_kernel_params({0, 0, 0, 0}), perfgate::kernel_input_error);
  EXPECT_THROW((void)perfgate::declared_kernel_params({1, 0, 0, 0}), perfgate::kernel_input_error);
  // Bytes without operations are the memory side alone (SetBytesProcessed), not an error.
  EXPECT_FALSE(perfgate::declared_kernel_params({0, 0, 0, 10}).compute_declared);
}

TEST(Model, PredictionErrorAndUtilization) {
  EXPECT_DOUBLE_EQ(perfgate::prediction_error(20.414, 21.456), (20.414 - 21.456) / 21.456);
  EXPECT_DOUBLE_EQ(perfgate::utilization_factor(4.0, 2.0), 2.0);
}

namespace {
// The toy device with the clock its peaks hold at, a one-core roof and extra peaks.
perfgate::device clocked_toy() {
  perfgate::device d = toy_device();
  d.sm_clock_mhz = 1980.0;
  d.one_core_peaks = perfgate::device_peaks{10.0, 5.0, 2.5, 4.0, 2.0, 8.0};
  d.extra_peaks = {{"fp16_gflops", 2000.0}, {"l2_gbs", 300.0}, {"tensor_fp16_gflops", 8000.0}};
  return d;
}
} // namespace

TEST(Model, AtSmClockScalesComputePeaksNotBandwidth) {
  const auto d = clocked_toy();
  const auto s = perfgate::at_sm_clock(d, 1410.0);
  const double scale = 1410.0 / 1980.0;
  EXPECT_EQ(s.id, "toy");
  EXPECT_EQ(s.sm_clock_mhz, 1410.0);
  EXPECT_DOUBLE_EQ(s.peaks.fp32_gflops, 1000.0 * scale);
  EXPECT_DOUBLE_EQ(s.peaks.fp64_gflops, 500.0 * scale);
  EXPECT_DOUBLE_EQ(s.peaks.int_mad_gops, 250.0 * scale);
  EXPECT_DOUBLE_EQ(s.peaks.int_add_gops, 400.0 * scale);
  EXPECT_DOUBLE_EQ(s.peaks.ldst_ginst, 200.0 * scale);
  EXPECT_EQ(s.peaks.dram_gbs, 100.0); // DRAM runs on its own clock
  ASSERT_TRUE(s.one_core_peaks);
  EXPECT_DOUBLE_EQ(s.one_core_peaks->fp64_gflops, 5.0 * scale);
  EXPECT_EQ(s.one_core_peaks->dram_gbs, 8.0);
  EXPECT_DOUBLE_EQ(s.extra_peaks.at("fp16_gflops"), 2000.0 * scale);
  EXPECT_DOUBLE_EQ(s.extra_peaks.at("tensor_fp16_gflops"), 8000.0 * scale);
  EXPECT_EQ(s.extra_peaks.at("l2_gbs"), 300.0); // a bandwidth: left alone
  EXPECT_EQ(d.peaks.fp32_gflops, 1000.0);       // the original is untouched
}

TEST(Model, LowerClockSlowsComputeBoundKernelsOnly) {
  const auto d = clocked_toy();
  const auto slow = perfgate::at_sm_clock(d, 1410.0);

  // Counters, compute-bound (O_krn 1600 op/B): the instruction costs are ratios of peaks, so the
  // whole roof T'_op follows the clock and the time grows by exactly 1980 / 1410.
  auto m = fp32_kernel();
  m.dram_read_bytes = 1;
  m.dram_write_bytes = 0;
  const auto k = perfgate::derive_kernel_params(m);
  const auto at_peak = perfgate::predict(k, d);
  const auto at_1410 = perfgate::predict(k, slow);
  ASSERT_EQ(at_peak.bound, perfgate::bound_class::compute);
  ASSERT_EQ(at_1410.bound, perfgate::bound_class::compute);
  EXPECT_DOUBLE_EQ(*at_1410.E_instr, *at_peak.E_instr);
  EXPECT_DOUBLE_EQ(at_1410.predicted_time_s / at_peak.predicted_time_s, 1980.0 / 1410.0);

  // Declared work, compute-bound: the same ratio.
  const auto roof = perfgate::declared_kernel_params({1e12, 0, 0, 1e9});
  EXPECT_DOUBLE_EQ(perfgate::predict(roof, d).predicted_time_s, 1.0); // 1e12 / 1000e9
  EXPECT_DOUBLE_EQ(perfgate::predict(roof, slow).predicted_time_s, 1980.0 / 1410.0);

  // Memory-bound (O_krn 0.1 op/B): DRAM bandwidth does not follow the SM clock.
  const auto stream = perfgate::declared_kernel_params({1e8, 0, 0, 1e9});
  const auto mem_peak = perfgate::predict(stream, d);
  const auto mem_1410 = perfgate::predict(stream, slow);
  ASSERT_EQ(mem_peak.bound, perfgate::bound_class::memory);
  ASSERT_EQ(mem_1410.bound, perfgate::bound_class::memory);
  EXPECT_EQ(mem_1410.predicted_time_s, mem_peak.predicted_time_s);
  EXPECT_FALSE(mem_1410.clock_scale); // predict() never sets it; predict_report does
}

TEST(Model, AtSmClockNeedsBothClocks) {
  const auto d = clocked_toy();
  for (double bad : {0.0, -1410.0, std::nan(""), std::numeric_limits<double>::infinity()}) {
    EXPECT_THROW((void)perfgate::at_sm_clock(d, bad), perfgate::usage_error) << bad;
  }
  try {
    (void)perfgate::at_sm_clock(toy_device(), 1410.0); // no clock for its peaks
    FAIL() << "expected usage_error";
  } catch (const perfgate::usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("device 'toy' does not say which SM clock its peaks "
                                         "hold at"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(perfgate::at_sm_clock(d, 1980.0).peaks.fp32_gflops, 1000.0); // same clock: same
}
