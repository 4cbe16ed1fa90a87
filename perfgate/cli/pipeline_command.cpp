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
// perfgate pipeline idg (--cubin BINARY | --sass LISTING) [--kernel NAME] [--arch sm_NN]
//                       [--trip-count HEAD=N]... [--global-latency dram|l2]
//                       [--latencies lat.json] -o k.idg.json:
// a kernel's instruction dependence graph from its SASS.
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>
#include <perfgate/import.hpp>
#include <perfgate/pipeline.hpp>
#include <perfgate/version.hpp>

#include "cli/commands.hpp"
#include "collectors/cupti/kernel_book.hpp"
#include "collectors/sass_listing.hpp"
#include "importers/csv_reader.hpp"
#include "importers/sass_importer.hpp"
#include "model/latency_floor.hpp"
#include "util/json_fields.hpp"
#include "util/number_format.hpp"
#include "util/table.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

namespace perfgate::cli {

namespace {
// A profiled kernel is the SASS function (demangled) when the names agree, or their names before
// the parameter list do: profilers shorten or drop parameter lists.
bool same_kernel(const std::string& profiled, const std::string& demangled) {
  const auto base = [](const std::string& n) { return n.substr(0, n.find('(')); };
  return profiled == demangled || base(profiled) == base(demangled);
}

// The warps of one block of `threads` threads (NVIDIA: 32 lanes).
std::uint64_t warps_of(std::uint64_t threads) { return (threads + 31) / 32; }
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

// The pipeline an op of a sweep runs on, by the names micro-benchmarks give them (the H100
// file's ffma, dfma, imad, sfu_ex2, lds_chase, ldg_chase_l2, ...); a `pipe` column overrides.
std::optional<pipeline::unit> pipe_of_op(std::string_view op) {
  using pipeline::unit;
  constexpr std::pair<std::string_view, unit> prefixes[] = {
      {"ffma", unit::alu}, {"fadd", unit::alu},   {"fmul", unit::alu},   {"imad", unit::alu},
      {"iadd", unit::alu}, {"dfma", unit::fp64},  {"dadd", unit::fp64},  {"dmul", unit::fp64},
      {"sfu", unit::sfu},  {"mufu", unit::sfu},   {"lds", unit::lmem},   {"ldg", unit::gmem},
      {"bar", unit::sync}, {"mma", unit::tensor}, {"hmma", unit::tensor}};
  for (const auto& [prefix, u] : prefixes) {
    if (op.starts_with(prefix)) {
      return u;
    }
  }
  return std::nullopt;
}

// A whole number >= 1 or a positive number in a sweep field, else an error naming the line.
double sweep_number(const detail::csv_row& row, std::size_t col, const detail::csv_row& header,
                    const std::string& file, bool whole) {
  const auto v = detail::parse_profiler_number(row.fields[col]);
  if (!v || !(*v > 0) || (whole && std::floor(*v) != *v)) {
    throw input_error(file, std::to_string(row.line),
                      "column " + header.fields[col] + ": expected " +
                          (whole ? "a whole number >= 1" : "a number > 0") + ", found \"" +
                          row.fields[col] + "\"");
  }
  return *v;
}

std::string fit_latencies_impl(const std::string& text, const fit_options& o) {
  const auto rows = detail::read_csv(text, o.sweep);
  if (rows.empty()) {
    throw input_error(o.sweep, "", "the file is empty, expected a latency sweep CSV");
  }
  constexpr std::string_view table = "a latency sweep (op,warps_per_sm,n_dependent,cycles_max)";
  const auto& header = rows.front();
  const auto op_col = detail::required_column(header, "op", o.sweep, table);
  const auto warps_col = detail::required_column(header, "warps_per_sm", o.sweep, table);
  const auto cycles_col = detail::required_column(header, "cycles_max", o.sweep, table);
  const auto n_col = detail::find_column(header, "n_dependent");
  const auto pipe_col = detail::find_column(header, "pipe");
  const auto clock_col = detail::find_column(header, "sm_clock_attr_khz");
  std::map<std::string, pipeline::unit> pipes;
  std::optional<double> clock_khz;
  if (!n_col && o.n == 0) {
    throw usage_error("--n: " + o.sweep + " has no n_dependent column; give the chain length");
  }
  std::vector<std::string> order;
  std::map<std::string, std::vector<pipeline::sweep_point>> ops;
  for (auto it = std::next(rows.begin()); it != rows.end(); ++it) {
    detail::check_row_width(*it, header, o.sweep);
    const std::string& op = it->fields[op_col];
    if (op.empty()) {
      throw input_error(o.sweep, std::to_string(it->line), "empty \"op\" field");
    }
    pipeline::sweep_point p;
    p.warps = static_cast<std::uint64_t>(sweep_number(*it, warps_col, header, o.sweep, true));
    p.cycles = sweep_number(*it, cycles_col, header, o.sweep, false);
    p.n =
        n_col ? static_cast<std::uint64_t>(sweep_number(*it, *n_col, header, o.sweep, true)) : o.n;
    if (const auto floor = static_cast<double>(p.n) *
                           static_cast<double>(detail::min_cycles_per_dependent_instruction(op));
        p.cycles < floor) {
      throw input_error(o.sweep, std::to_string(it->line),
                        "op " + op + " at " + std::to_string(p.warps) + " warps: " +
                            std::to_string(p.n) + " dependent instructions in " +
                            detail::fixed(p.cycles, 0) + " cycles, under the " +
                            detail::fixed(floor, 0) +
                            " they take at least: the chain was not timed (a micro-benchmark "
                            "that timed something else); measure it again");
    }
    if (!ops.contains(op)) {
      order.push_back(op);
      std::optional<pipeline::unit> pipe = pipe_of_op(op);
      if (pipe_col) {
        const std::string& name = it->fields[*pipe_col];
        pipe.reset();
        for (auto u :
             {pipeline::unit::alu, pipeline::unit::fp64, pipeline::unit::sfu, pipeline::unit::lmem,
              pipeline::unit::gmem, pipeline::unit::sync, pipeline::unit::tensor}) {
          pipe = pipeline::to_string(u) == name ? std::optional(u) : pipe;
        }
      }
      if (!pipe) {
        throw input_error(o.sweep, std::to_string(it->line),
                          "op " + op +
                              ": no pipeline known for it; add a \"pipe\" column (alu, "
                              "fp64, sfu, lmem, gmem, sync or tensor)");
      }
      pipes[op] = *pipe;
    }
    if (clock_col && !clock_khz) {
      clock_khz = sweep_number(*it, *clock_col, header, o.sweep, false);
    }
    ops[op].push_back(p);
  }
  if (order.empty()) {
    throw input_error(o.sweep, "", "no sweep rows under the header");
  }
  nlohmann::json latencies = nlohmann::json::object();
  detail::table t;
  t.header = {"op", "lambda", "Lambda", "N", "fit at W", "knee W", "max residual"};
  t.right_aligned = {false, true, true, true, true, true, true};
  for (const auto& op : order) {
    const auto f = pipeline::fit_sweep(ops[op], o.sweep + ": op " + op);
    latencies[op] = {
        {"pipe", pipeline::to_string(pipes[op])},
        {"issue", f.lat.issue},
        {"completion", f.lat.completion},
        {"n", f.n},
        {"fit_warps", {1, f.warps_fit}},
        {"knee_warps", f.knee_warps},
        {"max_residual", f.max_residual},
        {"provenance", "Eq. 1 inverted on " + o.sweep + " (" + std::to_string(ops[op].size()) +
                           " points): completion = t(1) / N, issue = (t(" +
                           std::to_string(f.warps_fit) + ") - completion) / (N " +
                           std::to_string(f.warps_fit) + " - 1), N = " + std::to_string(f.n) +
                           ", cycles until the last warp completes; perfgate " +
                           std::string(version())}};
    t.rows.push_back({op, detail::fixed(f.lat.issue, 4), detail::fixed(f.lat.completion, 4),
                      std::to_string(f.n), std::to_string(f.warps_fit),
                      detail::fixed(f.knee_warps, 2), detail::fixed(f.max_residual, 4)});
  }
  const nlohmann::json doc = {
      {"schema", latencies_schema},
      {"device", o.device.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.device)},
      {"warp_size", o.warp_size},
      {"clock_hz", clock_khz ? nlohmann::json(*clock_khz * 1e3) : nlohmann::json(nullptr)},
      {"ops", latencies}};
  std::cerr << detail::render_text(t, "");
  return doc.dump(2) + "\n";
}

int run_fit(const fit_options& o) {
  emit(fit_latencies_impl(read_text_file(o.sweep), o), o.output);
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
  return graph_occupancy(idg_text, o.idg_file, o.threads_per_group, o.dynamic_shared);
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
struct idg_options {
  std::string cubin, sass, res_usage, kernel, arch, global_latency = "dram", latencies, output;
  std::string trip_counts_file, profile_file;
  std::vector<std::string> trip_counts;
};

// "0x01e0=32" -> {0x1e0, 32}.
std::pair<std::uint32_t, std::uint64_t> parse_trip_count(const std::string& text) {
  const auto eq = text.find('=');
  const auto fail = [&]() -> std::pair<std::uint32_t, std::uint64_t> {
    throw usage_error("--trip-count '" + text +
                      "': expected HEAD=N, the loop's first offset (0x01e0, "
                      "as the error listing the loops gives it) and how "
                      "many times its body runs");
  };
  if (eq == std::string::npos) {
    return fail();
  }
  const std::string head = text.substr(0, eq);
  const std::string n = text.substr(eq + 1);
  std::uint32_t offset = 0;
  std::uint64_t trips = 0;
  const bool hex = head.starts_with("0x") || head.starts_with("0X");
  const char* h = head.data() + (hex ? 2 : 0);
  const auto rh = std::from_chars(h, head.data() + head.size(), offset, 16);
  const auto rn = std::from_chars(n.data(), n.data() + n.size(), trips);
  if (rh.ec != std::errc() || rh.ptr != head.data() + head.size() || rn.ec != std::errc() ||
      rn.ptr != n.data() + n.size() || h == head.data() + head.size() || n.empty()) {
    return fail();
  }
  return {offset, trips};
}

// The kernel of the listing --kernel names (its mangled name, its demangled name, or the
// demangled name without parameters), for --arch or the newest architecture listed.
const detail::sass_function& pick_kernel(const std::vector<detail::sass_function>& functions,
                                         const idg_options& o, const std::string& source) {
  std::string arch = o.arch;
  if (arch.empty()) {
    for (const auto& f : functions) {
      const auto number = [](const std::string& a) { return std::atoi(a.c_str() + 3); };
      if (arch.empty() || number(f.arch) > number(arch)) {
        arch = f.arch;
      }
    }
  }
  std::vector<const detail::sass_function*> matches;
  std::string names;
  for (const auto& f : functions) {
    if (f.arch != arch) {
      continue;
    }
    const std::string demangled = cupti::demangle(f.name.c_str());
    names += "\n  " + demangled + (demangled == f.name ? "" : " (" + f.name + ")");
    if (o.kernel.empty() || f.name == o.kernel || demangled == o.kernel ||
        demangled.substr(0, demangled.find('(')) == o.kernel) {
      matches.push_back(&f);
    }
  }
  if (names.empty()) {
    throw usage_error("--arch: " + source + " has no SASS for " + arch);
  }
  if (matches.size() != 1) {
    throw usage_error("--kernel: " +
                      (o.kernel.empty() ? source + " has several kernels: pick one"
                       : matches.empty()
                           ? "no kernel '" + o.kernel + "' in " + source
                           : "'" + o.kernel + "' names several kernels of " + source) +
                      "; its " + arch + " kernels:" + names);
  }
  return *matches.front();
}

// --trip-counts FILE: CSV with the columns head (the loop's first offset, 0x01e0) and trips.
void read_trip_counts(const std::string& file, std::map<std::uint32_t, std::uint64_t>& out) {
  const auto rows = detail::read_csv(read_text_file(file), file);
  if (rows.empty()) {
    throw input_error(file, "", "the file is empty, expected the columns head,trips");
  }
  constexpr std::string_view table = "trip counts (head,trips)";
  const auto head_col = detail::required_column(rows.front(), "head", file, table);
  const auto trips_col = detail::required_column(rows.front(), "trips", file, table);
  for (auto it = std::next(rows.begin()); it != rows.end(); ++it) {
    detail::check_row_width(*it, rows.front(), file);
    try {
      out.insert(parse_trip_count(it->fields[head_col] + "=" + it->fields[trips_col]));
    } catch (const usage_error&) {
      throw input_error(file, std::to_string(it->line),
                        "expected a loop head (0x01e0) and a whole number of trips, found \"" +
                            it->fields[head_col] + "\", \"" + it->fields[trips_col] + "\"");
    }
  }
}

// --profile FILE: the trip count of the one loop left without one, from the kernel's executed
// warp instructions (Nsight Compute's inst_executed, CUPTI's) over its launches' warps.
void trip_count_from_profile(const std::string& file, const detail::sass_function& f,
                             std::map<std::uint32_t, std::uint64_t>& trips) {
  const profile p = import_profile(file);
  const std::string name = cupti::demangle(f.name.c_str());
  const auto k = std::find_if(p.kernels.begin(), p.kernels.end(),
                              [&](const kernel_profile& kp) { return same_kernel(kp.name, name); });
  if (k == p.kernels.end()) {
    throw usage_error("--profile: no kernel " + name + " in " + file);
  }
  const auto executed = k->counters.find(counter::warp_inst_executed);
  if (executed == k->counters.end() || !k->launch) {
    throw usage_error("--profile: " + file + " has no " +
                      (k->launch ? "executed warp instructions (inst_executed)"
                                 : std::string("launch configuration (grid, block)")) +
                      " for " + name + ": declare the trip count with --trip-count");
  }
  const auto& l = *k->launch;
  const double warps = static_cast<double>(k->invocations) *
                       static_cast<double>(l.grid[0] * l.grid[1] * l.grid[2]) *
                       static_cast<double>(warps_of(l.block[0] * l.block[1] * l.block[2]));
  std::uint32_t head = 0;
  const double per_warp = executed->second / warps;
  const std::uint64_t n = detail::trip_count_from_executed(f, trips, per_warp, head);
  trips[head] = n;
  char at[16];
  std::snprintf(at, sizeof at, "0x%04x", head);
  std::cerr << "perfgate: the loop at " << at << " runs " << n
            << " times: " << detail::significant(per_warp, 6)
            << " warp instructions executed per warp in " << file << "\n";
}

int run_idg(const idg_options& o) {
  if (o.cubin.empty() == o.sass.empty()) {
    throw usage_error("give one of --cubin BINARY (listed with cuobjdump -sass) and --sass "
                      "LISTING (a saved cuobjdump -sass listing)");
  }
  const std::string source = o.cubin.empty() ? o.sass : o.cubin;
  const std::string listing =
      o.cubin.empty() ? read_text_file(o.sass) : detail::cuobjdump_sass(o.cubin);
  const auto functions = detail::sass_from_listing(listing, source);
  if (functions.empty()) {
    throw input_error(source, "", "no SASS in it (no 'Function :' in cuobjdump -sass's listing)");
  }
  const auto& f = pick_kernel(functions, o, source);
  detail::sass_idg_options options;
  for (const auto& t : o.trip_counts) {
    options.trip_counts.insert(parse_trip_count(t));
  }
  if (!o.trip_counts_file.empty()) {
    read_trip_counts(o.trip_counts_file, options.trip_counts);
  }
  if (!o.profile_file.empty()) {
    trip_count_from_profile(o.profile_file, f, options.trip_counts);
  }
  options.global_latency = o.global_latency == "l2" ? "ldg_chase_l2" : "ldg_chase_dram";
  auto g = detail::idg_from_sass(f, options);
  // Registers and shared memory, for simulate --occupancy auto.
  const std::string usage_source = o.cubin.empty() ? o.res_usage : o.cubin;
  if (!usage_source.empty()) {
    const std::string usage =
        o.cubin.empty() ? read_text_file(o.res_usage) : detail::cuobjdump_resource_usage(o.cubin);
    for (const auto& u : detail::resource_usage_from_listing(usage, usage_source)) {
      if (u.function == f.name && (u.arch.empty() || u.arch == f.arch)) {
        g.resources = u.resources;
      }
    }
    if (!g.resources) {
      std::cerr << "perfgate: " << usage_source << " lists no resource usage of " << f.name
                << " for " << f.arch << ": simulate --occupancy auto will need a number\n";
    }
  }
  if (!o.latencies.empty()) {
    const auto known = pipeline::latencies_from_json(read_text_file(o.latencies), o.latencies);
    std::string missing;
    for (const auto& c : detail::latency_classes(g)) {
      if (known.find(c) == known.end()) {
        missing += (missing.empty() ? "" : ", ") + c;
      }
    }
    if (!missing.empty()) {
      throw input_error(o.latencies, "ops",
                        "no latencies for " + missing + ", which the graph of " + f.name +
                            " needs (perfgate pipeline fit on a sweep with those ops)");
    }
  }
  std::map<std::string, std::size_t> by_pipe;
  for (const auto& e : g.instructions) {
    ++by_pipe[std::string(pipeline::to_string(e.pipe))];
  }
  std::string pipes;
  for (const auto& [pipe, n] : by_pipe) {
    pipes += (pipes.empty() ? "" : ", ") + pipe + " " + std::to_string(n);
  }
  std::cerr << "perfgate: " << cupti::demangle(f.name.c_str()) << " (" << f.arch
            << "): " << g.instructions.size() << " warp instructions on its path (" << pipes
            << "), " << g.trip_counts.size() << " loop" << (g.trip_counts.size() == 1 ? "" : "s")
            << " replicated"
            << (g.resources ? ", " + std::to_string(g.resources->registers_per_thread) +
                                  " registers per thread, " +
                                  std::to_string(g.resources->shared_bytes_per_group) +
                                  " bytes of shared memory per group"
                            : std::string())
            << "\n";
  emit(detail::sass_idg_to_json(g, o.cubin.empty() ? "listing " + o.sass
                                                   : "cuobjdump -sass " + o.cubin),
       o.output);
  return 0;
}
} // namespace

pipeline::occupancy graph_occupancy(const std::string& idg_text, const std::string& file,
                                    std::uint64_t threads_per_group, std::uint64_t dynamic_shared) {
  const nlohmann::json doc = detail::json_fields::parse(idg_text, file);
  const detail::json_fields root(doc, file, "");
  if (!root.has("arch") || !root.has("resources")) {
    throw usage_error("--occupancy auto needs the graph's arch and resources, which `perfgate "
                      "pipeline idg --cubin` (or --res-usage) writes; " +
                      file + " has " + (root.has("arch") ? "no resources" : "no arch"));
  }
  const detail::json_fields res = root.object("resources");
  pipeline::kernel_resources k;
  k.registers_per_thread = static_cast<std::uint32_t>(res.count("registers_per_thread"));
  k.shared_bytes_per_group = res.count("shared_bytes_per_group") + dynamic_shared;
  return pipeline::nvidia_occupancy(root.string("arch"), threads_per_group, k);
}

std::map<std::string, pipeline::launch_estimate, std::less<>>
pipeline_estimates(const std::vector<std::string>& idg_files, const std::string& latencies_file,
                   const profile& p, const device& local) {
  std::map<std::string, pipeline::launch_estimate, std::less<>> out;
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
        cupti::demangle(detail::json_fields(doc, file, "").string("kernel").c_str());
    bool matched = false;
    for (const auto& k : p.kernels) {
      if (!same_kernel(k.name, kernel)) {
        continue;
      }
      matched = true;
      if (!k.launch) {
        std::cerr << "perfgate: " << file << ": " << k.name
                  << " has no launch configuration in the profile (grid, block): the pipeline "
                     "model cannot simulate it\n";
        continue;
      }
      const auto& l = *k.launch;
      const std::uint64_t threads = l.block[0] * l.block[1] * l.block[2];
      const std::uint64_t groups = l.grid[0] * l.grid[1] * l.grid[2];
      const auto occupancy = graph_occupancy(text, file, threads, 0);
      pipeline::sim_config c;
      c.warps_per_group = warps_of(threads);
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
      out[k.name] = e;
    }
    if (!matched) {
      throw usage_error("--idg " + file + ": its kernel " + kernel + " is not in the profile");
    }
  }
  return out;
}

std::string fit_latencies(const latency_fit_request& request) {
  fit_options o;
  o.sweep = request.file;
  o.n = request.n;
  o.device = request.device;
  o.warp_size = request.warp_size;
  return fit_latencies_impl(request.csv_text, o);
}

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
  auto d = std::make_shared<idg_options>();
  auto* idg = cmd->add_subcommand(
      "idg", "A kernel's instruction dependence graph from its SASS (perfgate-idg/1), for "
             "simulate");
  idg->add_option("--cubin", d->cubin,
                  "CUDA binary (cubin, fatbin, object or executable), listed with cuobjdump -sass");
  idg->add_option("--sass", d->sass, "A saved cuobjdump -sass listing instead");
  idg->add_option("--res-usage", d->res_usage,
                  "With --sass: a saved cuobjdump -res-usage listing (registers, shared memory: "
                  "what simulate --occupancy auto needs)");
  idg->add_option("--kernel", d->kernel,
                  "The kernel: mangled or demangled name, or the name without parameters");
  idg->add_option("--arch", d->arch, "sm_NN of the listing (default: the newest in it)");
  idg->add_option("--trip-count", d->trip_counts,
                  "HEAD=N: the loop starting at offset HEAD runs its body N times (repeat per "
                  "loop; a missing one is an error listing the loops)");
  idg->add_option("--trip-counts", d->trip_counts_file,
                  "CSV of trip counts: columns head (the loop's first offset) and trips");
  idg->add_option("--profile", d->profile_file,
                  "A profile of the kernel (ncu, CUPTI) whose executed warp instructions settle "
                  "the trip count of the one loop left without one");
  idg->add_option("--global-latency", d->global_latency,
                  "Latency class of global memory instructions: dram (ldg_chase_dram) or l2 "
                  "(ldg_chase_l2)")
      ->check(CLI::IsMember({"dram", "l2"}))
      ->capture_default_str();
  idg->add_option("--latencies", d->latencies,
                  "perfgate-latencies/1 JSON that must price every latency class of the graph");
  idg->add_option("-o,--output", d->output, "perfgate-idg/1 JSON to write (default stdout)");
  return [o, eq1, f, fit, s, sim, d, idg]() {
    if (idg->parsed()) {
      return run_idg(*d);
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
