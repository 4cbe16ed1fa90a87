// SPDX-License-Identifier: Apache-2.0
#include <perfgate/error.hpp>
#include <perfgate/import.hpp>
#include <perfgate/profile.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace {
perfgate::profile sample() {
  perfgate::profile p;
  p.format = perfgate::profile_format::ncu_csv_raw;
  p.device_name = "NVIDIA H100 80GB HBM3";
  p.warp_size = 32;
  p.native_counter_names["inst_fp32"] = "smsp__sass_thread_inst_executed_op_fp32_pred_on.sum";
  perfgate::kernel_profile k;
  k.name = "void saxpy<float>(int, float, const float *, float *)";
  k.invocations = 3;
  k.counters = {{"inst_fp32", 5.0e7}, {"dram_read_bytes", 4.0e8}};
  k.launch = perfgate::launch_config{{65536, 1, 1}, {256, 1, 1}};
  k.duration = perfgate::duration_stats::from_samples({3e-5, 1e-5, 2e-5});
  k.time_s = 6e-5;
  k.threads = 0;
  p.kernels.push_back(k);
  perfgate::kernel_profile w;
  w.name = "BM_triad/1048576";
  w.work = perfgate::declared_work{0, 2.0e6, 0, 2.4e7, 2.4e7, 0.8e7};
  p.kernels.push_back(w);
  return p;
}

std::string message_of(const std::string& text) {
  try {
    (void)perfgate::profile_from_json(text, "p.json");
  } catch (const perfgate::input_error& e) {
    return e.what();
  }
  return "no error";
}
} // namespace

TEST(DurationStats, MedianSpreadAndTotal) {
  const auto s = perfgate::duration_stats::from_samples({4.0, 1.0, 3.0, 2.0});
  EXPECT_EQ(s.samples, 4U);
  EXPECT_DOUBLE_EQ(s.total_s, 10.0);
  EXPECT_DOUBLE_EQ(s.mean_s, 2.5);
  EXPECT_DOUBLE_EQ(s.median_s, 2.5);
  EXPECT_DOUBLE_EQ(s.min_s, 1.0);
  EXPECT_DOUBLE_EQ(s.max_s, 4.0);
  EXPECT_NEAR(s.stddev_s, 1.2909944, 1e-6); // sample standard deviation
  EXPECT_EQ(perfgate::duration_stats::from_samples({5.0}).stddev_s, 0.0);
}

TEST(ProfileJson, RoundTripKeepsEverything) {
  const auto p = sample();
  const std::string text = perfgate::profile_to_json(p);
  const auto q = perfgate::import_profile_text(text, "p.json");
  EXPECT_EQ(q.format, perfgate::profile_format::perfgate_json);
  EXPECT_EQ(q.device_name, p.device_name);
  EXPECT_EQ(q.warp_size, 32);
  EXPECT_EQ(q.native_name("inst_fp32"), "smsp__sass_thread_inst_executed_op_fp32_pred_on.sum");
  EXPECT_EQ(q.native_name("inst_ldst"), "inst_ldst"); // no native name: the canonical one
  ASSERT_EQ(q.kernels.size(), 2U);
  EXPECT_EQ(q.kernels[0].name, p.kernels[0].name);
  EXPECT_EQ(q.kernels[0].invocations, 3U);
  EXPECT_EQ(q.kernels[0].counters, p.kernels[0].counters);
  ASSERT_TRUE(q.kernels[0].launch);
  EXPECT_EQ(q.kernels[0].launch->grid[0], 65536U);
  ASSERT_TRUE(q.kernels[0].duration);
  EXPECT_DOUBLE_EQ(q.kernels[0].duration->median_s, 2e-5);
  EXPECT_EQ(q.kernels[0].duration->samples_s, (std::vector<double>{3e-5, 1e-5, 2e-5})); // in order
  ASSERT_TRUE(q.kernels[1].work);
  EXPECT_EQ(q.kernels[1].work->fp64_flops, 2.0e6);
  EXPECT_EQ(q.kernels[1].work->working_set_bytes, 2.4e7);
  EXPECT_EQ(q.kernels[1].work->write_bytes, 0.8e7);
  EXPECT_EQ(perfgate::profile_to_json(q).substr(0, 40), text.substr(0, 40));
}

TEST(ProfileJson, BadInputNamesTheKeyOrLine) {
  EXPECT_EQ(message_of("{\"schema\": \"perfgate-profile/2\", \"kernels\": []}"),
            "p.json: key 'schema': expected \"perfgate-profile/1\", found \"perfgate-profile/2\" "
            "(this perfgate reads profile format major version 1)");
  EXPECT_EQ(message_of("{\"schema\": \"perfgate-profile/1\"}"), "p.json: key 'kernels': missing");
  EXPECT_EQ(message_of("{\"schema\": \"perfgate-profile/1\", \"kernels\": [{\"name\": \"k\", "
                       "\"counters\": {\"inst_fp32\": \"many\"}}]}"),
            "p.json: key 'kernels[0].counters.inst_fp32': expected a number, found string "
            "\"many\"");
  EXPECT_EQ(message_of("{\"schema\": \"perfgate-profile/1\", \"kernels\": [{\"name\": \"k\", "
                       "\"counters\": {\"inst_fp32\": -1}}]}"),
            "p.json: key 'kernels[0].counters.inst_fp32': expected a number >= 0, found -1");
  EXPECT_EQ(message_of("{\"schema\": \"perfgate-profile/1\", \"kernels\": [{\"name\": \"k\", "
                       "\"invocations\": 0}]}"),
            "p.json: key 'kernels[0].invocations': expected at least 1 invocation");
  EXPECT_EQ(message_of("{\"schema\": \"perfgate-profile/1\", \"kernels\": [{\"name\": \"k\", "
                       "\"launch\": {\"grid\": [1, 2], \"block\": [1, 1, 1]}}]}"),
            "p.json: key 'kernels[0].launch.grid': expected 3 dimensions [x, y, z], found 2");
  EXPECT_EQ(message_of("[1, 2]"), "p.json: expected a JSON object, found array");
  const auto truncated = message_of("{\n  \"schema\": \"perfgate-profile/1\",\n  \"kernels\": [\n");
  EXPECT_EQ(truncated.rfind("p.json:4: invalid JSON", 0), 0U) << truncated;
}

TEST(ProfileJson, RoundTripKeepsClocks) {
  auto p = sample();
  p.kernels[0].sm_clock_mhz = 1410.0;
  p.kernels[0].clock_limits = {"sw_power_cap", "hw_thermal_slowdown"};
  const std::string text = perfgate::profile_to_json(p);
  const auto q = perfgate::profile_from_json(text, "p.json");
  ASSERT_EQ(q.kernels.size(), 2U);
  EXPECT_EQ(q.kernels[0].sm_clock_mhz, 1410.0);
  EXPECT_EQ(q.kernels[0].clock_limits, p.kernels[0].clock_limits);
  EXPECT_FALSE(q.kernels[1].sm_clock_mhz); // not measured: stays absent, not 0
  EXPECT_TRUE(q.kernels[1].clock_limits.empty());
  const auto kernels_of = [](const perfgate::profile& x) {
    return nlohmann::json::parse(perfgate::profile_to_json(x))["kernels"];
  };
  EXPECT_EQ(kernels_of(q), kernels_of(p));
  // Absent when unknown, so profiles without clocks read and write as before.
  EXPECT_EQ(perfgate::profile_to_json(sample()).find("clock"), std::string::npos);
}

TEST(ProfileJson, BadClockFieldsNameTheKey) {
  const auto kernel_with = [](const std::string& fields) {
    return message_of("{\"schema\": \"perfgate-profile/1\", \"kernels\": [{\"name\": \"k\", " +
                      fields + "}]}");
  };
  EXPECT_EQ(kernel_with("\"sm_clock_mhz\": \"1410\""),
            "p.json: key 'kernels[0].sm_clock_mhz': expected a number, found string \"1410\"");
  EXPECT_EQ(kernel_with("\"sm_clock_mhz\": 0"),
            "p.json: key 'kernels[0].sm_clock_mhz': expected a number > 0, found 0");
  EXPECT_EQ(kernel_with("\"clock_limits\": \"sw_power_cap\""),
            "p.json: key 'kernels[0].clock_limits': expected an array, found string");
  EXPECT_EQ(kernel_with("\"clock_limits\": [\"sw_power_cap\", 7]"),
            "p.json: key 'kernels[0].clock_limits[1]': expected a string, found number 7");
  EXPECT_EQ(kernel_with("\"sm_clock_mhz\": null, \"clock_limits\": []"), "no error");
}
