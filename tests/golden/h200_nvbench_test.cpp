// SPDX-License-Identifier: Apache-2.0
// nvbench's own example benchmarks as nvbench wrote them on an H200 (tests/data/h200/nvbench/,
// README there: nvbench 66212f1 examples, unmodified, cuda-bench 0.3.0, 2026-11-27), replayed
// through the nvbench importer and the report. The numbers were read off the files by hand:
// state counts, samples, and bytes = nvbench's bandwidth x its cold mean, which must be the
// exact size each example copies (2^27 bytes for throughput: 64 MiB read and 64 MiB written;
// 2^26 for exec_tag_sync's sequence) to 1e-9 relative. The efficiency against the H200's roof
// must agree with nvbench's own utilisation column once the two peaks are put on one scale
// (nvbench's 4814.304 GB/s bus peak, the device file's 4916.74 GB/s, the memory interface's
// rate), to 0.1%.
#include <perfgate/device.hpp>
#include <perfgate/gate.hpp>
#include <perfgate/import.hpp>
#include <perfgate/model.hpp>
#include <perfgate/report.hpp>
#include <perfgate/writers.hpp>

#include "unknown_zeros.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace {
using namespace perfgate;

const std::string dir = PERFGATE_TEST_DATA_DIR "/h200/nvbench/";
constexpr double kNvbenchBusPeak = 4814.304e9; // the file's devices[0].global_memory_bus_bandwidth

const kernel_profile& only_kernel(const profile& p) {
  EXPECT_EQ(p.kernels.size(), 1U) << p.source_file;
  return p.kernels.at(0);
}

// One GPU in the file: the profile's device, no kernel named apart.
void expect_on_h200(const profile& p, const kernel_profile& k) {
  EXPECT_NE(p.device_name.find("NVIDIA H200"), std::string::npos) << p.device_name;
  EXPECT_EQ(k.device_name, "") << k.name;
}

// nvbench since 2025 writes the whole cold-time statistics: a duration with nvbench's sample
// count, its mean and median as the file has them.
void expect_samples(const kernel_profile& k, std::uint64_t samples, double mean, double median) {
  ASSERT_TRUE(k.duration) << k.name;
  EXPECT_EQ(k.duration->samples, samples) << k.name;
  EXPECT_DOUBLE_EQ(k.duration->mean_s, mean) << k.name;
  EXPECT_DOUBLE_EQ(k.duration->median_s, median) << k.name;
}

// Predicted on the built-in H200 and gated without criteria: the one kernel's efficiency.
double efficiency_on_h200(const profile& p) {
  auto r = predict_report(p, {resolve_device("h200")});
  apply_gate(r, gate_policy{});
  const auto zeros = test::zeros_standing_for_unknown(nlohmann::json::parse(report_to_json(r)));
  EXPECT_TRUE(zeros.empty()) << zeros.size() << " zeros standing for unknown, first "
                             << (zeros.empty() ? "" : zeros.front());
  EXPECT_TRUE(r.kernels.at(0).result.efficiency.has_value());
  return r.kernels.at(0).result.efficiency.value_or(0);
}

TEST(H200Nvbench, ThroughputExample) {
  const auto p = import_profile(dir + "nvbench.throughput.nvbench.json");
  EXPECT_EQ(p.format, profile_format::nvbench_json);
  const auto& k = only_kernel(p);
  EXPECT_EQ(k.name, "throughput_bench [Device=0]");
  expect_on_h200(p, k);
  ASSERT_TRUE(k.work);
  EXPECT_NEAR(k.work->bytes, 134217728.0, 1e-9 * 134217728.0);
  expect_samples(k, 4247, 0.00011775202819016633, 0.00011766400188207626);
  EXPECT_DOUBLE_EQ(*k.time_s, 0.00011775202819016633);
  // nvbench's utilisation 0.2367598 of its bus peak, as a fraction of the H200's 4916.74 GB/s (6144 bit x 2 x 3201 MHz).
  const double want = 0.2367598064500492 * kNvbenchBusPeak / 4916.74e9;
  EXPECT_NEAR(efficiency_on_h200(p), want, 1e-3 * want);
}

TEST(H200Nvbench, ExecTagSyncExample) {
  const auto p = import_profile(dir + "nvbench.exec_tag_sync.nvbench.json");
  const auto& k = only_kernel(p);
  EXPECT_EQ(k.name, "sequence_bench [Device=0]");
  ASSERT_TRUE(k.work);
  EXPECT_NEAR(k.work->bytes, 67108864.0, 1e-9 * 67108864.0);
  expect_samples(k, 16880, 2.9640553565585166e-05, 2.9343999922275544e-05);
  const double want = 0.4702838518470519 * kNvbenchBusPeak / 4916.74e9;
  EXPECT_NEAR(efficiency_on_h200(p), want, 1e-3 * want);
}

// States without declared work (auto_throughput declares items, stream and enums nothing): every
// state is a kernel of its own, on the H200, with nvbench's sample count.
TEST(H200Nvbench, EveryStateOfTheOtherExamples) {
  const struct {
    const char* file;
    std::size_t states;
    std::size_t first_samples;
  } cases[] = {{"nvbench.auto_throughput.nvbench.json", 4, 4090},
               {"nvbench.stream.nvbench.json", 1, 4252},
               {"nvbench.enums.nvbench.json", 13, 499}};
  for (const auto& c : cases) {
    const auto p = import_profile(dir + c.file);
    ASSERT_EQ(p.kernels.size(), c.states) << c.file;
    ASSERT_TRUE(p.kernels.front().duration) << c.file;
    EXPECT_EQ(p.kernels.front().duration->samples, c.first_samples) << c.file;
    for (const auto& k : p.kernels) {
      expect_on_h200(p, k);
      EXPECT_TRUE(k.time_s && *k.time_s > 0) << c.file << " " << k.name;
    }
  }
}

} // namespace
