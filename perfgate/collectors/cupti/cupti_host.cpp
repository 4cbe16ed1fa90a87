// SPDX-License-Identifier: Apache-2.0
#include "collectors/cupti/cupti_host.hpp"

#include <algorithm>
#include <array>
#include <string_view>

// CUPTI's headers for its types and parameter structs; the command calls no function of it
// directly (the functions come from util/cupti_library.hpp).
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>

#ifndef PERFGATE_CUPTI_LINKED
#include "util/cupti_library.hpp"
#include "util/runtime_library.hpp"
#endif

namespace perfgate::cupti {

namespace {

#ifdef PERFGATE_CUPTI_LINKED
// The injection library: libcupti is linked, its functions are called as they are.
#define PERFGATE_CUPTI_FN(fn) (&::fn)
bool library_loaded() { return true; }
#else
// The command: libcupti is loaded once, at the first call that needs it. The soname and the
// toolkit folder come from the build (perfgate/CMakeLists.txt).
const detail::runtime_library& library() {
  static const detail::runtime_library lib(
      detail::cupti_library_candidates(PERFGATE_CUPTI_SONAME, PERFGATE_CUPTI_BUILT_DIR,
                                       [](const char* name) { return std::getenv(name); }));
  return lib;
}
bool library_loaded() { return library().loaded(); }

/// CUPTI's function `name` as the type its header declares; cupti_unavailable without it.
template <class F> F loaded(const char* name) {
  require_library();
  const auto f = library().symbol<F>(name);
  if (f == nullptr) {
    throw cupti_unavailable(library().path() + " has no function " + name +
                            ": perfgate needs CUPTI's Profiler Host API (CUDA 12.6 or later)");
  }
  return f;
}
#define PERFGATE_CUPTI_FN(fn) loaded<decltype(&::fn)>(#fn)
#endif

/// Calls CUPTI's `fn` (linked or loaded) on `params`; throws cupti_failure naming `fn`.
#define PERFGATE_CUPTI_HOST_CALL(fn, params) check(PERFGATE_CUPTI_FN(fn)(&(params)), #fn)

} // namespace

void require_library() {
#ifndef PERFGATE_CUPTI_LINKED
  if (!library().loaded()) {
    throw cupti_unavailable(detail::cupti_missing_message(PERFGATE_CUPTI_SONAME, library()));
  }
#endif
}

std::string library_path() {
#ifdef PERFGATE_CUPTI_LINKED
  return {};
#else
  return library().path();
#endif
}

std::string result_text(int code) {
  const char* text = nullptr;
  if (!library_loaded() ||
      PERFGATE_CUPTI_FN(cuptiGetResultString)(static_cast<CUptiResult>(code), &text) !=
          CUPTI_SUCCESS ||
      text == nullptr) {
    return "CUPTI result " + std::to_string(code);
  }
  return std::string(text) + " (" + std::to_string(code) + ")";
}

cupti_failure::cupti_failure(std::string call, int code)
    : std::runtime_error(call + " failed: " + result_text(code)), m_call(std::move(call)),
      m_code(code) {}

std::vector<const char*> c_strings(const std::vector<std::string>& names) {
  std::vector<const char*> out;
  out.reserve(names.size());
  for (const auto& n : names) {
    out.push_back(n.c_str());
  }
  return out;
}

std::vector<std::string> supported_chips() {
  auto p = PERFGATE_CUPTI_PARAMS(CUpti_Profiler_Host_GetSupportedChips_Params);
  PERFGATE_CUPTI_HOST_CALL(cuptiProfilerHostGetSupportedChips, p);
  std::vector<std::string> chips;
  for (std::size_t i = 0; i < p.numChips; ++i) {
    chips.emplace_back(p.ppChipNames[i]);
  }
  return chips;
}

host_object::host_object(const std::string& chip,
                         const std::vector<std::uint8_t>& counter_availability)
    : m_chip(chip) {
  auto p = PERFGATE_CUPTI_PARAMS(CUpti_Profiler_Host_Initialize_Params);
  p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  p.pChipName = m_chip.c_str();
  p.pCounterAvailabilityImage =
      counter_availability.empty() ? nullptr : counter_availability.data();
  PERFGATE_CUPTI_HOST_CALL(cuptiProfilerHostInitialize, p);
  m_object = p.pHostObject;
}

host_object::~host_object() {
  if (m_object != nullptr) {
    auto p = on_object(PERFGATE_CUPTI_PARAMS(CUpti_Profiler_Host_Deinitialize_Params));
    (void)PERFGATE_CUPTI_FN(cuptiProfilerHostDeinitialize)(&p);
  }
}

bool host_object::metric_valid(const std::string& metric) {
  static constexpr std::array<std::string_view, 4> rollups = {".sum", ".avg", ".min", ".max"};
  const bool has_rollup = std::any_of(rollups.begin(), rollups.end(), [&](std::string_view r) {
    return metric.find(r) != std::string::npos;
  });
  if (!has_rollup) {
    return false;
  }
  auto p = on_object(PERFGATE_CUPTI_PARAMS(CUpti_Profiler_Host_GetMetricProperties_Params));
  p.pMetricName = metric.c_str();
  return PERFGATE_CUPTI_FN(cuptiProfilerHostGetMetricProperties)(&p) == CUPTI_SUCCESS;
}

std::vector<std::uint8_t> host_object::config_image(const std::vector<std::string>& metrics) {
  auto names = c_strings(metrics);
  auto add = on_object(PERFGATE_CUPTI_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params));
  add.ppMetricNames = names.data();
  add.numMetrics = names.size();
  PERFGATE_CUPTI_HOST_CALL(cuptiProfilerHostConfigAddMetrics, add);

  auto size = on_object(PERFGATE_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params));
  PERFGATE_CUPTI_HOST_CALL(cuptiProfilerHostGetConfigImageSize, size);
  std::vector<std::uint8_t> image(size.configImageSize);
  auto get = on_object(PERFGATE_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImage_Params));
  get.configImageSize = image.size();
  get.pConfigImage = image.data();
  PERFGATE_CUPTI_HOST_CALL(cuptiProfilerHostGetConfigImage, get);
  return image;
}

std::vector<double> host_object::evaluate(const std::vector<std::uint8_t>& counter_data,
                                          std::size_t range_index,
                                          const std::vector<std::string>& metrics) {
  auto names = c_strings(metrics);
  std::vector<double> values(metrics.size(), 0.0);
  auto p = on_object(PERFGATE_CUPTI_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params));
  p.pCounterDataImage = counter_data.data();
  p.counterDataImageSize = counter_data.size();
  p.rangeIndex = range_index;
  p.ppMetricNames = names.data();
  p.numMetrics = names.size();
  p.pMetricValues = values.data();
  PERFGATE_CUPTI_HOST_CALL(cuptiProfilerHostEvaluateToGpuValues, p);
  return values;
}

std::size_t passes(const std::vector<std::uint8_t>& config_image) {
  // CUPTI takes a non-const pointer but only reads the image.
  std::vector<std::uint8_t> copy = config_image;
  auto p = PERFGATE_CUPTI_PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params);
  p.configImageSize = copy.size();
  p.pConfigImage = copy.data();
  PERFGATE_CUPTI_HOST_CALL(cuptiProfilerHostGetNumOfPasses, p);
  return p.numOfPasses;
}

std::string chip_of_device(std::uint32_t device_index) {
  static bool initialised = false;
  if (!initialised) {
    auto init = PERFGATE_CUPTI_PARAMS(CUpti_Profiler_Initialize_Params);
    PERFGATE_CUPTI_HOST_CALL(cuptiProfilerInitialize, init);
    initialised = true;
  }
  auto p = PERFGATE_CUPTI_PARAMS(CUpti_Device_GetChipName_Params);
  p.deviceIndex = device_index;
  PERFGATE_CUPTI_HOST_CALL(cuptiDeviceGetChipName, p);
  return p.pChipName;
}

} // namespace perfgate::cupti
