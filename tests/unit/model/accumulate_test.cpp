// SPDX-License-Identifier: Apache-2.0
// Issue 53: the tensor rate a GEMM is held to depends on what it accumulates in where the device
// says so (GeForce parts: FP16 and FP8 with FP16 accumulate at twice the FP32-accumulate rate).
// The roof takes the declared accumulate's rate, the faster one where none is declared (a bound
// whatever the kernel does); a prediction takes FP32 accumulate where none is declared (what
// PyTorch's and cuBLAS's FP16 and BF16 GEMMs do).
#include <perfgate/device.hpp>
#include <perfgate/error.hpp>
#include <perfgate/model.hpp>
#include <perfgate/profile.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {

// An FP16 GEMM of 2e12 tensor operations and 6e7 bytes (compute-bound everywhere here).
perfgate::kernel_params fp16_gemm(const std::string& accumulate) {
  perfgate::declared_work w;
  w.bytes = 6e7;
  w.matrix = true;
  w.tensor_ops["tensor_fp16_ops"] = 2e12;
  w.accumulate = accumulate;
  return perfgate::declared_kernel_params(w);
}

const perfgate::roof_term& tensor_term(const perfgate::roof_bound& r) {
  for (const auto& t : r.terms) {
    if (t.resource == "tensor_fp16") {
      return t;
    }
  }
  throw std::logic_error("no tensor_fp16 term");
}

TEST(AccumulatePrecision, TheRoofTakesTheDeclaredAccumulateElseTheFasterRate) {
  const auto rtx = perfgate::resolve_device("rtx-4090");
  const double acc32 = rtx.extra_peaks.at("tensor_fp16_gflops");
  const double acc16 = rtx.extra_peaks.at("tensor_fp16_acc16_gflops");
  ASSERT_DOUBLE_EQ(acc16, 2 * acc32);

  const auto unknown = perfgate::roof_of(fp16_gemm(""), rtx);
  EXPECT_DOUBLE_EQ(tensor_term(unknown).rate, acc16);
  EXPECT_NE(tensor_term(unknown).via.find("accumulate not declared"), std::string::npos);
  const auto fp32 = perfgate::roof_of(fp16_gemm("fp32"), rtx);
  EXPECT_DOUBLE_EQ(tensor_term(fp32).rate, acc32);
  EXPECT_EQ(tensor_term(fp32).via, "FP32 accumulate, as declared");
  EXPECT_DOUBLE_EQ(tensor_term(perfgate::roof_of(fp16_gemm("fp16"), rtx)).rate, acc16);
  EXPECT_NEAR(fp32.time_s / unknown.time_s, 2.0, 1e-12);

  // A device whose rate does not depend on it (an H100: one FP16 rate) says nothing of it.
  const auto h100 = perfgate::roof_of(fp16_gemm(""), perfgate::resolve_device("h100-sxm"));
  EXPECT_TRUE(tensor_term(h100).via.empty());
}

TEST(AccumulatePrecision, APredictionTakesFp32AccumulateUnlessFp16IsDeclared) {
  const auto rtx = perfgate::resolve_device("rtx-4090");
  // The roofline of declared work predicts at the sustained (boost) clock: 2520 of 3105 MHz.
  const double at_boost = 2520.0 / 3105.0;
  const auto unknown = perfgate::predict(fp16_gemm(""), rtx);
  EXPECT_NEAR(unknown.T_op, rtx.extra_peaks.at("tensor_fp16_gflops") * at_boost, 1e-6);
  const auto fp16 = perfgate::predict(fp16_gemm("fp16"), rtx);
  EXPECT_NEAR(fp16.T_op, rtx.extra_peaks.at("tensor_fp16_acc16_gflops") * at_boost, 1e-6);
  // The roof beside it stays the bound for whatever the kernel accumulates in.
  EXPECT_DOUBLE_EQ(tensor_term(*unknown.roof).rate, rtx.extra_peaks.at("tensor_fp16_acc16_gflops"));
}

TEST(AccumulatePrecision, AMeasuredGemmScalesToAGeForcePartAtTheFp32AccumulateRate) {
  // PyTorch's FP16 GEMM measured on an H100 SXM, scaled to an RTX 4090: at its FP32-accumulate
  // rate (issue 53: the FP16-accumulate rate predicted it ~45% too fast).
  const auto h100 = perfgate::resolve_device("h100-sxm");
  const auto rtx = perfgate::resolve_device("rtx-4090");
  const auto k = fp16_gemm("");
  const double measured = 2e12 / 760e12; // 760 TFLOPS on the H100
  const auto p = perfgate::predict_from_measurement(k, measured, std::nullopt, h100, rtx, false);
  ASSERT_TRUE(p.scaling);
  const double h100_acc = h100.extra_peaks.at("tensor_fp16_gflops");
  const double rtx_acc32 = rtx.extra_peaks.at("tensor_fp16_gflops") * 2520.0 / 3105.0;
  EXPECT_NEAR(p.scaling->resource_scale, h100_acc / rtx_acc32, 1e-9);
  // Against the FP16-accumulate rate the scale would be half of that.
  EXPECT_GT(p.predicted_time_s, 2e12 / (rtx.extra_peaks.at("tensor_fp16_acc16_gflops") * 1e9));
}

TEST(AccumulatePrecision, AProfileDeclaresItAndAnyOtherValueIsRefused) {
  const std::string base =
      R"({"schema": "perfgate-profile/1", "source": {"format": "perfgate-profile/1", "file": "x"},
      "kernels": [{"name": "gemm", "invocations": 1, "declared_work": {"fp32_flops": 0, "fp64_flops": 0,
      "int_ops": 0, "bytes": 1e6, "tensor_ops": {"tensor_fp16_ops": 1e9}, "accumulate": ACC}}]})";
  const auto with = [&](const std::string& acc) {
    std::string text = base;
    text.replace(text.find("ACC"), 3, acc);
    return text;
  };
  const auto p = perfgate::profile_from_json(with("\"fp32\""), "p.json");
  EXPECT_EQ(p.kernels.at(0).work->accumulate, "fp32");
  // Written back as read.
  EXPECT_NE(perfgate::profile_to_json(p).find("\"accumulate\": \"fp32\""), std::string::npos);
  try {
    (void)perfgate::profile_from_json(with("\"tf32\""), "p.json");
    FAIL() << "expected input_error";
  } catch (const perfgate::input_error& e) {
    EXPECT_NE(std::string(e.what()).find("accumulate"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("\"fp32\" or \"fp16\""), std::string::npos) << e.what();
  }
}

} // namespace
