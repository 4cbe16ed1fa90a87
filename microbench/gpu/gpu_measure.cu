// SPDX-License-Identifier: Apache-2.0
#include "gpu_measure.hpp"

#include <vector>

namespace perfgate::microbench::gpu {

void check(pgpu::error e, const char* what) {
  if (e != pgpu::success)
    throw gpu_failure(std::string(pgpu::runtime_name) + " error: " + what +
                      " failed: " + pgpu::error_name(e) + ": " + pgpu::error_string(e));
}

event_timer::event_timer() {
  PG_CHECK(pgpu::event_create(&start_));
  PG_CHECK(pgpu::event_create(&stop_));
}

event_timer::~event_timer() {
  (void)pgpu::event_destroy(start_);
  (void)pgpu::event_destroy(stop_);
}

double event_timer::time_ms(const std::function<void()>& work) {
  PG_CHECK(pgpu::event_record(start_));
  work();
  PG_CHECK(pgpu::event_record(stop_));
  PG_CHECK(pgpu::event_synchronize(stop_));
  float ms = 0.0f;
  PG_CHECK(pgpu::event_elapsed_ms(&ms, start_, stop_));
  return static_cast<double>(ms);
}

stats measure(event_timer& timer, const plan& plan, const std::function<void(long long)>& launch,
              double work_per_p, long long p0, long long p_max, const std::function<void()>& before,
              long long* p_out) {
  auto prepare = [&] {
    if (before)
      before();
  };
  prepare();
  launch(p0); // first launch: module load, page mapping
  PG_CHECK(pgpu::device_synchronize());
  prepare();
  const double t0 = std::max(timer.time_ms([&] { launch(p0); }), 1e-3);
  const double scaled = static_cast<double>(p0) * plan.target_ms / t0;
  const long long p = std::clamp(static_cast<long long>(std::llround(scaled)), 1LL, p_max);
  prepare();
  launch(p); // warm-up at the final size (lets the clocks settle)
  PG_CHECK(pgpu::device_synchronize());

  std::vector<double> rates, times;
  for (int r = 0; r < plan.reps; ++r) {
    prepare();
    const double ms = timer.time_ms([&] { launch(p); });
    times.push_back(ms);
    rates.push_back(work_per_p * static_cast<double>(p) / (std::max(ms, 1e-6) * 1e6));
  }
  stats s;
  s.reps = plan.reps;
  const auto best = std::max_element(rates.begin(), rates.end());
  s.best = *best;
  s.best_ms = times[static_cast<std::size_t>(best - rates.begin())];
  std::vector<double> sorted = rates;
  std::sort(sorted.begin(), sorted.end());
  s.min = sorted.front();
  s.max = sorted.back();
  const std::size_t h = sorted.size() / 2;
  s.median = sorted.size() % 2 ? sorted[h] : 0.5 * (sorted[h - 1] + sorted[h]);
  if (p_out)
    *p_out = p;
  return s;
}

} // namespace perfgate::microbench::gpu
