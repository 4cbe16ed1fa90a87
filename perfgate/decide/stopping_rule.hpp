// SPDX-License-Identifier: Apache-2.0
// When to stop running a program again: the one rule of confirmation runs, A/B sessions and
// the repetitions of a first run. As nvbench's stopping criterion is fed each measurement and
// asked whether it is finished, this rule is fed each run's duration and asked, with the number
// of kernels the gate's latest verdicts leave undecided, whether another run should start. It
// never judges a kernel: only the gate says what is undecided.
#pragma once

#include <optional>
#include <string>

namespace perfgate::decide {

struct stopping_limits {
  int min_runs = 1;     ///< runs made whatever the verdicts (an A/B session: three ABBA pairs)
  int max_runs = 20;    ///< runs at most
  /// No run past min_runs starts that would end after this many seconds (0: none does;
  /// infinity: no budget).
  double budget_s = 60;
  /// The gate is asked after every judge_every-th run only (A/B: whole ABBA pairs, 2).
  int judge_every = 1;
};

enum class stop_reason {
  settled,      ///< the gate leaves no kernel undecided
  runs_spent,   ///< max_runs made
  budget_spent, ///< the next run would end after the budget
};
[[nodiscard]] std::string to_string(stop_reason r);

class stopping_rule {
public:
  explicit stopping_rule(stopping_limits limits) : m_limits(limits) {}

  /// A run ended that took `seconds`.
  void add_run(double seconds);
  [[nodiscard]] int runs() const { return m_runs; }
  [[nodiscard]] double spent_s() const { return m_spent_s; }
  [[nodiscard]] const stopping_limits& limits() const { return m_limits; }
  /// Whether the gate's verdicts count now: min_runs made, and a whole group of judge_every.
  [[nodiscard]] bool time_to_judge() const;
  /// "Finished?" Nothing while another run should start; else why not. `undecided`: how many
  /// kernels the gate's verdicts on the runs so far leave undecided (read only when
  /// time_to_judge()).
  [[nodiscard]] std::optional<stop_reason> finished(std::size_t undecided) const;

private:
  stopping_limits m_limits;
  int m_runs = 0;
  double m_spent_s = 0;
  double m_last_s = 0;
};

} // namespace perfgate::decide
