// SPDX-License-Identifier: Apache-2.0
#include "decide/collect.hpp"

#include <perfgate/error.hpp>

#include "collectors/collectors.hpp"
#include "collectors/nvbench_collector.hpp"
#include "decide/stopping_rule.hpp"
#include "util/number_format.hpp"

#include <algorithm>
#include <chrono>
#include <iostream>

namespace perfgate::decide {

// --flush-l2 against the collector chosen: only CUPTI's timing run can flush before a launch.
void check_flush_l2(bool flush_l2, const std::string& collector) {
  if (flush_l2 && collector != "cupti" && collector != "auto") {
    throw usage_error("--flush-l2 is for the cupti collector, not " + collector +
                      ": ncu flushes every cache before each replay already (its "
                      "--cache-control all), nvbench before every cold sample; rocprof, gbench "
                      "and recorded profiles cannot");
  }
}

std::string resolved_collector(const std::string& collector,
                               const std::vector<std::string>& program) {
  if (collector != "auto") {
    return collector;
  }
  if (program.empty()) {
    return "cupti"; // collect_program refuses a missing program with its own message
  }
  return detail::choose_collector(program.front(), detail::program_facts_of(program.front()),
                                  detail::machine_facts_here());
}

namespace {

// Adaptive repetitions (--target-ci): rounds of at least 6 repetitions (the fewest whose median
// has a 95% interval), each of the whole time a benchmark measures, until every benchmark's
// median interval lies within +- target of its median, by the one stopping rule (its budget:
// --time-budget). One line a round on stderr: how many are settled, and the widest.
profile collect_gbench_to_precision(detail::collect_request request, double target,
                                    double budget_s) {
  using clock = std::chrono::steady_clock;
  request.repetitions = std::max(request.repetitions, 6);
  request.split_min_time = false; // the precision asked for, not the plain run's cost
  stopping_rule rule({1, 1000, budget_s, 1});
  auto started = clock::now();
  profile p = detail::collect_gbench(request);
  rule.add_run(std::chrono::duration<double>(clock::now() - started).count());
  for (;;) {
    std::vector<std::string> open;
    std::string widest;
    double widest_w = 0;
    for (const auto& k : p.kernels) {
      const double w = k.duration ? detail::median_half_width(k.duration->samples_s) : 0;
      if (w > target && k.duration->samples < 1000) {
        open.push_back(k.name);
      }
      if (w >= widest_w) {
        widest_w = w;
        widest = k.name;
      }
    }
    std::cerr << "perfgate: gbench round " << rule.runs() << ": " << p.kernels.size() - open.size()
              << " of " << p.kernels.size()
              << " benchmark(s) with the median's 95% interval within +-"
              << detail::percent(target, 1) << "; widest " << widest << " +-"
              << detail::percent(widest_w, 1) << " (" << static_cast<int>(rule.spent_s())
              << " s of " << static_cast<int>(budget_s) << " s)\n";
    const auto stop = rule.finished(open.size());
    if (stop == stop_reason::budget_spent || stop == stop_reason::runs_spent) {
      std::cerr << "perfgate: gbench: the time budget ends before another round; " << open.size()
                << " benchmark(s) stay wider than the target\n";
    }
    if (stop) {
      return p;
    }
    request.only_benchmarks = open;
    started = clock::now();
    detail::add_repetitions(p, detail::collect_gbench(request));
    rule.add_run(std::chrono::duration<double>(clock::now() - started).count());
  }
}

} // namespace

profile collect_program(const program_collection& c) {
  detail::collect_request request;
  request.program = c.program;
  request.timeout_s = c.timeout_s;
  request.repetitions = c.repetitions;
  request.kernel_regex = c.kernels;
  request.flush_l2 = c.flush_l2;
  request.only_benchmarks = c.only_benchmarks;
  request.counter_runs = c.counter_runs;
  request.counter_cache_dir = c.counter_cache_dir;
  if (c.program.empty()) {
    throw usage_error("no program to run: give it after --, e.g. perfgate run ... -- ./bench");
  }
  const std::string collector = resolved_collector(c.collector, c.program);
  check_flush_l2(c.flush_l2, collector);
  if (c.target_ci && collector != "gbench") {
    throw usage_error("--target-ci: adaptive repetitions are for Google Benchmark binaries "
                      "(the gbench collector); the " +
                      collector + " collector records every launch the program makes");
  }
  if (collector == "gbench") {
    return c.target_ci ? collect_gbench_to_precision(request, *c.target_ci, c.time_budget_s)
                       : detail::collect_gbench(request);
  }
  if (collector == "nvbench") {
    return detail::collect_nvbench(request); // its own cold times: no warm-up launch to drop
  }
  profile p = collector == "ncu"
                  ? detail::collect_ncu_runs(request, detail::ncu_metrics_for_local_gpu())
              : collector == "cupti" ? detail::collect_cupti(request)
                                     : detail::collect_rocprof(request);
  if (!c.keep_warm_up) {
    if (const std::size_t n = detail::leave_out_first_launch(p); n > 0) {
      std::cerr << "perfgate: the first launch of " << n << " kernel" << (n == 1 ? "" : "s")
                << " launched more than once is left out (warm-up; --keep-warm-up keeps it)\n";
    }
  }
  return p;
}

} // namespace perfgate::decide
