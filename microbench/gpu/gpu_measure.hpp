// SPDX-License-Identifier: Apache-2.0
// What every GPU micro-benchmark shares: the kernel shape, runtime-error checks, device buffers,
// the event timer and measure(), which sizes a kernel to a target run time and times it.
#pragma once

#include "gpu_compat.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

namespace perfgate::microbench::gpu {

inline constexpr int block_threads = 256; // a multiple of both warp sizes (32, 64)
inline constexpr int chains = 8;          // independent chains per thread in the compute kernels
inline constexpr std::size_t mib = std::size_t{1} << 20;

/// A runtime error during a run; main() reports it with the benchmark it stopped.
struct gpu_failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Throws gpu_failure naming `what` unless e is success.
void check(pgpu::error e, const char* what);
#define PG_CHECK(expr) check((expr), #expr)
#define PG_LAUNCH_CHECK() check(pgpu::get_last_error(), "kernel launch")

class device_buffer {
public:
  device_buffer() = default;
  explicit device_buffer(std::size_t bytes) : bytes_(bytes) {
    PG_CHECK(pgpu::device_malloc(&ptr_, bytes));
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  device_buffer(device_buffer&& o) noexcept : ptr_(o.ptr_), bytes_(o.bytes_) { o.ptr_ = nullptr; }
  device_buffer& operator=(device_buffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }
  ~device_buffer() {
    if (ptr_)
      (void)pgpu::device_free(ptr_);
  }
  template <class T> T* as() const { return static_cast<T*>(ptr_); }

private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

struct stats {
  int reps = 0;
  double best = NAN, median = NAN, min = NAN, max = NAN;
  double best_ms = NAN;       // duration of the best run
  double best_clock_mhz = NAN; // the SM clock the best run ran at (NaN: not measurable here)
};

/// One entry of the JSON "results"; rates are in 1e9 units per second.
struct result {
  std::string key;
  std::optional<gpu::stats> stats; // empty: not measurable on this device (values are null)
  long long threads = 0;
  std::string note;
};

struct plan {
  bool quick = false;
  double target_ms = 20.0; // length of one timed run
  int reps = 10;
};

struct device {
  int index = 0;
  pgpu::device_prop prop{};
  int cus = 1;
  std::size_t l2 = 0;
};

// The SM clock a piece of GPU work ran at: just before and just after it, a tiny kernel reads
// every SM's cycle counter (clock64) with the GPU's nanosecond timer (%globaltimer); per SM,
// cycles over nanoseconds, the median over the SMs read both times. Under a power cap the clock
// moves during tensor work, below what the driver reports before and after the run, so a peak
// is stored with the clock it was measured at. CUDA only: HIP has no documented rate for its
// constant-rate counter in the ROCm this builds with, so there it measures nothing.
class clock_probe {
public:
  explicit clock_probe(int cus);
  void before();                 // enqueue the first read (on the default stream)
  std::optional<double> after(); // the second read; the clock in MHz in between
private:
  device_buffer reads_;
  int blocks_ = 0;
};

class event_timer {
public:
  explicit event_timer(int cus = 0); // cus > 0: each timed piece of work gets its SM clock
  event_timer(const event_timer&) = delete;
  event_timer& operator=(const event_timer&) = delete;
  ~event_timer();
  double time_ms(const std::function<void()>& work);
  // The SM clock of the last time_ms (MHz); empty without a probe or a plausible reading.
  std::optional<double> last_clock_mhz() const { return last_clock_mhz_; }

private:
  pgpu::event start_{}, stop_{};
  std::optional<clock_probe> probe_;
  std::optional<double> last_clock_mhz_;
};

/// What a benchmark runner needs: the device, the plan of this run and the one event timer.
struct bench {
  const device& dev;
  const plan& p;
  event_timer& timer;
};

// Calibrates the size parameter p of `launch` (iterations or passes; the work is proportional
// to p) so that one run lasts plan.target_ms, warms up at that size, then times plan.reps runs.
// work_per_p: units of work per unit of p; rates are in 1e9 units per second.
stats measure(event_timer& timer, const plan& plan, const std::function<void(long long)>& launch,
              double work_per_p, long long p0, long long p_max,
              const std::function<void()>& before = {}, long long* p_out = nullptr);

/// Blocks of block_threads that fill every compute unit at the kernel's full occupancy.
template <class Kernel> int blocks_for(Kernel k, int cus) {
  int per_cu = 0;
  PG_CHECK(pgpu::occupancy_blocks_per_cu(&per_cu, k, block_threads, 0));
  return std::max(per_cu, 1) * std::max(cus, 1);
}

} // namespace perfgate::microbench::gpu
