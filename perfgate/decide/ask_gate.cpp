// SPDX-License-Identifier: Apache-2.0
#include <perfgate/gate.hpp>

#include "decide/decide.hpp"

namespace perfgate::decide {

std::vector<std::string> ask_gate(report& r, const gate_policy& policy,
                                  const gate_measurements& measured) {
  apply_gate(r, policy, measured);
  return undecided_kernels(r);
}

} // namespace perfgate::decide
