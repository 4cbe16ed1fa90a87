// SPDX-License-Identifier: Apache-2.0
// The pipeline model applied to a profile: each instruction graph's kernel simulated at the
// launch the profile recorded, on the local device (run --idg), and a graph's occupancy.
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>
#include <perfgate/pipeline.hpp>

#include "util/demangle.hpp"
#include "util/json_fields.hpp"
#include "util/kernel_names.hpp"

#include <nlohmann/json.hpp>

namespace perfgate {

namespace pipeline {

std::uint64_t warps_of(std::uint64_t threads) { return (threads + 31) / 32; }

occupancy graph_occupancy(const std::string& idg_text, const std::string& file,
                          std::uint64_t threads_per_group, std::uint64_t dynamic_shared) {
  const nlohmann::json doc = detail::json_fields::parse(idg_text, file);
  const detail::json_fields root(doc, file, "");
  if (!root.has("arch") || !root.has("resources")) {
    throw usage_error("--occupancy auto needs the graph's arch and resources, which `perfgate "
                      "pipeline idg --cubin` (or --res-usage) writes; " +
                      file + " has " + (root.has("arch") ? "no resources" : "no arch"));
  }
  const detail::json_fields res = root.object("resources");
  kernel_resources k;
  k.registers_per_thread = static_cast<std::uint32_t>(res.count("registers_per_thread"));
  k.shared_bytes_per_group = res.count("shared_bytes_per_group") + dynamic_shared;
  return nvidia_occupancy(root.string("arch"), threads_per_group, k);
}

} // namespace pipeline

pipeline_launch_estimates pipeline_estimates(const std::vector<std::string>& idg_files,
                                             const std::string& latencies_file, const profile& p,
                                             const device& local) {
  pipeline_launch_estimates out;
  const std::string lat_text = read_text_file(latencies_file);
  const auto latencies = pipeline::latencies_from_json(lat_text, latencies_file);
  const nlohmann::json lat_doc = detail::json_fields::parse(lat_text, latencies_file);
  double clock_hz = 0;
  if (lat_doc.contains("clock_hz") && lat_doc.at("clock_hz").is_number()) {
    clock_hz = lat_doc.at("clock_hz").get<double>();
  } else if (local.sm_clock_mhz) {
    clock_hz = *local.sm_clock_mhz * 1e6;
  }
  if (!(clock_hz > 0)) {
    throw input_error(latencies_file, "clock_hz",
                      "no clock to turn cycles into seconds, and the local device " + local.id +
                          " has none either");
  }
  if (local.compute_units == 0) {
    throw usage_error("--idg: the local device " + local.id +
                      " does not say how many compute units it has");
  }
  for (const auto& file : idg_files) {
    const std::string text = read_text_file(file);
    const auto graph = pipeline::idg_from_json(text, file, latencies);
    const nlohmann::json doc = detail::json_fields::parse(text, file);
    const std::string kernel =
        detail::demangle(detail::json_fields(doc, file, "").string("kernel").c_str());
    bool matched = false;
    for (const auto& k : p.kernels) {
      if (!detail::same_kernel(k.name, kernel)) {
        continue;
      }
      matched = true;
      if (!k.launch) {
        out.left_out.push_back(file + ": " + k.name +
                               " has no launch configuration in the profile (grid, block): the "
                               "pipeline model cannot simulate it");
        continue;
      }
      const auto& l = *k.launch;
      const std::uint64_t threads = l.block[0] * l.block[1] * l.block[2];
      const std::uint64_t groups = l.grid[0] * l.grid[1] * l.grid[2];
      const auto occupancy = pipeline::graph_occupancy(text, file, threads, 0);
      pipeline::sim_config c;
      c.warps_per_group = pipeline::warps_of(threads);
      c.groups = pipeline::groups_per_compute_unit(groups, local.compute_units);
      c.resident_groups = occupancy.groups;
      c.in_order = true; // an SM issues each warp's instructions in order
      c.issue_width = 4; // one dispatch per sub-partition (Volta and later)
      const auto r = pipeline::simulate(graph, c);
      pipeline::launch_estimate e;
      e.idg = file;
      e.cycles = r.cycles;
      e.seconds = r.cycles / clock_hz;
      e.utilisation = r.utilisation;
      e.busiest = r.busiest;
      e.theta = c.theta;
      e.latency_bound = r.latency_bound;
      e.resident_groups = occupancy.groups;
      e.limited_by = occupancy.limited_by;
      e.warps_per_group = c.warps_per_group;
      out.by_kernel[k.name] = e;
    }
    if (!matched) {
      throw usage_error("--idg " + file + ": its kernel " + kernel + " is not in the profile");
    }
  }
  return out;
}

} // namespace perfgate
