// SPDX-License-Identifier: Apache-2.0
// perfgate pipeline eq1 --lambda L --Lambda LL --n N --warps W1..W2 [--theta T]
//                       [--format text|json]: the pipeline model's Eq. 1 over a warp sweep, with
// each point's utilisation and class (MODEL.md section 5).
// perfgate pipeline fit --sweep chains.csv [--n N] -o latencies.json: lambda and Lambda per
// instruction class from a sweep of dependent chains (perfgate-latencies/1).
// perfgate pipeline simulate --idg k.idg.json --latencies lat.json --threads-per-group T
//                            --groups G --occupancy M [--compute-units C] [--in-order]
//                            [--issue-width K] ...:
// the compute-unit simulation of one kernel.
// perfgate pipeline idg ...: a kernel's instruction dependence graph from its SASS
// (cli/pipeline_idg_command.cpp).
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>
#include <perfgate/pipeline.hpp>
#include <perfgate/version.hpp>

#include "cli/commands.hpp"
#include "importers/latency_sweep.hpp"
#include "util/number_format.hpp"
#include "util/table.hpp"

#include <nlohmann/json.hpp>

#include <charconv>
#include <iostream>
#include <memory>

namespace perfgate::cli {

namespace {
struct eq1_options {
  double issue = 0, completion = 0, theta = 0.8;
  std::uint64_t n = 0;
  std::string warps = "1";
  std::string format = "text";
};

std::uint64_t warp_count(std::string_view s, std::string_view whole) {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v == 0) {
    throw usage_error("--warps: expected W or W1..W2 with whole numbers >= 1, found '" +
                      std::string(whole) + "'");
  }
  return v;
}

// "16" or "1..48".
std::pair<std::uint64_t, std::uint64_t> warp_range(const std::string& s) {
  const auto dots = s.find("..");
  if (dots == std::string::npos) {
    const auto w = warp_count(s, s);
    return {w, w};
  }
  const auto lo = warp_count(std::string_view(s).substr(0, dots), s);
  const auto hi = warp_count(std::string_view(s).substr(dots + 2), s);
  if (hi < lo) {
    throw usage_error("--warps: " + s + " runs backwards; expected W1 <= W2");
  }
  if (hi - lo >= 65536) {
    throw usage_error("--warps: " + s + " spans more than 65536 warp counts");
  }
  return {lo, hi};
}

int run_eq1(const eq1_options& o) {
  const pipeline::latency l{o.issue, o.completion};
  const auto [lo, hi] = warp_range(o.warps);
  nlohmann::json rows = nlohmann::json::array();
  detail::table t;
  t.header = {"warps", "cycles", "utilization", "verdict"};
  t.right_aligned = {true, true, true, false};
  for (std::uint64_t w = lo; w <= hi; ++w) {
    const double cycles = pipeline::eq1_cycles(l, o.n, w);
    // The pipeline is busy N W lambda cycles of them.
    const double u = static_cast<double>(o.n) * static_cast<double>(w) * l.issue / cycles;
    const char* cls = u < o.theta ? "latency" : "throughput";
    rows.push_back({{"warps", w}, {"cycles", cycles}, {"utilization", u}, {"verdict", cls}});
    t.rows.push_back({std::to_string(w), detail::fixed(cycles, 2), detail::fixed(u, 4), cls});
  }
  if (o.format == "json") {
    const nlohmann::json j = {{"schema", pipeline_eq1_schema},
                              {"lambda", l.issue},
                              {"Lambda", l.completion},
                              {"n", o.n},
                              {"theta", o.theta},
                              {"knee_warps", l.completion / l.issue},
                              {"rows", rows}};
    emit(j.dump(2) + "\n", "");
    return 0;
  }
  emit("Eq. 1: lambda " + detail::fixed(l.issue, 4) + ", Lambda " + detail::fixed(l.completion, 4) +
           " cycles, N " + std::to_string(o.n) + "; latency-bound below utilisation " +
           detail::fixed(o.theta, 2) + ", knee at W = Lambda / lambda = " +
           detail::fixed(l.completion / l.issue, 2) + "\n" + detail::render_text(t, ""),
       "");
  return 0;
}
struct fit_options {
  std::string sweep;
  std::uint64_t n = 0;
  std::string output;
  std::string device;
  int warp_size = 32;
};

int run_fit(const fit_options& o) {
  const auto fit =
      detail::fit_latency_sweep({read_text_file(o.sweep), o.sweep, o.device, o.n, o.warp_size});
  std::cerr << fit.table;
  emit(fit.json, o.output);
  return 0;
}
struct simulate_options {
  std::string idg_file, latencies_file, format = "text", occupancy;
  std::uint64_t threads_per_group = 0, groups = 0, compute_units = 1, dynamic_shared = 0;
  std::uint64_t issue_width = 0;
  int warp_size = 32;
  bool in_order = false;
  double theta = 0.8;
  double clock_mhz = 0;
};

// --occupancy: a number, or auto from the graph's arch and resources (perfgate pipeline idg).
pipeline::occupancy resident_groups(const simulate_options& o, const std::string& idg_text) {
  if (o.occupancy != "auto") {
    std::uint64_t n = 0;
    const auto r = std::from_chars(o.occupancy.data(), o.occupancy.data() + o.occupancy.size(), n);
    if (r.ec != std::errc() || r.ptr != o.occupancy.data() + o.occupancy.size() || n == 0) {
      throw usage_error("--occupancy '" + o.occupancy +
                        "': expected the resident groups (a number > 0) or auto");
    }
    return {n, "given"};
  }
  return pipeline::graph_occupancy(idg_text, o.idg_file, o.threads_per_group, o.dynamic_shared);
}

int run_simulate(const simulate_options& o) {
  const auto latencies =
      pipeline::latencies_from_json(read_text_file(o.latencies_file), o.latencies_file);
  const std::string idg_text = read_text_file(o.idg_file);
  const auto g = pipeline::idg_from_json(idg_text, o.idg_file, latencies);
  const pipeline::occupancy occupancy = resident_groups(o, idg_text);
  pipeline::sim_config c;
  c.warps_per_group =
      (o.threads_per_group + static_cast<std::uint64_t>(o.warp_size) - 1) / o.warp_size;
  c.groups = pipeline::groups_per_compute_unit(o.groups, o.compute_units);
  c.resident_groups = occupancy.groups;
  c.in_order = o.in_order;
  c.issue_width = o.issue_width;
  c.theta = o.theta;
  const auto r = pipeline::simulate(g, c);
  const char* cls = r.latency_bound ? "latency" : "throughput";
  if (o.format == "json") {
    nlohmann::json j = {{"schema", pipeline_simulation_schema},
                        {"idg", o.idg_file},
                        {"latencies", o.latencies_file},
                        {"warps_per_group", c.warps_per_group},
                        {"groups_per_compute_unit", c.groups},
                        {"resident_groups", c.resident_groups},
                        {"occupancy_limited_by", occupancy.limited_by},
                        {"in_order", c.in_order},
                        {"issue_width", c.issue_width == 0 ? nlohmann::json(nullptr)
                                                           : nlohmann::json(c.issue_width)},
                        {"cycles", r.cycles},
                        {"warp_instructions", r.instructions},
                        {"busiest_pipe", pipeline::to_string(r.busiest)},
                        {"utilization", r.utilisation},
                        {"theta", c.theta},
                        {"verdict", cls}};
    j["seconds"] = o.clock_mhz > 0 ? nlohmann::json(r.cycles / (o.clock_mhz * 1e6)) : nullptr;
    emit(j.dump(2) + "\n", "");
    return 0;
  }
  std::string out =
      "pipeline simulation of " + o.idg_file + ": " + std::to_string(c.groups) + " groups of " +
      std::to_string(c.warps_per_group) + " warps on one compute unit, " +
      std::to_string(c.resident_groups) + " at a time" +
      (occupancy.limited_by == "given"
           ? ""
           : " (occupancy auto: limited by " + occupancy.limited_by + ")") +
      (c.in_order ? ", in-order issue" : "") +
      (c.issue_width > 0 ? ", issue width " + std::to_string(c.issue_width) + " per cycle" : "") +
      "\n  " + detail::fixed(r.cycles, 2) + " cycles";
  if (o.clock_mhz > 0) {
    out += " (" + detail::duration(r.cycles / (o.clock_mhz * 1e6)) + " at " +
           detail::fixed(o.clock_mhz, 0) + " MHz)";
  }
  out += ", " + std::to_string(r.instructions) + " warp instructions; busiest pipe " +
         std::string(pipeline::to_string(r.busiest)) + " at utilisation " +
         detail::fixed(r.utilisation, 4) + ": " + cls + "-bound (theta " +
         detail::fixed(c.theta, 2) + ")\n";
  emit(out, "");
  return 0;
}
} // namespace

action add_pipeline_command(CLI::App& app) {
  auto o = std::make_shared<eq1_options>();
  auto* cmd = app.add_subcommand("pipeline", "The pipeline performance model (latency)");
  cmd->require_subcommand(1);
  auto* eq1 = cmd->add_subcommand(
      "eq1", "Cycles of W warps of N dependent instructions (Eq. 1), with utilisation and class");
  eq1->add_option("--lambda", o->issue, "Issue latency lambda (cycles between warp instructions)")
      ->required()
      ->check(CLI::PositiveNumber);
  eq1->add_option("--Lambda", o->completion, "Completion latency Lambda (cycles)")
      ->required()
      ->check(CLI::PositiveNumber);
  eq1->add_option("--n", o->n, "Dependent instructions per warp")
      ->required()
      ->check(CLI::PositiveNumber);
  eq1->add_option("--warps", o->warps, "W or W1..W2")->capture_default_str();
  eq1->add_option("--theta", o->theta, "Utilisation from which a run is throughput-bound")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  eq1->add_option("--format", o->format, "text or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  auto f = std::make_shared<fit_options>();
  auto* fit = cmd->add_subcommand(
      "fit", "Latencies per instruction class from a sweep of dependent chains (Eq. 1 inverted)");
  fit->add_option("--sweep", f->sweep, "CSV: op,warps_per_sm,n_dependent,cycles_max")->required();
  fit->add_option("--n", f->n, "Chain length, when the sweep has no n_dependent column")
      ->check(CLI::PositiveNumber);
  fit->add_option("-o,--output", f->output, "perfgate-latencies/1 JSON to write")->required();
  fit->add_option("--device", f->device, "The device the sweep ran on (recorded)");
  fit->add_option("--warp-size", f->warp_size, "32 (NVIDIA) or 64 (AMD)")
      ->check(CLI::IsMember({32, 64}))
      ->capture_default_str();
  auto s = std::make_shared<simulate_options>();
  auto* sim = cmd->add_subcommand("simulate", "Simulate a kernel's instruction dependence graph "
                                              "on one compute unit (cycles, class)");
  sim->add_option("--idg", s->idg_file, "perfgate-idg/1 JSON (loops replicated)")->required();
  sim->add_option("--latencies", s->latencies_file, "perfgate-latencies/1 JSON")->required();
  sim->add_option("--threads-per-group", s->threads_per_group, "Threads per group (block)")
      ->required()
      ->check(CLI::PositiveNumber);
  sim->add_option("--groups", s->groups, "Groups (blocks) of the launch")
      ->required()
      ->check(CLI::PositiveNumber);
  sim->add_option("--compute-units", s->compute_units, "Compute units (SMs) sharing them")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  sim->add_option("--occupancy", s->occupancy,
                  "Groups resident on a compute unit at a time, or auto: from the graph's "
                  "registers and shared memory and the SM of its arch (perfgate pipeline idg)")
      ->required();
  sim->add_option("--dynamic-shared", s->dynamic_shared,
                  "With --occupancy auto: dynamic shared memory per group (bytes)")
      ->capture_default_str();
  sim->add_option("--warp-size", s->warp_size, "32 (NVIDIA) or 64 (AMD)")
      ->check(CLI::IsMember({32, 64}))
      ->capture_default_str();
  sim->add_flag("--in-order", s->in_order, "A warp issues in program order");
  sim->add_option("--issue-width", s->issue_width,
                  "At most K warp instructions issue per cycle over all pipelines (the SM's "
                  "dispatch units, 4 on Volta and later); default: no limit")
      ->check(CLI::PositiveNumber);
  sim->add_option("--theta", s->theta, "Utilisation from which a run is throughput-bound")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  sim->add_option("--clock-mhz", s->clock_mhz, "SM clock, to give seconds too")
      ->check(CLI::PositiveNumber);
  sim->add_option("--format", s->format, "text or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  const action idg = add_pipeline_idg_command(*cmd);
  return [o, eq1, f, fit, s, sim, idg, cmd]() {
    if (cmd->get_subcommand("idg")->parsed()) {
      return idg();
    }
    if (eq1->parsed()) {
      return run_eq1(*o);
    }
    if (sim->parsed()) {
      return run_simulate(*s);
    }
    if (fit->parsed()) {
      return run_fit(*f);
    }
    return static_cast<int>(exit_status::input_error);
  };
}

} // namespace perfgate::cli
