// SPDX-License-Identifier: Apache-2.0
// --collector auto: what a program is, read from its bytes, and the choice it makes with what
// the machine has; where nothing decides, a skip that says so and names the choices.
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>

#include "collectors/collectors.hpp"

#include <gtest/gtest.h>

#include <filesystem>

namespace perfgate::detail {
namespace {

namespace fs = std::filesystem;

// A file holding `bytes` (a stand-in for a binary: only the strings auto looks for matter).
std::string program_with(const std::string& name, const std::string& bytes) {
  const fs::path dir = fs::temp_directory_path() / "perfgate-auto-collector-test";
  fs::create_directories(dir);
  write_file_atomically(dir / name, bytes);
  return (dir / name).string();
}

const machine_facts no_gpu{"no NVIDIA driver: libcuda.so.1 cannot be loaded", false};
const machine_facts nvidia_host{std::nullopt, false};
const machine_facts rocm_host{"no NVIDIA driver", true};

TEST(AutoCollector, ReadsWhatTheProgramLinks) {
  const auto nvbench =
      program_facts_of(program_with("nvb", "\177ELF..libnvbench.so..libcudart.so.12"));
  EXPECT_TRUE(nvbench.nvbench);
  EXPECT_TRUE(nvbench.cuda);
  EXPECT_FALSE(nvbench.gbench);
  const auto gbench = program_with("gb", "\177ELF..benchmark_out_format..");
  EXPECT_TRUE(program_facts_of(gbench).gbench);
  EXPECT_TRUE(program_facts_of(program_with("hip", "\177ELF..libamdhip64.so.6")).hip);
  const auto script = program_facts_of(program_with("run.sh", "#!/bin/sh\nexec ./bench \"$@\"\n"));
  EXPECT_TRUE(script.script);
  EXPECT_FALSE(script.gbench || script.nvbench || script.cuda || script.hip);
  const auto missing = program_facts_of("/nonexistent/perfgate-auto-test");
  EXPECT_FALSE(missing.gbench || missing.script);
}

TEST(AutoCollector, ChoosesByProgramThenMachine) {
  program_facts nvbench;
  nvbench.nvbench = true;
  nvbench.cuda = true;
  EXPECT_EQ(choose_collector("b", nvbench, no_gpu), "nvbench");
  program_facts gbench;
  gbench.gbench = true;
  EXPECT_EQ(choose_collector("b", gbench, no_gpu), "gbench");
  program_facts cuda;
  cuda.cuda = true;
  EXPECT_EQ(choose_collector("b", cuda, rocm_host), "cupti"); // CUDA: cupti says why it skips
  program_facts hip;
  hip.hip = true;
  EXPECT_EQ(choose_collector("b", hip, nvidia_host), "rocprof");
  const program_facts unknown;
  EXPECT_EQ(choose_collector("b", unknown, nvidia_host), "cupti");
  EXPECT_EQ(choose_collector("b", unknown, rocm_host), "rocprof");
}

TEST(AutoCollector, SaysWhenItCannotTellAndNamesTheChoices) {
  program_facts script;
  script.script = true;
  try {
    (void)choose_collector("./run.sh", script, no_gpu);
    FAIL() << "a script on a machine without a GPU was given a collector";
  } catch (const skip_error& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.status(), exit_status::skipped);
    EXPECT_NE(what.find("./run.sh"), std::string::npos) << what;
    EXPECT_NE(what.find("no NVIDIA driver"), std::string::npos) << what; // what it looked at
    for (const char* choice : {"gbench", "nvbench", "cupti", "ncu", "rocprof", "profile"}) {
      EXPECT_NE(what.find(choice), std::string::npos) << choice << " not named: " << what;
    }
  }
  // Both kinds of GPU and a program that shows neither: no guess either.
  const machine_facts both{std::nullopt, true};
  EXPECT_THROW((void)choose_collector("./bench", program_facts{}, both), skip_error);
}

} // namespace
} // namespace perfgate::detail
