// SPDX-License-Identifier: Apache-2.0
// Inputs the libFuzzer harnesses (tests/fuzz) found crashing a reader, kept as regression
// tests: every reader must accept them or refuse them with perfgate::error (exit 2), naming the
// file. tests/data/fuzz-regressions/README.md says what each one broke.
#include <perfgate/device.hpp>
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>
#include <perfgate/gate.hpp>
#include <perfgate/import.hpp>
#include <perfgate/report.hpp>

#include "collectors/collectors.hpp"
#include "import_failure.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

namespace fs = std::filesystem;

TEST(FuzzRegressions, EveryReaderRefusesCleanly) {
  const std::vector<
      std::pair<const char*, std::function<void(std::string_view, const std::string&)>>>
      readers = {
          {"profile", [](auto t, auto& f) { (void)perfgate::import_profile_text(t, f); }},
          {"device", [](auto t, auto& f) { (void)perfgate::device_from_json(t, f); }},
          {"report", [](auto t, auto& f) { (void)perfgate::report_from_json(t, f); }},
          {"baseline", [](auto t, auto& f) { (void)perfgate::baseline_from_json(t, f); }},
          {"cupti", [](auto t, auto& f) { (void)perfgate::detail::cupti_run_from_json(t, f); }},
      };
  std::size_t files = 0;
  for (const auto& e :
       fs::directory_iterator(fs::path(PERFGATE_TEST_DATA_DIR) / "fuzz-regressions")) {
    if (e.path().extension() == ".md") {
      continue;
    }
    ++files;
    const std::string text = perfgate::read_text_file(e.path());
    for (const auto& [name, read] : readers) {
      try {
        read(text, e.path().filename().string());
      } catch (const perfgate::input_error& err) {
        EXPECT_EQ(err.file(), e.path().filename().string()) << name;
      } catch (const perfgate::error&) {
        // another clean refusal (usage, skip)
      } catch (const std::exception& err) {
        ADD_FAILURE() << e.path() << " escapes the " << name << " reader: " << err.what();
      }
    }
  }
  EXPECT_GE(files, 2U);
}

TEST(FuzzRegressions, NumberBeyondADoubleIsAnInputError) {
  const std::string file =
      std::string(PERFGATE_TEST_DATA_DIR) + "/fuzz-regressions/device_number_overflow.json";
  try {
    (void)perfgate::load_device_file(file);
    FAIL() << "a peak of 1e400 was accepted";
  } catch (const perfgate::input_error& e) {
    EXPECT_NE(std::string(e.what()).find("device_number_overflow.json:1: invalid JSON: the number "
                                         "1e400 is out of range"),
              std::string::npos)
        << e.what();
  }
}

TEST(FuzzRegressions, InvocationsBeyondAnIntegerAreAnInputError) {
  const auto what =
      perfgate::test::import_failure(std::string(PERFGATE_TEST_DATA_DIR) +
                                     "/fuzz-regressions/nvprof_invocations_beyond_uint64.csv");
  EXPECT_NE(what.find("nvprof_invocations_beyond_uint64.csv:8: \"Invocations\" is "
                      "\"3333333333333333333333333333333331\", expected a positive integer (at "
                      "most 2^53)"),
            std::string::npos)
      << what;
}

TEST(FuzzRegressions, ADurationOfNoSampleIsAnInputError) {
  const std::string what =
      perfgate::test::import_failure(std::string(PERFGATE_TEST_DATA_DIR) +
                                     "/fuzz-regressions/profile_duration_of_no_sample.json");
  EXPECT_NE(what.find("profile_duration_of_no_sample.json: key 'kernels[0].duration.samples': "
                      "expected at least 1"),
            std::string::npos)
      << what;
}
