// SPDX-License-Identifier: Apache-2.0
// A latency sweep read and fitted (`perfgate pipeline fit`, `perfgate calibrate`): latencies
// that made the sweep by Eq. 1 come back out of it, and a bad row is named by file and line.
#include <perfgate/error.hpp>
#include <perfgate/pipeline.hpp>

#include "importers/latency_sweep.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

namespace {

using perfgate::detail::fit_latency_sweep;
using perfgate::detail::latency_fit_request;

// op,warps_per_sm,n_dependent,cycles_max rows of Eq. 1 for `l` at 1..max_warps warps.
std::string sweep_rows(const std::string& op, const perfgate::pipeline::latency& l, std::uint64_t n,
                       std::uint64_t max_warps) {
  std::string rows;
  for (std::uint64_t w = 1; w <= max_warps; ++w) {
    rows += op + "," + std::to_string(w) + "," + std::to_string(n) + "," +
            std::to_string(perfgate::pipeline::eq1_cycles(l, n, w)) + ",1755000\n";
  }
  return rows;
}

TEST(LatencySweep, FitsBackTheLatenciesEqOneMadeTheSweepFrom) {
  // FFMA-like (lambda 0.5, Lambda 4.5) and DFMA-like (lambda 2, Lambda 8): past the knee by 48.
  const perfgate::pipeline::latency ffma{0.5, 4.5};
  const perfgate::pipeline::latency dfma{2.0, 8.0};
  latency_fit_request r;
  r.csv_text = "op,warps_per_sm,n_dependent,cycles_max,sm_clock_attr_khz\n" +
               sweep_rows("ffma", ffma, 64, 48) + sweep_rows("dfma", dfma, 64, 48);
  r.file = "sweep.csv";
  r.device = "h100-sxm";
  const auto fit = fit_latency_sweep(r);
  const auto doc = nlohmann::json::parse(fit.json);
  EXPECT_EQ(doc.at("schema"), "perfgate-latencies/1");
  EXPECT_EQ(doc.at("device"), "h100-sxm");
  EXPECT_EQ(doc.at("warp_size"), 32);
  EXPECT_DOUBLE_EQ(doc.at("clock_hz").get<double>(), 1755000e3);
  // std::to_string keeps 6 decimals of the cycles: the fit is exact to about 1e-6 cycles.
  EXPECT_NEAR(doc.at("ops").at("ffma").at("issue").get<double>(), 0.5, 1e-6);
  EXPECT_NEAR(doc.at("ops").at("ffma").at("completion").get<double>(), 4.5, 1e-6);
  EXPECT_EQ(doc.at("ops").at("ffma").at("pipe"), "alu");
  EXPECT_NEAR(doc.at("ops").at("dfma").at("issue").get<double>(), 2.0, 1e-6);
  EXPECT_NEAR(doc.at("ops").at("dfma").at("completion").get<double>(), 8.0, 1e-6);
  EXPECT_EQ(doc.at("ops").at("dfma").at("pipe"), "fp64");
  // The table for a terminal has a row per op, in the sweep's order.
  const auto at_ffma = fit.table.find("ffma");
  const auto at_dfma = fit.table.find("dfma");
  ASSERT_NE(at_ffma, std::string::npos);
  ASSERT_NE(at_dfma, std::string::npos);
  EXPECT_LT(at_ffma, at_dfma);
}

TEST(LatencySweep, ABadCycleCountIsNamedByFileAndLine) {
  latency_fit_request r;
  r.csv_text = "op,warps_per_sm,n_dependent,cycles_max\nffma,1,64,288\nffma,2,64,fast\n";
  r.file = "sweep.csv";
  try {
    (void)fit_latency_sweep(r);
    FAIL() << "expected input_error";
  } catch (const perfgate::input_error& e) {
    EXPECT_EQ(e.file(), "sweep.csv");
    EXPECT_EQ(e.where(), "3");
  }
}

TEST(LatencySweep, WithoutNDependentTheChainLengthMustBeGiven) {
  latency_fit_request r;
  r.csv_text = "op,warps_per_sm,cycles_max\nffma,1,288\n";
  r.file = "sweep.csv";
  EXPECT_THROW((void)fit_latency_sweep(r), perfgate::usage_error);
  r.n = 64;
  r.csv_text += "ffma,48,3000\n";
  EXPECT_NO_THROW((void)fit_latency_sweep(r));
}

} // namespace
