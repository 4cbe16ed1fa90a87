// SPDX-License-Identifier: Apache-2.0
// The per-chip metric table through CUPTI's Profiler Host API, offline, for every chip CUPTI
// lists: every chosen name valid on its chip, the whole set configured in one image, the passes
// counted, every model input supplied.
#include <perfgate/error.hpp>

#ifdef PERFGATE_HAVE_CUPTI
#include "collectors/cupti/chip_metrics.hpp"
#include "collectors/cupti/cupti_host.hpp"
#endif

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#ifdef PERFGATE_HAVE_CUPTI
namespace perfgate::detail {
namespace {

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

const metric_choice& input(const chip_metric_plan& plan, const std::string& name) {
  const auto it = std::find_if(plan.inputs.begin(), plan.inputs.end(),
                               [&](const auto& in) { return in.input == name; });
  if (it == plan.inputs.end()) {
    throw std::runtime_error("no input " + name);
  }
  return *it;
}

// CUPTI 13.0 lists GV11B, but its host object cannot be made (CUPTI_ERROR_NOT_SUPPORTED).
const std::vector<std::string> not_profilable = {"GV11B"};
// Integrated GPUs: no dram__ counters.
const std::vector<std::string> integrated = {"GA10B", "GB10B", "GB20B"};

TEST(ChipMetrics, EveryListedChipHasAPlanOfValidMetricsInAtMostTwoPasses) {
  const auto chips = cupti_chips();
  ASSERT_GE(chips.size(), 20u) << "CUPTI 12.6+ lists Volta to Blackwell";
  int planned = 0;
  for (const auto& chip : chips) {
    SCOPED_TRACE(chip);
    if (contains(not_profilable, chip)) {
      EXPECT_THROW((void)plan_chip_metrics(chip), skip_error);
      continue;
    }
    const auto plan = plan_chip_metrics(chip);
    ++planned;
    EXPECT_EQ(plan.chip, chip);
    EXPECT_TRUE(plan.missing_model_inputs().empty());
    const bool is_integrated = contains(integrated, chip);
    EXPECT_GE(plan.passes, 1u);
    // The L2-miss stand-in for DRAM reads costs integrated chips a third pass (measured with
    // CUPTI 13.0: GA10B, GB10B, GB20B); counting all L2 reads instead would fit in two but
    // counts cache hits as memory traffic, and the bound would no longer be one.
    EXPECT_LE(plan.passes, is_integrated ? 3u : 2u);
    EXPECT_GT(plan.config_image_bytes, 0u);
    // Every chosen name is a metric of that chip, checked by a separate host object.
    cupti::host_object host(chip);
    for (const auto& m : plan.metrics) {
      EXPECT_TRUE(host.metric_valid(m)) << m;
    }
    for (const auto& in : plan.inputs) {
      // Tensor precisions a chip lacks have no counter; the pipe's HFMA2 count is GA100's and
      // GH100's alone.
      if (in.role != "tensor" && in.role != "tensor_run_evidence") {
        EXPECT_FALSE(in.metrics.empty()) << in.input;
      }
    }
    EXPECT_EQ(!input(plan, "dram_read_bytes").approximation.empty(), is_integrated);
    EXPECT_EQ(!input(plan, "dram_write_bytes").approximation.empty(), is_integrated);
  }
  EXPECT_EQ(planned, static_cast<int>(chips.size() - not_profilable.size()));
}

TEST(ChipMetrics, DramNamesFollowTheChip) {
  EXPECT_EQ(input(plan_chip_metrics("GH100"), "dram_read_bytes").metrics,
            std::vector<std::string>{"dram__bytes_read.sum"});
  // GB202-class chips name DRAM bytes by operation.
  const auto gb202 = plan_chip_metrics("GB202");
  EXPECT_EQ(input(gb202, "dram_read_bytes").metrics,
            std::vector<std::string>{"dram__bytes_op_read.sum"});
  EXPECT_EQ(input(gb202, "dram_write_bytes").metrics,
            std::vector<std::string>{"dram__bytes_op_write.sum"});
  EXPECT_TRUE(contains(input(gb202, "dram_read_bytes").unavailable, "dram__bytes_read.sum"));
  // Integrated: L2 traffic to system memory, in 32-byte sectors.
  const auto ga10b = input(plan_chip_metrics("GA10B"), "dram_read_bytes");
  EXPECT_EQ(ga10b.metrics,
            std::vector<std::string>{"lts__t_sectors_aperture_sysmem_op_read_lookup_miss.sum"});
  EXPECT_DOUBLE_EQ(ga10b.scale, 32.0);
}

TEST(ChipMetrics, TheDoneChipsSupplyEveryModelInputAndTheClockInTwoPasses) {
  for (const std::string chip : {"GH100", "GA100", "AD102", "GB100"}) {
    SCOPED_TRACE(chip);
    const auto plan = plan_chip_metrics(chip);
    EXPECT_LE(plan.passes, 2u);
    EXPECT_TRUE(contains(plan.metrics, sm_clock_metric));
    EXPECT_TRUE(contains(plan.metrics, gpu_time_metric));
    EXPECT_TRUE(contains(plan.metrics, "lts__t_bytes.sum"));
    EXPECT_TRUE(contains(plan.metrics, "smsp__sass_data_bytes_mem_shared.sum"));
  }
}

// The tensor operations counters of each chip (CUPTI 13.0's metric tables; docs/tensor.md): the
// names change in every generation, and a precision the chip lacks has none.
TEST(ChipMetrics, TensorOperationsFollowTheChip) {
  const std::string p = "sm__ops_path_tensor_src_";
  using names = std::vector<std::string>;
  using inputs = std::map<std::string, names>; // canonical input -> metrics; absent: none
  const names fp16_split = {p + "fp16_dst_fp16.sum", p + "fp16_dst_fp32.sum"};
  const inputs ampere = {{"tensor_fp16_ops", fp16_split},
                         {"tensor_bf16_ops", {p + "bf16_dst_fp32.sum"}},
                         {"tensor_tf32_ops", {p + "tf32_dst_fp32.sum"}},
                         {"tensor_fp64_ops", {p + "fp64.sum"}},
                         {"tensor_int8_ops", {p + "int8.sum"}}};
  inputs ada = ampere;
  ada["tensor_fp8_ops"] = {p + "fp8.sum"};
  inputs hopper = ada;
  hopper["tensor_fp16_ops"] = {p + "fp16.sum"}; // GH100 alone does not split it
  inputs gb100 = ampere;
  gb100["tensor_fp8_ops"] = {p + "fp4_fp6_fp8_dst_fp16.sum", p + "fp4_fp6_fp8_dst_fp32.sum"};
  gb100["tensor_fp4_ops"] = {p + "fp4_dst_fp32.sum"};
  inputs gb202 = ampere;
  gb202["tensor_fp8_ops"] = {p + "fp8_dst_fp16.sum", p + "fp8_dst_fp32.sum"};
  gb202["tensor_fp4_ops"] = {p + "fp4_dst_fp32.sum", p + "fp4_fp6_dst_fp16.sum",
                             p + "fp4_fp6_dst_fp32.sum"};
  // With the second run's replay passes (CUPTI 13.0): each operations counter takes about one
  // pass of its own, so they cannot join the model's 2.
  const std::tuple<const char*, inputs, std::size_t> plans[] = {
      {"GV100", {{"tensor_fp16_ops", fp16_split}}, 1},
      {"TU102",
       {{"tensor_fp16_ops", {p + "fp16_dst_fp16.sum", p + "fp16_bf16_tf32_dst_fp32.sum"}},
        {"tensor_int8_ops", {p + "int8.sum"}}},
       1},
      {"GA100", ampere, 7},
      {"GA102", ampere, 6},
      {"GH100", hopper, 6},
      {"AD102", ada, 7},
      {"GB100", gb100, 7},
      {"GB202", gb202, 10},
  };
  for (const auto& [chip, expected, tensor_passes] : plans) {
    SCOPED_TRACE(chip);
    const auto plan = plan_chip_metrics(chip);
    names tensor_metrics;
    for (const auto& in : plan.inputs) {
      if (in.role == "tensor_run_evidence") { // counted in the tensor run, where it exists
        EXPECT_EQ(in.input, "tensor_inst_hfma2");
        const bool has = std::string(chip) == "GA100" || std::string(chip) == "GH100";
        EXPECT_EQ(in.metrics, has ? names{"sm__inst_executed_pipe_tensor_op_hmma_type_hfma2.sum"}
                                  : names{});
        tensor_metrics.insert(tensor_metrics.end(), in.metrics.begin(), in.metrics.end());
        continue;
      }
      if (in.role != "tensor") {
        continue;
      }
      const auto it = expected.find(in.input);
      EXPECT_EQ(in.metrics, it == expected.end() ? names{} : it->second) << in.input;
      tensor_metrics.insert(tensor_metrics.end(), in.metrics.begin(), in.metrics.end());
    }
    // The operations counters are the second run's, the instruction evidence the first's.
    EXPECT_EQ(plan.tensor_metrics, tensor_metrics);
    EXPECT_TRUE(contains(plan.metrics, "sm__inst_executed_pipe_tensor.sum"));
    EXPECT_EQ(input(plan, "tensor_inst").role, "tensor_evidence");
    for (const auto& m : tensor_metrics) {
      EXPECT_FALSE(contains(plan.metrics, m)) << m;
    }
    EXPECT_EQ(plan.tensor_passes, tensor_passes);
    EXPECT_LE(plan.passes, 2u); // the evidence (tensor_inst, inst_fp16_fma) costs no pass
  }
}

TEST(ChipMetrics, AChipWithoutTensorCountersPlansNoTensorRun) {
  // TU116 (GTX 16 series) has no tensor cores and no operations counters.
  const auto plan = plan_chip_metrics("TU116");
  EXPECT_TRUE(plan.tensor_metrics.empty());
  EXPECT_EQ(plan.tensor_passes, 0u);
  EXPECT_NE(chip_metric_plan_to_text(plan).find("no tensor operations counters on this chip"),
            std::string::npos);
}

TEST(ChipMetrics, ConfigImagesAreReproducible) {
  const auto plan = plan_chip_metrics("GH100");
  cupti::host_object a("GH100");
  cupti::host_object b("GH100");
  EXPECT_EQ(a.config_image(plan.metrics), b.config_image(plan.metrics));
}

TEST(ChipMetrics, UnknownChipIsAUsageErrorNamingTheKnownChips) {
  try {
    (void)plan_chip_metrics("gh100");
    FAIL() << "no error";
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown chip 'gh100'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("GH100"), std::string::npos);
  }
}

TEST(ChipMetrics, HostObjectRejectsBadNamesWithoutPoisoningItself) {
  cupti::host_object host("GA100");
  EXPECT_FALSE(host.metric_valid("dram__bytes_raed.sum"));
  EXPECT_FALSE(host.metric_valid("smsp__inst_executed")); // no roll-up: ConfigAddMetrics rejects
  EXPECT_TRUE(host.metric_valid("smsp__inst_executed.sum"));
  EXPECT_EQ(cupti::passes(host.config_image({"smsp__inst_executed.sum"})), 1u);
}

TEST(ChipMetrics, JsonAndTextNameEveryInput) {
  const auto plan = plan_chip_metrics("GA10B");
  const auto json = chip_metric_plan_to_json(plan);
  EXPECT_NE(json.find("\"schema\": \"perfgate-metrics/1\""), std::string::npos);
  EXPECT_NE(json.find("\"approximation\""), std::string::npos);
  const auto text = chip_metric_plan_to_text(plan);
  EXPECT_NE(text.find("GA10B: 15 metrics in 3 replay passes"), std::string::npos) << text;
  EXPECT_NE(text.find("* dram_read_bytes: no DRAM counters"), std::string::npos) << text;
}

} // namespace
} // namespace perfgate::detail
#endif
