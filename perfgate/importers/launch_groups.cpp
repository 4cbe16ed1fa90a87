// SPDX-License-Identifier: Apache-2.0
#include "importers/launch_groups.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

namespace perfgate::detail {

namespace {

std::string dims(const std::array<std::uint64_t, 3>& d) {
  return std::to_string(d[0]) + "x" + std::to_string(d[1]) + "x" + std::to_string(d[2]);
}

bool same_work(double a, double b) {
  return std::fabs(a - b) <= same_work_tolerance * std::max(std::fabs(a), std::fabs(b));
}

} // namespace

std::vector<launch_group> group_launches(const std::vector<launch_shape>& shapes,
                                         const std::vector<double>& work) {
  if (shapes.size() != work.size()) {
    throw std::logic_error("group_launches: one work signature per launch");
  }
  std::vector<launch_group> groups;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const auto g = std::find_if(groups.begin(), groups.end(), [&](const launch_group& x) {
      return x.shape == shapes[i] && same_work(x.work, work[i]);
    });
    if (g != groups.end()) {
      g->launches.push_back(i);
    } else {
      groups.push_back({shapes[i], work[i], {i}, ""});
    }
  }
  std::map<std::size_t, int> of_shape; // groups per shape, to number the sizes of one shape
  for (std::size_t i = 0; i < groups.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (groups[j].shape == groups[i].shape) {
        ++of_shape[i];
      }
    }
  }
  for (std::size_t i = 0; i < groups.size(); ++i) {
    auto& g = groups[i];
    g.suffix = " [grid " + dims(g.shape.grid) + " block " + dims(g.shape.block) +
               (g.shape.shared_bytes > 0 ? " shared " + std::to_string(g.shape.shared_bytes) + " B"
                                         : "") +
               (of_shape[i] > 0 ? " #" + std::to_string(of_shape[i] + 1) : "") + "]";
  }
  return groups;
}

} // namespace perfgate::detail
