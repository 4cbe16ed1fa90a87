// SPDX-License-Identifier: Apache-2.0
// perfgate bisect's decisions (history/bisect.hpp): a step's A/B verdict as git's answer, the
// range from a history's change point, the first bad commit from git's log.
#include <perfgate/error.hpp>

#include "history/bisect.hpp"

#include <gtest/gtest.h>

namespace {
using perfgate::history::bisect_answer;
using perfgate::history::bisect_answer_of;
using perfgate::stats::change;

perfgate::report judged(std::vector<std::optional<change>> kinds) {
  perfgate::report r;
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    perfgate::kernel_report k;
    k.name = "BM_" + std::to_string(i);
    if (kinds[i]) {
      perfgate::stats::ab_verdict a;
      a.kind = *kinds[i];
      a.beyond_allowed = *kinds[i] == change::slower;
      a.ratio = {1.25, 1.3, 1.35};
      a.allowed = 1.111;
      a.rounds = 6;
      k.result.ab = a;
    }
    r.kernels.push_back(k);
  }
  return r;
}
} // namespace

TEST(Bisect, TheABVerdictIsGitsAnswer) {
  EXPECT_EQ(bisect_answer_of(judged({change::same, change::faster})), bisect_answer::good);
  EXPECT_EQ(bisect_answer_of(judged({change::same, change::slower})), bisect_answer::bad);
  // A slowdown anywhere is bad even beside an undecided kernel; undecided alone skips.
  EXPECT_EQ(bisect_answer_of(judged({change::ambiguous, change::slower})), bisect_answer::bad);
  EXPECT_EQ(bisect_answer_of(judged({change::same, change::ambiguous})), bisect_answer::skip);
  EXPECT_EQ(bisect_answer_of(judged({std::nullopt})), bisect_answer::skip); // nothing judged
  EXPECT_EQ(static_cast<int>(bisect_answer::skip), 125);
  auto within = judged({change::slower});
  within.kernels[0].result.ab->beyond_allowed = false;
  EXPECT_EQ(bisect_answer_of(within), bisect_answer::good);
}

TEST(Bisect, EvidenceNamesRatioIntervalAndRounds) {
  const auto lines = perfgate::history::ab_evidence(judged({change::slower, std::nullopt}));
  ASSERT_EQ(lines.size(), 1U);
  EXPECT_EQ(lines[0], "BM_0: SLOWER, time ratio 1.300x (95% interval 1.250x .. 1.350x, allowed "
                      "1.111x) over 6 rounds");
}

TEST(Bisect, FirstBadCommitFromTheLog) {
  const std::string log =
      "git bisect start\n# bad: [bbbbbbb] commit 10\n"
      "# first bad commit: [6a1b2c3d4e5f60718293a4b5c6d7e8f901234567] commit 6\n";
  EXPECT_EQ(perfgate::history::first_bad_commit(log), "6a1b2c3d4e5f60718293a4b5c6d7e8f901234567");
  EXPECT_EQ(perfgate::history::first_bad_commit("# only skipped commits left to test\n"), "");
}

TEST(Bisect, RangeFromTheLatestSlowingChangePoint) {
  perfgate::history::series s;
  s.kernel = "BM_triad";
  s.device = "local-cpu";
  s.commits = {"c1", "c2", "c3", "c4", "c5", "c6"};
  s.changes = {{2, 1.2, 0.01}, {4, 0.8, 0.01}}; // slower from c3, faster from c5
  auto other = s;
  other.kernel = "BM_dot";
  other.changes = {{5, 1.1, 0.01}};
  const auto range = perfgate::history::range_from_history({s, other}, "triad");
  ASSERT_TRUE(range);
  EXPECT_EQ(range->good, "c2");
  EXPECT_EQ(range->bad, "c3");
  EXPECT_EQ(range->kernel, "BM_triad");
  const auto any = perfgate::history::range_from_history({s, other}, "");
  ASSERT_TRUE(any);
  EXPECT_EQ(any->bad, "c6"); // the latest slowdown of any kernel
  other.muted = true;        // a muted kernel names no range
  EXPECT_FALSE(perfgate::history::range_from_history({other}, ""));
  EXPECT_THROW((void)perfgate::history::range_from_history({s}, "("), perfgate::usage_error);
}
