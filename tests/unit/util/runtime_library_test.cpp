// SPDX-License-Identifier: Apache-2.0
// util/runtime_library.hpp and util/cupti_library.hpp: a vendor runtime loaded from the first
// candidate that loads, every failure remembered for the message; CUPTI's candidates in order.
#include "util/cupti_library.hpp"
#include "util/runtime_library.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

using perfgate::detail::cupti_library_candidates;
using perfgate::detail::cupti_missing_message;
using perfgate::detail::prepend_search_path;
using perfgate::detail::runtime_library;

TEST(RuntimeLibrary, NoCandidateLoadsAndEachFailureIsNamed) {
  const runtime_library lib({"libperfgate-no-such-runtime.so.1", "/nonexistent/libx.so.2"});
  EXPECT_FALSE(lib.loaded());
  EXPECT_EQ(lib.path(), "");
  EXPECT_EQ(lib.symbol<int (*)()>("anything"), nullptr);
  const auto failures = lib.failures();
  EXPECT_NE(failures.find("libperfgate-no-such-runtime.so.1 ("), std::string::npos) << failures;
  EXPECT_NE(failures.find("; /nonexistent/libx.so.2 ("), std::string::npos) << failures;
  EXPECT_NE(failures.find("No such file or directory"), std::string::npos) << failures;
}

TEST(RuntimeLibrary, TheFirstThatLoadsWinsWithItsPathAndFunctions) {
  // libm is on every glibc system; the failed candidate before it stays in the list.
  const runtime_library lib({"/nonexistent/libm.so.6", "libm.so.6", "libc.so.6"});
  ASSERT_TRUE(lib.loaded()) << lib.failures();
  EXPECT_EQ(lib.path().front(), '/') << lib.path();
  EXPECT_NE(lib.path().find("libm.so.6"), std::string::npos) << lib.path();
  const auto cosine = lib.symbol<double (*)(double)>("cos");
  ASSERT_NE(cosine, nullptr);
  EXPECT_DOUBLE_EQ(cosine(0.0), 1.0);
  EXPECT_EQ(lib.symbol<void (*)()>("perfgate_no_such_function"), nullptr);
  EXPECT_EQ(lib.failures().rfind("/nonexistent/libm.so.6 (", 0), 0U) << lib.failures();
}

TEST(RuntimeLibrary, PrependSearchPath) {
  EXPECT_EQ(prepend_search_path("/opt/cuda/lib64", nullptr), "/opt/cuda/lib64");
  EXPECT_EQ(prepend_search_path("/opt/cuda/lib64", ""), "/opt/cuda/lib64");
  EXPECT_EQ(prepend_search_path("/opt/cuda/lib64", "/a:/b"), "/opt/cuda/lib64:/a:/b");
}

namespace {

struct fake_env {
  std::map<std::string, std::string> vars;
  const char* operator()(const char* name) const {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  }
};

} // namespace

TEST(CuptiLibrary, TheSonameFirstThenTheBuildToolkitThenTheUsualRoots) {
  const auto c = cupti_library_candidates("libcupti.so.13", "/usr/local/cuda-13.0/lib",
                                          fake_env{{{"CUDA_HOME", "/opt/cuda"}}});
  ASSERT_GE(c.size(), 10U);
  EXPECT_EQ(c[0], "libcupti.so.13");
  EXPECT_EQ(c[1], "/usr/local/cuda-13.0/lib/libcupti.so.13");
  EXPECT_EQ(c[2], "/opt/cuda/lib64/libcupti.so.13");
  EXPECT_EQ(c[5], "/opt/cuda/extras/CUPTI/lib64/libcupti.so.13");
  EXPECT_EQ(c[6], "/usr/local/cuda/lib64/libcupti.so.13");
  EXPECT_EQ(c.size(), 10U); // 2 + 4 folders under each of the two roots
  for (const auto& candidate : c) {
    EXPECT_NE(candidate.find("libcupti.so.13"), std::string::npos) << candidate;
  }
}

TEST(CuptiLibrary, AnExplicitPathIsTheOnlyCandidate) {
  const auto c = cupti_library_candidates(
      "libcupti.so.13", "/usr/local/cuda-13.0/lib",
      fake_env{{{"PERFGATE_CUPTI_LIBRARY", "/x/libcupti.so.13"}, {"CUDA_HOME", "/opt/cuda"}}});
  EXPECT_EQ(c, (std::vector<std::string>{"/x/libcupti.so.13"}));
  // Empty is unset.
  EXPECT_EQ(cupti_library_candidates("libcupti.so.13", "", fake_env{{{"PERFGATE_CUPTI_LIBRARY", ""}}})
                .front(),
            "libcupti.so.13");
}

TEST(CuptiLibrary, TheMessageSaysWhatWasTriedAndHowToGetIt) {
  const runtime_library lib({"/nonexistent/libcupti.so.13"});
  const auto text = cupti_missing_message("libcupti.so.13", lib);
  EXPECT_EQ(text.rfind("CUPTI (libcupti.so.13) could not be loaded; tried /nonexistent/libcupti.so.13 (",
                       0),
            0U)
      << text;
  EXPECT_NE(text.find("cuda-cupti"), std::string::npos) << text;
  EXPECT_NE(text.find("PERFGATE_CUPTI_LIBRARY"), std::string::npos) << text;
}
