// SPDX-License-Identifier: Apache-2.0
// The measured-scaling predictor (docs/model.md, "Predicting from a measurement") on devices
// and kernels small enough to check by hand.
#include <perfgate/error.hpp>
#include <perfgate/model.hpp>

#include <perfgate/file_io.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <limits>

namespace {
using perfgate::device;

// Peaks: T_SP T_DP T_int T_add T_ldst B_mem (1e9/s), and the SM clock they hold at.
device gpu(const char* id, double fp32, double dram_gbs, double mhz) {
  device d;
  d.id = id;
  d.kind = "gpu";
  d.peaks = {fp32, fp32 / 2, fp32 / 2, fp32 / 2, fp32 / 4, dram_gbs};
  d.sm_clock_mhz = mhz;
  return d;
}

perfgate::kernel_params kernel(double flops, double bytes) {
  perfgate::declared_work w;
  w.fp32_flops = flops;
  w.bytes = bytes;
  return perfgate::declared_kernel_params(w);
}

const device src = gpu("src", 1000, 100, 1000);

TEST(MeasuredScaling, TheLimitedShareScalesWithItsResourceTheRestWithTheClock) {
  const auto k = kernel(1e9, 1e9); // memory-bound on src: roof 10 ms (compute 1 ms)
  // dst: 1.25x the clock and the same SMs, so 1.25x the load/store issue rate.
  const device dst = gpu("dst", 1250, 200, 1250);
  const auto p = perfgate::predict_from_measurement(k, 12.5e-3, std::nullopt, src, dst);
  ASSERT_TRUE(p.scaling);
  const auto& s = *p.scaling;
  EXPECT_EQ(s.measured_on, "src");
  EXPECT_DOUBLE_EQ(s.utilisation, 0.8); // 10 ms of 12.5 ms explained by DRAM
  EXPECT_EQ(s.limiter, "dram");
  EXPECT_DOUBLE_EQ(s.resource_scale, 0.5); // twice the bandwidth
  EXPECT_DOUBLE_EQ(s.clock_scale, 0.8);    // 1000 / 1250 MHz
  // The 2.5 ms the roof does not explain is bandwidth the SMs' requests did not reach: it moves
  // with their load/store issue rate, here the clock's.
  EXPECT_DOUBLE_EQ(s.leftover_scale, 0.8);
  EXPECT_FALSE(s.at_roof);
  EXPECT_NEAR(p.predicted_time_s, 12.5e-3 * (0.8 * 0.5 + 0.2 * 0.8), 1e-15);
  EXPECT_EQ(perfgate::predictor_of(p, k), "measured-scaling");
  // The model's own prediction on dst is unchanged beside it.
  const auto model = perfgate::predict(k, dst);
  EXPECT_EQ(perfgate::predictor_of(model, k), "roofline");
  EXPECT_DOUBLE_EQ(p.T_pred, model.T_pred);
  EXPECT_DOUBLE_EQ(p.roof->time_s, model.roof->time_s);
}

TEST(MeasuredScaling, AComputeBoundLeftoverScalesWithTheClock) {
  const auto k = kernel(1e12, 1e9); // compute-bound on src: roof 1 s
  const device dst = gpu("dst", 1000, 100, 1250);
  const auto p = perfgate::predict_from_measurement(k, 1.25, std::nullopt, src, dst);
  EXPECT_DOUBLE_EQ(p.scaling->resource_scale, 1.0);
  EXPECT_DOUBLE_EQ(p.scaling->leftover_scale, 0.8); // 1000 / 1250 MHz
  EXPECT_NEAR(p.predicted_time_s, 1.25 * (0.8 * 1.0 + 0.2 * 0.8), 1e-12);
}

TEST(MeasuredScaling, AComputeBoundKernelScalesWithTheComputeRate) {
  const auto k = kernel(1e12, 1e9); // compute-bound on src: roof 1 s (memory 10 ms)
  const device dst = gpu("dst", 2000, 100, 1000);
  const auto p = perfgate::predict_from_measurement(k, 1.25, std::nullopt, src, dst);
  EXPECT_EQ(p.scaling->limiter, "fp32");
  EXPECT_DOUBLE_EQ(p.scaling->resource_scale, 0.5);
  EXPECT_DOUBLE_EQ(p.scaling->clock_scale, 1.0);
  EXPECT_NEAR(p.predicted_time_s, 1.25 * (0.8 * 0.5 + 0.2), 1e-12);
}

TEST(MeasuredScaling, TheSourceIsHeldToTheClockTheKernelRanAt) {
  const auto k = kernel(1e12, 1e9);
  const device dst = gpu("dst", 2000, 100, 1250);
  // At 800 MHz src computes at 800 GFLOPS: 1.25 s is all compute (u = 1), and dst's 2000
  // GFLOPS make it 0.5 s.
  const auto p = perfgate::predict_from_measurement(k, 1.25, 800.0, src, dst);
  EXPECT_DOUBLE_EQ(p.scaling->utilisation, 1.0);
  EXPECT_DOUBLE_EQ(p.scaling->resource_scale, 0.4);
  EXPECT_DOUBLE_EQ(p.scaling->clock_scale, 800.0 / 1250.0);
  EXPECT_NEAR(p.predicted_time_s, 0.5, 1e-12);
}

TEST(MeasuredScaling, NeverBelowTheDestinationsRoof) {
  const auto k = kernel(1e9, 1e9);
  const device dst = gpu("dst", 1000, 400, 1000); // roof 2.5 ms
  // A measurement faster than src's roof (a wrong device file, a cached input) counts as u = 1
  // and would scale to 2 ms: the roof holds.
  const auto p = perfgate::predict_from_measurement(k, 8e-3, std::nullopt, src, dst);
  EXPECT_DOUBLE_EQ(p.scaling->utilisation, 1.0);
  EXPECT_TRUE(p.scaling->at_roof);
  EXPECT_DOUBLE_EQ(p.predicted_time_s, p.roof->time_s);
  EXPECT_NEAR(p.predicted_time_s, 2.5e-3, 1e-15);
}

TEST(MeasuredScaling, WithoutClocksOnlyTheResourceScales) {
  auto a = src;
  a.sm_clock_mhz.reset();
  // Compute-bound, 0.8 explained: the leftover keeps its time without a source clock.
  const auto p = perfgate::predict_from_measurement(kernel(1e12, 1e9), 1.25, std::nullopt, a,
                                                    gpu("dst", 2000, 200, 1500));
  EXPECT_DOUBLE_EQ(p.scaling->clock_scale, 1.0);
  EXPECT_DOUBLE_EQ(p.scaling->leftover_scale, 1.0);
  EXPECT_NEAR(p.predicted_time_s, 1.25 * (0.8 * 0.5 + 0.2), 1e-12);
}

TEST(MeasuredScaling, RefusesATimeThatIsNoTime) {
  const auto k = kernel(1e9, 1e9);
  for (double t : {0.0, -1.0, std::numeric_limits<double>::quiet_NaN(),
                   std::numeric_limits<double>::infinity()}) {
    EXPECT_THROW((void)perfgate::predict_from_measurement(k, t, std::nullopt, src, src),
                 perfgate::usage_error);
  }
}

TEST(MeasuredAccuracy, TheEmbeddedFiguresAreTheBenchmarksFile) {
  const auto file = nlohmann::json::parse(
      perfgate::read_text_file(PERFGATE_SOURCE_DIR "/perfgate/model/accuracy.json"));
  ASSERT_FALSE(file.at("figures").empty());
  for (const auto& f : file.at("figures")) {
    const auto bound = f.at("bound") == "memory" ? perfgate::bound_class::memory
                                                 : perfgate::bound_class::compute;
    const auto a = perfgate::accuracy_of(f.at("predictor").get<std::string>(), bound);
    ASSERT_TRUE(a) << f.dump();
    EXPECT_EQ(a->median_abs_error_pct, f.at("median_abs_error_pct").get<double>());
    EXPECT_EQ(a->mean_abs_error_pct, f.at("mean_abs_error_pct").get<double>());
    EXPECT_EQ(a->predictions, f.at("predictions").get<std::size_t>());
  }
  // The roofline model of declared work was never measured against a truth: no figure.
  EXPECT_FALSE(perfgate::accuracy_of("roofline", perfgate::bound_class::memory));
}

} // namespace
