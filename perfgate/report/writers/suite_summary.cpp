// SPDX-License-Identifier: Apache-2.0
#include "report/writers/suite_summary.hpp"

#include "util/number_format.hpp"

namespace perfgate::detail {

nlohmann::json suite_json(const stats::suite_summary& s) {
  return {{"time_ratio",
           {{"lo", s.geomean.lo}, {"estimate", s.geomean.estimate}, {"hi", s.geomean.hi}}},
          {"confidence", s.confidence},
          {"resamples", s.resamples},
          {"kernels", s.kernels},
          {"counts",
           {{"SLOWER", s.slower},
            {"FASTER", s.faster},
            {"SAME", s.same},
            {"AMBIGUOUS", s.ambiguous},
            {"unjudged", s.unjudged}}}};
}

std::string suite_line(const stats::suite_summary& s) {
  std::string out = "suite: geometric mean time ratio head/base " + fixed(s.geomean.estimate, 3) +
                    "x, " + fixed(s.confidence * 100, 0) + "% interval " + fixed(s.geomean.lo, 3) +
                    "x .. " + fixed(s.geomean.hi, 3) + "x over " + std::to_string(s.kernels) +
                    " kernel" + (s.kernels == 1 ? "" : "s") + ": " + std::to_string(s.slower) +
                    " SLOWER, " + std::to_string(s.faster) + " FASTER, " + std::to_string(s.same) +
                    " SAME, " + std::to_string(s.ambiguous) + " AMBIGUOUS";
  if (s.unjudged > 0) {
    out += ", " + std::to_string(s.unjudged) + " by a point comparison (too few samples)";
  }
  return out;
}

} // namespace perfgate::detail
