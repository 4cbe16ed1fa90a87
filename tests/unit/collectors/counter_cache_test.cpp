// SPDX-License-Identifier: Apache-2.0
// The counter cache without a GPU (issue 43): a fake counter run (the injection library's real
// output for saxpy on an H100, tests/data/h100/cupti/saxpy_counters.json) stands for what a
// state's run under kernel replay would return, and each test counts how often it was asked.
// The program is a file of this test's own, changed to stand for a rebuild.
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>

#include "collectors/counter_cache.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include <unistd.h>

namespace perfgate::detail {
namespace {

namespace fs = std::filesystem;

const std::string counters_json =
    read_text_file(std::string(PERFGATE_TEST_DATA_DIR) + "/h100/cupti/saxpy_counters.json");

class CounterCache : public ::testing::Test {
protected:
  void SetUp() override {
    root = fs::temp_directory_path() /
           ("perfgate-counter-cache-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root);
    fs::create_directories(root);
    program = (root / "bench").string();
    write_program("build 1");
  }
  void TearDown() override { fs::remove_all(root); }

  void write_program(const std::string& contents) const {
    std::ofstream(program, std::ios::binary | std::ios::trunc) << "#!/bin/sh\n# " << contents;
    fs::permissions(program, fs::perms::owner_all);
  }

  counter_cache_key key(std::vector<std::string> state = {"--benchmark", "copy", "--profile"},
                        std::string device = "NVIDIA H100 80GB HBM3 (GH100)",
                        std::vector<std::string> metrics = {"dram__bytes_read.sum"}) const {
    std::vector<std::string> argv = {program};
    argv.insert(argv.end(), state.begin(), state.end());
    return counter_cache_key_of(argv, std::move(device), std::move(metrics));
  }

  // The run for `k`, and how many runs of the program it took (0: from the cache).
  std::pair<cupti_run, int> counted(const counter_cache* cache, const counter_cache_key& k) {
    int runs = 0;
    auto run = cached_counter_run(cache, k, [&] {
      ++runs;
      return counters_json;
    });
    return {std::move(run), runs};
  }

  fs::path root;
  std::string program;
};

TEST_F(CounterCache, StoresThenReusesTheSameCounters) {
  const counter_cache cache(root / "cache");
  const auto [first, first_runs] = counted(&cache, key());
  EXPECT_EQ(first_runs, 1);
  EXPECT_TRUE(fs::exists(cache.file_of(key())));
  const auto [again, again_runs] = counted(&cache, key());
  EXPECT_EQ(again_runs, 0) << "an unchanged program is not counted again";
  const auto truth = cupti_run_from_json(counters_json, "saxpy_counters.json");
  ASSERT_EQ(again.kernels.size(), truth.kernels.size());
  for (std::size_t i = 0; i < truth.kernels.size(); ++i) {
    EXPECT_EQ(again.kernels[i].name, truth.kernels[i].name);
    EXPECT_EQ(again.kernels[i].metrics, truth.kernels[i].metrics);
    EXPECT_EQ(again.kernels[i].launches, truth.kernels[i].launches);
  }
  EXPECT_EQ(again.device_name, "NVIDIA H100 80GB HBM3");
}

TEST_F(CounterCache, AChangedProgramStateDeviceOrCounterSetIsCountedAgain) {
  const counter_cache cache(root / "cache");
  (void)counted(&cache, key());
  EXPECT_EQ(counted(&cache, key({"--benchmark", "copy", "--axis", "T=F32", "--profile"})).second, 1)
      << "another state";
  EXPECT_EQ(counted(&cache, key({}, "NVIDIA H200 (GH100)")).second, 1) << "another GPU";
  EXPECT_EQ(counted(&cache, key({}, {}, {"dram__bytes_read.sum", "lts__t_bytes.sum"})).second, 1)
      << "another counter set";
  write_program("build 2"); // a rebuild: the same path, other bytes
  EXPECT_EQ(counted(&cache, key()).second, 1);
  EXPECT_EQ(counted(&cache, key()).second, 0) << "the rebuilt program's run is kept in turn";
}

TEST_F(CounterCache, AScriptsFileIsPartOfTheKey) {
  const std::string script = (root / "bench.py").string();
  std::ofstream(script) << "print(1)\n";
  const auto with_script = [&] {
    return counter_cache_key_of({program, script, "--benchmark", "b"}, "gpu", {"m"});
  };
  const counter_cache cache(root / "cache");
  EXPECT_EQ(counted(&cache, with_script()).second, 1);
  EXPECT_EQ(counted(&cache, with_script()).second, 0);
  std::ofstream(script, std::ios::trunc) << "print(2)\n";
  EXPECT_EQ(counted(&cache, with_script()).second, 1) << "the script changed, not the program";
}

TEST_F(CounterCache, ACorruptFileIsIgnoredWithAWarningAndReplaced) {
  const counter_cache cache(root / "cache");
  (void)counted(&cache, key());
  const fs::path file = cache.file_of(key());
  const std::string whole = read_text_file(file);
  std::ofstream(file, std::ios::trunc) << whole.substr(0, whole.size() / 2); // truncated
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(cache.find(key()));
  const std::string warned = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(warned.find(file.string()), std::string::npos) << warned;
  EXPECT_EQ(counted(&cache, key()).second, 1) << "counted again, never half a file's counters";
  EXPECT_EQ(counted(&cache, key()).second, 0) << "and the file replaced";

  // Another format, or a timing run where a counter run belongs: not trusted either.
  auto doc = nlohmann::json::parse(read_text_file(file));
  doc["run"]["mode"] = "timing";
  std::ofstream(file, std::ios::trunc) << doc.dump();
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(cache.find(key()));
  EXPECT_NE(::testing::internal::GetCapturedStderr().find("expected an ok counter run"),
            std::string::npos);
}

TEST_F(CounterCache, AFileOfAnotherKeyIsNeverUsed) {
  const counter_cache cache(root / "cache");
  const auto other = key({"--benchmark", "other", "--profile"});
  (void)counted(&cache, other);
  // The other key's file where this key's would be (as if their names collided).
  fs::copy_file(cache.file_of(other), cache.file_of(key()));
  EXPECT_FALSE(cache.find(key()));
  EXPECT_EQ(counted(&cache, key()).second, 1);
}

TEST_F(CounterCache, WithoutACacheEveryRunCounts) {
  EXPECT_EQ(counted(nullptr, key()).second, 1);
  EXPECT_EQ(counted(nullptr, key()).second, 1);
}

TEST_F(CounterCache, AFolderThatCannotBeWrittenLosesOnlyTheReuse) {
  std::ofstream(root / "not-a-folder") << "x";
  const counter_cache cache(root / "not-a-folder" / "cache");
  ::testing::internal::CaptureStderr();
  const auto [run, runs] = counted(&cache, key());
  const std::string warned = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(runs, 1);
  EXPECT_FALSE(run.kernels.empty());
  EXPECT_NE(warned.find("cannot keep the counter run"), std::string::npos) << warned;
}

TEST_F(CounterCache, AProgramThatCannotBeFoundHasNoKey) {
  EXPECT_THROW((void)counter_cache_key_of({(root / "missing").string()}, "gpu", {"m"}),
               input_error);
}

} // namespace
} // namespace perfgate::detail
