// SPDX-License-Identifier: Apache-2.0
// The second counter run of the NVIDIA collectors (ncu, CUPTI): whether a profile needs it
// (matrix instructions that no operations counter measured) and how its tensor operations
// join the first run's kernels. docs/tensor.md, "Two counter runs".
#include "collectors/collectors.hpp"

#include <algorithm>
#include <string>

namespace perfgate::detail {

bool needs_tensor_run(const profile& p) {
  return std::any_of(p.kernels.begin(), p.kernels.end(), [&](const kernel_profile& k) {
    return k.matrix_instructions() > 0 && k.tensor_operations() <= 0;
  });
}

void add_tensor_counters(profile& base, const profile& tensor) {
  for (auto& k : base.kernels) {
    const auto t = std::find_if(tensor.kernels.begin(), tensor.kernels.end(),
                                [&](const kernel_profile& x) { return x.name == k.name; });
    if (t == tensor.kernels.end() || t->invocations == 0) {
      continue;
    }
    const double scale = static_cast<double>(k.invocations) / static_cast<double>(t->invocations);
    for (auto name : counter::tensor_ops) {
      if (const auto ops = t->counter(name)) {
        k.counters[std::string(name)] = *ops * scale;
      }
    }
    if (const auto hfma2 = t->counter(counter::tensor_inst_hfma2)) {
      k.counters[std::string(counter::tensor_inst_hfma2)] = *hfma2 * scale;
    }
  }
}

} // namespace perfgate::detail
