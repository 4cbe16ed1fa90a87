// SPDX-License-Identifier: Apache-2.0
#include "decide/collect.hpp"

#include <perfgate/error.hpp>

#include "collectors/collectors.hpp"
#include "collectors/nvbench_collector.hpp"

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

profile collect_program(const program_collection& c) {
  detail::collect_request request;
  request.program = c.program;
  request.timeout_s = c.timeout_s;
  request.repetitions = c.repetitions;
  request.kernel_regex = c.kernels;
  request.target_ci = c.target_ci;
  request.flush_l2 = c.flush_l2;
  request.time_budget_s = c.time_budget_s;
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
    return detail::collect_gbench(request);
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
