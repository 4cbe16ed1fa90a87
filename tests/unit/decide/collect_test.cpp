// SPDX-License-Identifier: Apache-2.0
#include <perfgate/file_io.hpp>

#include "decide/collect.hpp"

#include <gtest/gtest.h>

#include <regex>

// PerfGate.cmake checks COLLECTOR before any build: its list is the one `perfgate run` takes
// (decide::program_collectors and a recorded profile), or a test configures and fails at run.
TEST(Collect, PerfGateCmakeTakesTheCollectorsRunTakes) {
  const std::string module =
      perfgate::read_text_file(std::string(PERFGATE_SOURCE_DIR) + "/cmake/PerfGate.cmake");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(module, m,
                                std::regex(R"(if\(NOT collector MATCHES "\^\(([a-z|]+)\)\$"\))")))
      << "PerfGate.cmake's COLLECTOR check moved: hold this test to it";
  std::string expected;
  for (const auto name : perfgate::decide::program_collectors) {
    expected += std::string(name) + "|";
  }
  EXPECT_EQ(m[1].str(), expected + "profile");
}
