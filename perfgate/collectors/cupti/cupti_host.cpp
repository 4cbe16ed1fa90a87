// SPDX-License-Identifier: Apache-2.0
#include "cupti_host.hpp"

#include <algorithm>
#include <array>
#include <string_view>

#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>

namespace perfgate::cupti {

std::string result_text(int code) {
  const char* text = nullptr;
  if (cuptiGetResultString(static_cast<CUptiResult>(code), &text) != CUPTI_SUCCESS ||
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
  auto p = make_params<CUpti_Profiler_Host_GetSupportedChips_Params>(
      CUpti_Profiler_Host_GetSupportedChips_Params_STRUCT_SIZE);
  check(cuptiProfilerHostGetSupportedChips(&p), "cuptiProfilerHostGetSupportedChips");
  std::vector<std::string> chips;
  for (std::size_t i = 0; i < p.numChips; ++i) {
    chips.emplace_back(p.ppChipNames[i]);
  }
  return chips;
}

host_object::host_object(const std::string& chip,
                         const std::vector<std::uint8_t>& counter_availability)
    : m_chip(chip) {
  auto p = make_params<CUpti_Profiler_Host_Initialize_Params>(
      CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
  p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  p.pChipName = m_chip.c_str();
  p.pCounterAvailabilityImage =
      counter_availability.empty() ? nullptr : counter_availability.data();
  check(cuptiProfilerHostInitialize(&p), "cuptiProfilerHostInitialize");
  m_object = p.pHostObject;
}

host_object::~host_object() {
  if (m_object != nullptr) {
    auto p = make_params<CUpti_Profiler_Host_Deinitialize_Params>(
        CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
    p.pHostObject = m_object;
    (void)cuptiProfilerHostDeinitialize(&p);
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
  auto p = make_params<CUpti_Profiler_Host_GetMetricProperties_Params>(
      CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE);
  p.pHostObject = m_object;
  p.pMetricName = metric.c_str();
  return cuptiProfilerHostGetMetricProperties(&p) == CUPTI_SUCCESS;
}

std::vector<std::uint8_t> host_object::config_image(const std::vector<std::string>& metrics) {
  auto names = c_strings(metrics);
  auto add = make_params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(
      CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
  add.pHostObject = m_object;
  add.ppMetricNames = names.data();
  add.numMetrics = names.size();
  check(cuptiProfilerHostConfigAddMetrics(&add), "cuptiProfilerHostConfigAddMetrics");

  auto size = make_params<CUpti_Profiler_Host_GetConfigImageSize_Params>(
      CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
  size.pHostObject = m_object;
  check(cuptiProfilerHostGetConfigImageSize(&size), "cuptiProfilerHostGetConfigImageSize");
  std::vector<std::uint8_t> image(size.configImageSize);
  auto get = make_params<CUpti_Profiler_Host_GetConfigImage_Params>(
      CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
  get.pHostObject = m_object;
  get.configImageSize = image.size();
  get.pConfigImage = image.data();
  check(cuptiProfilerHostGetConfigImage(&get), "cuptiProfilerHostGetConfigImage");
  return image;
}

std::vector<double> host_object::evaluate(const std::vector<std::uint8_t>& counter_data,
                                          std::size_t range_index,
                                          const std::vector<std::string>& metrics) {
  auto names = c_strings(metrics);
  std::vector<double> values(metrics.size(), 0.0);
  auto p = make_params<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(
      CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
  p.pHostObject = m_object;
  p.pCounterDataImage = counter_data.data();
  p.counterDataImageSize = counter_data.size();
  p.rangeIndex = range_index;
  p.ppMetricNames = names.data();
  p.numMetrics = names.size();
  p.pMetricValues = values.data();
  check(cuptiProfilerHostEvaluateToGpuValues(&p), "cuptiProfilerHostEvaluateToGpuValues");
  return values;
}

std::size_t passes(const std::vector<std::uint8_t>& config_image) {
  // CUPTI takes a non-const pointer but only reads the image.
  std::vector<std::uint8_t> copy = config_image;
  auto p = make_params<CUpti_Profiler_Host_GetNumOfPasses_Params>(
      CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
  p.configImageSize = copy.size();
  p.pConfigImage = copy.data();
  check(cuptiProfilerHostGetNumOfPasses(&p), "cuptiProfilerHostGetNumOfPasses");
  return p.numOfPasses;
}

std::string chip_of_device(std::uint32_t device_index) {
  static bool initialised = false;
  if (!initialised) {
    auto init =
        make_params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
    check(cuptiProfilerInitialize(&init), "cuptiProfilerInitialize");
    initialised = true;
  }
  auto p =
      make_params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
  p.deviceIndex = device_index;
  check(cuptiDeviceGetChipName(&p), "cuptiDeviceGetChipName");
  return p.pChipName;
}

} // namespace perfgate::cupti
