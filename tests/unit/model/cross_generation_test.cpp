// SPDX-License-Identifier: Apache-2.0
// Issue 42: a roof that holds on every configured GPU (matrix units of the work's exact
// precision, a working set held in L2), the PCIe parts and their identity, the clock a
// power-limited part sustains, and what a measurement's leftover scales with across GPUs.
#include <perfgate/device.hpp>
#include <perfgate/error.hpp>
#include <perfgate/model.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

namespace {
using perfgate::device;

device find_device(const char* id) { return perfgate::resolve_device(id); }

// `matrix`: declared true or false, or not declared (empty).
perfgate::kernel_params declared(double fp32, double fp64, double bytes, std::optional<bool> matrix,
                                 double working_set = 0) {
  perfgate::declared_work w;
  w.fp32_flops = fp32;
  w.fp64_flops = fp64;
  w.bytes = bytes;
  w.matrix = matrix;
  w.working_set_bytes = working_set;
  return perfgate::declared_kernel_params(w);
}

const perfgate::roof_term& compute_term(const perfgate::roof_bound& r) { return r.terms.front(); }

TEST(MatrixRoof, LibraryGemmKernelNamesAreMatrixWork) {
  for (const char* name :
       {"ampere_sgemm_128x64_tn", "volta_sgemm_128x64_nn", "sm80_xmma_gemm_f32f32_f32f32_f32_nn",
        "Cijk_Alik_Bljk_SB_MT128x160x16_MI32x32x2x1_SE", "cutlass_80_simt_sgemm_256x128_8x4",
        "nvjet_sm90_sss_128x128", "void gemmSN_NN_kernel<float, 256, 4>(...)"}) {
    EXPECT_TRUE(perfgate::matrix_kernel_name(name)) << name;
  }
  for (const char* name : {"void at::native::vectorized_elementwise_kernel<4, ...>",
                           "reduce_kernel", "softmax_warp_forward", "sgemv_kernel"}) {
    EXPECT_FALSE(perfgate::matrix_kernel_name(name)) << name;
  }
}

TEST(MatrixRoof, Fp32MatrixWorkMayUseCdnaFp32Mfma) {
  // CDNA 1 has no packed FP32: 1e12 fp32 flops take 43.3 ms at the MI100's vector rate and
  // 21.7 ms on its FP32 MFMA (46.1 TFLOPS).
  const device& mi100 = find_device("mi100");
  const auto gemm = perfgate::roof_of(declared(1e12, 0, 1e8, true), mi100);
  EXPECT_DOUBLE_EQ(compute_term(gemm).rate, 46141.44);
  EXPECT_EQ(compute_term(gemm).via, "matrix units, tensor_fp32_gflops");
  EXPECT_EQ(perfgate::limiter_text(gemm), "fp32 (matrix units, tensor_fp32_gflops)");
  // The same flops, declared no matrix product (`matrix: false`): the vector rate, and the
  // roof says which path it took.
  const auto plain = perfgate::roof_of(declared(1e12, 0, 1e8, false), mi100);
  EXPECT_DOUBLE_EQ(compute_term(plain).rate, 23070.72);
  EXPECT_EQ(compute_term(plain).via, "vector pipes: declared matrix: false");
  EXPECT_NEAR(plain.time_s / gemm.time_s, 2.0, 1e-12);
  // CDNA 2 packs two FP32 FMAs per lane (v_pk_fma_f32): its vector rate is its FP32 MFMA's
  // (45.3 TFLOPS on an MI210), so matrix work gains nothing and the roof says no matrix path.
  const device& mi210 = find_device("mi210");
  const auto packed = perfgate::roof_of(declared(1e12, 0, 1e8, true), mi210);
  EXPECT_DOUBLE_EQ(compute_term(packed).rate, 45260.8);
  EXPECT_TRUE(compute_term(packed).via.empty());
}

// Issue 53: without `matrix: true`, rocBLAS's fp32 GEMMs beat the MI210's vector roof in 7,467
// of NeuSight's 80,906 cross-GPU predictions. Work that does not say may run on the matrix
// units of its precision, so its roof allows them and says how to tighten it.
TEST(MatrixRoof, UndeclaredWorkIsHeldToTheMatrixUnitsAndSaysHowToTighten) {
  const device& mi210 = find_device("mi210");
  // fp32: rocBLAS's SGEMMs run at up to the FP32 MFMA's 45.3 TFLOPS.
  const auto sgemm_mi210 = perfgate::roof_of(declared(1e12, 0, 1e8, std::nullopt), mi210);
  EXPECT_DOUBLE_EQ(compute_term(sgemm_mi210).rate, 45260.8);
  // fp64: the FP64 MFMA (45.3 TFLOPS) over the vector pipes' 22.6.
  const auto undeclared = perfgate::roof_of(declared(0, 1e12, 1e8, std::nullopt), mi210);
  EXPECT_DOUBLE_EQ(compute_term(undeclared).rate, 45260.8);
  EXPECT_EQ(compute_term(undeclared).via,
            "matrix units, tensor_fp64_gflops: matrix use not declared; matrix: false "
            "(perfgate_matrix 0) holds it to the vector pipes, 22630 GFLOPS");
  EXPECT_EQ(perfgate::limiter_text(undeclared).substr(0, 35), "fp64 (matrix units, tensor_fp64_gfl");
  const auto vector_only = perfgate::roof_of(declared(0, 1e12, 1e8, false), mi210);
  EXPECT_DOUBLE_EQ(compute_term(vector_only).rate, 22630.4);
  // fp64 likewise, on CDNA's FP64 MFMA and NVIDIA's DMMA (both compute fp64 exactly).
  const device& a100 = find_device("a100-pcie-40gb");
  EXPECT_DOUBLE_EQ(compute_term(perfgate::roof_of(declared(0, 1e12, 1e8, std::nullopt), a100)).rate,
                   19491.84);
  // fp32 on NVIDIA: no matrix unit computes it exactly (TF32 rounds it), the vector pipes.
  const auto sgemm = perfgate::roof_of(declared(1e12, 0, 1e8, std::nullopt), a100);
  EXPECT_DOUBLE_EQ(compute_term(sgemm).rate, 19491.84);
  EXPECT_TRUE(compute_term(sgemm).via.empty());
  // A CPU has no matrix peak: nothing changes.
  const auto cpu = perfgate::roof_of(declared(1e12, 0, 1e8, std::nullopt), find_device("i7-930"));
  EXPECT_DOUBLE_EQ(compute_term(cpu).rate, 90.0);
}

TEST(MatrixRoof, TheRoofOfUndeclaredWorkIsABoundItsPredictionKeepsTheVectorPipes) {
  // An fp64 kernel that did not declare matrix use, measured on an A100 and predicted on the
  // MI210: the time scales by the vector pipes, exactly as for `matrix: false`; only the bound
  // allows the MFMA (half the time).
  const device a100 = find_device("a100-pcie-40gb");
  const device mi210 = find_device("mi210");
  const auto undeclared = declared(0, 1e12, 1e8, std::nullopt);
  const auto vector_only = declared(0, 1e12, 1e8, false);
  // 200 ms on the A100 scales to ~78 ms on the MI210, above both roofs (44 and 22 ms).
  const auto p = perfgate::predict_from_measurement(undeclared, 200e-3, std::nullopt, a100, mi210);
  const auto q = perfgate::predict_from_measurement(vector_only, 200e-3, std::nullopt, a100, mi210);
  EXPECT_DOUBLE_EQ(p.predicted_time_s, q.predicted_time_s);
  EXPECT_DOUBLE_EQ(p.scaling->resource_scale, q.scaling->resource_scale);
  EXPECT_NEAR(q.roof->time_s / p.roof->time_s, 2.0, 1e-12);
  // 80 ms scales below the vector roof (44 ms): `matrix: false` raises it to that floor, the
  // undeclared work's floor is the matrix roof (22 ms), which the scaled time is above.
  const auto fast = perfgate::predict_from_measurement(undeclared, 80e-3, std::nullopt, a100, mi210);
  const auto fast_vector =
      perfgate::predict_from_measurement(vector_only, 80e-3, std::nullopt, a100, mi210);
  EXPECT_DOUBLE_EQ(fast_vector.predicted_time_s, fast_vector.roof->time_s);
  EXPECT_GT(fast.predicted_time_s, fast.roof->time_s);
  EXPECT_DOUBLE_EQ(fast.scaling->resource_scale, fast_vector.scaling->resource_scale);
  // The thesis's roofline prediction (T_op) is the vector peak in every case.
  EXPECT_DOUBLE_EQ(perfgate::predict(undeclared, mi210).T_op, mi210.peaks.fp64_gflops);
}

TEST(MatrixRoof, NvidiaFp32StaysOnTheVectorPipesTf32IsNoFp32) {
  // A100 has TF32 tensor cores (156 TFLOPS) but they round fp32 inputs: fp32 GEMM work keeps
  // the 19.5 TFLOPS vector rate; DMMA computes fp64 exactly and lifts fp64 GEMM work.
  const device& a100 = find_device("a100-pcie-40gb");
  const auto sgemm = perfgate::roof_of(declared(1e12, 0, 1e8, true), a100);
  EXPECT_DOUBLE_EQ(compute_term(sgemm).rate, 19491.84);
  const auto dgemm = perfgate::roof_of(declared(0, 1e12, 1e8, true), a100);
  EXPECT_DOUBLE_EQ(compute_term(dgemm).rate, 19491.84); // tensor_fp64_gflops, 2x fp64_gflops
  EXPECT_EQ(compute_term(dgemm).via, "matrix units, tensor_fp64_gflops");
  const auto dvec = perfgate::roof_of(declared(0, 1e12, 1e8, false), a100);
  EXPECT_DOUBLE_EQ(compute_term(dvec).rate, 9745.92);
}

TEST(MatrixRoof, ACountedKernelNamedAsAGemmIsMatrixWork) {
  perfgate::profile p;
  perfgate::kernel_profile k;
  k.name = "Cijk_Ailk_Bljk_SB_MT64x32x32_MI16x16x4x1";
  k.work = perfgate::declared_work{2e9, 0, 0, 1e7, 0};
  p.kernels.push_back(k);
  EXPECT_TRUE(perfgate::kernel_params_from_profile(p, p.kernels.front()).matrix);
  p.kernels.front().name = "elementwise_kernel";
  EXPECT_FALSE(perfgate::kernel_params_from_profile(p, p.kernels.front()).matrix);
}

// Issue 53: a working set beyond every cache that is read more than once must come from DRAM
// only once; its re-reads may hit the last cache. gpu-benches' L2 test read 17-25 MB on an MI210
// (8 MB L2) at up to 2.3x its DRAM rate: all bytes held to DRAM was no bound.
TEST(GpuCacheRoof, ReReadsOfAWorkingSetBeyondTheCachesMayHitTheLastOne) {
  const device& mi210 = find_device("mi210");
  const double ws = 17664.0 * 1024, bytes = 3.79e12; // one of its rows: 3.79 TB/s for a second
  const auto r = perfgate::roof_of(declared(0, 0, bytes, false, ws), mi210);
  ASSERT_EQ(r.terms.size(), 2U);
  EXPECT_EQ(r.terms[0].resource, "dram");
  EXPECT_DOUBLE_EQ(r.terms[0].amount, ws);
  EXPECT_EQ(r.terms[1].resource, "l2");
  EXPECT_DOUBLE_EQ(r.terms[1].amount, bytes);
  EXPECT_DOUBLE_EQ(r.terms[1].rate, mi210.peaks.ldst_ginst * 4);
  EXPECT_EQ(r.limiter, "l2");
  EXPECT_LE(r.time_s, 1.0); // measured in one second: the roof holds
  // Read once (the working set is all its bytes): DRAM for every byte, as before.
  const auto once = perfgate::roof_of(declared(0, 0, 200e6, false, 200e6), mi210);
  ASSERT_EQ(once.terms.size(), 1U);
  EXPECT_EQ(once.limiter, "dram");
}

TEST(GpuCacheRoof, AWorkingSetThatFitsL2IsHeldToL2) {
  const device& l4 = find_device("l4");
  // 20 MB in the 48 MB L2: the SMs' load path (58 SMs x 32 lanes x 4 B x 2.04 GHz), not DRAM.
  const auto fits = perfgate::roof_of(declared(2.5e6, 0, 20e6, false, 20e6), l4);
  EXPECT_EQ(fits.limiter, "l2");
  EXPECT_DOUBLE_EQ(fits.B_roof, 3786.24 * 4);
  // 200 MB does not fit: DRAM's 300 GB/s.
  const auto streams = perfgate::roof_of(declared(25e6, 0, 200e6, false, 200e6), l4);
  EXPECT_EQ(streams.limiter, "dram");
  EXPECT_DOUBLE_EQ(streams.B_roof, 300.05);
}

TEST(DeviceIdentity, PcieAndSxmPartsOfOneChipAreToldApart) {
  const auto id = [](const perfgate::gpu_identity& g) {
    const device* d = perfgate::datasheet_device_for(g);
    return d ? d->id : std::string("none");
  };
  EXPECT_EQ(id({"Tesla V100-PCIE-32GB", "nvidia", "7.0", 80, 34.1e9}), "v100-pcie");
  EXPECT_EQ(id({"Tesla V100-SXM2-32GB", "nvidia", "7.0", 80, 34.1e9}), "v100-sxm2");
  EXPECT_EQ(id({"NVIDIA A100-PCIE-40GB", "nvidia", "sm_80", 108, 42.3e9}), "a100-pcie-40gb");
  EXPECT_EQ(id({"NVIDIA A100-SXM4-40GB", "nvidia", "sm_80", 108, 42.3e9}), "a100-40gb");
  EXPECT_EQ(id({"NVIDIA A100 80GB PCIe", "nvidia", "8.0", 108, 85.1e9}), "a100-pcie-80gb");
  EXPECT_EQ(id({"NVIDIA A100-SXM4-80GB", "nvidia", "8.0", 108, 85.1e9}), "a100-80gb");
  // A name without its form factor cannot tell the PCIe card from the SXM4 part: none.
  EXPECT_EQ(id({"NVIDIA A100 40GB", "nvidia", "8.0", 108, 42.3e9}), "none");
}

TEST(SustainedClock, APowerLimitedPartIsPredictedAtItsSustainedClockAndBoundAtItsBoost) {
  const device& l4 = find_device("l4");
  ASSERT_TRUE(l4.sustained_clock_mhz);
  EXPECT_DOUBLE_EQ(*l4.sustained_clock_mhz, 929);
  const auto k = declared(1e12, 0, 1e8, true);
  const auto p = perfgate::predict(k, l4);
  // The roof: 30.29 TFLOPS at 2040 MHz; the prediction: the same work per clock at 929 MHz.
  EXPECT_NEAR(p.roof->time_s, 1e12 / 30289.92e9, 1e-12);
  EXPECT_NEAR(p.predicted_time_s, 1e12 / (30289.92e9 * 929 / 2040), 1e-9);
  // A part that sustains its boost has no such clock.
  EXPECT_FALSE(find_device("v100-pcie").sustained_clock_mhz);
}

TEST(SustainedClock, AClockAboveThePeaksClockIsRefused) {
  const std::string text = R"({"schema": "perfgate-device/1", "id": "x", "name": "x",
    "vendor": "nvidia", "kind": "gpu", "warp_size": 32, "source": "datasheet",
    "boost_clock_mhz": 1000, "sustained_clock_mhz": 1200,
    "peaks": {"fp32_gflops": 1, "fp64_gflops": 1, "int_mad_gops": 1, "int_add_gops": 1,
              "ldst_ginst": 1, "dram_gbs": 1}})";
  EXPECT_THROW((void)perfgate::device_from_json(text, "x.json"), perfgate::input_error);
}

TEST(CrossGeneration, AMemoryBoundLeftoverScalesWithTheSmsRequestRate) {
  // An elementwise op measured on an L4 (58 SMs at a sustained 929 MHz) at 0.8 of the DRAM
  // rate its streams sustain (elementwise_gbs, 234 GB/s), predicted on an A100 PCIe 40GB (108
  // SMs at 1281 MHz, 1371 GB/s): the explained share moves with the sustained bandwidths, the
  // rest with the SMs' load/store issue rate, 32 lanes x SMs x clock on both (Little's law: the
  // requests the SMs keep in flight).
  const device l4 = find_device("l4");
  const device a100 = find_device("a100-pcie-40gb");
  ASSERT_DOUBLE_EQ(l4.extra_peaks.at("elementwise_gbs"), 234);
  ASSERT_DOUBLE_EQ(a100.extra_peaks.at("elementwise_gbs"), 1371);
  const auto k = declared(25e6, 0, 234e6, false); // 1 ms at L4's sustained DRAM rate
  const auto p = perfgate::predict_from_measurement(k, 1.25e-3, std::nullopt, l4, a100);
  const auto& s = *p.scaling;
  EXPECT_NEAR(s.utilisation, 0.8, 1e-12);
  EXPECT_NEAR(s.resource_scale, 234.0 / 1371.0, 1e-12);
  EXPECT_DOUBLE_EQ(s.clock_scale, 929.0 / 1281.0);
  EXPECT_NEAR(s.leftover_scale, 929.0 / 1281.0 * 58.0 / 108.0, 1e-12);
  EXPECT_EQ(s.leftover_by, "ldst_rate");
  EXPECT_NEAR(p.predicted_time_s, 1.25e-3 * (0.8 * s.resource_scale + 0.2 * s.leftover_scale),
              1e-15);
  // A destination that states no sustained stream rate (the H100 SXM): both at the datasheet.
  const device h100 = find_device("h100-sxm");
  ASSERT_FALSE(h100.extra_peaks.contains("elementwise_gbs"));
  const auto q = perfgate::predict_from_measurement(k, 1.25e-3, std::nullopt, l4, h100);
  EXPECT_NEAR(q.scaling->utilisation, 234e6 / 300.05e9 / 1.25e-3, 1e-12);
  EXPECT_NEAR(q.scaling->resource_scale, 300.05 / h100.peaks.dram_gbs, 1e-12);
}

// A GEMM's model time on a device: the multiply at fp32_gemm_gflops (at `clock` MHz) plus its
// operands' bytes at the stream rate.
double gemm_model_s(const device& d, double clock, double flops, double bytes, double gbs) {
  return flops / (d.extra_peaks.at("fp32_gemm_gflops") * clock / *d.sm_clock_mhz * 1e9) +
         bytes / (gbs * 1e9);
}

TEST(CrossGeneration, AGemmScalesByMultiplyPlusTrafficAndCarriesLittleEfficiencyAcrossArchs) {
  // An SGEMM measured on an A100 PCIe 40GB (sustains 1281 MHz) predicted on an L4 (929 MHz):
  // its model time, the multiply at the rate library SGEMMs sustain (fp32_gemm_gflops, stated
  // at the peaks' clock) plus the operands' traffic at elementwise_gbs, scales between the
  // two; of the source's efficiency below that model, 0.19 carries to another architecture.
  const double flops = 1e12;
  const double bytes = 4e9;
  const auto k = declared(flops, 0, bytes, true);
  const device a100 = find_device("a100-pcie-40gb");
  const device l4 = find_device("l4");
  const double a100_s = gemm_model_s(a100, 1281, flops, bytes, 1371);
  const double l4_s = gemm_model_s(l4, 929, flops, bytes, 234);
  const double measured = a100_s / 0.5; // at half the model's rate
  const auto p = perfgate::predict_from_measurement(k, measured, std::nullopt, a100, l4);
  const auto& s = *p.scaling;
  EXPECT_DOUBLE_EQ(s.clock_scale, 1281.0 / 929.0);
  EXPECT_NEAR(s.utilisation, 0.5, 1e-12);
  EXPECT_NEAR(s.resource_scale, l4_s / a100_s, 1e-12);
  EXPECT_NEAR(p.predicted_time_s, l4_s / std::pow(0.5, 0.19), 1e-12 * l4_s);
  EXPECT_EQ(s.leftover_by, "gemm_efficiency"); // the report's note names it
  // The report's form of it: the leftover scaled so that u r + (1 - u) l is the same time.
  EXPECT_NEAR(measured * (0.5 * s.resource_scale + 0.5 * s.leftover_scale), p.predicted_time_s,
              1e-12 * l4_s);
  // The roof stays the L4's boost-clock bound, far below the prediction.
  EXPECT_NEAR(p.roof->time_s, std::max(flops / 30289.92e9, bytes / 300.05e9), 1e-12);
  EXPECT_GT(p.predicted_time_s, 2 * p.roof->time_s);
  // On the same architecture (the A100 PCIe 80GB: the same GA100, the same cuBLAS kernels)
  // the whole efficiency carries: the time scales by the model's times alone.
  const device a100_80 = find_device("a100-pcie-80gb");
  const auto same = perfgate::predict_from_measurement(k, measured, std::nullopt, a100, a100_80);
  EXPECT_NEAR(same.predicted_time_s,
              measured * gemm_model_s(a100_80, 1410, flops, bytes, 1675) / a100_s,
              1e-12 * measured);
  // A clock the profile measured replaces the source's sustained one.
  const auto at = perfgate::predict_from_measurement(k, measured, 1410.0, a100, l4);
  EXPECT_DOUBLE_EQ(at.scaling->clock_scale, 1410.0 / 929.0);
  // Without a GEMM rate on both sides, the peaks and the roof's limiting side: a plain fp32
  // kernel is no GEMM.
  const auto plain = perfgate::predict_from_measurement(declared(flops, 0, 1e8, false), 80e-3,
                                                        std::nullopt, a100, l4);
  EXPECT_NEAR(plain.scaling->resource_scale, (19491.84 * 1281 / 1410) / (30289.92 * 929 / 2040),
              1e-12);
  EXPECT_DOUBLE_EQ(plain.scaling->leftover_scale, plain.scaling->clock_scale);
  EXPECT_EQ(plain.scaling->leftover_by, "sm_clock");
}

} // namespace
