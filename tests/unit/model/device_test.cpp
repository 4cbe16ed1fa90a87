// SPDX-License-Identifier: Apache-2.0
#include <perfgate/device.hpp>
#include <perfgate/error.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <set>

namespace {
using nlohmann::json;

json valid_device() {
  return json::parse(R"({"schema": "perfgate-device/1", "id": "my-gpu", "name": "My GPU",
    "vendor": "nvidia", "warp_size": 32, "source": "measured",
    "peaks": {"fp32_gflops": 100, "fp64_gflops": 50, "int_mad_gops": 40, "int_add_gops": 60,
              "ldst_ginst": 20, "dram_gbs": 10, "fp16_gflops": 200},
    "provenance": {"how": "perfgate calibrate", "date": "2026-11-22"}})");
}

std::string message_of(const json& j) {
  try {
    (void)perfgate::device_from_json(j.dump(), "dev.json");
  } catch (const perfgate::input_error& e) {
    return e.what();
  }
  return "no error";
}
} // namespace

TEST(Device, ParsesRequiredAndExtraPeaks) {
  const auto d = perfgate::device_from_json(valid_device().dump(), "dev.json");
  EXPECT_EQ(d.id, "my-gpu");
  EXPECT_EQ(d.kind, "gpu"); // the default
  EXPECT_EQ(d.peaks.fp32_gflops, 100.0);
  EXPECT_EQ(d.peaks.dram_gbs, 10.0);
  EXPECT_EQ(d.extra_peaks.at("fp16_gflops"), 200.0);
  EXPECT_EQ(d.provenance_how, "perfgate calibrate");
  const auto again = perfgate::device_from_json(perfgate::device_to_json(d), "again.json");
  EXPECT_EQ(again.peaks.ldst_ginst, 20.0);
  EXPECT_EQ(again.extra_peaks, d.extra_peaks);
}

TEST(Device, ValidationNamesTheKey) {
  auto j = valid_device();
  j["vendor"] = "nvidea";
  EXPECT_EQ(message_of(j), "dev.json: key 'vendor': unknown value \"nvidea\", expected one of: "
                           "nvidia, amd, intel, arm");
  j = valid_device();
  j["peaks"]["dram_gbs"] = -1;
  EXPECT_EQ(message_of(j), "dev.json: key 'peaks.dram_gbs': expected a number > 0, found -1");
  j = valid_device();
  j["peaks"].erase("ldst_ginst");
  EXPECT_EQ(message_of(j), "dev.json: key 'peaks.ldst_ginst': missing");
  j = valid_device();
  j["peaks"]["fp32_gflops"] = "fast";
  EXPECT_EQ(message_of(j),
            "dev.json: key 'peaks.fp32_gflops': expected a number, found string \"fast\"");
  j = valid_device();
  j["peaks"]["fp16_gflops"] = 0;
  EXPECT_EQ(message_of(j), "dev.json: key 'peaks.fp16_gflops': expected a number > 0, found 0");
  j = valid_device();
  j["schema"] = "perfgate-device/2";
  EXPECT_EQ(message_of(j), "dev.json: key 'schema': expected \"perfgate-device/1\", found "
                           "\"perfgate-device/2\" (this perfgate reads device format major "
                           "version 1)");
  j = valid_device();
  j["source"] = "guess";
  EXPECT_NE(message_of(j).find("key 'source': unknown value \"guess\""), std::string::npos);
  j = valid_device();
  j["warp_size"] = 0;
  EXPECT_NE(message_of(j).find("key 'warp_size'"), std::string::npos);
  j = valid_device();
  j.erase("peaks");
  EXPECT_EQ(message_of(j), "dev.json: key 'peaks': missing");
}

TEST(Device, BuiltinDatabaseHasThesisAndCurrentGpusAllCited) {
  const auto& all = perfgate::builtin_devices();
  std::set<std::string> ids;
  for (const auto& d : all) {
    ids.insert(d.id);
    EXPECT_EQ(d.origin, "built-in");
    if (d.source == "datasheet") {
      for (const char* key : {"fp32_gflops", "fp64_gflops", "int_mad_gops", "int_add_gops",
                              "ldst_ginst", "dram_gbs"}) {
        EXPECT_TRUE(d.citations.contains(key)) << d.id << " does not cite " << key;
      }
      for (const auto& [key, value] : d.extra_peaks) {
        EXPECT_TRUE(d.citations.contains(key)) << d.id << " does not cite " << key;
      }
    }
    // fp64 never exceeds fp32 on these GPUs (equal on CDNA's vector ALUs).
    EXPECT_LE(d.peaks.fp64_gflops, d.peaks.fp32_gflops) << d.id;
    EXPECT_EQ(d.warp_size, d.vendor == "amd" ? 64 : 32) << d.id;
  }
  for (const char* id : {"gtx-480", "gtx-660", "gtx-960", "gtx-1060", "tesla-m2050", "tesla-k20c",
                         "v100-sxm2", "a100-40gb", "a100-80gb", "h100-sxm", "h100-pcie", "h200",
                         "l4", "l40s", "rtx-4090", "b200", "mi210", "mi250x", "mi300x"}) {
    EXPECT_TRUE(ids.contains(id)) << id;
  }
  EXPECT_TRUE(std::is_sorted(all.begin(), all.end(),
                             [](const auto& a, const auto& b) { return a.id < b.id; }));
}

TEST(Device, ThesisGpusCarryTheMicroBenchmarkedValuesExactly) {
  std::ifstream in(std::string(PERFGATE_TEST_DATA_DIR) + "/thesis/gpu_parameters.json");
  const auto doc = json::parse(in);
  for (const auto& g : doc["gpus"]) {
    std::string id = g["gpu_id"];
    std::transform(id.begin(), id.end(), id.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    const auto d = perfgate::resolve_device(id);
    SCOPED_TRACE(id);
    EXPECT_EQ(d.source, "measured");
    EXPECT_EQ(d.peaks.fp32_gflops, g["T_SP"].get<double>());
    EXPECT_EQ(d.peaks.fp64_gflops, g["T_DP"].get<double>());
    EXPECT_EQ(d.peaks.int_mad_gops, g["T_int"].get<double>());
    EXPECT_EQ(d.peaks.int_add_gops, g["T_add"].get<double>());
    EXPECT_EQ(d.peaks.ldst_ginst, g["T_ldst"].get<double>());
    EXPECT_EQ(d.peaks.dram_gbs, g["B_mem"].get<double>());
  }
}

TEST(Device, DatasheetPeaksFollowPerSmRatesTimesSmsTimesClock) {
  // H100 SXM5: 132 SMs at 1.98 GHz; 128 FP32 lanes, 64 FP64 lanes per SM; 3.35 TB/s HBM3.
  const auto h100 = perfgate::resolve_device("h100-sxm");
  EXPECT_NEAR(h100.peaks.fp32_gflops, 128 * 2 * 132 * 1.98, 1e-6);
  EXPECT_NEAR(h100.peaks.fp64_gflops, 64 * 2 * 132 * 1.98, 1e-6);
  EXPECT_NEAR(h100.peaks.ldst_ginst, 32 * 132 * 1.98, 1e-6);
  EXPECT_EQ(h100.peaks.dram_gbs, 3350.0);
}

TEST(Device, ResolveByIdOrFileAndRejectUnknownIds) {
  EXPECT_EQ(perfgate::resolve_device("gtx-660").name, "NVIDIA GeForce GTX 660");
  try {
    (void)perfgate::resolve_device("gtx-9999");
    FAIL() << "expected usage_error";
  } catch (const perfgate::usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown device 'gtx-9999'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("h100-sxm"), std::string::npos);
  }
  const auto file = std::filesystem::temp_directory_path() / "perfgate-test-device.json";
  std::ofstream(file) << valid_device().dump();
  const auto d = perfgate::resolve_device(file.string());
  EXPECT_EQ(d.id, "my-gpu");
  EXPECT_EQ(d.origin, file.string());
  std::filesystem::remove(file);
  EXPECT_THROW((void)perfgate::resolve_device("/no/such/device.json"), perfgate::input_error);
}

TEST(Device, SmClockFromExplicitDatasheetOrCalibratedClocks) {
  const auto clock_of = [](const json& j) {
    return perfgate::device_from_json(j.dump(), "dev.json").sm_clock_mhz;
  };
  auto j = valid_device();
  EXPECT_FALSE(clock_of(j)); // no clock given: none assumed
  j["boost_clock_mhz"] = 1980;
  EXPECT_EQ(clock_of(j), 1980.0); // the datasheet's
  j["sm_clock_mhz"] = 1755;
  EXPECT_EQ(clock_of(j), 1755.0); // an explicit clock wins
  j = valid_device();
  // Calibrated: the clock right after the benchmarks, not the one before them, which may be
  // an idle clock.
  j["clocks"] = {{"mhz_before", 345}, {"mhz_after", 1755}, {"throttle_reasons", ""}};
  EXPECT_EQ(clock_of(j), 1755.0);
  j["clocks"]["mhz_after"] = nullptr;
  EXPECT_EQ(clock_of(j), 345.0); // the one sample that was readable
  j["clocks"]["mhz_before"] = nullptr;
  EXPECT_FALSE(clock_of(j));
  j["boost_clock_mhz"] = 1410;
  EXPECT_EQ(clock_of(j), 1410.0); // the datasheet's before a calibration's samples

  j = valid_device();
  j["sm_clock_mhz"] = 1410.5;
  const auto d = perfgate::device_from_json(j.dump(), "dev.json");
  const auto written = json::parse(perfgate::device_to_json(d));
  EXPECT_EQ(written["sm_clock_mhz"], 1410.5);
  EXPECT_FALSE(json::parse(perfgate::device_to_json(
                               perfgate::device_from_json(valid_device().dump(), "dev.json")))
                   .contains("sm_clock_mhz"));

  EXPECT_EQ(perfgate::resolve_device("h100-sxm").sm_clock_mhz, 1980.0); // built-in boost clock
}

TEST(Device, BadSmClockNamesTheKey) {
  auto j = valid_device();
  j["sm_clock_mhz"] = "fast";
  EXPECT_EQ(message_of(j),
            "dev.json: key 'sm_clock_mhz': expected a number, found string \"fast\"");
  j = valid_device();
  j["boost_clock_mhz"] = 0;
  EXPECT_EQ(message_of(j), "dev.json: key 'boost_clock_mhz': expected a number > 0, found 0");
  j = valid_device();
  j["clocks"] = {{"mhz_before", 1980}, {"mhz_after", -5}};
  EXPECT_EQ(message_of(j), "dev.json: key 'clocks.mhz_after': expected a number > 0, found -5");
  j = valid_device();
  j["clocks"] = "1980";
  EXPECT_EQ(message_of(j), "dev.json: key 'clocks': expected a JSON object, found string");
  // A bad value is reported even where a valid clock of higher precedence is present.
  j = valid_device();
  j["sm_clock_mhz"] = 1755;
  j["boost_clock_mhz"] = -1;
  EXPECT_EQ(message_of(j), "dev.json: key 'boost_clock_mhz': expected a number > 0, found -1");
}

TEST(Device, CoIssueFollowsTheArchitectureUnlessStated) {
  auto j = valid_device();
  EXPECT_FALSE(perfgate::device_from_json(j.dump(), "dev.json").co_issue); // nothing known
  j["compute_capability"] = "9.0";
  EXPECT_TRUE(perfgate::device_from_json(j.dump(), "dev.json").co_issue);
  j["compute_capability"] = "6.1"; // Pascal: the thesis's single pipeline
  EXPECT_FALSE(perfgate::device_from_json(j.dump(), "dev.json").co_issue);
  j.erase("compute_capability");
  j["provenance"]["arch"] = "sm_90"; // a calibration names the architecture it ran on
  EXPECT_TRUE(perfgate::device_from_json(j.dump(), "dev.json").co_issue);
  j["co_issue"] = false;
  EXPECT_FALSE(perfgate::device_from_json(j.dump(), "dev.json").co_issue);
  j["co_issue"] = "yes";
  EXPECT_EQ(message_of(j), "dev.json: key 'co_issue': expected true or false");
  auto cpu = valid_device();
  cpu["kind"] = "cpu";
  cpu["vendor"] = "amd";
  EXPECT_TRUE(perfgate::device_from_json(cpu.dump(), "dev.json").co_issue);
  EXPECT_TRUE(perfgate::resolve_device("h100-sxm").co_issue);
  EXPECT_TRUE(perfgate::resolve_device("mi300x").co_issue);
  EXPECT_FALSE(perfgate::resolve_device("gtx-480").co_issue);
}

TEST(Device, MemoryRoofBelowTheMeanBandwidthIsRejected) {
  auto j = valid_device();
  j["peaks"]["dram_roof_gbs"] = 9.0;
  EXPECT_EQ(message_of(j), "dev.json: key 'peaks.dram_roof_gbs': expected the highest sustained "
                           "bandwidth, >= dram_gbs");
  j["peaks"]["dram_roof_gbs"] = 12.0;
  const auto d = perfgate::device_from_json(j.dump(), "dev.json");
  EXPECT_EQ(perfgate::memory_roof_gbs(d), 12.0);
  EXPECT_TRUE(d.extra_peaks.find("dram_roof_gbs") == d.extra_peaks.end());
}

TEST(Device, CacheCapacitiesAndOneCoreCacheRatesRoundTrip) {
  auto j = valid_device();
  j["kind"] = "cpu";
  j["cache_bytes"] = {{"l1", 32768}, {"l2", 524288}, {"llc", 33554432}};
  j["peaks_one_core"] = {{"fp32_gflops", 10}, {"fp64_gflops", 5}, {"int_mad_gops", 4},
                         {"int_add_gops", 6}, {"ldst_ginst", 2},  {"dram_gbs", 1},
                         {"l2_gbs", 7}};
  const auto d = perfgate::device_from_json(j.dump(), "dev.json");
  EXPECT_EQ(d.cache_bytes.at("l2"), 524288.0);
  EXPECT_EQ(d.one_core_extra_peaks.at("l2_gbs"), 7.0);
  const auto again = perfgate::device_from_json(perfgate::device_to_json(d), "again.json");
  EXPECT_EQ(again.cache_bytes, d.cache_bytes);
  EXPECT_EQ(again.one_core_extra_peaks, d.one_core_extra_peaks);
  j["cache_bytes"]["l4"] = 1;
  EXPECT_EQ(message_of(j), "dev.json: key 'cache_bytes.l4': unknown cache level, expected l1, l2 "
                           "or llc");
}

// A calibration's measured tensor peak is the roof; only the precisions it did not measure come
// from the datasheet devices of the same chip (H100 SXM and H200: 4096 FP16 flops per SM per
// clock, dense), at the file's own clock.
TEST(Device, MeasuredTensorPeaksAreKeptAndOnlyTheOthersFilledFromTheDatasheet) {
  perfgate::device d = perfgate::resolve_device("h100-sxm");
  d.id = "local-h100";
  d.source = "measured";
  d.extra_peaks.clear();
  d.citations.clear();
  d.sm_clock_mhz = 1755.0;
  d.extra_peaks["tensor_bf16_gflops"] = 700000.0;
  const auto out = perfgate::with_datasheet_tensor_peaks(d);
  EXPECT_EQ(out.extra_peaks.at("tensor_bf16_gflops"), 700000.0);
  EXPECT_EQ(out.citations.count("tensor_bf16_gflops"), 0U);
  EXPECT_DOUBLE_EQ(out.extra_peaks.at("tensor_fp16_gflops"), 4096.0 * 132 * 1.755);
  EXPECT_NE(out.citations.at("tensor_fp16_gflops").find("not measured"), std::string::npos);
  EXPECT_DOUBLE_EQ(out.extra_peaks.at("tensor_fp8_gflops"), 8192.0 * 132 * 1.755);
}
