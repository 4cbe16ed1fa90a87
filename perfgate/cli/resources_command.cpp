// SPDX-License-Identifier: Apache-2.0
// perfgate resources [-o FILE] [--slots N] [--record FILE | --replay FILE]: CTest's resource
// specification file from the GPUs NVML and ROCm SMI list, so that `ctest -j` runs one perf
// test per GPU at a time, each pinned to its GPU (docs/ci.md, "Several GPUs in one machine").
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>

#include "cli/commands.hpp"
#include "collectors/ctest_gpus.hpp"
#include "collectors/gpu_inventory.hpp"
#include "util/number_format.hpp"
#include "util/table.hpp"

#include <iostream>
#include <memory>

namespace perfgate::cli {

action add_resources_command(CLI::App& app) {
  struct options {
    std::string output;
    unsigned slots = 1;
    std::string record;
    std::string replay;
  };
  auto o = std::make_shared<options>();
  auto* cmd = app.add_subcommand(
      "resources", "Write CTest's resource specification file from this machine's GPUs (NVML, "
                   "ROCm SMI): ctest -j then runs one perf test per GPU, pinned to it");
  cmd->add_option("-o,--output", o->output,
                  "The file for ctest --resource-spec-file (written atomically); default stdout");
  cmd->add_option("--slots", o->slots, "Perf tests one GPU runs at once")
      ->check(CLI::Range(1U, 64U))
      ->capture_default_str();
  auto* record = cmd->add_option("--record", o->record,
                                 "Also write the libraries' answers here (perfgate-gpu-answers/1): "
                                 "what --replay reads, e.g. for a bug report");
  cmd->add_option("--replay", o->replay,
                  "Read recorded answers instead of asking NVML and ROCm SMI")
      ->excludes(record);
  return [o]() {
    const detail::gpu_answers answers =
        o->replay.empty() ? detail::ask_gpu_libraries()
                          : detail::gpu_answers_from_json(read_text_file(o->replay), o->replay);
    if (!o->record.empty()) {
      write_file_atomically(o->record, detail::gpu_answers_to_json(answers));
      std::cerr << "perfgate: recorded the answers in " << o->record << "\n";
    }
    const detail::gpu_inventory inventory = detail::gpu_inventory_from(answers);
    for (const auto& note : inventory.notes) {
      std::cerr << "perfgate: " << note << "\n";
    }
    if (inventory.gpus.empty()) {
      throw skip_error("no GPU to list: neither NVML nor ROCm SMI named one (see above)");
    }
    detail::table table;
    table.header = {"CTest id", "vendor", "index", "name", "memory"};
    table.right_aligned = {false, false, true, false, true};
    std::vector<detail::ctest_gpu> gpus;
    for (const auto& g : inventory.gpus) {
      table.rows.push_back(
          {g.ctest_id, g.vendor, std::to_string(g.index), g.name.empty() ? "?" : g.name,
           g.memory_bytes == 0
               ? "?"
               : detail::significant(static_cast<double>(g.memory_bytes) / (1U << 30U), 3) +
                     " GiB"});
      gpus.push_back({g.ctest_id, o->slots});
    }
    std::cerr << detail::render_text(table);
    emit(detail::ctest_resource_spec(gpus), o->output);
    if (!o->output.empty() && o->output != "-") {
      std::cerr << "perfgate: run `ctest -L perf -j" << gpus.size() * o->slots
                << " --resource-spec-file " << o->output << "`\n";
    }
    return 0;
  };
}

} // namespace perfgate::cli
