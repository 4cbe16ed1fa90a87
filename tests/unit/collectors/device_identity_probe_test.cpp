// SPDX-License-Identifier: Apache-2.0
// The GPU's UUID and driver from the micro-benchmarks' JSON to a run's device identity:
// perfgate-microbench/1 -> calibrate's device file -> identify_local_device. The real H100 and
// H200 captures (tests/data/h100, h200; written before the probe recorded either) replay with
// both unknown, absent everywhere, never empty; the same capture with them reaches the identity.
#include <perfgate/calibration.hpp>
#include <perfgate/device.hpp>
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>

#include "collectors/device_identity_probe.hpp"
#include "report/identity_json.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

namespace {
// A capture through calibrate's file and back, as `perfgate run --device FILE` loads it.
perfgate::device calibrated(const perfgate::microbench_run& run) {
  const auto d = perfgate::device_from_microbench(run, "local-cuda-0");
  return perfgate::device_from_json(perfgate::calibration_to_json(d, run, {"perfgate"}),
                                    "local-cuda-0.json");
}

std::string capture(const char* name) {
  return perfgate::read_text_file(std::string(PERFGATE_TEST_DATA_DIR "/") + name);
}
} // namespace

TEST(DeviceIdentityProbe, RealCapturesReplayWithoutUuidOrDriver) {
  for (const char* name : {"h100/microbench_h100.json", "h200/microbench_h200.json"}) {
    const auto run = perfgate::microbench_run_from_json(capture(name), name);
    EXPECT_EQ(run.dev.uuid, "") << name;
    EXPECT_EQ(run.dev.driver, "") << name;
    const auto d = perfgate::device_from_microbench(run, "local-cuda-0");
    const auto file = nlohmann::json::parse(perfgate::calibration_to_json(d, run, {"perfgate"}));
    EXPECT_FALSE(file.contains("uuid")) << name; // unknown: absent, not ""
    EXPECT_FALSE(file.contains("driver")) << name;
    const auto id = perfgate::detail::identify_local_device(calibrated(run), "local-cuda-0");
    EXPECT_EQ(id.kind, "gpu");
    EXPECT_EQ(id.name, run.dev.name);
    const auto j = perfgate::detail::identity_json(id);
    EXPECT_FALSE(j.contains("uuid")) << name;
    EXPECT_FALSE(j.contains("driver")) << name;
  }
}

TEST(DeviceIdentityProbe, UuidAndDriverReachTheIdentity) {
  auto doc = nlohmann::json::parse(capture("h100/microbench_h100.json"));
  doc["device"]["uuid"] = "GPU-8f3a9c1e-52b4-7d0e-a1c6-3e9b0f2d4a71";
  doc["device"]["driver"] = "550.54.15";
  const auto run = perfgate::microbench_run_from_json(doc.dump(), "probe.json");
  const auto id = perfgate::detail::identify_local_device(calibrated(run), "local-cuda-0");
  EXPECT_EQ(id.uuid, "GPU-8f3a9c1e-52b4-7d0e-a1c6-3e9b0f2d4a71");
  EXPECT_EQ(id.driver, "550.54.15");
}

TEST(DeviceIdentityProbe, AnEmptyUuidIsMalformedNamingTheKey) {
  auto doc = nlohmann::json::parse(capture("h200/microbench_h200.json"));
  doc["device"]["uuid"] = "";
  try {
    (void)perfgate::microbench_run_from_json(doc.dump(), "probe.json");
    FAIL() << "expected input_error";
  } catch (const perfgate::input_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("probe.json"), std::string::npos) << what;
    EXPECT_NE(what.find("device.uuid"), std::string::npos) << what;
  }
}
