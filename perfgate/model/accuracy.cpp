// SPDX-License-Identifier: Apache-2.0
// The predictors' accuracy as scripts/bench-accuracy.sh measured it, embedded from
// perfgate/model/accuracy.json: a reviewer reading "predicted 1.2 ms" needs to know how far
// such a prediction has been from the truth.
#include <perfgate/model.hpp>

#include "util/embedded_file.hpp"
#include "util/json_fields.hpp"

#include <map>
#include <mutex>
#include <utility>

namespace perfgate {

namespace {

using figure_key = std::pair<std::string, bound_class>;

const std::map<figure_key, measured_accuracy>& figures() {
  static const std::map<figure_key, measured_accuracy> table = [] {
    std::map<figure_key, measured_accuracy> t;
    for (const auto& file : detail::builtin_accuracy_files()) {
      const std::string name = "perfgate/model/" + std::string(file.name);
      const auto doc = detail::json_fields::parse(file.text, name);
      const detail::json_fields root(doc, name, "");
      (void)root.schema({"perfgate-accuracy/1"});
      for (const auto& f : root.elements("figures")) {
        measured_accuracy a;
        a.median_abs_error_pct = f.non_negative("median_abs_error_pct");
        a.mean_abs_error_pct = f.non_negative("mean_abs_error_pct");
        a.predictions = f.count("predictions");
        const auto bound = f.one_of("bound", {bound_class::memory, bound_class::compute});
        t[{f.string("predictor"), bound}] = a;
      }
    }
    return t;
  }();
  return table;
}

} // namespace

std::optional<measured_accuracy> accuracy_of(std::string_view predictor, bound_class bound) {
  const auto& t = figures();
  const auto it = t.find({std::string(predictor), bound});
  if (it == t.end()) {
    return std::nullopt;
  }
  return it->second;
}

} // namespace perfgate
