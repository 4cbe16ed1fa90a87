// SPDX-License-Identifier: Apache-2.0
// The property every report keeps (issue 43): no field is 0 because its value was unknown. A
// statistic the source did not hold is absent, so in a kernel's `measured` block a sample count
// is at least 1, every time is above 0, and a standard deviation stands only beside two samples
// or more. A kernel's work, intensity, rates and ridges are never 0 either: a kernel that
// declares bytes and no operations (params.compute_declared false) has no compute side, so its
// operations, their type and what derives from them (the peak of that type, the attainable
// performance, the roof's compute rate and ridge) are absent, not 0 and not a type nobody
// declared. Checked on the reports of the golden tests and in the fuzz harnesses.
#pragma once

#include <nlohmann/json.hpp>

#include <initializer_list>
#include <string>
#include <vector>

namespace perfgate::test {

namespace detail {
// `at + key` for every key of `keys` that `j` holds as the number 0.
inline void zero_numbers(const nlohmann::json& j, const std::string& at,
                         std::initializer_list<const char*> keys, std::vector<std::string>& found) {
  for (const char* key : keys) {
    if (j.contains(key) && j.at(key).is_number() && j.at(key).get<double>() == 0) {
      found.push_back(at + key);
    }
  }
}

// `at + key` for every key of `keys` that `j` holds at all: what must be absent.
inline void present(const nlohmann::json& j, const std::string& at,
                    std::initializer_list<const char*> keys, std::vector<std::string>& found) {
  for (const char* key : keys) {
    if (j.contains(key)) {
      found.push_back(at + key);
    }
  }
}

// The model's side of kernel `k` (its params and predictions) at "kernels[i].".
inline void model_zeros(const nlohmann::json& k, const std::string& at,
                        std::vector<std::string>& found) {
  if (!k.contains("params") || !k.at("params").is_object()) {
    return; // not predicted (skip_reason): nothing modelled
  }
  const auto& params = k.at("params");
  const bool compute = !(params.contains("compute_declared") &&
                         params.at("compute_declared") == nlohmann::json(false));
  zero_numbers(params, at + "params.", {"W_comp", "W_traf", "O_krn"}, found);
  if (!compute) {
    present(params, at + "params.", {"K_type", "W_comp", "O_krn"}, found);
  }
  if (!k.contains("predictions") || !k.at("predictions").is_array()) {
    return;
  }
  const auto& predictions = k.at("predictions");
  for (std::size_t j = 0; j < predictions.size(); ++j) {
    const auto& p = predictions[j];
    if (!p.is_object()) {
      continue;
    }
    const std::string pat = at + "predictions[" + std::to_string(j) + "].";
    zero_numbers(p, pat, {"T_op", "T_op_adj", "B_mem", "O_dev", "T_pred", "predicted_time_s"},
                 found);
    if (!compute) {
      present(p, pat, {"T_op", "T_op_adj", "O_dev", "T_pred"}, found);
    }
    if (p.contains("roof") && p.at("roof").is_object()) {
      const auto& roof = p.at("roof");
      zero_numbers(roof, pat + "roof.", {"time_s", "T_roof", "B_roof", "O_ridge"}, found);
      if (!compute) {
        present(roof, pat + "roof.", {"T_roof", "O_ridge"}, found);
      }
    }
  }
}
} // namespace detail

/// The fields of `report` (perfgate-report/2 JSON) that are 0 where the value was unknown, as
/// "kernels[3].measured.samples", and the compute-side fields of a kernel that declared no
/// operations, as "kernels[0].params.W_comp"; empty when none is.
inline std::vector<std::string> zeros_standing_for_unknown(const nlohmann::json& report) {
  std::vector<std::string> found;
  if (!report.contains("kernels") || !report.at("kernels").is_array()) {
    return found;
  }
  const auto& kernels = report.at("kernels");
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const auto& k = kernels[i];
    if (!k.is_object()) {
      continue;
    }
    const std::string at = "kernels[" + std::to_string(i) + "].";
    detail::model_zeros(k, at, found);
    if (!k.contains("measured") || !k.at("measured").is_object()) {
      continue;
    }
    const auto& m = k.at("measured");
    detail::zero_numbers(m, at + "measured.",
                         {"samples", "time_s", "mean_s", "median_s", "min_s", "max_s"}, found);
    const bool several =
        m.contains("samples") && m.at("samples").is_number() && m.at("samples").get<double>() >= 2;
    if (m.contains("stddev_s") && !several) {
      found.push_back(at + "measured.stddev_s"); // of fewer than two samples: undefined
    }
  }
  return found;
}

} // namespace perfgate::test
