// SPDX-License-Identifier: Apache-2.0
#include <perfgate/device.hpp>
#include <perfgate/error.hpp>
#include <perfgate/model.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <set>

#include <unistd.h>

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
    // fp64 never exceeds fp32 on these devices (equal on CDNA's vector ALUs and the paper's
    // Q8300; absent, 0, on the GTS 250).
    EXPECT_LE(d.peaks.fp64_gflops, d.peaks.fp32_gflops) << d.id;
    EXPECT_EQ(d.warp_size, d.kind == "cpu" ? 1 : d.vendor == "amd" ? 64 : 32) << d.id;
    // The boat hull's inputs: every GPU a gather/scatter rate and a bus rate, each cited (an
    // estimate says so); the paper's CPUs carry exactly Table 3, which has neither.
    EXPECT_EQ(d.extra_peaks.contains("uncoalesced_gbs"), d.kind == "gpu") << d.id;
    EXPECT_EQ(d.citations.contains("uncoalesced_gbs"), d.kind == "gpu") << d.id;
    EXPECT_EQ(d.extra_peaks.contains("bus_gbs"), d.kind == "gpu") << d.id;
    if (d.kind == "gpu") {
      EXPECT_TRUE(d.citations.contains("bus_gbs")) << d.id;
    }
    if (d.extra_peaks.contains("uncoalesced_gbs")) {
      EXPECT_LT(d.extra_peaks.at("uncoalesced_gbs"), d.peaks.dram_gbs) << d.id;
    }
  }
  for (const char* id :
       {"gtx-480",   "gtx-660",   "gtx-960",   "gtx-1060", "tesla-m2050", "tesla-k20c",
        "v100-sxm2", "a100-40gb", "a100-80gb", "h100-sxm", "h100-pcie",   "h200",
        "l4",        "l40s",      "rtx-4090",  "b200",     "mi210",       "mi250x",
        "mi300x",    "gtx470",    "gts250",    "i7-930",   "q8300",       "v100-pcie",
        "a100-pcie-40gb", "a100-pcie-80gb",
        // issue 53: the cards teams run CI on
        "t4", "a10", "a40", "l40", "l20", "rtx-3090", "rtx-5090", "rtx-6000-ada", "gh200", "h20",
        "h800", "h800-pcie", "a800", "v100s", "mi100", "mi300a"}) {
    EXPECT_TRUE(ids.contains(id)) << id;
  }
  EXPECT_EQ(all.size(), 42U);
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
  // The memory interface's rate, not the rounded 3.35 TB/s: 5120 bit x 2 x 2619 MHz / 8.
  EXPECT_DOUBLE_EQ(h100.peaks.dram_gbs, 5120.0 * 2 * 2.619 / 8);
  // A GeForce part's peaks hold at the highest clock it runs (NVML's 3105 MHz on an RTX 4090),
  // not at its advertised 2520 MHz boost; predictions take the boost clock.
  const auto rtx = perfgate::resolve_device("rtx-4090");
  EXPECT_EQ(rtx.sm_clock_mhz, 3105.0);
  EXPECT_EQ(rtx.max_clock_mhz, 3105.0);
  EXPECT_EQ(rtx.boost_clock_mhz, 2520.0);
  EXPECT_EQ(rtx.sustained_clock_mhz, 2520.0);
  EXPECT_NEAR(rtx.extra_peaks.at("tensor_bf16_gflops"), 512 * 128 * 3.105, 1e-6);
  // Its FP16 tensor rate depends on the accumulate: FP16 accumulate twice FP32 accumulate.
  EXPECT_NEAR(rtx.extra_peaks.at("tensor_fp16_acc16_gflops"),
              2 * rtx.extra_peaks.at("tensor_fp16_gflops"), 1e-6);
  // CDNA 3's FP32 vector rate is packed FP32 (v_pk_fma_f32), the datasheet's 163.4 TFLOPS.
  EXPECT_NEAR(perfgate::resolve_device("mi300x").peaks.fp32_gflops, 256 * 304 * 2.1, 1e-6);
}

TEST(Device, AFolderNamedLikeABuiltInIdDoesNotShadowIt) {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("perfgate-shadow-" + std::to_string(::getpid()));
  fs::create_directories(dir / "l40s");
  const fs::path before = fs::current_path();
  fs::current_path(dir);
  std::string name;
  try {
    name = perfgate::resolve_device("l40s").name; // a runner's artifact folder is here
  } catch (...) {
    fs::current_path(before);
    fs::remove_all(dir);
    throw;
  }
  fs::current_path(before);
  fs::remove_all(dir);
  EXPECT_EQ(name, perfgate::resolve_device("l40s").name);
  EXPECT_NE(name.find("L40S"), std::string::npos);
}

TEST(Device, ResolveByIdOrFileAndRejectUnknownIds) {
  EXPECT_EQ(perfgate::resolve_device("gtx-660").name, "NVIDIA GeForce GTX 660");
  const auto message = [](const char* id) {
    try {
      (void)perfgate::resolve_device(id);
    } catch (const perfgate::usage_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  // Nothing near: no guess, the way to the list.
  EXPECT_EQ(message("gtx-9999"), "unknown device 'gtx-9999': not a file and not a built-in id "
                                 "(`perfgate devices` lists all " +
                                     std::to_string(perfgate::builtin_devices().size()) + ")");
  // A prefix, a part of the id, a typo: the nearest ids, nearest first.
  EXPECT_NE(message("h100").find("; did you mean h100-pcie, h100-sxm?"), std::string::npos);
  EXPECT_NE(message("4090").find("; did you mean rtx-4090?"), std::string::npos);
  EXPECT_NE(message("RTX4090").find("; did you mean rtx-4090?"), std::string::npos);
  EXPECT_NE(message("mi300").find("; did you mean mi300a, mi300x?"), std::string::npos);
  EXPECT_EQ(perfgate::nearest_builtin_ids("a10g"), (std::vector<std::string>{"a10"}));
  EXPECT_TRUE(perfgate::nearest_builtin_ids("quantum-9").empty());
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
  // The H800 (the same chip and SM count) states its FP64 cut to 1 TFLOPS, the H100 SXM, H200
  // and GH200 a GH100 SM's 256 per clock: the highest is filled in, a bound for every part.
  EXPECT_DOUBLE_EQ(out.extra_peaks.at("tensor_fp64_gflops"), 256.0 * 132 * 1.755);
}

TEST(Device, VectorBitsAndHardwareThreadsRoundTrip) {
  auto j = valid_device();
  j["kind"] = "cpu";
  j["warp_size"] = 1;
  auto d = perfgate::device_from_json(j.dump(), "dev.json");
  EXPECT_FALSE(d.vector_bits); // not stated: unknown
  EXPECT_FALSE(d.hardware_threads);
  EXPECT_FALSE(json::parse(perfgate::device_to_json(d)).contains("vector_bits"));
  EXPECT_FALSE(json::parse(perfgate::device_to_json(d)).contains("hardware_threads"));

  j["vector_bits"] = 256;
  j["hardware_threads"] = 16;
  d = perfgate::device_from_json(j.dump(), "dev.json");
  EXPECT_EQ(d.vector_bits, 256);
  EXPECT_EQ(d.hardware_threads, 16);
  const auto written = json::parse(perfgate::device_to_json(d));
  EXPECT_EQ(written["vector_bits"], 256);
  EXPECT_EQ(written["hardware_threads"], 16);
  const auto again = perfgate::device_from_json(written.dump(), "again.json");
  EXPECT_EQ(again.vector_bits, 256);
  EXPECT_EQ(again.hardware_threads, 16);
}

TEST(Device, BadVectorBitsOrHardwareThreadsNamesTheKey) {
  for (const char* key : {"vector_bits", "hardware_threads"}) {
    SCOPED_TRACE(key);
    const std::string prefix = std::string("dev.json: key '") + key + "': ";
    auto j = valid_device();
    j[key] = 0;
    EXPECT_EQ(message_of(j), prefix + "expected an integer > 0, found 0");
    j[key] = -8;
    EXPECT_EQ(message_of(j), prefix + "expected an integer > 0, found -8");
    j[key] = 1.5;
    EXPECT_EQ(message_of(j), prefix + "expected an integer > 0, found 1.5");
    j[key] = "128";
    EXPECT_EQ(message_of(j), prefix + "expected an integer > 0, found \"128\"");
    j[key] = 4294967296ULL; // does not fit an int
    EXPECT_EQ(message_of(j), prefix + "expected an integer > 0, found 4294967296");
  }
}

// A GPU without FP64 hardware (compute capability 1.0 to 1.2) states no fp64_gflops: read as 0
// and written back absent. A stated FP64 peak must still be positive.
TEST(Device, Fp64PeakMayBeAbsentOnlyAsAbsent) {
  auto j = valid_device();
  j["peaks"].erase("fp64_gflops");
  const auto d = perfgate::device_from_json(j.dump(), "dev.json");
  EXPECT_EQ(d.peaks.fp64_gflops, 0.0);
  EXPECT_EQ(d.peaks.fp32_gflops, 100.0);
  const auto written = json::parse(perfgate::device_to_json(d));
  EXPECT_FALSE(written["peaks"].contains("fp64_gflops"));
  EXPECT_EQ(perfgate::device_from_json(written.dump(), "again.json").peaks.fp64_gflops, 0.0);
  j["peaks"]["fp64_gflops"] = 0;
  EXPECT_EQ(message_of(j), "dev.json: key 'peaks.fp64_gflops': expected a number > 0, found 0");
  j["peaks"]["fp64_gflops"] = "none";
  EXPECT_EQ(message_of(j),
            "dev.json: key 'peaks.fp64_gflops': expected a number, found string \"none\"");
  EXPECT_EQ(perfgate::resolve_device("gts250").peaks.fp64_gflops, 0.0); // compute capability 1.1
}

// The four devices of the boat hull paper (Nugteren & Corporaal, CF'12) carry exactly its Table 2
// (GPUs) and Table 3 (CPUs) values, as shared/data/hull/worked_examples.json ("inputs") has them.
TEST(Device, BoatHullDevicesCarryThePapersTableValuesExactly) {
  struct gpu_row {
    const char* id;
    double P_compute, P_coalesced, P_uncoalesced, B_bus;
    const char* cc;
  };
  for (const gpu_row& g : {gpu_row{"gtx470", 1089, 95, 5.9, 5.1, "2.0"},
                           gpu_row{"gts250", 470, 56, 3.5, 2.1, "1.1"}}) {
    SCOPED_TRACE(g.id);
    const auto d = perfgate::resolve_device(g.id);
    EXPECT_EQ(d.kind, "gpu");
    EXPECT_EQ(d.vendor, "nvidia");
    EXPECT_EQ(d.peaks.fp32_gflops, g.P_compute);
    EXPECT_EQ(d.peaks.dram_gbs, g.P_coalesced);
    EXPECT_EQ(d.extra_peaks.at("uncoalesced_gbs"), g.P_uncoalesced);
    EXPECT_EQ(d.extra_peaks.at("bus_gbs"), g.B_bus);
    EXPECT_EQ(d.arch, g.cc);
    EXPECT_FALSE(d.co_issue); // Fermi and older: the single pipeline
    for (const char* key : {"fp32_gflops", "dram_gbs", "uncoalesced_gbs", "bus_gbs"}) {
      EXPECT_NE(d.citations.at(key).find("Table 2"), std::string::npos) << key;
    }
  }
  // Datasheet facts beside the paper's values: 14 SMs x 1215 MHz, 16 SMs x 1836 MHz.
  const auto gtx470 = perfgate::resolve_device("gtx470");
  EXPECT_EQ(gtx470.compute_units, 14U);
  EXPECT_EQ(gtx470.sm_clock_mhz, 1215.0);
  EXPECT_NEAR(gtx470.peaks.fp64_gflops, 448 * 2 * 1.215 / 8, 1e-9); // GeForce Fermi: 1/8 FP32
  const auto gts250 = perfgate::resolve_device("gts250");
  EXPECT_EQ(gts250.compute_units, 16U);
  EXPECT_EQ(gts250.sm_clock_mhz, 1836.0);
  EXPECT_TRUE(gts250.citations.contains("fp64_gflops")); // says why there is none

  struct cpu_row {
    const char* id;
    double P_compute, P_memory;
    int N_threads, W_vector, cores;
  };
  for (const cpu_row& c :
       {cpu_row{"q8300", 40, 4.7, 4, 128, 4}, cpu_row{"i7-930", 90, 12.2, 8, 128, 4}}) {
    SCOPED_TRACE(c.id);
    const auto d = perfgate::resolve_device(c.id);
    EXPECT_EQ(d.kind, "cpu");
    EXPECT_EQ(d.vendor, "intel");
    EXPECT_EQ(d.warp_size, 1);
    EXPECT_EQ(d.peaks.fp32_gflops, c.P_compute);
    EXPECT_EQ(d.peaks.dram_gbs, c.P_memory);
    EXPECT_EQ(d.hardware_threads, c.N_threads);
    EXPECT_EQ(d.vector_bits, c.W_vector);
    EXPECT_EQ(d.compute_units, static_cast<std::uint64_t>(c.cores));
    EXPECT_TRUE(d.co_issue);
    for (const char* key : {"fp32_gflops", "dram_gbs", "hardware_threads", "vector_bits"}) {
      EXPECT_NE(d.citations.at(key).find("Table 3"), std::string::npos) << key;
    }
    // Table 3 has no P_uncoalesced: nothing is added to the paper's values.
    EXPECT_FALSE(d.extra_peaks.contains("uncoalesced_gbs"));
  }

  // Where the worked examples have been copied next to the other test data, they agree.
  std::ifstream in(std::string(PERFGATE_TEST_DATA_DIR) + "/hull/worked_examples.json");
  if (!in) {
    return;
  }
  const auto inputs = json::parse(in).at("inputs");
  for (const char* id : {"gtx470", "gts250"}) {
    const auto& row = inputs.at("table_2_gpus").at(id);
    const auto d = perfgate::resolve_device(id);
    EXPECT_EQ(d.peaks.fp32_gflops, row.at("P_compute_gflops").get<double>()) << id;
    EXPECT_EQ(d.peaks.dram_gbs, row.at("P_coalesced_gbs").get<double>()) << id;
    EXPECT_EQ(d.extra_peaks.at("uncoalesced_gbs"), row.at("P_uncoalesced_gbs").get<double>()) << id;
    EXPECT_EQ(d.extra_peaks.at("bus_gbs"), row.at("B_bus_gbs").get<double>()) << id;
  }
  for (const char* id : {"q8300", "i7-930"}) {
    const auto& row = inputs.at("table_3_cpus").at(id);
    const auto d = perfgate::resolve_device(id);
    EXPECT_EQ(d.peaks.fp32_gflops, row.at("P_compute_gflops").get<double>()) << id;
    EXPECT_EQ(d.peaks.dram_gbs, row.at("P_memory_gbs").get<double>()) << id;
    EXPECT_EQ(d.hardware_threads, row.at("N_threads").get<int>()) << id;
    EXPECT_EQ(d.vector_bits, row.at("W_vector_bits").get<int>()) << id;
  }
}

// Built-in estimates follow their stated rule: dram_gbs x 4 B / 32 B (NVIDIA) or 64 B (AMD), and
// the PCIe link's per-direction rate.
TEST(Device, BuiltinHullEstimatesFollowTheirRule) {
  const auto h100 = perfgate::resolve_device("h100-sxm");
  EXPECT_DOUBLE_EQ(h100.extra_peaks.at("uncoalesced_gbs"), 3352.32 * 4 / 32);
  EXPECT_EQ(h100.extra_peaks.at("bus_gbs"), 63.0); // PCIe 5.0 x16
  const auto mi300x = perfgate::resolve_device("mi300x");
  EXPECT_DOUBLE_EQ(mi300x.extra_peaks.at("uncoalesced_gbs"), 5324.8 * 4 / 64);
  EXPECT_EQ(perfgate::resolve_device("gtx-480").extra_peaks.at("bus_gbs"), 8.0);    // PCIe 2.0
  EXPECT_EQ(perfgate::resolve_device("gtx-1060").extra_peaks.at("bus_gbs"), 15.75); // PCIe 3.0
  EXPECT_EQ(perfgate::resolve_device("a100-80gb").extra_peaks.at("bus_gbs"), 31.5); // PCIe 4.0
  EXPECT_NE(h100.citations.at("uncoalesced_gbs").find("ESTIMATE"), std::string::npos);
  // Bandwidths are not issue rates: a kernel at another SM clock keeps them.
  const auto slow = perfgate::at_sm_clock(h100, 990.0);
  EXPECT_EQ(slow.extra_peaks.at("bus_gbs"), 63.0);
  EXPECT_DOUBLE_EQ(slow.extra_peaks.at("uncoalesced_gbs"), 3352.32 * 4 / 32);
}

// Which built-in datasheet entry a GPU is (issue 32): the H200 has the H100 SXM's chip, SM count
// and clocks, and was taken for one, its 4.8 TB/s then "above the datasheet". The names and
// memory sizes the CUDA runtime reports on the two GPUs (tests/data/h{100,200}/microbench_*.json).
TEST(DeviceIdentity, TheRightDatasheetEntryByNameAndMemory) {
  using perfgate::datasheet_device_for;
  const auto id = [](const perfgate::device* d) { return d == nullptr ? "none" : d->id; };
  EXPECT_EQ(id(datasheet_device_for({"NVIDIA H200", "nvidia", "sm_90", 132, 150109880320.0})),
            "h200");
  EXPECT_EQ(id(datasheet_device_for(
                {"NVIDIA H100 80GB HBM3", "nvidia", "sm_90", 132, 85017493504.0})),
            "h100-sxm");
  EXPECT_EQ(id(datasheet_device_for({"NVIDIA H100 PCIe", "nvidia", "sm_90", 114, 85e9})),
            "h100-pcie");
  // An H100 NVL (94 GB, 132 SMs) is none of the three: its memory and form factor say so.
  EXPECT_EQ(id(datasheet_device_for({"NVIDIA H100 NVL", "nvidia", "sm_90", 132, 100.9e9})),
            "none");
  // Memory alone would not do: an H200 report with the H100's memory is refused, not guessed.
  EXPECT_EQ(id(datasheet_device_for({"NVIDIA H200", "nvidia", "sm_90", 132, 85017493504.0})),
            "none");
  EXPECT_EQ(id(datasheet_device_for({"NVIDIA A100-SXM4-80GB", "nvidia", "8.0", 108, 85.1e9})),
            "a100-80gb");
  EXPECT_EQ(id(datasheet_device_for({"NVIDIA A100-SXM4-40GB", "nvidia", "sm_80", 108, 42.3e9})),
            "a100-40gb");
  EXPECT_EQ(id(datasheet_device_for({"AMD Instinct MI300X", "amd", "gfx942", 304, 206e9})),
            "mi300x");
  EXPECT_EQ(id(datasheet_device_for({"Synthetic GPU", "nvidia", "sm_90", 132, 85e9})), "none");
}

TEST(DeviceIdentity, ArchitectureNames) {
  EXPECT_EQ(perfgate::architecture_name("sm_90a"), "9.0");
  EXPECT_EQ(perfgate::architecture_name("sm_100"), "10.0");
  EXPECT_EQ(perfgate::architecture_name("9.0"), "9.0");
  EXPECT_EQ(perfgate::architecture_name("gfx942"), "gfx942");
  EXPECT_EQ(perfgate::architecture_name("x86-64 avx512f"), "");
}

TEST(DeviceFile, PeakClocksMustNameAPeak) {
  const std::string base = R"({"schema": "perfgate-device/1", "id": "g", "name": "g",
      "vendor": "nvidia", "kind": "gpu", "warp_size": 32, "source": "measured",
      "sm_clock_mhz": 1980,
      "peaks": {"fp32_gflops": 1, "fp64_gflops": 1, "int_mad_gops": 1, "int_add_gops": 1,
                "ldst_ginst": 1, "dram_gbs": 1, "tensor_bf16_gflops": 1000},)";
  const auto d = perfgate::device_from_json(base + R"("peak_clocks_mhz": {"tensor_bf16_gflops": 1737}})",
                                            "d.json");
  EXPECT_EQ(*perfgate::peak_clock_mhz(d, "tensor_bf16_gflops"), 1737.0);
  EXPECT_EQ(*perfgate::peak_clock_mhz(d, "fp32_gflops"), 1980.0);
  try {
    (void)perfgate::device_from_json(base + R"("peak_clocks_mhz": {"tensor_fp8_gflops": 1737}})",
                                     "d.json");
    FAIL() << "a clock of a peak the device lacks was accepted";
  } catch (const perfgate::input_error& e) {
    EXPECT_NE(std::string(e.what()).find("key 'peak_clocks_mhz.tensor_fp8_gflops': names no peak"),
              std::string::npos)
        << e.what();
  }
}

// Issue 53: the highest clock a card runs is the clock its peaks hold at; it is never below the
// advertised boost.
TEST(DeviceFile, MaxClockIsThePeaksClockAndAtLeastTheBoost) {
  auto j = valid_device();
  j["boost_clock_mhz"] = 2520;
  j["max_clock_mhz"] = 3105;
  const auto d = perfgate::device_from_json(j.dump(), "dev.json");
  EXPECT_EQ(d.sm_clock_mhz, 3105.0);
  EXPECT_EQ(d.max_clock_mhz, 3105.0);
  EXPECT_EQ(d.boost_clock_mhz, 2520.0);
  const auto again = perfgate::device_from_json(perfgate::device_to_json(d), "again.json");
  EXPECT_EQ(again.max_clock_mhz, 3105.0);
  EXPECT_EQ(again.boost_clock_mhz, 2520.0);
  j["max_clock_mhz"] = 2400;
  EXPECT_EQ(message_of(j), "dev.json: key 'max_clock_mhz': expected the highest clock the card "
                           "runs, >= boost_clock_mhz");
}

json with_sources(json measured) {
  auto j = valid_device();
  j["peaks"]["tensor_bf16_gflops"] = 400;
  j["sources"] = {{"datasheet", "Vendor datasheet"}, {"max_clock", "nvidia-smi -q"},
                  {"measured", std::move(measured)}};
  return j;
}

TEST(DeviceFile, SourcesNameTheMeasurementsOfRoofRatesOnly) {
  const auto d = perfgate::device_from_json(
      with_sources({{"dram_gbs", {{{"source", "a/b@1 f.txt"}, {"best", 9.5}, {"what", "stream"}}}},
                    {"tensor_bf16_gflops", "none: no public measurement"}})
          .dump(),
      "dev.json");
  ASSERT_TRUE(d.sources);
  EXPECT_EQ(d.sources->datasheet, "Vendor datasheet");
  EXPECT_EQ(d.sources->measured.at("dram_gbs").at(0).best, 9.5);
  EXPECT_EQ(d.sources->unmeasured.at("tensor_bf16_gflops"), "none: no public measurement");
  const auto again = perfgate::device_from_json(perfgate::device_to_json(d), "again.json");
  EXPECT_EQ(again.sources->measured.at("dram_gbs").at(0).source, "a/b@1 f.txt");
  EXPECT_EQ(again.sources->unmeasured, d.sources->unmeasured);
  // A key that is no rate of this device's roofs, a reason that is no "none: ...", an empty list.
  EXPECT_NE(message_of(with_sources({{"tensor_fp8_gflops", "none: x"}}))
                .find("key 'sources.measured.tensor_fp8_gflops': names no rate this device's roofs use"),
            std::string::npos);
  EXPECT_NE(message_of(with_sources({{"dram_gbs", "measured somewhere"}}))
                .find("key 'sources.measured.dram_gbs': expected an array of measurements or "
                      "\"none: <why>\""),
            std::string::npos);
  EXPECT_NE(message_of(with_sources({{"dram_gbs", json::array()}})).find("at least one"),
            std::string::npos);
  auto j = with_sources(json::object());
  j["sources"].erase("datasheet");
  EXPECT_EQ(message_of(j), "dev.json: key 'sources.datasheet': missing");
}

// Every built-in GPU names its datasheet, where its clock comes from and, for every rate its
// roofs use, the public measurements of it or why there are none (tests/cli/
// check_published_roofs.py checks those against the data kept in tests/data/published).
TEST(Device, EveryBuiltinGpuNamesItsSources) {
  for (const auto& d : perfgate::builtin_devices()) {
    if (d.kind != "gpu") {
      continue;
    }
    SCOPED_TRACE(d.id);
    ASSERT_TRUE(d.sources);
    EXPECT_FALSE(d.sources->datasheet.empty());
    EXPECT_FALSE(d.sources->max_clock.empty());
    std::vector<std::string> rates = {"dram_gbs", "fp32_gflops"};
    if (d.cache_bytes.contains("l2")) {
      rates.emplace_back("l2");
    }
    if (d.peaks.fp64_gflops > 0) {
      rates.emplace_back("fp64_gflops");
    }
    for (const auto& [key, value] : d.extra_peaks) {
      if (key.starts_with("tensor_")) {
        rates.push_back(key);
      }
    }
    for (const auto& rate : rates) {
      EXPECT_TRUE(d.sources->measured.contains(rate) || d.sources->unmeasured.contains(rate))
          << rate;
    }
  }
}
