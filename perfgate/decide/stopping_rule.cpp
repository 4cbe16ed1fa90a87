// SPDX-License-Identifier: Apache-2.0
#include "decide/stopping_rule.hpp"

namespace perfgate::decide {

std::string to_string(stop_reason r) {
  switch (r) {
  case stop_reason::settled:
    return "settled";
  case stop_reason::runs_spent:
    return "runs spent";
  case stop_reason::budget_spent:
    return "budget spent";
  }
  return "?";
}

void stopping_rule::add_run(double seconds) {
  ++m_runs;
  m_spent_s += seconds;
  m_last_s = seconds;
}

bool stopping_rule::time_to_judge() const {
  return m_runs >= m_limits.min_runs && m_runs % m_limits.judge_every == 0;
}

std::optional<stop_reason> stopping_rule::finished(std::size_t undecided) const {
  if (m_runs < m_limits.min_runs) {
    return std::nullopt;
  }
  if (time_to_judge() && undecided == 0) {
    return stop_reason::settled;
  }
  if (m_runs >= m_limits.max_runs) {
    return stop_reason::runs_spent;
  }
  // The next run is taken to last as long as the last one did.
  if (m_spent_s + m_last_s > m_limits.budget_s) {
    return stop_reason::budget_spent;
  }
  return std::nullopt;
}

} // namespace perfgate::decide
