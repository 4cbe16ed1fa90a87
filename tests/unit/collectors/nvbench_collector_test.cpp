// SPDX-License-Identifier: Apache-2.0
// The nvbench collector without a GPU: the command that runs one state alone, which kernels are
// the measurement's and which are setup, and the profile that combines nvbench's times with
// CUPTI's counters. The runs are written by the injection library's own kernel book (as in
// cupti_collector_test), for the kernels of tests/nvbench/copy_bench.cu (their mangled names as
// nvcc 13 emits them), and the nvbench side is tests/data/nvbench/copy_h200.json.
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>
#include <perfgate/model.hpp>

#include "collectors/cupti/kernel_book.hpp"
#include "collectors/nvbench_collector.hpp"

#include <gtest/gtest.h>

namespace perfgate::detail {
namespace {

const std::string file = std::string(PERFGATE_TEST_DATA_DIR) + "/nvbench/copy_h200.json";

const std::vector<std::string> metrics = {"smsp__sass_thread_inst_executed_op_fp32_pred_on.sum",
                                          "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
                                          "smsp__sass_thread_inst_executed_op_fp64_pred_on.sum",
                                          "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum",
                                          "smsp__sass_thread_inst_executed_op_integer_pred_on.sum",
                                          "smsp__sass_thread_inst_executed_op_memory_pred_on.sum",
                                          "smsp__inst_executed.sum",
                                          "dram__bytes_read.sum",
                                          "dram__bytes_write.sum",
                                          "sm__cycles_elapsed.avg.per_second"};

// One launch over n elements of `size` bytes: a copy reads and writes each, a fill writes.
std::vector<double> copy_launch(double n, double size) {
  return {0, 0, 0, 0, 6 * n, 2 * n, 12 * n / 32, n * size, n * size, 1.98e9};
}
std::vector<double> fill_launch(double n, double size) {
  return {0, 0, 0, 0, 4 * n, n, 8 * n / 32, 0, n * size, 1.98e9};
}

struct kernels_of {
  const char* fill;
  const char* copy;
  double size;
};
const kernels_of i32{"_Z4fillIiEvPT_mS0_", "_Z11copy_kernelIiEvPKT_PS0_m", 4};
const kernels_of f64{"_Z4fillIdEvPT_mS0_", "_Z11copy_kernelIdEvPKT_PS0_m", 8};

// The whole program's run under the timing library: each state fills once and copies as often
// as nvbench measured (warm-up, cold samples, batch).
cupti_run census() {
  cupti::kernel_book book;
  for (const auto& [t, copies] : {std::pair{i32, 4000}, std::pair{f64, 3000}}) {
    book.kernel(t.fill).launches += 2; // two Elements values
    auto& c = book.kernel(t.copy);
    for (int i = 0; i < copies; ++i) {
      ++c.launches;
      c.durations_ns.push_back(30000.0);
    }
  }
  cupti::run_info run;
  run.mode = "timing";
  return cupti_run_from_json(book.to_json(run), "census.json");
}

// A state's own run (--profile) under the counter library: its fill, then its copy, once each.
cupti_run state_run(const kernels_of& t, double n, bool with_copy = true) {
  cupti::kernel_book book;
  auto& fill = book.kernel(t.fill);
  ++fill.launches;
  book.add_range(fill, metrics, fill_launch(n, t.size), 1000.0);
  if (with_copy) {
    auto& copy = book.kernel(t.copy);
    ++copy.launches;
    book.add_range(copy, metrics, copy_launch(n, t.size), 30000.0);
  }
  cupti::run_info run;
  run.mode = "counters";
  run.chip = "GH100";
  run.metrics = metrics;
  return cupti_run_from_json(book.to_json(run), "state.json");
}

TEST(NvbenchCollector, AStateRunsAloneWithItsAxisValues) {
  const auto f = read_nvbench_json(read_text_file(file), file);
  EXPECT_EQ(nvbench_state_command({"./copy_bench"}, f.states[1]),
            (std::vector<std::string>{"./copy_bench", "--benchmark", "copy", "--axis", "T=I32",
                                      "--axis", "Elements[pow2]=24", "--devices", "0",
                                      "--profile"}));
  // The user's options (which could select other states) are not repeated; a script's
  // interpreter and path are kept.
  EXPECT_EQ(nvbench_program({"python3", "bench.py", "--json", "x.json", "-a", "N=3"}),
            (std::vector<std::string>{"python3", "bench.py"}));
  EXPECT_EQ(nvbench_program({"./copy_bench"}), (std::vector<std::string>{"./copy_bench"}));
}

TEST(NvbenchCollector, SetupKernelsAreLeftOutOfAStatesCounters) {
  const auto f = read_nvbench_json(read_text_file(file), file);
  std::vector<std::optional<cupti_run>> runs(f.states.size());
  runs[0] = state_run(i32, 1 << 20);
  runs[1] = state_run(i32, 1 << 24);
  runs[2] = state_run(f64, 1 << 20);
  runs[3] = state_run(f64, 1 << 24);
  const auto c = census();
  const auto measured = nvbench_measured_kernels(c, runs);
  EXPECT_EQ(measured, (std::vector<std::string>{"void copy_kernel<int>(int const*, int*, unsigned long)",
                                                "void copy_kernel<double>(double const*, "
                                                "double*, unsigned long)"}));
  std::vector<std::string> notes;
  const auto p = profile_from_nvbench_runs(f, file, c, runs, &notes);
  ASSERT_EQ(p.kernels.size(), 6U);
  const auto& k = p.kernels[3]; // copy [Device=0 T=F64 Elements=2^24]
  EXPECT_EQ(k.name, "copy [Device=0 T=F64 Elements=2^24]");
  // the copy's traffic only: 2 x 2^24 doubles, not the fill's 2^24 more
  EXPECT_EQ(*k.counter(counter::dram_read_bytes), 8.0 * (1 << 24));
  EXPECT_EQ(*k.counter(counter::dram_write_bytes), 8.0 * (1 << 24));
  EXPECT_FALSE(k.work); // the counters replace the declared bytes
  EXPECT_EQ(*k.time_s, *read_nvbench_json(read_text_file(file), file).states[3].mean_s);
  const auto params = kernel_params_from_profile(p, k);
  EXPECT_EQ(params.model, model_kind::quantitative);
  EXPECT_TRUE(params.compute_declared);
  EXPECT_EQ(params.W_traf, 16.0 * (1 << 24));
  ASSERT_EQ(notes.size(), 4U);
  EXPECT_EQ(notes[3], "copy [Device=0 T=F64 Elements=2^24]: counters of void copy_kernel<double>("
                      "double const*, double*, unsigned long) (1 launch); left out as setup: "
                      "void fill<double>(double*, unsigned long, double)");
  // CPU-only states have no counter run: they keep nvbench's declared bytes.
  EXPECT_TRUE(p.kernels[4].work);
}

TEST(NvbenchCollector, AStateWhoseRunLaunchedNoMeasuredKernelKeepsItsDeclaredBytes) {
  const auto f = read_nvbench_json(read_text_file(file), file);
  std::vector<std::optional<cupti_run>> runs(f.states.size());
  runs[0] = state_run(i32, 1 << 20, false); // its fill alone
  runs[1] = state_run(i32, 1 << 24);        // so that the census's two fills are both setup
  std::vector<std::string> notes;
  const auto p = profile_from_nvbench_runs(f, file, census(), runs, &notes);
  EXPECT_TRUE(p.kernels[0].counters.empty());
  ASSERT_TRUE(p.kernels[0].work);
  EXPECT_EQ(p.kernels[0].work->bytes, 8.0 * (1 << 20));
  EXPECT_FALSE(p.kernels[1].counters.empty());
  ASSERT_EQ(notes.size(), 2U);
  EXPECT_EQ(notes[0], "copy [Device=0 T=I32 Elements=2^20]: no kernel of its own measurement in "
                      "its run, judged on its declared bytes; left out as setup: "
                      "void fill<int>(int*, unsigned long, int)");
}

TEST(NvbenchCollector, SkipsWithoutAnNvidiaGpu) {
  if (!nvidia_gpu_unavailable()) {
    GTEST_SKIP() << "this machine has an NVIDIA GPU: cli.run_nvbench_copy runs the collector";
  }
  collect_request r;
  r.program = {"./copy_bench"};
  EXPECT_THROW((void)collect_nvbench(r), skip_error);
}

} // namespace
} // namespace perfgate::detail
