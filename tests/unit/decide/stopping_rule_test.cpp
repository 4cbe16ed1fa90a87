// SPDX-License-Identifier: Apache-2.0
// The one stopping rule of confirmation runs, A/B sessions and repetitions
// (decide/stopping_rule.hpp): fed run durations, asked with the gate's undecided count.
#include "decide/stopping_rule.hpp"

#include <gtest/gtest.h>

#include <limits>

using perfgate::decide::stop_reason;
using perfgate::decide::stopping_limits;
using perfgate::decide::stopping_rule;

namespace {
constexpr double no_budget = std::numeric_limits<double>::infinity();
} // namespace

// Settled as soon as the gate leaves nothing undecided, but never before min_runs.
TEST(StoppingRule, StopsWhenSettledAfterTheMinimumRuns) {
  stopping_rule rule(stopping_limits{3, 20, no_budget, 1});
  rule.add_run(1);
  EXPECT_FALSE(rule.finished(0)); // one run: the minimum is three
  rule.add_run(1);
  rule.add_run(1);
  EXPECT_FALSE(rule.finished(2));
  EXPECT_EQ(rule.finished(0), stop_reason::settled);
}

// An A/B session is judged on whole ABBA pairs: after an odd round nothing counts as settled.
TEST(StoppingRule, JudgesOnlyWholeGroups) {
  stopping_rule rule(stopping_limits{6, 60, no_budget, 2});
  for (int i = 0; i < 7; ++i) {
    rule.add_run(1);
  }
  EXPECT_FALSE(rule.time_to_judge());
  EXPECT_FALSE(rule.finished(0));
  rule.add_run(1);
  EXPECT_TRUE(rule.time_to_judge());
  EXPECT_EQ(rule.finished(0), stop_reason::settled);
}

// The runs end at max_runs however undecided the kernels stay.
TEST(StoppingRule, StopsAtTheMostRuns) {
  stopping_rule rule(stopping_limits{1, 3, no_budget, 1});
  for (int i = 0; i < 3; ++i) {
    EXPECT_FALSE(rule.finished(1));
    rule.add_run(1);
  }
  EXPECT_EQ(rule.finished(1), stop_reason::runs_spent);
}

// No run starts that would end after the budget, taking the next run to last as the last did.
TEST(StoppingRule, StartsNoRunThatWouldOverrunTheBudget) {
  stopping_rule rule(stopping_limits{1, 100, 10, 1});
  rule.add_run(4);
  EXPECT_FALSE(rule.finished(1)); // 4 + 4 <= 10
  rule.add_run(4);
  EXPECT_EQ(rule.finished(1), stop_reason::budget_spent); // 8 + 4 > 10
  EXPECT_DOUBLE_EQ(rule.spent_s(), 8);
  EXPECT_EQ(rule.runs(), 2);
}

// A budget of 0 s: the minimum runs are made, then none more (--time-budget 0).
TEST(StoppingRule, AZeroBudgetStopsAfterTheMinimumRuns) {
  stopping_rule rule(stopping_limits{2, 100, 0, 1});
  EXPECT_FALSE(rule.finished(1));
  rule.add_run(1);
  EXPECT_FALSE(rule.finished(1));
  rule.add_run(1);
  EXPECT_EQ(rule.finished(1), stop_reason::budget_spent);
}
