// SPDX-License-Identifier: Apache-2.0
// The counter run on one CUDA context: CUPTI's Range Profiler with auto ranges (each kernel
// launch is a range) and kernel replay (each kernel is replayed once per pass, so a kernel's
// counters never mix with another's). Launches are named through the launch callbacks, in
// order: auto ranges are numbered in launch order because the profiler serialises launches.
// When the counter-data image is full, the session decodes it, attributes the ranges and
// starts over, so a program may launch any number of kernels.
#pragma once

#include "collectors/cupti/cupti_host.hpp"
#include "collectors/cupti/kernel_book.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <cuda.h>

struct CUpti_RangeProfiler_Object;

namespace perfgate::cupti {

class range_session {
public:
  /// Sets the profiler up on `ctx` (a target-side call: only with a live device) and starts it.
  /// Throws cupti_failure; CUPTI_ERROR_INSUFFICIENT_PRIVILEGES means no counter permission.
  range_session(CUcontext ctx, const std::string& chip, const std::vector<std::string>& metrics,
                std::size_t ranges_per_batch, kernel_book& book);
  ~range_session();
  range_session(const range_session&) = delete;
  range_session& operator=(const range_session&) = delete;

  /// Called before each launch on this context with the kernel's (mangled) name.
  void before_launch(const char* symbol);
  /// Decode what is left and disable the profiler. Idempotent.
  void finish();

  [[nodiscard]] std::uint64_t ranges_dropped() const { return m_dropped; }

private:
  /// `params` of a call on this session's Range Profiler object.
  template <class Params> [[nodiscard]] Params on_object(Params params) const {
    params.pRangeProfilerObject = m_object;
    return params;
  }
  void initialize_counter_data();
  void start();
  void decode_and_attribute();

  CUcontext m_ctx;
  std::vector<std::string> m_metrics;
  std::size_t m_batch;
  kernel_book& m_book;
  std::unique_ptr<host_object> m_host;
  std::vector<std::uint8_t> m_config;
  std::vector<std::uint8_t> m_counter_data;
  CUpti_RangeProfiler_Object* m_object = nullptr;
  std::vector<std::string> m_pending; ///< kernels launched since the last decode, in order
  bool m_running = false;
  std::uint64_t m_dropped = 0;
};

/// The counter-availability image of the device behind `ctx` (target side).
[[nodiscard]] std::vector<std::uint8_t> counter_availability(CUcontext ctx);

} // namespace perfgate::cupti
