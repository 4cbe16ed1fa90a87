// SPDX-License-Identifier: Apache-2.0
// perfgate devices [--format text|json]: the built-in device database.
#include <perfgate/device.hpp>
#include <perfgate/error.hpp>
#include <perfgate/version.hpp>

#include "cli/commands.hpp"
#include "util/number_format.hpp"
#include "util/table.hpp"

#include <nlohmann/json.hpp>

#include <memory>

namespace perfgate::cli {

action add_devices_command(CLI::App& app) {
  auto format = std::make_shared<std::string>("text");
  auto* cmd = app.add_subcommand("devices", "List the built-in device database");
  cmd->add_option("--format", *format, "Output format: text or json")->capture_default_str();
  return [format]() {
    const auto& all = builtin_devices();
    if (*format == "json") {
      nlohmann::json list = nlohmann::json::array();
      for (const auto& d : all) {
        list.push_back(nlohmann::json::parse(device_to_json(d)));
      }
      emit(list.dump(2) + "\n", "");
      return 0;
    }
    if (*format != "text") {
      throw usage_error("unknown format '" + *format + "': expected text or json");
    }
    using detail::fixed;
    detail::table t;
    t.header = {"id",           "name",         "source",       "FP32 GFLOPS", "FP64 GFLOPS",
                "INT MAD GOPS", "INT ADD GOPS", "LDST Ginst/s", "DRAM GB/s"};
    t.right_aligned = {false, false, false, true, true, true, true, true, true};
    for (const auto& d : all) {
      t.rows.push_back({d.id, d.name, d.source, fixed(d.peaks.fp32_gflops, 1),
                        fixed(d.peaks.fp64_gflops, 1), fixed(d.peaks.int_mad_gops, 1),
                        fixed(d.peaks.int_add_gops, 1), fixed(d.peaks.ldst_ginst, 1),
                        fixed(d.peaks.dram_gbs, 1)});
    }
    emit(detail::render_text(t, ""), "");
    return 0;
  };
}

} // namespace perfgate::cli
