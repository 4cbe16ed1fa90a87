// SPDX-License-Identifier: Apache-2.0
// perfgate metrics --chip NAME: which CUPTI metrics supply each model input on a chip, and the
// replay passes they cost, computed offline with CUPTI's Profiler Host API.
#include <perfgate/error.hpp>

#include "cli/commands.hpp"

#ifdef PERFGATE_HAVE_CUPTI
#include "collectors/cupti/chip_metrics.hpp"
#endif

#include <memory>

namespace perfgate::cli {

action add_metrics_command(CLI::App& app) {
  struct options {
    std::string chip;
    std::string format = "text";
  };
  auto o = std::make_shared<options>();
  auto* cmd = app.add_subcommand(
      "metrics", "Show the CUPTI metrics that supply each model input on an NVIDIA chip and the "
                 "replay passes they cost (offline: no GPU needed)");
  cmd->add_option("--chip", o->chip,
                  "CUPTI chip name, exact and case-sensitive: GV100, TU102, GA100, GA102, GH100, "
                  "AD102, GB100, GB202, ... (an unknown name lists them all)")
      ->required();
  cmd->add_option("--format", o->format, "text or json (perfgate-metrics/1)")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  // -> int: without CUPTI the body only throws, and the lambda would deduce void.
  return [o]() -> int {
#ifdef PERFGATE_HAVE_CUPTI
    const auto plan = detail::plan_chip_metrics(o->chip);
    emit(o->format == "json" ? detail::chip_metric_plan_to_json(plan)
                             : detail::chip_metric_plan_to_text(plan),
         "");
    return 0;
#else
    throw skip_error("this perfgate was built without CUPTI (no CUDA toolkit with CUPTI was found "
                     "at configure time), so it cannot query NVIDIA chips");
#endif
  };
}

} // namespace perfgate::cli
