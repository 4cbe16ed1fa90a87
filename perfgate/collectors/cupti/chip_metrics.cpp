// SPDX-License-Identifier: Apache-2.0
#include "collectors/cupti/chip_metrics.hpp"

#include <perfgate/error.hpp>
#include <perfgate/profile.hpp>
#include <perfgate/version.hpp>

#include "collectors/cupti/cupti_host.hpp"
#include "importers/counter_mapping.hpp"
#include "util/number_format.hpp"
#include "util/strings.hpp"
#include "util/table.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <memory>

namespace perfgate::detail {

namespace {

std::string role_of(std::string_view canonical) {
  const auto& inputs = counter::model_inputs;
  const auto& tensor = counter::tensor_ops;
  if (std::find(inputs.begin(), inputs.end(), canonical) != inputs.end()) {
    return "model";
  }
  if (std::find(tensor.begin(), tensor.end(), canonical) != tensor.end()) {
    return "tensor";
  }
  if (canonical == counter::tensor_inst || canonical == counter::inst_fp16_fma) {
    return "tensor_evidence";
  }
  // Counted in the tensor run, beside the operations: it costs a replay pass of its own, and
  // only a kernel that needs that run needs it (GA100 and GH100 have it).
  if (canonical == counter::tensor_inst_hfma2) {
    return "tensor_run_evidence";
  }
  return "hierarchy";
}

std::unique_ptr<cupti::host_object> open_host(const std::string& chip) {
  try {
    return std::make_unique<cupti::host_object>(chip);
  } catch (const cupti::cupti_failure& e) {
    if (e.code() == cupti::result_invalid_chip_name) {
      throw usage_error("unknown chip '" + chip + "': CUPTI's Range Profiler knows " +
                        join(cupti_chips(), ", ") + " (names are exact and case-sensitive)");
    }
    if (e.code() == cupti::result_not_supported) {
      throw skip_error("CUPTI lists chip " + chip +
                       " but its Range Profiler cannot be configured for it (" + e.what() + ")");
    }
    throw error(exit_status::input_error, "chip " + chip + ": " + e.what());
  }
}

} // namespace

std::vector<std::string> chip_metric_plan::missing_model_inputs() const {
  std::vector<std::string> missing;
  for (const auto& in : inputs) {
    if (in.role == "model" && in.metrics.empty()) {
      missing.push_back(in.input);
    }
  }
  return missing;
}

std::vector<std::string> cupti_chips() {
  try {
    return cupti::supported_chips();
  } catch (const cupti::cupti_failure& e) {
    throw error(exit_status::input_error, e.what());
  } catch (const cupti::cupti_unavailable& e) {
    throw skip_error(e.what());
  }
}

namespace {

chip_metric_plan plan_with_cupti(const std::string& chip) {
  chip_metric_plan plan;
  plan.chip = chip;
  {
    // Validation only queries properties; configuring uses a fresh object below, since a
    // rejected ConfigAddMetrics would leave this one unusable.
    const auto host = open_host(chip);
    auto choose = [&](std::string input, std::string role,
                      const std::vector<metric_sum>& alternatives) {
      metric_choice choice;
      choice.input = std::move(input);
      choice.role = std::move(role);
      for (const auto& alt : alternatives) {
        std::vector<std::string> names(alt.metrics.begin(), alt.metrics.end());
        const auto invalid = std::find_if(names.begin(), names.end(),
                                          [&](const auto& m) { return !host->metric_valid(m); });
        if (invalid == names.end()) {
          choice.metrics = std::move(names);
          choice.scale = alt.scale;
          choice.approximation = std::string(alt.approximation);
          break;
        }
        choice.unavailable.push_back(*invalid);
      }
      auto& run = choice.role == "tensor" || choice.role == "tensor_run_evidence"
                      ? plan.tensor_metrics
                      : plan.metrics;
      for (const auto& m : choice.metrics) {
        if (std::find(run.begin(), run.end(), m) == run.end()) {
          run.push_back(m);
        }
      }
      plan.inputs.push_back(std::move(choice));
    };
    for (const auto& source : ncu_counter_sources()) {
      choose(std::string(source.canonical), role_of(source.canonical), source.alternatives);
    }
    choose("sm_clock_hz", "clock", {metric_sum{{sm_clock_metric}}});
    choose("gpu_time_ns", "time", {metric_sum{{gpu_time_metric}}});
  }
  const auto schedule = [&](const std::vector<std::string>& metrics) {
    cupti::host_object config_host(chip);
    try {
      return config_host.config_image(metrics);
    } catch (const cupti::cupti_failure& e) {
      throw error(exit_status::input_error, "chip " + chip + ": the metric set " +
                                                join(metrics, ", ") +
                                                " cannot be scheduled: " + e.what());
    }
  };
  const auto image = schedule(plan.metrics);
  plan.config_image_bytes = image.size();
  plan.passes = cupti::passes(image);
  if (!plan.tensor_metrics.empty()) {
    plan.tensor_passes = cupti::passes(schedule(plan.tensor_metrics));
  }
  return plan;
}

} // namespace

chip_metric_plan plan_chip_metrics(const std::string& chip) {
  // Without CUPTI on this machine the command skips (77), naming what it looked for.
  try {
    return plan_with_cupti(chip);
  } catch (const cupti::cupti_unavailable& e) {
    throw skip_error(e.what());
  }
}

std::string chip_metric_plan_to_json(const chip_metric_plan& plan) {
  nlohmann::ordered_json j;
  j["schema"] = metrics_schema;
  j["chip"] = plan.chip;
  j["passes"] = plan.passes;
  j["config_image_bytes"] = plan.config_image_bytes;
  j["metrics"] = plan.metrics;
  j["tensor_passes"] = plan.tensor_passes;
  j["tensor_metrics"] = plan.tensor_metrics;
  auto inputs = nlohmann::ordered_json::array();
  for (const auto& in : plan.inputs) {
    nlohmann::ordered_json e;
    e["input"] = in.input;
    e["role"] = in.role;
    e["metrics"] = in.metrics;
    e["scale"] = in.scale;
    if (!in.approximation.empty()) {
      e["approximation"] = in.approximation;
    }
    if (!in.unavailable.empty()) {
      e["unavailable_on_chip"] = in.unavailable;
    }
    inputs.push_back(std::move(e));
  }
  j["inputs"] = std::move(inputs);
  j["missing_model_inputs"] = plan.missing_model_inputs();
  return j.dump(2) + "\n";
}

std::string chip_metric_plan_to_text(const chip_metric_plan& plan) {
  std::string out = plan.chip + ": " + std::to_string(plan.metrics.size()) + " metrics in " +
                    std::to_string(plan.passes) + " replay pass" + (plan.passes == 1 ? "" : "es") +
                    " per kernel (config image " + std::to_string(plan.config_image_bytes) +
                    " bytes)\n";
  out += plan.tensor_metrics.empty()
             ? "no tensor operations counters on this chip\n\n"
             : "kernels with matrix instructions: a second run of " +
                   std::to_string(plan.tensor_metrics.size()) + " tensor metrics in " +
                   std::to_string(plan.tensor_passes) + " replay pass" +
                   (plan.tensor_passes == 1 ? "" : "es") + " per kernel\n\n";
  table t{{"input", "role", "metric", "scale"}, {false, false, false, true}, {}};
  std::vector<std::string> notes;
  for (const auto& in : plan.inputs) {
    std::string metric = in.metrics.empty() ? "(none on this chip)" : join(in.metrics, " + ");
    if (!in.approximation.empty()) {
      metric += " *";
      notes.push_back("* " + in.input + ": " + in.approximation);
    }
    t.rows.push_back({in.input, in.role, metric, in.scale == 1.0 ? "" : fixed(in.scale, 0)});
  }
  out += render_text(t, "");
  for (const auto& n : notes) {
    out += n + "\n";
  }
  if (const auto missing = plan.missing_model_inputs(); !missing.empty()) {
    out += "missing model inputs: " + join(missing, ", ") + "\n";
  }
  return out;
}

} // namespace perfgate::detail
