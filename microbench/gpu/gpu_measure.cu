// SPDX-License-Identifier: Apache-2.0
#include "gpu_measure.hpp"

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace perfgate::microbench::gpu {

void check(pgpu::error e, const char* what) {
  if (e != pgpu::success)
    throw gpu_failure(std::string(pgpu::runtime_name) + " error: " + what +
                      " failed: " + pgpu::error_name(e) + ": " + pgpu::error_string(e));
}

namespace {
constexpr int probe_words = 3; // per block: SM id, cycle counter, nanoseconds

__global__ void clock_probe_kernel(unsigned long long* out) {
  if (threadIdx.x != 0)
    return;
  unsigned long long* mine = out + probe_words * blockIdx.x;
#if PGPU_CUDA
  unsigned smid = 0;
  unsigned long long ns = 0;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  const long long cycles = clock64();
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
  mine[0] = smid;
  mine[1] = static_cast<unsigned long long>(cycles);
  mine[2] = ns;
#else
  mine[0] = mine[1] = mine[2] = 0; // no reading: after() reports nothing
#endif
}
} // namespace

clock_probe::clock_probe(int cus)
    : reads_(sizeof(unsigned long long) * probe_words * 2 * 4 * static_cast<std::size_t>(cus)),
      blocks_(4 * cus) {} // four blocks a compute unit: every SM is read, most of them twice

void clock_probe::before() {
  clock_probe_kernel<<<blocks_, 32>>>(reads_.as<unsigned long long>());
  PG_LAUNCH_CHECK();
}

std::optional<double> clock_probe::after() {
  clock_probe_kernel<<<blocks_, 32>>>(reads_.as<unsigned long long>() + probe_words * blocks_);
  PG_LAUNCH_CHECK();
  std::vector<unsigned long long> h(static_cast<std::size_t>(probe_words) * 2 * blocks_);
  PG_CHECK(pgpu::memcpy_to_host(h.data(), reads_.as<void>(), h.size() * sizeof h[0]));
  if (!PGPU_CUDA)
    return std::nullopt;
  // Per SM: its first reading of each pass (SM ids are small integers).
  std::vector<std::pair<const unsigned long long*, const unsigned long long*>> sm(1024);
  for (int pass = 0; pass < 2; ++pass)
    for (int b = 0; b < blocks_; ++b) {
      const unsigned long long* r = h.data() + probe_words * (pass * blocks_ + b);
      if (r[0] >= sm.size())
        continue;
      auto& slot = pass == 0 ? sm[r[0]].first : sm[r[0]].second;
      if (slot == nullptr)
        slot = r;
    }
  std::vector<double> mhz;
  for (const auto& [a, b] : sm)
    if (a != nullptr && b != nullptr && b[2] > a[2] && b[1] > a[1])
      mhz.push_back(static_cast<double>(b[1] - a[1]) * 1e3 / static_cast<double>(b[2] - a[2]));
  if (mhz.empty())
    return std::nullopt;
  std::nth_element(mhz.begin(), mhz.begin() + static_cast<std::ptrdiff_t>(mhz.size() / 2),
                   mhz.end());
  return mhz[mhz.size() / 2];
}

event_timer::event_timer(int cus) {
  PG_CHECK(pgpu::event_create(&start_));
  PG_CHECK(pgpu::event_create(&stop_));
  if (cus > 0 && PGPU_CUDA)
    probe_.emplace(cus);
}

event_timer::~event_timer() {
  (void)pgpu::event_destroy(start_);
  (void)pgpu::event_destroy(stop_);
}

double event_timer::time_ms(const std::function<void()>& work) {
  // The probe's reads lie outside the event pair: they never count in the time.
  if (probe_)
    probe_->before();
  PG_CHECK(pgpu::event_record(start_));
  work();
  PG_CHECK(pgpu::event_record(stop_));
  PG_CHECK(pgpu::event_synchronize(stop_));
  float ms = 0.0f;
  PG_CHECK(pgpu::event_elapsed_ms(&ms, start_, stop_));
  last_clock_mhz_ = probe_ ? probe_->after() : std::nullopt;
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

  std::vector<double> rates, times, clocks;
  for (int r = 0; r < plan.reps; ++r) {
    prepare();
    const double ms = timer.time_ms([&] { launch(p); });
    times.push_back(ms);
    clocks.push_back(timer.last_clock_mhz().value_or(NAN));
    rates.push_back(work_per_p * static_cast<double>(p) / (std::max(ms, 1e-6) * 1e6));
  }
  stats s;
  s.reps = plan.reps;
  const auto best = std::max_element(rates.begin(), rates.end());
  s.best = *best;
  s.best_ms = times[static_cast<std::size_t>(best - rates.begin())];
  s.best_clock_mhz = clocks[static_cast<std::size_t>(best - rates.begin())];
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
