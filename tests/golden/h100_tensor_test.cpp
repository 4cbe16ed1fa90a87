// SPDX-License-Identifier: Apache-2.0
// Tensor-core kernels captured with Nsight Compute on an H100 (tests/data/h100): cuBLAS BF16,
// TF32 and FP64 (DMMA) GEMMs and cuDNN flash attention, whose FLOPs are known (2 m n k per GEMM;
// torch_tensor.py printed them). The work perfgate counts must be those FLOPs, the kernel's type
// and roof its precision, and no kernel may beat its roof. Then the same kernels on other GPUs
// of the database, against roofs computed by hand from their datasheets.
#include <perfgate/device.hpp>
#include <perfgate/error.hpp>
#include <perfgate/import.hpp>
#include <perfgate/report.hpp>
#include <perfgate/writers.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {
const std::string dir = std::string(PERFGATE_TEST_DATA_DIR) + "/h100/";

struct known_kernel {
  const char* name_part;
  perfgate::kernel_type type;
  double flops_per_call; // printed by torch_tensor.py
};

// Every GEMM and attention launch of the capture with a counted precision (3 calls each).
const known_kernel known[] = {
    {"nvjet_sm90_tst_", perfgate::kernel_type::tensor_bf16, 137438953472.0},    // BF16 4096^3
    {"tf32f32_f32_nn", perfgate::kernel_type::tensor_tf32, 137438953472.0},     // TF32 4096^3
    {"f64f64_f64f64_f64", perfgate::kernel_type::tensor_fp64, 17179869184.0},   // FP64 2048^3
    {"flash_fprop_wgmma", perfgate::kernel_type::tensor_bf16, 1099511627776.0}, // 8x16 heads
};
constexpr const char* known_regex = "nvjet_sm90_tst_|tf32f32_f32_nn|f64f64_f64f64_f64|flash_fprop";

const perfgate::kernel_report& find(const perfgate::report& r, const char* part) {
  for (const auto& k : r.kernels) {
    if (k.name.find(part) != std::string::npos) {
      return k;
    }
  }
  throw std::runtime_error(std::string("no kernel ") + part);
}

perfgate::report tensor_report(const std::vector<perfgate::device>& devices) {
  return perfgate::predict_report(perfgate::import_profile(dir + "tensor_ncu_raw.csv"), devices,
                                  known_regex);
}
} // namespace

TEST(H100Tensor, WorkIsTheKnownFlopsInTheKernelsPrecision) {
  const auto r = tensor_report({perfgate::resolve_device("h100-sxm")});
  ASSERT_EQ(r.kernels.size(), 4u);
  for (const auto& kk : known) {
    SCOPED_TRACE(kk.name_part);
    const auto& k = find(r, kk.name_part);
    EXPECT_EQ(k.invocations, 3u);
    EXPECT_EQ(k.params.K_type, kk.type);
    // The counters equal 2 m n k exactly; 0.1% is the tolerance.
    EXPECT_NEAR(k.params.W_comp / 3, kk.flops_per_call, 1e-3 * kk.flops_per_call);
  }
}

TEST(H100Tensor, EachKernelIsHeldToTheRoofOfItsPrecisionAndStaysBelowIt) {
  // The built-in datasheet H100, and the calibration of that very GPU (which measured no tensor
  // peak: it takes the datasheet's per-clock rates at its own 1980 MHz).
  const auto calibrated = perfgate::load_device_file(dir + "h100-calibrated.json");
  EXPECT_NE(calibrated.citations.at("tensor_bf16_gflops").find("not measured"), std::string::npos);
  const auto r = tensor_report({perfgate::resolve_device("h100-sxm"), calibrated});
  for (const auto& kk : known) {
    SCOPED_TRACE(kk.name_part);
    const auto& k = find(r, kk.name_part);
    ASSERT_TRUE(k.measured);
    for (const auto& p : k.predictions) {
      SCOPED_TRACE(p.device);
      ASSERT_TRUE(p.roof);
      EXPECT_EQ(p.roof->limiter, perfgate::to_string(kk.type));
      EXPECT_EQ(p.roof->bound, perfgate::bound_class::compute);
      const double ratio = p.roof->time_s / k.measured->time_s;
      // ncu locked the SM clock near base (1.39-1.57 GHz) against 1980 MHz in the roofs: the
      // kernels reach 0.54 (attention) to 0.73 (FP64) of them.
      EXPECT_GT(ratio, 0.05);
      EXPECT_LE(ratio, 1.0);
    }
  }
  // Hand-computed: 3 BF16 GEMMs = 412,316,860,416 flops at 4096 flops/clk/SM x 132 SMs x
  // 1.980 GHz = 1,070,530.56 GFLOPS -> 385.152 us.
  EXPECT_NEAR(find(r, "nvjet_sm90_tst_").predictions.front().roof->time_s, 385.152e-6, 1e-9);
}

TEST(H100Tensor, AKernelWhoseTensorWorkWasNotCollectedIsRefusedByName) {
  // The FP16 GEMM (nvjet_sm90_hsh_*) needs sm__ops_path_tensor_src_fp16, which this capture
  // did not request: perfgate says so instead of calling it a memory-bound FP32 kernel.
  const auto p = perfgate::import_profile(dir + "tensor_ncu_raw.csv");
  try {
    (void)perfgate::predict_report(p, {perfgate::resolve_device("h100-sxm")}, "nvjet_sm90_hsh");
    FAIL() << "predicted a tensor kernel without its tensor work";
  } catch (const perfgate::input_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("kernel 'nvjet_sm90_hsh_256x128_64x4_1x2_h_bz_coopA_NNT': executed "
                        "6291456 matrix instructions on the tensor pipe"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("collect sm__ops_path_tensor_src_fp16.sum"), std::string::npos) << what;
  }
}

TEST(H100Tensor, HalfPrecisionFmaOnTheTensorPipeIsNoMatrixWork) {
  // GH100 counts SIMT HFMA2 on the tensor pipe: the RNG kernels' 143,616 tensor-pipe
  // instructions are their 4,595,712 HFMA thread instructions / 32. They are SIMT kernels (FP32,
  // the FP64 one FP64).
  const auto r =
      perfgate::predict_report(perfgate::import_profile(dir + "tensor_ncu_raw.csv"),
                               {perfgate::resolve_device("h100-sxm")}, "distribution_elementwise");
  ASSERT_FALSE(r.kernels.empty());
  for (const auto& k : r.kernels) {
    EXPECT_FALSE(perfgate::is_tensor(k.params.K_type)) << k.name;
    EXPECT_TRUE(k.params.tensor_ops.empty()) << k.name;
  }
}

// Cross-GPU: the BF16 GEMM's 3 calls (412,316,860,416 flops) predicted from the H100 capture.
// Hand-computed tensor roofs, each the limiting term (their DRAM terms, 536 MB at 2-5 TB/s, take
// 0.1-0.3 ms):
//   A100 80GB: 2048 flops/clk/SM x 108 SMs x 1.410 GHz = 311,869.44 GFLOPS -> 1.322082 ms
//   MI300X:    2048 flops/clk/CU x 304 CUs x 2.100 GHz = 1,307,443.2 GFLOPS -> 315.3612 us
//   B200:      8192 flops/clk/SM x 148 SMs x 1.965 GHz = 2,382,397.44 GFLOPS -> 173.0680 us
TEST(H100Tensor, ABf16GemmPredictedOnOtherGpusMeetsTheirHandComputedTensorRoofs) {
  const auto r = perfgate::predict_report(perfgate::import_profile(dir + "tensor_ncu_raw.csv"),
                                          {perfgate::resolve_device("a100-80gb"),
                                           perfgate::resolve_device("mi300x"),
                                           perfgate::resolve_device("b200")},
                                          "nvjet_sm90_tst_");
  ASSERT_EQ(r.kernels.size(), 1u);
  const auto& preds = r.kernels.front().predictions;
  ASSERT_EQ(preds.size(), 3u);
  const double expected_s[] = {412316860416.0 / 311869.44e9, 412316860416.0 / 1307443.2e9,
                               412316860416.0 / 2382397.44e9};
  EXPECT_NEAR(expected_s[0], 1.322082e-3, 1e-9);
  EXPECT_NEAR(expected_s[1], 315.3612e-6, 1e-10);
  EXPECT_NEAR(expected_s[2], 173.0680e-6, 1e-10);
  for (std::size_t i = 0; i < preds.size(); ++i) {
    SCOPED_TRACE(preds[i].device);
    EXPECT_EQ(preds[i].roof->limiter, "tensor_bf16");
    EXPECT_NEAR(preds[i].roof->time_s, expected_s[i], 1e-9 * expected_s[i]);
  }
}

TEST(H100Tensor, AGpuWithoutThePrecisionIsNoSuchPathNotAFallback) {
  // V100 has FP16 tensor cores only: a BF16 GEMM has no path there. Selected alone, no kernel
  // can be predicted: exit 2, naming the kernel and the device (issue 53: with other kernels
  // beside it, it is `cannot_be_judged` there and the rest is predicted; report_test.cpp).
  try {
    (void)perfgate::predict_report(perfgate::import_profile(dir + "tensor_ncu_raw.csv"),
                                   {perfgate::resolve_device("v100-sxm2")}, "nvjet_sm90_tst_");
    FAIL() << "predicted BF16 tensor work on a V100";
  } catch (const perfgate::input_error& e) {
    EXPECT_EQ(e.status(), perfgate::exit_status::input_error);
    EXPECT_NE(std::string(e.what()).find("on v100-sxm2: device 'v100-sxm2' has no tensor_bf16 path"),
              std::string::npos)
        << e.what();
  }
}

TEST(H100Tensor, TheRooflineChartDrawsEachTensorRoof) {
  const auto r = tensor_report({perfgate::resolve_device("h100-sxm")});
  const std::string svg = perfgate::report_roofline_svg(r, 0);
  // Roof labels: precision and peak (1,070,530.56, 535,265.28 and 66,908.16 GFLOPS).
  for (const char* roof :
       {"BF16 tensor 1.071e+06 GFLOPS", "TF32 tensor 535265 GFLOPS", "FP64 tensor 66908 GFLOPS"}) {
    EXPECT_NE(svg.find(roof), std::string::npos) << roof;
  }
  const std::string quadrant = perfgate::report_quadrant_svg(r, 0);
  EXPECT_NE(quadrant.find("tensor_bf16"), std::string::npos);
}
