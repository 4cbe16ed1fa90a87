// SPDX-License-Identifier: Apache-2.0
// A baseline that notices other hardware: identities compared field by field, this machine's
// CPU read from /proc/cpuinfo's text, and the gate's decision (an A/B session with the kept
// build, or a warning naming both devices), carried in the report's JSON.
#include <perfgate/device_identity.hpp>
#include <perfgate/gate.hpp>
#include <perfgate/writers.hpp>

#include "collectors/device_identity_probe.hpp"
#include "gate/hardware_check.hpp"
#include "report/finding_text.hpp"
#include "runner_report.hpp"
#include "test_cpu.hpp"
#include "util/cpuinfo.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace {
perfgate::device_identity h100(std::string uuid) {
  perfgate::device_identity id;
  id.kind = "gpu";
  id.device = "local-cuda-0";
  id.name = "NVIDIA H100 80GB HBM3";
  id.uuid = std::move(uuid);
  id.driver = "550.54";
  id.clock_mhz = 1980;
  id.calibration_fnv1a64 = "0123456789abcdef";
  return id;
}

// One fp64 kernel with declared work, 10 samples around `median_s` with a 2% spread.
perfgate::report run(double median_s) {
  perfgate::profile p;
  p.source_file = "bench";
  perfgate::kernel_profile k;
  k.name = "BM_kernel";
  k.work = perfgate::declared_work{0, 1e8, 0, 1e9};
  std::vector<double> samples;
  for (int i = 0; i < 10; ++i) {
    samples.push_back(median_s * (0.99 + 0.002 * i));
  }
  k.duration = perfgate::duration_stats::from_samples(std::move(samples));
  k.time_s = k.duration->median_s;
  p.kernels.push_back(k);
  return perfgate::predict_report(p, {perfgate::test::test_cpu()});
}
} // namespace

TEST(DeviceIdentity, OnlyKnownFieldsThatDifferAndWhichMatter) {
  const auto a = h100("GPU-aaaa");
  EXPECT_TRUE(perfgate::compare_identities(a, a).empty());
  auto b = h100("GPU-bbbb"); // another card of the same model
  b.driver = "560.28";
  b.clock_mhz = 1990; // within 2%
  const auto d = perfgate::compare_identities(a, b);
  ASSERT_EQ(d.size(), 2U);
  EXPECT_EQ(d[0].field, "uuid");
  EXPECT_TRUE(d[0].matters);
  EXPECT_EQ(d[1].field, "driver");
  EXPECT_FALSE(d[1].matters); // a driver alone is noted
  EXPECT_TRUE(perfgate::hardware_changed(d));
  b.uuid.clear(); // unknown: never a difference
  b.clock_mhz = 1600;
  const auto e = perfgate::compare_identities(a, b);
  ASSERT_EQ(e.size(), 2U);
  EXPECT_EQ(e[1].field, "clock_mhz");
  EXPECT_EQ(e[1].stored, "1980");
  EXPECT_EQ(e[1].now, "1600");
  auto only_driver = a;
  only_driver.driver = "560.28";
  EXPECT_FALSE(perfgate::hardware_changed(perfgate::compare_identities(a, only_driver)));
}

TEST(DeviceIdentity, CpuinfoModelAndFrequency) {
  const auto cpu = perfgate::detail::parse_cpuinfo(
      "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 9B14\ncpu MHz\t\t: "
      "2600.000\n\nprocessor\t: 1\nmodel name\t: AMD EPYC 9B14\ncpu MHz\t\t: 2599.998\n");
  EXPECT_EQ(cpu.model, "AMD EPYC 9B14");
  EXPECT_EQ(cpu.vendor_id, "AuthenticAMD");
  ASSERT_TRUE(cpu.mhz);
  EXPECT_EQ(*cpu.mhz, 2600.0);
  const auto arm = perfgate::detail::parse_cpuinfo(
      "processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\n");
  EXPECT_EQ(arm.model, "");
  EXPECT_EQ(arm.implementer, "0x41");
  EXPECT_FALSE(arm.mhz);
}

// A stored baseline from one device and a run on another: with a kept build the session
// decides ("ab"), without one every verdict against the stored runs warns naming both; the
// report's JSON carries the change and reads it back. The same hardware changes nothing.
TEST(HardwareCheck, OtherHardwareSwitchesOrWarnsAndTheReportSaysSo) {
  auto base_report = run(62.5e-3);
  base_report.identity = h100("GPU-aaaa");
  perfgate::apply_gate(base_report, {});
  perfgate::gate_measurements measured;
  measured.base = perfgate::baseline_from_report(base_report, "base.json");
  const auto back = perfgate::baseline_from_json(perfgate::baseline_to_json(*measured.base), "b");
  ASSERT_EQ(back.identities.size(), 1U);
  EXPECT_EQ(back.identities[0].uuid, "GPU-aaaa");

  auto elsewhere = run(62.5e-3); // another local device: its own entries, not this identity's
  auto cpu = h100("GPU-bbbb");
  cpu.device = "local-cpu";
  EXPECT_FALSE(perfgate::detail::check_hardware(elsewhere, cpu, measured.base, true));

  auto same = run(62.5e-3);
  EXPECT_FALSE(perfgate::detail::check_hardware(same, h100("GPU-aaaa"), measured.base, true));
  ASSERT_TRUE(same.identity);

  auto other = run(62.5e-3);
  measured.hardware =
      perfgate::detail::check_hardware(other, h100("GPU-bbbb"), measured.base, true);
  ASSERT_TRUE(measured.hardware);
  EXPECT_EQ(measured.hardware->action, "warn"); // the baseline keeps no build
  perfgate::apply_gate(other, {}, measured);
  EXPECT_EQ(other.kernels[0].result.status, perfgate::verdict_status::warn);
  const auto j = nlohmann::json::parse(perfgate::report_to_json(other));
  EXPECT_EQ(j.at("hardware").at("action"), "warn");
  EXPECT_EQ(j.at("hardware").at("differences").at(0).at("field"), "uuid");
  EXPECT_EQ(j.at("hardware").at("stored").at("uuid"), "GPU-aaaa");
  EXPECT_EQ(j.at("hardware").at("now").at("uuid"), "GPU-bbbb");
  const auto read = perfgate::report_from_json(j.dump(), "r.json");
  ASSERT_TRUE(read.hardware);
  EXPECT_EQ(read.hardware->differences.size(), 1U);
  EXPECT_EQ(read.identity->uuid, "GPU-bbbb");

  measured.base->build = perfgate::stored_build{"bench", "0123456789abcdef"};
  auto kept = run(62.5e-3);
  const auto change = perfgate::detail::check_hardware(kept, h100("GPU-bbbb"), measured.base, true);
  ASSERT_TRUE(change);
  EXPECT_EQ(change->action, "ab");
  EXPECT_EQ(perfgate::detail::check_hardware(kept, h100("GPU-bbbb"), measured.base, false)->action,
            "warn"); // the run may not use the kept build (--ab-budget 0)
}

// A baseline of several runners keeps each one's identity (the same runner twice once: its
// clock within the tolerance, another driver), and reads a baseline written with one
// `device_identity` as before.
TEST(HardwareCheck, ABaselineOfSeveralRunnersKeepsEachIdentity) {
  const auto gated = [](perfgate::device_identity id, const std::string& host) {
    auto r = run(62.5e-3);
    r.identity = std::move(id);
    r.meta.host = host;
    perfgate::apply_gate(r, {});
    return r;
  };
  auto again = h100("GPU-aaaa");
  again.clock_mhz = 1965; // within 2%
  again.driver = "560.28";
  const auto b = perfgate::baseline_from_reports({gated(h100("GPU-aaaa"), "runner-a"),
                                                  gated(h100("GPU-bbbb"), "runner-b"),
                                                  gated(again, "runner-a")},
                                                 "pool");
  ASSERT_EQ(b.identities.size(), 2U);
  EXPECT_EQ(b.identities[0].uuid, "GPU-aaaa");
  EXPECT_EQ(b.identities[0].clock_mhz, 1980); // the first of the same runner's
  EXPECT_EQ(b.identities[1].uuid, "GPU-bbbb");
  const auto back = perfgate::baseline_from_json(perfgate::baseline_to_json(b), "pool.json");
  ASSERT_EQ(back.identities.size(), 2U);
  EXPECT_EQ(back.identities[1].uuid, "GPU-bbbb");
  EXPECT_EQ(nlohmann::json::parse(perfgate::baseline_to_json(b)).at("device_identities").size(),
            2U);

  auto old = nlohmann::json::parse(perfgate::baseline_to_json(b));
  old["device_identity"] = old.at("device_identities").at(0);
  old.erase("device_identities");
  const auto read = perfgate::baseline_from_json(old.dump(), "old.json");
  ASSERT_EQ(read.identities.size(), 1U);
  EXPECT_EQ(read.identities[0].uuid, "GPU-aaaa");
}

// A run matching any of the baseline's runners of its device is compared as ever; one matching
// none is other hardware, named by the nearest runner.
TEST(HardwareCheck, ARunMatchingOneRunnerIsNotOtherHardware) {
  perfgate::baseline base;
  base.identities = {h100("GPU-aaaa"), h100("GPU-bbbb")};
  const std::optional<perfgate::baseline> b = base;
  auto on_b = run(62.5e-3);
  EXPECT_FALSE(perfgate::detail::check_hardware(on_b, h100("GPU-bbbb"), b, true));
  auto elsewhere = run(62.5e-3);
  auto other = h100("GPU-cccc");
  other.calibration_fnv1a64 = "fedcba9876543210";
  base.identities[1].calibration_fnv1a64 = other.calibration_fnv1a64; // b: only the UUID differs
  const auto change = perfgate::detail::check_hardware(elsewhere, other, std::optional(base), true);
  ASSERT_TRUE(change);
  EXPECT_EQ(change->stored.uuid, "GPU-bbbb"); // one difference that matters, a's two
  EXPECT_EQ(change->runners, 2U);
  EXPECT_NE(perfgate::detail::hardware_notice(*change).find("2 runners"), std::string::npos);
}

// Runners whose calibrated GPUs a merge renamed apart (`local-cuda-0@runner-b`): a run on
// runner-b is judged against runner-b's entries, so it is checked against runner-b's identity
// alone; a run on a runner the baseline does not know is judged against the first's entries
// and checked against the first's identity.
TEST(HardwareCheck, RenamedRunnersAreCheckedAgainstTheirOwnIdentity) {
  auto a = perfgate::test::runner_report("runner-a", perfgate::test::calibrated_gpu(20), 62.5e-3);
  auto b = perfgate::test::runner_report("runner-b", perfgate::test::calibrated_gpu(10), 400e-3);
  a.identity = h100("GPU-aaaa");
  b.identity = h100("GPU-bbbb");
  const std::optional<perfgate::baseline> base = perfgate::baseline_from_reports({a, b}, "runners");
  ASSERT_EQ(base->identities.size(), 2U);
  EXPECT_EQ(base->identities[1].device, "local-cuda-0@runner-b");
  auto on_b = run(400e-3);
  on_b.meta.host = "runner-b";
  EXPECT_FALSE(perfgate::detail::check_hardware(on_b, h100("GPU-bbbb"), base, true));
  auto a_card_on_b = run(400e-3); // runner-b's entries, runner-a's card: other hardware
  a_card_on_b.meta.host = "runner-b";
  const auto moved = perfgate::detail::check_hardware(a_card_on_b, h100("GPU-aaaa"), base, true);
  ASSERT_TRUE(moved);
  EXPECT_EQ(moved->stored.device, "local-cuda-0@runner-b");
  EXPECT_EQ(moved->runners, 1U);
  auto on_c = run(62.5e-3);
  on_c.meta.host = "runner-c";
  const auto new_runner = perfgate::detail::check_hardware(on_c, h100("GPU-cccc"), base, true);
  ASSERT_TRUE(new_runner);
  EXPECT_EQ(new_runner->stored.uuid, "GPU-aaaa");
}
