// SPDX-License-Identifier: Apache-2.0
// perfgate pipeline eq1 --lambda L --Lambda LL --n N --warps W1..W2 [--theta T]
//                       [--format text|json]: the pipeline model's Eq. 1 over a warp sweep, with
// each point's utilisation and class (MODEL.md section 5).
#include <perfgate/error.hpp>
#include <perfgate/pipeline.hpp>
#include <perfgate/version.hpp>

#include "cli/commands.hpp"
#include "util/number_format.hpp"
#include "util/table.hpp"

#include <nlohmann/json.hpp>

#include <charconv>
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
  t.header = {"warps", "cycles", "utilisation", "class"};
  t.right_aligned = {true, true, true, false};
  for (std::uint64_t w = lo; w <= hi; ++w) {
    const double cycles = pipeline::eq1_cycles(l, o.n, w);
    // The pipeline is busy N W lambda cycles of them.
    const double u = static_cast<double>(o.n) * static_cast<double>(w) * l.issue / cycles;
    const char* cls = u < o.theta ? "latency" : "throughput";
    rows.push_back({{"warps", w}, {"cycles", cycles}, {"utilisation", u}, {"bound", cls}});
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
  return [o, eq1]() {
    if (eq1->parsed()) {
      return run_eq1(*o);
    }
    return static_cast<int>(exit_status::input_error);
  };
}

} // namespace perfgate::cli
