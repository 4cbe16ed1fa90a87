// SPDX-License-Identifier: Apache-2.0
// Every prefix of every fixture (a file cut anywhere, as a crashed profiler leaves it) either
// imports or fails with input_error; nothing else escapes and nothing crashes.
#include <perfgate/file_io.hpp>

#include "import_failure.hpp"

#include <gtest/gtest.h>

#include <filesystem>

namespace fs = std::filesystem;

TEST(ImporterRobustness, EveryTruncationImportsOrFailsWithInputError) {
  std::vector<fs::path> files;
  for (const char* dir : {"ncu", "malformed", "real-profiles", "devices"}) {
    for (const auto& e : fs::directory_iterator(fs::path(PERFGATE_TEST_DATA_DIR) / dir)) {
      if (e.path().extension() == ".csv" || e.path().extension() == ".json") {
        files.push_back(e.path());
      }
    }
  }
  for (const auto& e :
       fs::directory_iterator(fs::path(PERFGATE_SOURCE_DIR) / "examples/profiles")) {
    files.push_back(e.path());
  }
  ASSERT_GT(files.size(), 15U);
  std::size_t cuts = 0;
  for (const auto& f : files) {
    const std::string text = perfgate::read_text_file(f);
    for (std::size_t n = 0; n <= text.size(); n += (n < 400 ? 1 : 13)) {
      ++cuts;
      try {
        (void)perfgate::test::import_failure(std::string_view(text).substr(0, n), "cut");
      } catch (const std::exception& e) {
        ADD_FAILURE() << f << " cut at " << n << ": " << typeid(e).name() << ": " << e.what();
      }
    }
  }
  EXPECT_GT(cuts, 5000U);
}
